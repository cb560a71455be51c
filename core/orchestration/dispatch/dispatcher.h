#pragma once

#include "dispatch/gpuscheduler.h"
#include "records/runinfo.h"
#include "supervision/supervisor.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>

#include <functional>

namespace trainyard {

class Board;
class Dependencies;
class DeviceInventory;
class Ingestion;
class Launcher;
class RunRegistry;
class RunStore;

// Which queued run starts next, and where: every lane fills its free slots
// (slotCount) from its queue, on its effective device (a missing GPU runs
// on the CPU under CPU fallback), with the CPU's cores shared out among the
// CPU lanes' slots. It follows the Board (dispatching after its edits) and
// the Supervisor (a run that ended frees a slot). Also the runs' control
// from the board's side (start one now, stop, resume, cancel, retry),
// preflight(), the finish count, runEnded for every run and idle().
class Dispatcher : public QObject
{
    Q_OBJECT
public:
    Dispatcher(Board *board, RunRegistry *runs, Supervisor *supervisor, Ingestion *ingestion, RunStore *store,
               DeviceInventory *devices, const Launcher *launcher, QObject *parent = nullptr);

    void startAll();
    // Stopped runs startAll() leaves stopped (a sweep's paused trials: their
    // sweep decides when each resumes).
    void setKeptStopped(std::function<bool(RunId)> kept) { m_keptStopped = std::move(kept); }
    // Whose runs wait for others (released before every dispatch).
    void setDependencies(Dependencies *dependencies) { m_dependencies = dependencies; }
    void stopAll();
    void killAll();
    void halt() { m_dispatching = false; } // no more starts (a shutdown)
    bool isDispatching() const { return m_dispatching; }
    // Starts one queued run now if its lane has a free slot; an ended one
    // (stopped, or put back by an undo) starts again as retryRun says.
    bool startRun(RunId id, QString *error = nullptr);
    // A queued or waiting run is cancelled; an active one is stopped (Supervisor::stop:
    // socket "stop", then SIGTERM, then SIGKILL after timeouts).
    bool stopRun(RunId id, QString *error = nullptr);
    // A stopped run starts again from its checkpoint; a paused one resumes.
    bool resumeRun(RunId id, QString *error = nullptr);
    bool cancelRun(RunId id, QString *error = nullptr); // queued or waiting -> cancelled
    // An ended run goes back to the queue. A run that did not finish and has
    // a checkpoint resumes from it (unless `fromCheckpoint` is false); any
    // other starts a new attempt: a folder holding results is kept as
    // NAME.attempt-N (Supervisor::attemptArchived) and the run starts in a
    // new NAME. Nothing is deleted or written over.
    bool retryRun(RunId id, bool fromCheckpoint = true, QString *error = nullptr);
    // How an ended run starts again (Retry, Start, --retry-failed): from its
    // checkpoint when it has one and did not finish, else as a new attempt.
    bool resumesOnRetry(RunId id) const;
    // The folder name its results would be kept under when it starts again
    // (a new attempt over a folder that holds results), else empty.
    QString attemptKeptOnRetry(RunId id) const;
    void dispatch();

    int finishedCount() const;
    int totalCount() const;
    int activeCount() const;
    bool isIdle() const;
    void checkIdle();
    void notifyCounts(); // emits finishCountChanged

    Device effectiveDevice(int lane) const;
    // A GPU this machine lacks (the CPU and clusters are never missing).
    bool isMissing(const Device &device) const;
    // A lane as the board has it, with its effective device (empty for an unknown lane).
    LaneInfo lane(int index) const;
    // The worker's command line of `id` (program, then arguments): the one
    // it was started with, or for a run that waits in its queue the one it
    // would start with now (its lane's device, the CPU threads). The token
    // is never on it. Empty for an unknown run.
    QStringList commandLine(RunId id) const;
    QList<int> missingDeviceLanes() const;
    void setCpuFallback(bool on);
    bool cpuFallback() const { return m_cpuFallback; }
    // Problems to tell the user before starting: missing GPUs, the
    // launcher's (Launcher::problems: clusters), GPUs busy with other users'
    // processes. Empty when all is clear.
    QStringList preflight() const;
    // The part of preflight() about GPUs busy with other users' processes.
    QStringList busyDeviceWarnings() const;
    void setCpuThreads(int threads) { m_cpuThreadsOverride = threads; }
    int threadsPerCpuRun() const;
    // How `id` starts when its turn comes: its lane's effective device, the
    // CPU threads, whether it resumes from its checkpoint.
    StartOptions startOptions(RunId id) const;

    // The board was replaced (nothing runs): forget every run's plans.
    void reset();
    void forget(RunId id);

Q_SIGNALS:
    // A run reached a terminal state: the supervisor's runs, and the queued ones cancelled here.
    void runEnded(trainyard::RunId id, trainyard::RunState state);
    void finishCountChanged(int finished, int total);
    // startAll() began dispatching, before it fills the lanes (a sweep places its trials then).
    void dispatchingStarted();
    // stopAll() ended dispatching (a sweep resumed by hand stops placing too).
    void dispatchingStopped();
    void laneChanged(int index); // effective device (CPU fallback)
    void warning(const QString &text);
    void idle();

private:
    bool laneHasFreeSlot(int lane) const;
    void planRetry(RunId id); // resume or a new attempt (resumesOnRetry)
    // `gpus`: where a GPU lane's placement put it (empty: the lane's device).
    bool launch(RunId id, QString *error, const QList<int> &gpus = {});
    void onRunEnded(RunId id, RunState state); // a slot was freed
    void startReleased(RunId id);              // its dependents, when nothing is dispatched

    Board *m_board;
    RunRegistry *m_runs;
    Supervisor *m_supervisor;
    Ingestion *m_ingestion;
    RunStore *m_store;
    DeviceInventory *m_devices;
    const Launcher *m_launcher;
    Dependencies *m_dependencies = nullptr;
    GpuScheduler m_gpus;      // the GPU lanes' placement, waits, memory and out-of-memory retries
    QSet<RunId> m_resumeNext; // next start continues from the checkpoint
    std::function<bool(RunId)> m_keptStopped;
    bool m_dispatching = false;
    bool m_cpuFallback = false;
    int m_cpuThreadsOverride = 0;
};

} // namespace trainyard
