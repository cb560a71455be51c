#include "ui/board/laneview.h"

#include <QDrag>
#include <QDragMoveEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QPainter>

namespace trainyard {

LaneView::LaneView(QWidget *parent)
    : QListView(parent)
{
    setDragEnabled(true);
    setAcceptDrops(true);
    setDropIndicatorShown(true);
    setDragDropMode(QAbstractItemView::DragDrop);
    setDefaultDropAction(Qt::MoveAction);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    setUniformItemSizes(true);
    setResizeMode(QListView::Adjust); // cards follow the lane's width
    setSpacing(1);
    setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setMouseTracking(true);
    viewport()->setAcceptDrops(true);
}

int LaneView::dropRow(const QPoint &pos) const
{
    const QModelIndex index = indexAt(pos);
    if (!index.isValid()) {
        return -1;
    }
    const QRect rect = visualRect(index);
    return pos.y() < rect.center().y() ? index.row() : index.row() + 1;
}

void LaneView::startDrag(Qt::DropActions supportedActions)
{
    const QModelIndexList indexes = selectedIndexes();
    if (indexes.isEmpty()) {
        return;
    }
    QMimeData *data = model()->mimeData(indexes);
    if (!data) {
        return;
    }
    auto *drag = new QDrag(this);
    drag->setMimeData(data);
    const QRect rect = visualRect(indexes.first());
    if (rect.isValid()) {
        QPixmap pixmap = viewport()->grab(rect);
        drag->setPixmap(pixmap);
        drag->setHotSpot(QPoint(rect.width() / 2, rect.height() / 2));
    }
    Q_EMIT dragStarted(data);
    // The model's dropMimeData already moved or copied: nothing to remove here.
    drag->exec(supportedActions, Qt::MoveAction);
}

Qt::DropAction LaneView::dropAction(const QDropEvent *event) const
{
    // Ctrl duplicates; a drag from the palette is always a copy.
    if (event->source() != nullptr && qobject_cast<const LaneView *>(event->source()) == nullptr) {
        return Qt::CopyAction;
    }
    return (event->modifiers() & Qt::ControlModifier) ? Qt::CopyAction : Qt::MoveAction;
}

void LaneView::dragEnterEvent(QDragEnterEvent *event)
{
    const Qt::DropAction action = dropAction(event);
    if (model() && model()->canDropMimeData(event->mimeData(), action, -1, 0, rootIndex())) {
        event->setDropAction(action);
        event->accept();
        return;
    }
    event->ignore();
}

void LaneView::dragMoveEvent(QDragMoveEvent *event)
{
    const Qt::DropAction action = dropAction(event);
    const int row = dropRow(event->position().toPoint());
    if (model() && model()->canDropMimeData(event->mimeData(), action, row, 0, rootIndex())) {
        event->setDropAction(action);
        event->accept();
        setProperty("dropRow", row);
        viewport()->update();
        return;
    }
    event->ignore();
}

void LaneView::dropEvent(QDropEvent *event)
{
    setProperty("dropRow", QVariant());
    viewport()->update();
    const Qt::DropAction action = dropAction(event);
    const int row = dropRow(event->position().toPoint());
    if (model() && model()->dropMimeData(event->mimeData(), action, row, 0, rootIndex())) {
        event->setDropAction(action);
        event->accept();
        return;
    }
    event->ignore();
}

void LaneView::dragLeaveEvent(QDragLeaveEvent *event)
{
    setProperty("dropRow", QVariant());
    viewport()->update();
    QListView::dragLeaveEvent(event);
}

void LaneView::paintEvent(QPaintEvent *event)
{
    QListView::paintEvent(event);
    // Where a dragged card would go: a line between cards.
    const QVariant dropRow = property("dropRow");
    if (dropRow.isValid() && model()) {
        const int rows = model()->rowCount(rootIndex());
        const int row = dropRow.toInt();
        int y = 2;
        if (rows > 0) {
            y = row >= 0 && row < rows ? visualRect(model()->index(row, 0, rootIndex())).top()
                                       : visualRect(model()->index(rows - 1, 0, rootIndex())).bottom();
        }
        QPainter painter(viewport());
        painter.setPen(QPen(palette().color(QPalette::Highlight), 3));
        painter.drawLine(6, y, viewport()->width() - 6, y);
    }
    if (model() && model()->rowCount(rootIndex()) == 0) {
        QPainter painter(viewport());
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(viewport()->rect().adjusted(8, 8, -8, -8), Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap,
                         tr("Drop a model here to queue a run"));
    }
}

} // namespace trainyard
