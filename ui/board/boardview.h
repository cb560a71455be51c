#pragma once

#include "orchestration/records/runinfo.h"

#include <QList>
#include <QScrollArea>

class QHBoxLayout;
class QItemSelectionModel;

namespace trainyard {

class BoardModel;
class CardDelegate;
class DependencyEdges;
class LaneHeader;
class LaneView;
class RunColors;

/// The board: one column per lane, each a LaneHeader over a LaneView of its
/// cards, side by side, sharing the board's width (between a minimum and a
/// maximum lane width) and scrolling sideways when they do not fit. All
/// lanes share one selection.
class BoardView : public QScrollArea
{
    Q_OBJECT
public:
    BoardView(BoardModel *model, RunColors *colors, QWidget *parent = nullptr);

    int laneCount() const { return int(m_lanes.size()); }
    LaneView *laneView(int lane) const;
    LaneHeader *laneHeader(int lane) const;
    QItemSelectionModel *selectionModel() const { return m_selection; }
    QList<RunId> selectedRuns() const;
    void selectRuns(const QList<RunId> &ids);
    /// The `after` edges of the selected cards, drawn over the lanes.
    DependencyEdges *dependencyEdges() const { return m_edges; }

Q_SIGNALS:
    void selectionChanged(const QList<trainyard::RunId> &ids);
    void cardContextMenuRequested(const QPoint &globalPos);
    void laneContextMenuRequested(int lane, const QPoint &globalPos);
    void runActivated(trainyard::RunId id);

private:
    void rebuild();

    struct Column
    {
        QWidget *widget;
        LaneHeader *header;
        LaneView *view;
    };
    BoardModel *m_model;
    RunColors *m_colors;
    CardDelegate *m_delegate;
    QItemSelectionModel *m_selection;
    QWidget *m_content;
    QHBoxLayout *m_layout;
    DependencyEdges *m_edges;
    QList<Column> m_lanes;
};

} // namespace trainyard
