#pragma once

#include <QListView>

class QMimeData;

namespace trainyard {

/// One lane's queue of cards: a list view rooted at the lane's index in the
/// BoardModel. Drops go straight to the model's dropMimeData (which moves,
/// copies or queues and records it for undo), so the view never removes the
/// dragged rows itself.
class LaneView : public QListView
{
    Q_OBJECT
public:
    explicit LaneView(QWidget *parent = nullptr);

    /// The row a drop at `pos` goes before (-1: the end).
    int dropRow(const QPoint &pos) const;

Q_SIGNALS:
    /// A drag of cards begins, carrying `data` (valid until the drag ends).
    void dragStarted(const QMimeData *data);

protected:
    void startDrag(Qt::DropActions supportedActions) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dragMoveEvent(QDragMoveEvent *event) override;
    void dragLeaveEvent(QDragLeaveEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void paintEvent(QPaintEvent *event) override;

private:
    Qt::DropAction dropAction(const QDropEvent *event) const;
};

} // namespace trainyard
