#pragma once

#include "experiment/experiment.h"
#include "records/runinfo.h"

#include <nlohmann/json_fwd.hpp>

#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <memory>

namespace trainyard {

class Board;
class DeviceInventory;
class Dispatcher;
class Ingestion;
class Launcher;
class LauncherRouter;
struct MetricLine;
class MetricStore;
class MetricsServer;
class RunRegistry;
class RunStore;
class Supervisor;

// The lanes, their ordered queues and every run's life, behind one API for
// the desktop app and `trainyard run`: which queued run starts next (per
// lane, up to its slotCount), starting and supervising workers, stop (socket
// "stop", then SIGTERM, then SIGKILL after timeouts), pause, resume, cancel,
// retry, and the finish count. Every edit emits precise signals, "about to"
// before and a done signal after, so item models can wrap them in begin/end
// calls and an undo stack can invert them. Lanes are addressed by index,
// runs by RunId.
//
// A façade over its parts (docs/architecture.md, "The scheduler's parts"): RunRegistry (the run
// records), Board (lanes, queues, edits), Dispatcher (slots, devices,
// threads, finish count, idle), Supervisor (each launched run's life and the
// shutdown), Ingestion (metrics in), and the Launcher that starts workers
// (unless given another, a LauncherRouter: this machine's lanes to a
// LocalLauncher, each cluster's to its SlurmLauncher).
class Scheduler : public QObject
{
    Q_OBJECT
public:
    Scheduler(RunStore *store, MetricsServer *server, MetricStore *metrics, DeviceInventory *devices,
              QObject *parent = nullptr);
    // The same with another launcher (a batch queue, a test's fake).
    Scheduler(RunStore *store, MetricsServer *server, MetricStore *metrics, DeviceInventory *devices,
              std::unique_ptr<Launcher> launcher, QObject *parent = nullptr);
    // Kills whatever still runs, synchronously (shutdown() is the graceful way).
    ~Scheduler() override;

    // ---- the board ------------------------------------------------------
    // Replaces all lanes and runs (repeats expanded); emits reset(). Runs
    // still active are killed first (synchronously): never an orphan.
    void setExperiment(const Experiment &experiment);
    // The board as an experiment (consecutive untouched repeats collapse
    // back into one entry with "repeat").
    Experiment toExperiment(const QString &name, const QString &runsRoot) const;

    int laneCount() const;
    LaneInfo lane(int index) const;
    QList<RunId> runIds() const; // lane by lane, queue order
    RunInfo run(RunId id) const; // id 0 when unknown
    bool contains(RunId id) const;
    RunId findRun(const QString &name) const; // 0 when none
    // Position of a run in its lane's queue, -1 when unknown.
    int position(RunId id) const;
    // `base` if unused, else base-2, base-3, ...
    QString uniqueName(const QString &base) const;
    // What a duplicate of `id` is queued with: a unique name and a fresh seed.
    QJsonObject duplicateSpec(RunId id) const;

    // ---- edits (all refuse with a message instead of breaking a run) ----
    int addLane(const QString &device, int slotCount, int position = -1, QString *error = nullptr);
    bool removeLane(int index, QString *error = nullptr); // only without active runs
    bool setLaneDevice(int index, const QString &device, QString *error = nullptr);
    bool setLaneSlots(int index, int slotCount, QString *error = nullptr);
    // Queues `spec` (validated; name made unique) at `position` (-1: end);
    // `repeat` > 1 adds the expanded repeats. Returns the new ids.
    QList<RunId> addRun(int lane, const QJsonObject &spec, int repeat = 1, int position = -1, QString *error = nullptr);
    // The same, held: it waits in its queue until startRun() or the next
    // startAll(), even while dispatching goes on (an edit of a run that has
    // run must not start before the user looks at it).
    QList<RunId> addHeldRun(int lane, const QJsonObject &spec, int position = -1, QString *error = nullptr);
    // A queued copy right after the original, with a unique name.
    RunId duplicateRun(RunId id, QString *error = nullptr);
    bool removeRun(RunId id, QString *error = nullptr); // not while active
    // Puts back a run removeRun took off (`run` as run() gave it then) at
    // `position` of its lane, exactly as it was: an ended run keeps its
    // state, outcome and times, and its curves are read again from its
    // folder (which removeRun never touched). Returns its id, 0 when refused.
    RunId restoreRun(const RunInfo &run, int position, QString *error = nullptr);
    // Moves a run that is not active to `lane` at `position` (-1: end).
    bool moveRun(RunId id, int lane, int position, QString *error = nullptr);
    // Changes the spec of a run that has not started (validated).
    bool setRunSpec(RunId id, const QJsonObject &spec, QString *error = nullptr);

    // The run store's root moved (a renamed experiment): every run's folder follows. Not while runs are active.
    void runsRootChanged();

    // ---- control --------------------------------------------------------
    // Starts dispatching: every lane fills its free slotCount from its queue
    // until no queued run is left.
    void startAll();
    // Stops dispatching and stops every active run gracefully.
    void stopAll();
    // SIGKILL to every worker (a second Ctrl-C); their runs fail.
    void killAll();
    bool isDispatching() const;
    // Starts one queued run now if its lane has a free slot; an ended one
    // (stopped, or put back by an undo) starts again as retryRun says.
    bool startRun(RunId id, QString *error = nullptr);
    bool stopRun(RunId id, QString *error = nullptr);
    bool pauseRun(RunId id, QString *error = nullptr);
    bool resumeRun(RunId id, QString *error = nullptr);
    bool cancelRun(RunId id, QString *error = nullptr); // queued -> cancelled
    // An ended run goes back to the queue. A run that did not finish and has
    // a checkpoint resumes from it (unless `fromCheckpoint` is false); any
    // other starts a new attempt: a folder holding results is kept as
    // NAME.attempt-N (attemptArchived) and the run starts in a new NAME.
    // Nothing is deleted or written over.
    bool retryRun(RunId id, bool fromCheckpoint = true, QString *error = nullptr);
    // Whether retryRun(id) resumes from the run's checkpoint.
    bool resumesOnRetry(RunId id) const;
    // The folder name retryRun(id) would keep the run's results under
    // (asked before: "attempt 1 is kept as NAME.attempt-1"); empty when it
    // resumes or the folder holds no results.
    QString attemptKeptOnRetry(RunId id) const;

    int finishedCount() const;
    int totalCount() const;
    int activeCount() const;
    // True when dispatching found nothing left to start and nothing runs.
    bool isIdle() const;

    // ---- settings -------------------------------------------------------
    void setWorkerProgram(const QString &program);
    QString workerProgram() const;
    // Lanes naming a GPU this machine lacks run on the CPU instead.
    void setCpuFallback(bool on);
    bool cpuFallback() const;
    // Lanes whose device this machine lacks (and that would not run).
    QList<int> missingDeviceLanes() const;
    // Problems to tell the user before starting: missing GPUs, GPUs busy
    // with other users' processes. Empty when all is clear.
    QStringList preflight() const;
    // Only the busy GPUs of preflight() (the window's banner shows the missing ones).
    QStringList busyDeviceWarnings() const;
    void setStopTimeout(int ms);  // stop -> SIGTERM -> SIGKILL, each after this
    void setStallTimeout(int ms); // silence -> "stalled"
    // Threads given to each CPU run: the cores shared out among the CPU
    // lanes' slotCount; `threads` > 0 overrides.
    void setCpuThreads(int threads);
    int threadsPerCpuRun() const;
    // The worker's command line of `id` (program, then arguments): the one
    // it was started with, or for a run that waits in its queue the one it
    // would start with now (its lane's device, the CPU threads). The token
    // is never on it. Empty for an unknown run.
    QStringList commandLine(RunId id) const;
    // Pids of the workers we supervise (to tell our GPU processes from others').
    QSet<qint64> workerPids() const;

    // Adopts runs found on disk: finished ones with their curves, and live
    // workers from the state file (reattached; gaps filled from metrics.jsonl).
    // Returns the warnings for the user (Supervisor::loadHistory: a refused
    // state file, lost runs).
    QStringList loadHistory();
    // Ends supervision, asynchronously: stops every worker (stop, SIGTERM,
    // SIGKILL, each after the stop timeout) and returns; shutdownFinished()
    // when every run has ended (at once when none runs). Or leaves them
    // running for a later reattach (finished at once). No nested event loop.
    void shutdown(bool leaveRunning);
    bool isShuttingDown() const;
    Launcher *launcher() const { return m_launcher.get(); }

    // Called by the Session for every accepted socket message.
    void handleMessage(RunId id, const nlohmann::json &message);
    // The fast path for plain metric lines (MetricsServer::setMetricHandler).
    void handleMetric(RunId id, const MetricLine &line);

Q_SIGNALS:
    void reset(); // everything replaced (setExperiment)
    void laneAboutToBeAdded(int index);
    void laneAdded(int index);
    void laneAboutToBeRemoved(int index);
    void laneRemoved(int index);
    void laneChanged(int index); // device, slotCount, effective device
    void runAboutToBeAdded(int lane, int position);
    void runAdded(trainyard::RunId id);
    void runAboutToBeRemoved(trainyard::RunId id);
    void runRemoved(trainyard::RunId id);
    void runAboutToBeMoved(trainyard::RunId id, int fromLane, int fromPosition, int toLane, int toPosition);
    void runMoved(trainyard::RunId id);
    void runChanged(trainyard::RunId id);                          // state, spec, name, message
    void runEnded(trainyard::RunId id, trainyard::RunState state); // reached a terminal state
    // A new attempt of `id` started; its earlier results are in `archivedDir`.
    void attemptArchived(trainyard::RunId id, const QString &archivedDir);
    void progressChanged(const QList<trainyard::RunId> &ids); // batched, ~30 Hz
    void finishCountChanged(int finished, int total);
    void logLine(trainyard::RunId id, const QString &level, const QString &text);
    void warning(const QString &text);
    void idle();             // dispatching and nothing left to do
    void shutdownFinished(); // after shutdown(): every run has ended (or was left running)

private:
    void wire();

    MetricStore *m_metrics;
    // Declared in the order they depend on each other (destroyed in reverse).
    std::unique_ptr<RunRegistry> m_runs;
    std::unique_ptr<Board> m_board;
    std::unique_ptr<Ingestion> m_ingestion;
    std::unique_ptr<Launcher> m_launcher;
    LauncherRouter *m_router = nullptr; // m_launcher when the Scheduler made it: clusters go to it
    std::unique_ptr<Supervisor> m_supervisor;
    std::unique_ptr<Dispatcher> m_dispatcher;
};

} // namespace trainyard
