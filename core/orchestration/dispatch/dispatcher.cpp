#include "dispatch/dispatcher.h"

#include "board/board.h"
#include "dependencies/dependencies.h"
#include "devices/device.h"
#include "devices/deviceinventory.h"
#include "devices/gpupresence.h"
#include "dispatch/preflight.h"
#include "ingest/ingestion.h"
#include "launch/launcher.h"
#include "logcategories.h"
#include "placement/runresources.h"
#include "records/runregistry.h"
#include "runstore/runstore.h"
#include "supervision/exitoutcome.h"
#include "supervision/supervisor.h"

#include <QThread>

#include <algorithm>

namespace trainyard {

Dispatcher::Dispatcher(Board *board, RunRegistry *runs, Supervisor *supervisor, Ingestion *ingestion, RunStore *store,
                       DeviceInventory *devices, const Launcher *launcher, QObject *parent)
    : QObject(parent)
    , m_board(board)
    , m_runs(runs)
    , m_supervisor(supervisor)
    , m_ingestion(ingestion)
    , m_store(store)
    , m_devices(devices)
    , m_launcher(launcher)
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
        if (m_dispatching)
            dispatch();
    });
    connect(devices, &DeviceInventory::remoteDevicesChanged, this, [this] {
        if (m_dispatching)
            dispatch();
    });
    // A host reached (or lost): its lanes' headers say so, its runs may start.
    connect(launcher, &Launcher::availabilityChanged, this, [this] {
        for (int l = 0; l < m_board->laneCount(); ++l)
            if (m_board->lane(l).device.isRemote())
                Q_EMIT laneChanged(l);
        dispatch();
    });
}

LaneInfo Dispatcher::lane(int index) const
{
    LaneInfo info;
    if (!m_board->hasLane(index))
        return info;
    const Board::Lane &lane = m_board->lane(index);
    info.title = m_board->laneTitle(index);
    info.name = lane.name;
    info.device = lane.device;
    info.slotCount = lane.slotCount;
    info.runs = lane.runs;
    info.effectiveDevice = effectiveDevice(index);
    info.waitReason = m_launcher->unavailable(info.effectiveDevice);
    return info;
}

QStringList Dispatcher::commandLine(RunId id) const
{
    const RunInfo *r = m_runs->find(id);
    if (!r)
        return {};
    if (r->state != RunState::Queued && r->state != RunState::Waiting && !r->command.isEmpty())
        return r->command;
    return m_supervisor->launchSpec(id, startOptions(id)).commandLine();
}

// ---- devices ----------------------------------------------------------------

Device Dispatcher::effectiveDevice(int lane) const
{
    const Device device = m_board->lane(lane).device;
    // A Slurm lane never falls back to this machine's CPU.
    if (!isMissing(device))
        return device;
    return m_cpuFallback ? Device::cpu() : device;
}

bool Dispatcher::isMissing(const Device &device) const
{
    // A pool lacks a GPU when any GPU it names is not here.
    return !missingGpus(device, *m_devices).isEmpty();
}

QList<int> Dispatcher::missingDeviceLanes() const
{
    QList<int> lanes;
    for (int l = 0; l < m_board->laneCount(); ++l) {
        if (isMissing(m_board->lane(l).device))
            lanes << l;
    }
    return lanes;
}

void Dispatcher::setCpuFallback(bool on)
{
    m_cpuFallback = on;
    for (int l : missingDeviceLanes())
        Q_EMIT laneChanged(l);
    dispatch();
}

QStringList Dispatcher::preflight() const
{
    return preflight::problems(
        {*this, *m_board, *m_runs, *m_launcher, *m_devices, m_store->root(), m_supervisor->workerProgram()});
}

QStringList Dispatcher::busyDeviceWarnings() const
{
    QList<Device> devices;
    for (int l = 0; l < m_board->laneCount(); ++l)
        devices << effectiveDevice(l);
    return m_gpus.busyWarnings(devices);
}

int Dispatcher::threadsPerCpuRun() const
{
    if (m_cpuThreadsOverride > 0)
        return m_cpuThreadsOverride;
    int slotCount = 0;
    for (int l = 0; l < m_board->laneCount(); ++l) {
        if (effectiveDevice(l).isCpu())
            slotCount += m_board->lane(l).slotCount;
    }
    return std::max(1, QThread::idealThreadCount() / std::max(1, slotCount));
}

// ---- dispatch ---------------------------------------------------------------

bool Dispatcher::laneHasFreeSlot(int lane) const
{
    int busy = 0;
    for (RunId id : m_board->lane(lane).runs) {
        if (isActive(m_runs->find(id)->state))
            ++busy;
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
            if (m_store->hasCheckpoint(r->name))
                m_resumeNext.insert(id);
            else
                m_resumeNext.remove(id);
            m_runs->setState(id, RunState::Queued);
        }
    }
    m_dispatching = true;
    Q_EMIT dispatchingStarted();
    dispatch();
    checkIdle();
}

void Dispatcher::stopAll()
{
    m_dispatching = false;
    Q_EMIT dispatchingStopped();
    for (RunId id : m_runs->ids()) {
        const RunInfo *r = m_runs->find(id);
        if (r && isActive(r->state) && r->state != RunState::Stopping)
            m_supervisor->stop(id);
    }
}

void Dispatcher::killAll()
{
    m_dispatching = false;
    m_supervisor->killAll();
}

StartOptions Dispatcher::startOptions(RunId id) const
{
    StartOptions options;
    const RunInfo *r = m_runs->find(id);
    if (!r || r->lane < 0)
        return options;
    options.device = effectiveDevice(r->lane);
    const Device &device = options.device;
    options.threads = device.isCpu() ? threadsPerCpuRun() : 0;
    if (device.isSlurm()) {
        // The job's GPUs are the node's: CPU fallback there means a node
        // without a usable one trains on its CPU (the worker decides).
        options.gres = m_board->lane(r->lane).gres;
        if (RunResources::namesGpus(r->spec)) // --gres=gpu:N of the lane's type
            options.gres = RunResources::gresFor(options.gres, RunResources::of(r->spec).gpus);
        options.cpuFallback = m_cpuFallback;
    } else if (device.isRemote() || device.isCuda()) {
        // The same on a GPU the worker cannot use (a CPU-only build, a host's).
        options.cpuFallback = m_cpuFallback;
    }
    options.resume = m_resumeNext.contains(id);
    return options;
}

bool Dispatcher::launch(RunId id, QString *error, const QList<int> &gpus)
{
    const RunInfo *r = m_runs->find(id);
    StartOptions options = startOptions(id);
    if (!gpus.isEmpty()) {
        options.device = GpuScheduler::deviceOf(gpus, options.device);
        options.masterPort = GpuScheduler::rendezvousPort(gpus);
    }
    m_gpus.started(id);
    qCDebug(lcDispatcher, "lane %d starts %s on %s", r->lane + 1, qUtf8Printable(r->name),
            qUtf8Printable(options.device.toString()));
    if (!m_supervisor->start(id, options, error))
        return false;
    m_resumeNext.remove(id);
    return true;
}

void Dispatcher::dispatch()
{
    // Runs whose predecessors finished join their queues (and say so even
    // when nothing is dispatched).
    if (m_dependencies)
        m_dependencies->refresh();
    if (!m_dispatching || m_supervisor->isShuttingDown())
        return;
    m_gpus.begin(*m_board, [this](int l) { return effectiveDevice(l); });
    for (int l = 0; l < m_board->laneCount(); ++l) {
        const Device d = effectiveDevice(l);
        if (isMissing(d))
            continue; // preflight told the user
        if (!m_launcher->unavailable(d).isEmpty())
            continue; // a host not reached: its runs wait, its header says why
        const QList<RunId> queue = m_board->lane(l).runs;
        for (RunId id : queue) {
            // A pool counts slots per GPU (the placer); any other lane per lane.
            if (l >= m_board->laneCount() || (!d.isPool() && !laneHasFreeSlot(l)))
                break;
            const RunInfo *r = m_runs->find(id);
            if (!r || r->state != RunState::Queued || r->held)
                continue;
            QList<int> gpus;
            if (d.isGpu()) {
                // One that waits says why; later runs may start beside it.
                QString why;
                const GpuScheduler::Outcome outcome = m_gpus.place(*r, m_board->lane(l), d, &gpus, &why);
                if (outcome == GpuScheduler::Outcome::Impossible)
                    m_supervisor->fail(id, QStringLiteral("not started: ") + why);
                if (outcome != GpuScheduler::Outcome::Placed)
                    continue;
            }
            QString error;
            if (!launch(id, &error, gpus))
                m_supervisor->fail(id, error);
        }
    }
}

bool Dispatcher::resumesOnRetry(RunId id) const
{
    const RunInfo *r = m_runs->find(id);
    // A lost run's process may still write its folder: never a second writer
    // there, a new attempt instead.
    return r && r->state != RunState::Finished && r->state != RunState::Lost && m_store->hasCheckpoint(r->name);
}

QString Dispatcher::attemptKeptOnRetry(RunId id) const
{
    const RunInfo *r = m_runs->find(id);
    if (!r || !m_store->hasResults(r->name))
        return {};
    // A queued run starts afresh: results in its folder are another spec's (HistoryLoader).
    if (r->state != RunState::Queued && (!isTerminal(r->state) || resumesOnRetry(id)))
        return {};
    return m_store->nextAttemptName(r->name);
}

void Dispatcher::planRetry(RunId id)
{
    if (resumesOnRetry(id)) {
        m_resumeNext.insert(id);
    } else {
        // A new attempt: its folder's results are kept at launch (Supervisor::start).
        m_resumeNext.remove(id);
        m_ingestion->resetCurves(id);
    }
}

bool Dispatcher::startRun(RunId id, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (!r)
        return refuse(error, QStringLiteral("no such run"));
    if (r->state == RunState::Waiting)
        return refuse(error, QStringLiteral("%1 %2").arg(r->name, r->message));
    if (r->state != RunState::Queued && !isTerminal(r->state))
        return refuse(error, QStringLiteral("%1 is %2").arg(r->name, runStateName(r->state)));
    const Device d = effectiveDevice(r->lane);
    if (isMissing(d))
        return refuse(
            error, QStringLiteral("this machine has no %1; allow CPU fallback to run it on the CPU").arg(d.toString()));
    if (const QString why = m_launcher->unavailable(d); !why.isEmpty())
        return refuse(error, why);
    if (!d.isPool() && !laneHasFreeSlot(r->lane))
        return refuse(error, QStringLiteral("lane %1 has no free slot (%2 in use)")
                                 .arg(r->lane + 1)
                                 .arg(m_board->lane(r->lane).slotCount));
    QList<int> gpus;
    if (d.isGpu()) {
        m_gpus.begin(*m_board, [this](int l) { return effectiveDevice(l); });
        QString why;
        if (m_gpus.place(*r, m_board->lane(r->lane), d, &gpus, &why) != GpuScheduler::Outcome::Placed)
            return refuse(error, QStringLiteral("%1 cannot start now: %2").arg(r->name, why));
    }
    // An ended run (Stopped, or put back by an undo) starts as Retry does.
    const bool ended = isTerminal(r->state);
    if (ended) {
        planRetry(id);
        // Queued first, so that a launch that fails records its failure.
        m_runs->update(
            id, [](RunInfo &run) { run.message.clear(); }, RunRegistry::Notify::Quiet);
        m_runs->setState(id, RunState::Queued);
    }
    m_runs->update(
        id, [](RunInfo &run) { run.held = false; }, RunRegistry::Notify::Quiet);
    if (m_dependencies) // an ended run that runs after others may have to wait for them again
        m_dependencies->refresh();
    if (r->state == RunState::Waiting)
        return true;
    QString why;
    if (!launch(id, &why, gpus)) {
        m_supervisor->fail(id, why);
        return refuse(error, why);
    }
    if (ended)
        notifyCounts();
    return true;
}

bool Dispatcher::stopRun(RunId id, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (r && (r->state == RunState::Queued || r->state == RunState::Waiting))
        return cancelRun(id, error);
    return m_supervisor->stop(id, error);
}

bool Dispatcher::resumeRun(RunId id, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (r && r->state == RunState::Stopped)
        return startRun(id, error);
    return m_supervisor->resume(id, error);
}

bool Dispatcher::cancelRun(RunId id, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (!r || (r->state != RunState::Queued && r->state != RunState::Waiting))
        return refuse(error, QStringLiteral("only a queued or waiting run can be cancelled"));
    m_runs->update(id, [](RunInfo &run) {
        run.ended = QDateTime::currentDateTimeUtc();
        run.state = RunState::Cancelled;
    });
    Q_EMIT runEnded(id, RunState::Cancelled);
    notifyCounts();
    checkIdle();
    return true;
}

bool Dispatcher::retryRun(RunId id, bool fromCheckpoint, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (!r)
        return refuse(error, QStringLiteral("no such run"));
    if (!isTerminal(r->state))
        return refuse(error, QStringLiteral("%1 is %2").arg(r->name, runStateName(r->state)));
    if (fromCheckpoint) {
        planRetry(id);
    } else {
        m_resumeNext.remove(id);
        m_ingestion->resetCurves(id);
    }
    m_runs->update(id, [](RunInfo &run) {
        run.message.clear();
        run.held = false;
        run.state = RunState::Queued;
    });
    notifyCounts();
    dispatch();
    return true;
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
    if (activeCount() > 0)
        return false;
    for (int l = 0; l < m_board->laneCount(); ++l) {
        const Device device = effectiveDevice(l);
        // A missing GPU's runs wait for CPU fallback, and a cluster's are
        // submitted at once; a host's wait for it to be reached.
        if (isMissing(device) || device.isSlurm())
            continue;
        for (RunId id : m_board->lane(l).runs) {
            const RunInfo *r = m_runs->find(id);
            if (r->state == RunState::Queued && !r->held)
                return false;
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
        planRetry(id); // from its checkpoint, else a new attempt
        m_runs->setState(id, RunState::Queued);
        notifyCounts();
        dispatch();
        return; // back in its queue, not ended
    }
    if (const RunInfo *r = m_runs->find(id))
        m_gpus.ended(*r);
    Q_EMIT runEnded(id, state);
    notifyCounts();
    dispatch();
    if (!m_dispatching && state == RunState::Finished)
        startReleased(id);
    checkIdle();
}

// A run started by hand (Start, Retry) or found running at an opening
// finished while nothing is dispatched: the runs it released go on as
// its chain, where their lanes have a free slot.
void Dispatcher::startReleased(RunId id)
{
    if (!m_dependencies || m_supervisor->isShuttingDown())
        return;
    for (RunId next : m_dependencies->dependents(id)) {
        const RunInfo *r = m_runs->find(next);
        if (!r || r->state != RunState::Queued || r->held || isMissing(effectiveDevice(r->lane))
            || !laneHasFreeSlot(r->lane))
            continue;
        QString error;
        if (!launch(next, &error))
            m_supervisor->fail(next, error);
    }
}

void Dispatcher::reset()
{
    m_resumeNext.clear();
    m_dispatching = false;
}

void Dispatcher::forget(RunId id)
{
    m_resumeNext.remove(id);
    m_gpus.forget(id);
}

} // namespace trainyard
