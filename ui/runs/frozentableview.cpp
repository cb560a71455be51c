#include "ui/runs/frozentableview.h"

#include <QHeaderView>
#include <QScrollBar>

namespace trainyard {

FrozenTableView::FrozenTableView(int frozenColumns, QWidget *parent)
    : QTableView(parent)
    , m_columns(frozenColumns)
    , m_frozen(new QTableView(this))
{
    m_frozen->setObjectName(QStringLiteral("frozenColumns"));
    m_frozen->setFocusPolicy(Qt::NoFocus);
    m_frozen->verticalHeader()->hide();
    m_frozen->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_frozen->horizontalHeader()->setSectionsClickable(true);
    m_frozen->horizontalHeader()->setSortIndicatorShown(true);
    m_frozen->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_frozen->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_frozen->setWordWrap(false);
    m_frozen->setVerticalScrollMode(ScrollPerPixel);
    // A line between the frozen columns and those that scroll under them.
    m_frozen->setFrameShape(QFrame::NoFrame);
    m_frozen->setStyleSheet(QStringLiteral("QTableView { border-right: 1px solid palette(mid); }"));
    viewport()->stackUnder(m_frozen);
    setVerticalScrollMode(ScrollPerPixel);
    setHorizontalScrollMode(ScrollPerPixel);

    connect(horizontalHeader(), &QHeaderView::sectionResized, this, [this](int logical, int, int size) {
        if (logical < m_columns) {
            m_frozen->setColumnHidden(logical, isColumnHidden(logical));
            if (size > 0) {
                m_frozen->setColumnWidth(logical, size);
            }
            updateFrozenGeometry();
        }
    });
    connect(verticalHeader(), &QHeaderView::sectionResized, this,
            [this](int logical, int, int size) { m_frozen->setRowHeight(logical, size); });
    connect(m_frozen->verticalScrollBar(), &QAbstractSlider::valueChanged, verticalScrollBar(),
            &QAbstractSlider::setValue);
    connect(verticalScrollBar(), &QAbstractSlider::valueChanged, m_frozen->verticalScrollBar(),
            &QAbstractSlider::setValue);
    // Sorting from either header; the frozen one shows the same indicator.
    connect(m_frozen->horizontalHeader(), &QHeaderView::sectionClicked, this, [this](int logical) {
        const bool again = horizontalHeader()->sortIndicatorSection() == logical
                           && horizontalHeader()->sortIndicatorOrder() == Qt::AscendingOrder;
        sortByColumn(logical, again ? Qt::DescendingOrder : Qt::AscendingOrder);
    });
    connect(horizontalHeader(), &QHeaderView::sortIndicatorChanged, this, [this](int logical, Qt::SortOrder order) {
        const QSignalBlocker blocker(m_frozen->horizontalHeader());
        m_frozen->horizontalHeader()->setSortIndicator(logical, order);
    });
    connect(m_frozen, &QTableView::doubleClicked, this, &QTableView::doubleClicked);
}

void FrozenTableView::setModel(QAbstractItemModel *model)
{
    QTableView::setModel(model);
    m_frozen->setModel(model);
    m_frozen->setSelectionModel(selectionModel());
    connect(model, &QAbstractItemModel::modelReset, this, &FrozenTableView::syncFrozen);
    connect(model, &QAbstractItemModel::columnsInserted, this, &FrozenTableView::syncFrozen);
    syncFrozen();
    m_frozen->show();
}

void FrozenTableView::syncFrozen()
{
    if (!model()) {
        return;
    }
    m_frozen->setSelectionBehavior(selectionBehavior());
    m_frozen->setSelectionMode(selectionMode());
    m_frozen->setAlternatingRowColors(alternatingRowColors());
    for (int c = 0; c < model()->columnCount(); ++c) {
        m_frozen->setColumnHidden(c, c >= m_columns || isColumnHidden(c));
        if (c < m_columns) {
            m_frozen->setColumnWidth(c, columnWidth(c));
        }
    }
    m_frozen->horizontalHeader()->setSortIndicator(horizontalHeader()->sortIndicatorSection(),
                                                   horizontalHeader()->sortIndicatorOrder());
    updateFrozenGeometry();
}

int FrozenTableView::frozenWidth() const
{
    int width = 0;
    for (int c = 0; c < m_columns && model() && c < model()->columnCount(); ++c) {
        width += isColumnHidden(c) ? 0 : columnWidth(c);
    }
    return width;
}

void FrozenTableView::updateFrozenGeometry()
{
    m_frozen->setGeometry(verticalHeader()->width() + frameWidth(), frameWidth(), frozenWidth(),
                          viewport()->height() + horizontalHeader()->height());
    m_frozen->horizontalHeader()->setFixedHeight(horizontalHeader()->height());
}

void FrozenTableView::updateGeometries()
{
    QTableView::updateGeometries();
    updateFrozenGeometry();
}

void FrozenTableView::resizeEvent(QResizeEvent *event)
{
    QTableView::resizeEvent(event);
    updateFrozenGeometry();
}

QModelIndex FrozenTableView::moveCursor(CursorAction cursorAction, Qt::KeyboardModifiers modifiers)
{
    const QModelIndex current = QTableView::moveCursor(cursorAction, modifiers);
    // Moving left onto a column under the frozen ones scrolls it out from under them.
    if (cursorAction == MoveLeft && current.column() >= m_columns
        && visualRect(current).topLeft().x() < frozenWidth()) {
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() + visualRect(current).topLeft().x()
                                        - frozenWidth());
    }
    return current;
}

void FrozenTableView::scrollTo(const QModelIndex &index, ScrollHint hint)
{
    if (index.column() >= m_columns) {
        QTableView::scrollTo(index, hint);
    } else {
        // Only vertically: the frozen columns are always in view.
        const int across = horizontalScrollBar()->value();
        QTableView::scrollTo(index, hint);
        horizontalScrollBar()->setValue(across);
    }
}

} // namespace trainyard
