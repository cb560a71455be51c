#include "ui/board/boardview.h"

#include "ui/board/boardmodel.h"
#include "ui/board/carddelegate.h"
#include "ui/board/dependencyedges.h"
#include "ui/board/laneheader.h"
#include "ui/board/laneview.h"

#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QScrollBar>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace trainyard {

namespace {
// Lanes share the board's width between these: a wide window shows wider
// cards rather than a grey field, a narrow one scrolls sideways.
constexpr int minLaneWidth = 250;
constexpr int maxLaneWidth = 520;
} // namespace

BoardView::BoardView(BoardModel *model, RunColors *colors, QWidget *parent)
    : QScrollArea(parent)
    , m_model(model)
    , m_colors(colors)
    , m_delegate(new CardDelegate(colors, this))
    , m_selection(new QItemSelectionModel(model, this))
    , m_content(new QWidget)
    , m_layout(new QHBoxLayout(m_content))
    , m_edges(new DependencyEdges(this, model, m_content))
{
    setObjectName(QStringLiteral("board"));
    setWidget(m_content);
    setWidgetResizable(true);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_layout->setContentsMargins(4, 4, 4, 4);
    m_layout->setSpacing(6);

    connect(model, &QAbstractItemModel::modelReset, this, &BoardView::rebuild);
    connect(model, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex &parent) {
        if (!parent.isValid()) {
            rebuild();
        }
    });
    connect(model, &QAbstractItemModel::rowsRemoved, this, [this](const QModelIndex &parent) {
        if (!parent.isValid()) {
            rebuild();
        }
    });
    connect(model, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex &topLeft) {
        if (!topLeft.parent().isValid()) {
            for (const Column &c : std::as_const(m_lanes)) {
                c.header->refresh(); // a pool's rows may have come or gone
            }
        } else if (!m_edges->edges().isEmpty()) {
            m_edges->update(); // a card's size or place may have changed
        }
    });
    // A card moved or removed, a run's "after" edited: the edges again.
    connect(model, &QAbstractItemModel::rowsMoved, m_edges, &DependencyEdges::refresh);
    connect(model, &QAbstractItemModel::rowsRemoved, m_edges, &DependencyEdges::refresh);
    connect(model, &QAbstractItemModel::dataChanged, m_edges, [this](const QModelIndex &topLeft) {
        if (topLeft.parent().isValid() && m_selection->isSelected(topLeft)) {
            m_edges->refresh();
        }
    });
    connect(m_selection, &QItemSelectionModel::selectionChanged, this, [this] {
        m_edges->refresh();
        Q_EMIT selectionChanged(selectedRuns());
    });
    rebuild();
}

void BoardView::rebuild()
{
    for (const Column &c : std::as_const(m_lanes)) {
        m_layout->removeWidget(c.widget);
        delete c.widget;
    }
    m_lanes.clear();
    // Drop the stretch left from the previous build.
    while (QLayoutItem *item = m_layout->takeAt(0)) {
        delete item;
    }
    for (int i = 0; i < m_model->rowCount(); ++i) {
        const QModelIndex lane = m_model->index(i, 0);
        auto *column = new QWidget(m_content);
        column->setObjectName(QStringLiteral("lane%1").arg(i));
        column->setMinimumWidth(minLaneWidth);
        column->setMaximumWidth(maxLaneWidth);
        column->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
        auto *layout = new QVBoxLayout(column);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->setSpacing(2);
        auto *header = new LaneHeader(QPersistentModelIndex(lane), m_colors, column);
        auto *view = new LaneView(column);
        view->setModel(m_model);
        view->setSelectionModel(m_selection);
        view->setRootIndex(lane);
        view->setItemDelegate(m_delegate);
        view->setContextMenuPolicy(Qt::CustomContextMenu);
        view->setObjectName(QStringLiteral("laneView%1").arg(i));
        connect(view, &QWidget::customContextMenuRequested, this, [this, view](const QPoint &pos) {
            const QModelIndex index = view->indexAt(pos);
            if (index.isValid() && !m_selection->isSelected(index)) {
                m_selection->select(index, QItemSelectionModel::ClearAndSelect);
            }
            Q_EMIT cardContextMenuRequested(view->viewport()->mapToGlobal(pos));
        });
        connect(view, &QAbstractItemView::activated, this,
                [this](const QModelIndex &index) { Q_EMIT runActivated(m_model->runId(index)); });
        connect(header, &LaneHeader::contextMenuRequested, this, &BoardView::laneContextMenuRequested);
        connect(view->verticalScrollBar(), &QScrollBar::valueChanged, m_edges, qOverload<>(&QWidget::update));
        layout->addWidget(header);
        layout->addWidget(view, 1);
        m_layout->addWidget(column, 1);
        m_lanes.append(Column{column, header, view});
    }
    // Takes only what the lanes leave at their widest.
    m_layout->addStretch(0);
    m_edges->refresh();
}

LaneView *BoardView::laneView(int lane) const
{
    return lane >= 0 && lane < m_lanes.size() ? m_lanes.at(lane).view : nullptr;
}

LaneHeader *BoardView::laneHeader(int lane) const
{
    return lane >= 0 && lane < m_lanes.size() ? m_lanes.at(lane).header : nullptr;
}

QList<RunId> BoardView::selectedRuns() const
{
    // From the selection, which is small, not from every card: this runs on
    // every change of a run, and a sweep puts a thousand cards on the board.
    QModelIndexList selected;
    for (const QModelIndex &index : m_selection->selectedIndexes()) {
        if (index.parent().isValid() && index.column() == 0) {
            selected.append(index);
        }
    }
    // Board order (lane by lane), not click order, so plots and menus are stable.
    std::sort(selected.begin(), selected.end(), [](const QModelIndex &a, const QModelIndex &b) {
        return std::pair(a.parent().row(), a.row()) < std::pair(b.parent().row(), b.row());
    });
    QList<RunId> ids;
    for (const QModelIndex &index : std::as_const(selected)) {
        ids.append(m_model->runId(index));
    }
    return ids;
}

void BoardView::selectRuns(const QList<RunId> &ids)
{
    QItemSelection selection;
    for (RunId id : ids) {
        const QModelIndex index = m_model->runIndex(id);
        if (index.isValid()) {
            selection.select(index, index);
        }
    }
    m_selection->select(selection, QItemSelectionModel::ClearAndSelect);
}

} // namespace trainyard
