#pragma once

#include "orchestration/dispatch/gpuscheduler.h"
#include "orchestration/records/runinfo.h"
#include "orchestration/supervision/supervisor.h"

#include <QList>
#include <QObject>
#include <QSet>
#include <QString>

#include <functional>

namespace trainyard {

class Board;
class Dependencies;
class DeviceInventory;
class LaneDevices;
class Launcher;
class RunRegistry;
class RunStore;
class StartPlanner;

// Which queued run starts next, and where: every lane fills its free slots
// (slotCount) from its queue, on its effective device (LaneDevices), a GPU
// lane's runs placed on its GPUs by the GpuScheduler, each started as the
// StartPlanner says. It follows the Board (dispatching after its edits) and
// the Supervisor (a run that ended frees a slot; one that ran out of GPU
// memory may go back to its queue). Also Start all / Stop all, the finish
// count, runEnded for every run and idle(). A single run's Start, Stop and
// Retry are RunActions', which start it here (canStartNow, launch).
class Dispatcher : public QObject
{
    Q_OBJECT
public:
    Dispatcher(Board *board, RunRegistry *runs, Supervisor *supervisor, RunStore *store, DeviceInventory *devices,
               const Launcher *launcher, const LaneDevices *lanes, StartPlanner *plans, QObject *parent = nullptr);

    void startAll();
    // Stopped runs startAll() leaves stopped (a sweep's paused trials: their
    // sweep decides when each resumes).
    void setKeptStopped(std::function<bool(RunId)> kept) { m_keptStopped = std::move(kept); }
    // Whose runs wait for others (released before every dispatch).
    void setDependencies(Dependencies *dependencies) { m_dependencies = dependencies; }
    void stopAll();
    void killAll();
    void halt() // no more starts (a shutdown)
    {
        m_dispatching = false;
        m_startWhenFree.clear();
    }
    bool isDispatching() const { return m_dispatching; }
    void dispatch();

    // Whether queued `run` can start now on its lane: its device is here
    // and reached, the lane has a free slot, and (a GPU lane) where on its
    // GPUs (`gpus`). Else false with why in `error`; `laneFull` tells
    // whether only a free slot is missing.
    bool canStartNow(const RunInfo &run, QList<int> *gpus, QString *error, bool *laneFull = nullptr);
    // Queued `id` was started by hand on a full lane: it starts when a slot
    // of its lane frees, also while nothing else is dispatched.
    void startWhenFree(RunId id);
    // Starts `id` as the StartPlanner says. `gpus`: where a GPU lane's
    // placement put it (empty: the lane's device).
    bool launch(RunId id, QString *error, const QList<int> &gpus = {});
    // `id` ended in its queue (cancelled there): its listeners hear of it as
    // of the supervisor's runs, and the counts move on.
    void endedInQueue(RunId id, RunState state);

    int finishedCount() const;
    int totalCount() const;
    int activeCount() const;
    bool isIdle() const;
    void checkIdle();
    void notifyCounts(); // emits finishCountChanged

    // The board was replaced (nothing runs).
    void reset()
    {
        m_dispatching = false;
        m_startWhenFree.clear();
    }
    void forget(RunId id) { m_gpus.forget(id); }

Q_SIGNALS:
    // A run reached a terminal state: the supervisor's runs, and the queued ones cancelled.
    void runEnded(trainyard::RunId id, trainyard::RunState state);
    void finishCountChanged(int finished, int total);
    // startAll() began dispatching, before it fills the lanes (a sweep places its trials then).
    void dispatchingStarted();
    // stopAll() ended dispatching (a sweep resumed by hand stops placing too).
    void dispatchingStopped();
    void warning(const QString &text);
    void idle();

private:
    bool laneHasFreeSlot(int lane) const;
    void onRunEnded(RunId id, RunState state); // a slot was freed
    void startReleased(RunId id);              // its dependents, when nothing is dispatched
    void forgetStartsWhenFree();               // Stop all: startWhenFree's runs stay queued

    Board *m_board;
    RunRegistry *m_runs;
    Supervisor *m_supervisor;
    const Launcher *m_launcher;
    const LaneDevices *m_lanes;
    StartPlanner *m_plans;
    Dependencies *m_dependencies = nullptr;
    GpuScheduler m_gpus; // the GPU lanes' placement, waits, memory and out-of-memory retries
    std::function<bool(RunId)> m_keptStopped;
    bool m_dispatching = false;
    QSet<RunId> m_startWhenFree; // startWhenFree's, until they start or leave their queue
};

} // namespace trainyard
