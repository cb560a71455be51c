#pragma once

#include "ui/runs/comparedialog.h"

#include <QList>
#include <QObject>

class QAction;
class QWidget;

namespace trainyard {

class BoardView;
class PlotFeeder;
class RunColors;
class RunTablePanel;

/// "Compare two runs…" (Ctrl+M; the Run menu and the runs table's row
/// menu): the two runs selected in the runs table, else the two cards
/// selected on the board, side by side in a CompareDialog. Their curves are
/// read where they are kept: a run of the open experiment in the session's
/// store, a past run pinned to the plots (PlotFeeder::pinPastRun: read once,
/// and drawn beside the board's runs, so both are in the plot).
class RunCompare : public QObject
{
    Q_OBJECT
public:
    RunCompare(RunTablePanel *panel, BoardView *board, PlotFeeder *feeder, RunColors *colors, QWidget *window);

    QAction *action() const { return m_action; }
    /// The RunTableModel rows it would compare now (none unless two runs are selected).
    QList<int> chosenRows() const;
    /// Opens the comparison of RunTableModel rows `a` and `b`.
    CompareDialog *compareRows(int a, int b);

private:
    CompareDialog::Side sideOf(int row);
    void updateEnabled();

    RunTablePanel *m_panel;
    BoardView *m_board;
    PlotFeeder *m_feeder;
    RunColors *m_colors;
    QWidget *m_window;
    QAction *m_action;
};

} // namespace trainyard
