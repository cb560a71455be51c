#pragma once

#include "orchestration/experiment/sweepspec.h"
#include "orchestration/records/runinfo.h"
#include "orchestration/sweep/sweeprunner.h"
#include "ui/sweep/sweepplots.h"

#include <QPointer>
#include <QWidget>

#include <functional>

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableView;
class QTimer;

namespace trainyard {

class MetricStore;
class ParallelCoordinatesPlot;
class RunRegistry;
class SweepTableModel;

/// The Sweep view beside the runs table: a sweep's trials (table, best
/// first), the parallel-coordinates plot whose brushes filter the table,
/// the objective against a parameter, the best so far over wall time and
/// the rung ladder, with the sweep's controls (stop, pause/resume, add
/// trials, promote or stop the selected trial). It shows plain data
/// (`showSweep`); given a runner it follows it and its controls act on it.
class SweepView : public QWidget
{
    Q_OBJECT
public:
    explicit SweepView(QWidget *parent = nullptr);
    ~SweepView() override;

    /// Follows `runner`'s sweeps (nullptr: none); `runs` and `metrics` give the best-so-far curve.
    void setRunner(SweepRunner *runner, const RunRegistry *runs, const MetricStore *metrics);
    /// Shows `sweep` with `trials` (and the objective reports for best-so-far) without a runner.
    void showSweep(const SweepSpec &sweep, const QList<TrialInfo> &trials,
                   const QList<BestSoFarPlot::Report> &reports = {});
    /// Picks the runner's sweep `name`; false when it has none of that name.
    bool selectSweep(const QString &name);
    QString currentSweep() const;

    SweepTableModel *tableModel() const { return m_model; }
    QTableView *tableView() const { return m_tableView; }
    ParallelCoordinatesPlot *parallelPlot() const { return m_parallel; }
    ObjectiveScatter *scatter() const { return m_scatter; }
    BestSoFarPlot *bestSoFar() const { return m_best; }
    RungLadder *rungLadder() const { return m_ladder; }
    /// The trial of the table's current row, -1 when none.
    int selectedTrial() const;
    /// Selects the table row of `trial`.
    void selectTrial(int trial);

    // The controls (also the buttons' slots). Each reports a refusal through `message`.
    void stopSweep();
    void togglePause();
    void addTrials(int count);
    void promoteSelected();
    void stopSelected();
    /// The trials' table (every trial) as CSV to `file`; false with `error` when it could not be written.
    bool exportCsv(const QString &file, QString *error) const;
    /// Where "Export…" writes: asks with a file dialog unless replaced (tests); empty: cancelled.
    void setExportPathAsker(std::function<QString(const QString &suggested)> ask) { m_askPath = std::move(ask); }

Q_SIGNALS:
    /// The user picked trials in the table: their runs (the board selects their cards).
    void runsSelected(const QList<trainyard::RunId> &ids);
    void message(const QString &text);

private:
    void refreshSweeps();
    void refresh();
    void display(const SweepSpec &sweep, const QList<TrialInfo> &trials, const QList<BestSoFarPlot::Report> &reports);
    QList<BestSoFarPlot::Report> reports(const SweepSpec &sweep, const QList<TrialInfo> &trials) const;
    void updateButtons();
    void exportTable();

    QPointer<SweepRunner> m_runner;
    const RunRegistry *m_runs = nullptr;
    const MetricStore *m_metrics = nullptr;
    QList<TrialInfo> m_trials;

    QComboBox *m_sweeps;
    QLabel *m_progress;
    QPushButton *m_stop;
    QPushButton *m_pause;
    QSpinBox *m_addCount;
    QPushButton *m_add;
    QPushButton *m_promote;
    QPushButton *m_stopTrial;
    QPushButton *m_export;
    std::function<QString(const QString &suggested)> m_askPath;
    SweepTableModel *m_model;
    QTableView *m_tableView;
    ParallelCoordinatesPlot *m_parallel;
    ObjectiveScatter *m_scatter;
    BestSoFarPlot *m_best;
    RungLadder *m_ladder;
    QTimer *m_refresh;         ///< trial reports come in bursts: one redraw per burst
    size_t m_columnsShape = 0; ///< the sweep and trial states the columns were sized for
};

} // namespace trainyard
