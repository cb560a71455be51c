#include "ui/runs/runcompare.h"

#include "ui/board/boardview.h"
#include "ui/plot/plotfeeder.h"
#include "ui/runs/runtablemodel.h"
#include "ui/runs/runtablepanel.h"

#include <QAction>
#include <QWidget>

namespace trainyard {

RunCompare::RunCompare(RunTablePanel *panel, BoardView *board, PlotFeeder *feeder, RunColors *colors, QWidget *window)
    : QObject(window)
    , m_panel(panel)
    , m_board(board)
    , m_feeder(feeder)
    , m_colors(colors)
    , m_window(window)
    , m_action(new QAction(tr("Co&mpare two runs…"), this))
{
    m_action->setObjectName(QStringLiteral("compareRuns"));
    m_action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
    m_action->setToolTip(tr("Two selected runs side by side: their specs, what differs, their curves"));
    connect(m_action, &QAction::triggered, this, [this] {
        const QList<int> rows = chosenRows();
        if (rows.size() == 2) {
            compareRows(rows.at(0), rows.at(1));
        }
    });
    connect(panel, &RunTablePanel::selectionChanged, this, &RunCompare::updateEnabled);
    connect(board, &BoardView::selectionChanged, this, &RunCompare::updateEnabled);
    panel->addRowAction(m_action);
    updateEnabled();
}

QList<int> RunCompare::chosenRows() const
{
    const QList<int> table = m_panel->selectedRows();
    if (table.size() == 2) {
        return table;
    }
    // The board's two cards: their rows among the live ones.
    const QList<RunId> cards = m_board->selectedRuns();
    if (cards.size() != 2) {
        return {};
    }
    QList<int> rows;
    const RunTableModel *model = m_panel->model();
    for (RunId id : cards) {
        for (int r = 0; r < model->rowCount() && model->row(r).id; ++r) {
            if (model->row(r).id == id) {
                rows.append(r);
            }
        }
    }
    return rows.size() == 2 ? rows : QList<int>();
}

void RunCompare::updateEnabled()
{
    m_action->setEnabled(chosenRows().size() == 2);
}

CompareDialog::Side RunCompare::sideOf(int row)
{
    const RunTableModel *model = m_panel->model();
    CompareDialog::Side side;
    side.row = model->row(row);
    if (side.row.id) {
        side.plotKey = QString::number(side.row.id); // the board's runs' key in the plots
        side.curves = CurveSource{model->metrics(), side.row.id};
        return side;
    }
    const QString dir = side.row.runDir;
    side.plotKey = PlotFeeder::pastRunKey(dir);
    side.origin = RunOrigin::Past;
    if (m_feeder->pinPastRun(dir, QStringLiteral("%1 (%2)").arg(side.row.name, side.row.experiment))) {
        side.curves = CurveSource{&m_feeder->pastRuns(), m_feeder->pastRunId(dir)};
    }
    return side;
}

CompareDialog *RunCompare::compareRows(int a, int b)
{
    const RunTableModel *model = m_panel->model();
    if (a < 0 || b < 0 || a >= model->rowCount() || b >= model->rowCount() || a == b) {
        return nullptr;
    }
    auto *dialog = new CompareDialog(sideOf(a), sideOf(b), m_colors, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    return dialog;
}

} // namespace trainyard
