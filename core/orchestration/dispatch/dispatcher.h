#pragma once

#include "records/runinfo.h"
#include "supervision/supervisor.h"

#include <QList>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>

namespace trainyard {

class Board;
class DeviceInventory;
class Ingestion;
class LauncherRouter;
class RunRegistry;
class RunStore;

// Which queued run starts next, and where: every lane fills its free slots
// (slotCount) from its queue, on its effective device (a missing GPU runs
// on the CPU under CPU fallback), with the CPU's cores shared out among the
// CPU lanes' slots. Also the runs' control that needs no worker (start one
// now, cancel, retry), preflight(), the finish count and idle().
class Dispatcher : public QObject
{
    Q_OBJECT
public:
    Dispatcher(Board *board, RunRegistry *runs, Supervisor *supervisor, Ingestion *ingestion, RunStore *store,
               DeviceInventory *devices, QObject *parent = nullptr);

    void startAll();
    void stopAll();
    void killAll();
    void halt() { m_dispatching = false; } // no more starts (a shutdown)
    bool isDispatching() const { return m_dispatching; }
    bool startRun(RunId id, QString *error);
    bool cancelRun(RunId id, QString *error);
    bool retryRun(RunId id, bool fromCheckpoint, QString *error);
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

    QString effectiveDevice(int lane) const;
    QList<int> missingDeviceLanes() const;
    void setCpuFallback(bool on);
    bool cpuFallback() const { return m_cpuFallback; }
    // Missing devices, and the clusters' problems (LauncherRouter::problems)
    // when the Scheduler routes runs to them (setRouter).
    QStringList preflight() const;
    void setRouter(const LauncherRouter *router) { m_router = router; }
    // The part of preflight() about GPUs busy with other users' processes.
    QStringList busyDeviceWarnings() const;
    void setCpuThreads(int threads) { m_cpuThreadsOverride = threads; }
    int threadsPerCpuRun() const;
    // How `id` starts when its turn comes: its lane's effective device, the
    // CPU threads, whether it resumes from its checkpoint.
    Supervisor::StartOptions startOptions(RunId id) const;

    // Board changes that concern it.
    void reset();
    void forget(RunId id);
    void laneDeviceChanged(int lane) { m_warnedBusyLanes.remove(lane); }
    void laneRemoved() { m_warnedBusyLanes.clear(); }
    void onRunEnded();   // a slot was freed
    void onRunRemoved(); // counts changed

Q_SIGNALS:
    void runEnded(trainyard::RunId id, trainyard::RunState state); // cancelled
    void finishCountChanged(int finished, int total);
    void laneChanged(int index); // effective device (CPU fallback)
    void warning(const QString &text);
    void idle();

private:
    bool laneHasFreeSlot(int lane) const;
    void planRetry(RunId id); // resume or a new attempt (resumesOnRetry)
    bool launch(RunId id, QString *error);

    Board *m_board;
    RunRegistry *m_runs;
    Supervisor *m_supervisor;
    Ingestion *m_ingestion;
    RunStore *m_store;
    DeviceInventory *m_devices;
    const LauncherRouter *m_router = nullptr;
    QSet<RunId> m_resumeNext; // next start continues from the checkpoint
    QSet<int> m_warnedBusyLanes;
    bool m_dispatching = false;
    bool m_cpuFallback = false;
    int m_cpuThreadsOverride = 0;
};

} // namespace trainyard
