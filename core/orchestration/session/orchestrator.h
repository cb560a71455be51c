#pragma once

#include "orchestration/experiment/experiment.h"
#include "orchestration/records/runinfo.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>

namespace trainyard {

class Board;
class Dependencies;
class DeviceInventory;
class Dispatcher;
class Ingestion;
class LaneDevices;
class Launcher;
struct MetricRecord;
class MetricStore;
class MetricsServer;
class OnEndCommands;
class RunActions;
class RunInputs;
class RunRegistry;
class RunStore;
class StartPlanner;
class Supervisor;
class SweepRunner;

// The parts that run one board, made and wired together (the composition
// root; docs/architecture.md, "Running a board"). Callers talk to the part
// whose job it is:
//   runs()       the run records, and runChanged (RunRegistry::changed);
//   board()      lanes, queues and their edits, with "about to" / done signals;
//   dispatcher() which queued run starts where, Start all / Stop all, the
//                finish count, runEnded, idle;
//   runActions() one run's start/stop/resume/cancel/retry;
//   laneDevices() each lane's effective device (CPU fallback), the lanes as
//                the views show them (lane()), the CPU threads, preflight;
//   startPlanner() how each run starts (resume or a new attempt), its command line;
//   supervisor() each launched run's life: pause, the worker program,
//                timeouts, attemptArchived, shutdownFinished;
//   ingestion()  metrics in, progressChanged;
//   sweeps()     the experiment's sweeps: their trials on the lanes, early stopping;
//   dependencies() which runs run after which (waiting, released, edits of
//                `after`), and inputs() what each gets from them;
//   onEnd()      the file's on_end commands, run as runs end;
//   launcher()   what starts workers (unless given another, a LauncherRouter:
//                this machine's lanes to a LocalLauncher, each cluster's to
//                its SlurmLauncher).
// What is left here needs several parts at once.
class Orchestrator : public QObject
{
    Q_OBJECT
public:
    Orchestrator(RunStore *store, MetricsServer *server, MetricStore *metrics, DeviceInventory *devices,
                 QObject *parent = nullptr);
    // The same with another launcher (a batch queue, a test's fake).
    Orchestrator(RunStore *store, MetricsServer *server, MetricStore *metrics, DeviceInventory *devices,
                 std::unique_ptr<Launcher> launcher, QObject *parent = nullptr);
    // Kills whatever still runs, synchronously (shutdown() is the graceful way).
    ~Orchestrator() override;

    RunRegistry *runs() const { return m_runs.get(); }
    Board *board() const { return m_board.get(); }
    Dispatcher *dispatcher() const { return m_dispatcher.get(); }
    RunActions *runActions() const { return m_runActions.get(); }
    LaneDevices *laneDevices() const { return m_laneDevices.get(); }
    StartPlanner *startPlanner() const { return m_startPlanner.get(); }
    Supervisor *supervisor() const { return m_supervisor.get(); }
    Ingestion *ingestion() const { return m_ingestion.get(); }
    Launcher *launcher() const { return m_launcher.get(); }
    SweepRunner *sweeps() const { return m_sweeps.get(); }
    Dependencies *dependencies() const { return m_dependencies.get(); }
    const RunInputs *inputs() const { return m_inputs.get(); }
    OnEndCommands *onEnd() const { return m_onEnd.get(); }

    // Replaces all lanes and runs (repeats expanded; Board::reset) and the
    // sweeps (their placed trials back on their lanes). Runs still active
    // are killed first (synchronously): never an orphan.
    void setExperiment(const Experiment &experiment);
    // The experiment's hosts (the machines of its "ssh:HOST/..." lanes): the
    // launcher follows; an edit ("Add host…") replaces them.
    QList<ExperimentHost> hosts() const { return m_hosts; }
    void setHosts(const QList<ExperimentHost> &hosts);
    // Puts back a run Board::removeRun took off (`run` as the registry had
    // it then) at `position` of its lane, exactly as it was: an ended run
    // keeps its state, outcome and times, and its curves are read again from
    // its folder (which removeRun never touched). Returns its id, 0 when refused.
    RunId restoreRun(const RunInfo &run, int position, QString *error = nullptr);
    // Adopts runs found on disk: finished ones with their curves, and live
    // workers from the state file (reattached; gaps filled from metrics.jsonl).
    // Returns the warnings for the user (a refused state file, lost runs, a
    // sweep's refused state).
    QStringList loadHistory();
    // Ends supervision, asynchronously: no more starts, then
    // Supervisor::shutdown (Supervisor::shutdownFinished when every run has ended).
    void shutdown(bool leaveRunning);
    // Disconnects `listener` from every part's signals (a window or model
    // leaving the session).
    void disconnectListener(const QObject *listener) const;

private:
    MetricStore *m_metrics;
    RunStore *m_store;
    QStringList m_sweepWarnings; // from setExperiment, said by loadHistory
    QList<ExperimentHost> m_hosts;
    // Declared in the order they depend on each other (destroyed in reverse).
    std::unique_ptr<RunRegistry> m_runs;
    std::unique_ptr<Board> m_board;
    std::unique_ptr<Dependencies> m_dependencies;
    std::unique_ptr<RunInputs> m_inputs;
    std::unique_ptr<Ingestion> m_ingestion;
    std::unique_ptr<Launcher> m_launcher;
    std::unique_ptr<Supervisor> m_supervisor;
    std::unique_ptr<LaneDevices> m_laneDevices;
    std::unique_ptr<StartPlanner> m_startPlanner;
    std::unique_ptr<Dispatcher> m_dispatcher;
    std::unique_ptr<RunActions> m_runActions;
    std::unique_ptr<SweepRunner> m_sweeps;
    std::unique_ptr<OnEndCommands> m_onEnd; // first to go: kills a command still running
};

} // namespace trainyard
