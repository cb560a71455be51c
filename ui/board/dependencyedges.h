#pragma once

#include "orchestration/records/runinfo.h"

#include <QList>
#include <QWidget>

#include <utility>

namespace trainyard {

class BoardModel;
class BoardView;

/// The `after` edges of the selected cards, drawn over the board: from each
/// run a selected one runs after to it, and from it to the runs that run
/// after it, across lanes and down a lane (Dependencies). Lies over the
/// board's lanes and lets every mouse event through.
class DependencyEdges : public QWidget
{
    Q_OBJECT
public:
    DependencyEdges(BoardView *view, BoardModel *model, QWidget *parent);

    /// The edges drawn: (the run that goes first, the run that runs after it).
    QList<std::pair<RunId, RunId>> edges() const { return m_edges; }
    /// Follows the selection (and the board's changes) again.
    void refresh();

protected:
    void paintEvent(QPaintEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    /// The card of `id` in this widget's coordinates, its lane's visible part
    /// keeping it (a card scrolled away is drawn at the edge); empty when
    /// it has none.
    QRectF cardRect(RunId id) const;

    BoardView *m_view;
    BoardModel *m_model;
    QList<std::pair<RunId, RunId>> m_edges;
};

} // namespace trainyard
