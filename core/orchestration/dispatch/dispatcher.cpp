#include "orchestration/dispatch/dispatcher.h"

#include "orchestration/board/board.h"
#include "orchestration/dependencies/dependencies.h"
#include "orchestration/devices/device.h"
#include "orchestration/devices/deviceinventory.h"
#include "orchestration/devices/gpupresence.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/dispatch/preflight.h"
#include "orchestration/dispatch/startplanner.h"
#include "orchestration/ingest/ingestion.h"
#include "orchestration/launch/launcher.h"
#include "orchestration/logcategories.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/supervision/supervisor.h"

namespace trainyard {

Dispatcher::Dispatcher(Board *board, RunRegistry *runs, Supervisor *supervisor, RunStore *store,
                       DeviceInventory *devices, const Launcher *launcher, const LaneDevices *lanes,
                       StartPlanner *plans, QObject *parent)
    : QObject(parent)
    , m_board(board)
    , m_runs(runs)
    , m_supervisor(supervisor)
    , m_launcher(launcher)
    , m_lanes(lanes)
    , m_plans(plans)
    , m_gpus(runs, store, devices)
{
    connect(board, &Board::edited, this, [this] {
        notifyCounts();
        dispatch();
        checkIdle();
    });
    connect(supervisor, &Supervisor::runEnded, this, &Dispatcher::onRunEnded);
    // A GPU that freed (memory, a colleague's process gone) lets waiting runs start.
    connect(devices, &DeviceInventory::devicesChanged, this, [this] {
        m_gpus.observe(); // the runs' GPU memory peaks, learned for their configurations
        if (m_dispatching) {
            dispatch();
        }
    });
    connect(devices, &DeviceInventory::remoteDevicesChanged, this, [this] {
        if (m_dispatching) {
            dispatch();
        }
    });
    // A host reached (or lost): its runs may start (LaneDevices told its lanes first).
    connect(launcher, &Launcher::availabilityChanged, this, &Dispatcher::dispatch);
    // Under CPU fallback a missing GPU's runs start on the CPU.
    connect(lanes, &LaneDevices::cpuFallbackChanged, this, &Dispatcher::dispatch);
}

// ---- dispatch ---------------------------------------------------------------

bool Dispatcher::laneHasFreeSlot(int lane) const
{
    int busy = 0;
    for (RunId id : m_board->lane(lane).runs) {
        if (isActive(m_runs->find(id)->state)) {
            ++busy;
        }
    }
    return busy < m_board->lane(lane).slotCount;
}

void Dispatcher::startAll()
{
    for (RunId id : m_runs->ids()) {
        m_runs->update(
            id, [](RunInfo &r) { r.held = false; }, RunRegistry::Notify::Quiet); // "all" means all
        // A run stopped earlier continues from its checkpoint.
        if (const RunInfo *r = m_runs->find(id);
            r->state == RunState::Stopped && !(m_keptStopped && m_keptStopped(id))) {
            m_plans->planContinue(id);
            m_runs->setState(id, RunState::Queued);
        }
    }
    m_dispatching = true;
    Q_EMIT dispatchingStarted();
    dispatch();
    checkIdle();
}

void Dispatcher::forgetStartsWhenFree()
{
    // Stop all means nothing starts afterwards: not these either, nor do
    // their cards go on saying they wait for a slot.
    for (RunId id : std::as_const(m_startWhenFree)) {
        if (const RunInfo *r = m_runs->find(id); r && r->message.startsWith(QLatin1String("waits: "))) {
            m_runs->update(id, [](RunInfo &run) { run.message.clear(); });
        }
    }
    m_startWhenFree.clear();
}

void Dispatcher::stopAll()
{
    m_dispatching = false;
    forgetStartsWhenFree();
    Q_EMIT dispatchingStopped();
    for (RunId id : m_runs->ids()) {
        const RunInfo *r = m_runs->find(id);
        if (r && isActive(r->state) && r->state != RunState::Stopping) {
            m_supervisor->stop(id);
        }
    }
}

void Dispatcher::killAll()
{
    m_dispatching = false;
    forgetStartsWhenFree();
    m_supervisor->killAll();
}

bool Dispatcher::launch(RunId id, QString *error, const QList<int> &gpus)
{
    const RunInfo *r = m_runs->find(id);
    StartOptions options = m_plans->startOptions(id);
    if (!gpus.isEmpty()) {
        options.device = GpuScheduler::deviceOf(gpus, options.device);
        options.masterPort = GpuScheduler::rendezvousPort(gpus);
    }
    m_gpus.started(id);
    m_startWhenFree.remove(id);
    qCDebug(lcDispatcher, "lane %d starts %s on %s", r->lane + 1, qUtf8Printable(r->name),
            qUtf8Printable(options.device.toString()));
    if (!m_supervisor->start(id, options, error)) {
        return false;
    }
    m_plans->started(id);
    return true;
}

void Dispatcher::dispatch()
{
    // Runs whose predecessors finished join their queues (and say so even
    // when nothing is dispatched).
    if (m_dependencies) {
        m_dependencies->refresh();
    }
    // Runs started by hand on a full lane wait for a slot even while
    // nothing else is dispatched.
    for (auto it = m_startWhenFree.begin(); it != m_startWhenFree.end();) {
        const RunInfo *r = m_runs->find(*it);
        it = r && r->state == RunState::Queued && !r->held ? std::next(it) : m_startWhenFree.erase(it);
    }
    if ((!m_dispatching && m_startWhenFree.isEmpty()) || m_supervisor->isShuttingDown()) {
        return;
    }
    m_gpus.begin(*m_board, [this](int l) { return m_lanes->effectiveDevice(l); });
    for (int l = 0; l < m_board->laneCount(); ++l) {
        const Device d = m_lanes->effectiveDevice(l);
        if (m_lanes->isMissing(d)) {
            continue; // preflight told the user
        }
        if (!m_launcher->unavailable(d).isEmpty()) {
            continue; // a host not reached: its runs wait, its header says why
        }
        const QList<RunId> queue = m_board->lane(l).runs;
        for (RunId id : queue) {
            // A pool counts slots per GPU (the placer); any other lane per lane.
            if (l >= m_board->laneCount() || (!d.isPool() && !laneHasFreeSlot(l))) {
                break;
            }
            const RunInfo *r = m_runs->find(id);
            if (!r || r->state != RunState::Queued || r->held || (!m_dispatching && !m_startWhenFree.contains(id))) {
                continue;
            }
            QList<int> gpus;
            if (d.isGpu()) {
                // One that waits says why; later runs may start beside it.
                QString why;
                const GpuScheduler::Outcome outcome = m_gpus.place(*r, m_board->lane(l), d, &gpus, &why);
                if (outcome == GpuScheduler::Outcome::Impossible) {
                    m_supervisor->fail(id, QStringLiteral("not started: ") + why);
                }
                if (outcome != GpuScheduler::Outcome::Placed) {
                    continue;
                }
            }
            QString error;
            if (!launch(id, &error, gpus)) {
                m_supervisor->fail(id, error);
            }
        }
    }
}

bool Dispatcher::canStartNow(const RunInfo &run, QList<int> *gpus, QString *error, bool *laneFull)
{
    if (laneFull) {
        *laneFull = false;
    }
    const Device d = m_lanes->effectiveDevice(run.lane);
    if (m_lanes->isMissing(d)) {
        return refuse(
            error, QStringLiteral("this machine has no %1; allow CPU fallback to run it on the CPU").arg(d.toString()));
    }
    if (const QString why = m_launcher->unavailable(d); !why.isEmpty()) {
        return refuse(error, why);
    }
    if (!d.isPool() && !laneHasFreeSlot(run.lane)) {
        if (laneFull) {
            *laneFull = true;
        }
        return refuse(error, QStringLiteral("lane %1 has no free slot (%2 in use)")
                                 .arg(m_board->laneTitle(run.lane))
                                 .arg(m_board->lane(run.lane).slotCount));
    }
    if (d.isGpu()) {
        m_gpus.begin(*m_board, [this](int l) { return m_lanes->effectiveDevice(l); });
        QString why;
        if (m_gpus.place(run, m_board->lane(run.lane), d, gpus, &why) != GpuScheduler::Outcome::Placed) {
            return refuse(error, QStringLiteral("%1 cannot start now: %2").arg(run.name, why));
        }
    }
    return true;
}

void Dispatcher::startWhenFree(RunId id)
{
    m_startWhenFree.insert(id);
}

void Dispatcher::endedInQueue(RunId id, RunState state)
{
    Q_EMIT runEnded(id, state);
    notifyCounts();
    checkIdle();
}

// ---- counts -----------------------------------------------------------------

int Dispatcher::finishedCount() const
{
    return m_runs->count(RunState::Finished);
}

int Dispatcher::totalCount() const
{
    return m_runs->size();
}

int Dispatcher::activeCount() const
{
    return m_runs->activeCount();
}

bool Dispatcher::isIdle() const
{
    if (activeCount() > 0) {
        return false;
    }
    for (int l = 0; l < m_board->laneCount(); ++l) {
        const Device device = m_lanes->effectiveDevice(l);
        // A missing GPU's runs wait for CPU fallback, and a cluster's are
        // submitted at once; a host's wait for it to be reached.
        if (m_lanes->isMissing(device) || device.isSlurm()) {
            continue;
        }
        for (RunId id : m_board->lane(l).runs) {
            const RunInfo *r = m_runs->find(id);
            if (r->state == RunState::Queued && !r->held) {
                return false;
            }
        }
    }
    return true;
}

void Dispatcher::checkIdle()
{
    if (m_dispatching && isIdle()) {
        m_dispatching = false;
        qCDebug(lcDispatcher, "idle: %d of %d finished", finishedCount(), totalCount());
        Q_EMIT idle();
    }
}

void Dispatcher::notifyCounts()
{
    Q_EMIT finishCountChanged(finishedCount(), totalCount());
}

// Connection order is delivery order: runEnded's listeners hear of the run
// before the finish count moves on and the next run starts in its slot.
void Dispatcher::onRunEnded(RunId id, RunState state)
{
    if (const RunInfo *r = m_runs->find(id);
        r && state == RunState::Failed && m_dispatching && m_gpus.retriesAfterOutOfMemory(*r)) {
        m_plans->planRetry(id); // from its checkpoint, else a new attempt
        m_runs->setState(id, RunState::Queued);
        notifyCounts();
        dispatch();
        return; // back in its queue, not ended
    }
    if (const RunInfo *r = m_runs->find(id)) {
        m_gpus.ended(*r);
    }
    Q_EMIT runEnded(id, state);
    notifyCounts();
    dispatch();
    if (!m_dispatching && state == RunState::Finished) {
        startReleased(id);
    }
    checkIdle();
}

// A run started by hand (Start, Retry) or found running at an opening
// finished while nothing is dispatched: the runs it released go on as
// its chain, where their lanes have a free slot.
void Dispatcher::startReleased(RunId id)
{
    if (!m_dependencies || m_supervisor->isShuttingDown()) {
        return;
    }
    for (RunId next : m_dependencies->dependents(id)) {
        const RunInfo *r = m_runs->find(next);
        if (!r || r->state != RunState::Queued || r->held || m_lanes->isMissing(m_lanes->effectiveDevice(r->lane))
            || !laneHasFreeSlot(r->lane)) {
            continue;
        }
        QString error;
        if (!launch(next, &error)) {
            m_supervisor->fail(next, error);
        }
    }
}

} // namespace trainyard
