#include "ui/palette/modelpalette.h"

#include "ui/palette/modelpalettemodel.h"

#include <QContextMenuEvent>
#include <QHeaderView>
#include <QJsonObject>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QVBoxLayout>

namespace trainyard {

ModelPalette::ModelPalette(ModelPaletteModel *model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
    , m_proxy(new QSortFilterProxyModel(this))
    , m_filter(new QLineEdit(this))
    , m_view(new QTreeView(this))
    , m_problem(new QLabel(this))
{
    m_proxy->setSourceModel(model);
    m_proxy->setRecursiveFilteringEnabled(true);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_filter->setPlaceholderText(tr("Filter models"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);

    m_view->setModel(m_proxy);
    m_view->setHeaderHidden(true);
    m_view->setDragEnabled(true);
    m_view->setDragDropMode(QAbstractItemView::DragOnly);
    m_view->setDefaultDropAction(Qt::CopyAction);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setObjectName(QStringLiteral("modelPaletteView"));
    connect(m_proxy, &QAbstractItemModel::modelReset, m_view, &QTreeView::expandAll);
    m_view->expandAll();
    connect(m_view, &QTreeView::doubleClicked, this, &ModelPalette::queue);
    // The keyboard's way to queue what a drag queues: Return or Space on a
    // model, or its context menu (the Menu key, Shift+F10).
    m_view->installEventFilter(this);
    m_view->viewport()->installEventFilter(this);

    m_problem->setWordWrap(true);
    m_problem->setVisible(false);
    m_problem->setStyleSheet(QStringLiteral("color: #b3261e;"));

    auto *hint = new QLabel(tr("Drag a model onto a lane, or press Return on it, to queue a run."), this);
    hint->setWordWrap(true);
    hint->setEnabled(false);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_filter);
    layout->addWidget(m_problem);
    layout->addWidget(m_view, 1);
    layout->addWidget(hint);
}

bool ModelPalette::queue(const QModelIndex &index)
{
    const QJsonObject spec = index.data(ModelPaletteModel::SpecRole).toJsonObject();
    if (spec.isEmpty()) {
        return false; // a group, or nothing
    }
    Q_EMIT specActivated(spec, index.data(ModelPaletteModel::RepeatRole).toInt());
    return true;
}

bool ModelPalette::queueCurrent()
{
    return queue(m_view->currentIndex());
}

void ModelPalette::showMenu(const QContextMenuEvent *event)
{
    // From the keyboard, the current item's menu; from the mouse, the one under it.
    const QModelIndex at = event->reason() == QContextMenuEvent::Keyboard
                               ? m_view->currentIndex()
                               : m_view->indexAt(m_view->viewport()->mapFromGlobal(event->globalPos()));
    if (at.data(ModelPaletteModel::SpecRole).toJsonObject().isEmpty()) {
        return;
    }
    QMenu menu(this);
    menu.addAction(tr("&Queue on the board"), this, [this, at] { queue(at); });
    menu.exec(event->reason() == QContextMenuEvent::Keyboard
                  ? m_view->viewport()->mapToGlobal(m_view->visualRect(at).center())
                  : event->globalPos());
}

bool ModelPalette::eventFilter(QObject *watched, QEvent *event)
{
    if ((watched == m_view || watched == m_view->viewport()) && event->type() == QEvent::ContextMenu) {
        showMenu(static_cast<QContextMenuEvent *>(event));
        return true;
    }
    if (watched == m_view && event->type() == QEvent::KeyPress) {
        const int key = static_cast<QKeyEvent *>(event)->key();
        if ((key == Qt::Key_Return || key == Qt::Key_Enter || key == Qt::Key_Space) && queueCurrent()) {
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void ModelPalette::setProblem(const QString &message)
{
    m_problem->setText(message);
    m_problem->setVisible(!message.isEmpty());
}

} // namespace trainyard
