#include "dispatch/dispatcher.h"

#include "dependencies/dependencies.h"
#include "devices/device.h"
#include "devices/deviceinventory.h"
#include "dispatch/board.h"
#include "ingest/ingestion.h"
#include "launch/launcher.h"
#include "logcategories.h"
#include "records/runregistry.h"
#include "runstore/runstore.h"
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
{
    connect(board, &Board::edited, this, [this] {
        notifyCounts();
        dispatch();
        checkIdle();
    });
    connect(board, &Board::laneRemoved, this, [this] { m_warnedBusyLanes.clear(); });
    connect(supervisor, &Supervisor::runEnded, this, &Dispatcher::onRunEnded);
    // A host reached (or lost): its lanes' headers say so, its runs may start.
    connect(launcher, &Launcher::availabilityChanged, this, [this] {
        for (int l = 0; l < m_board->laneCount(); ++l)
            if (Device::parse(m_board->lane(l).device).isRemote())
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

QString Dispatcher::effectiveDevice(int lane) const
{
    const QString device = m_board->lane(lane).device;
    // A Slurm lane never falls back to this machine's CPU.
    if (!isMissing(device))
        return device;
    return m_cpuFallback ? QStringLiteral("cpu") : device;
}

bool Dispatcher::isMissing(const QString &device) const
{
    const Device d = Device::parse(device);
    return d.isLocal() && !d.isCpu() && !m_devices->hasDevice(device);
}

QList<int> Dispatcher::missingDeviceLanes() const
{
    QList<int> lanes;
    for (int l = 0; l < m_board->laneCount(); ++l) {
        const QString device = m_board->lane(l).device;
        if (isMissing(device))
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
    QStringList problems;
    const int gpus = m_devices->gpuCount();
    for (int l : missingDeviceLanes()) {
        problems << QStringLiteral("lane %1 names %2, but this machine has %3 GPU%4%5")
                        .arg(l + 1)
                        .arg(m_board->lane(l).device)
                        .arg(gpus)
                        .arg(gpus == 1 ? QString() : QStringLiteral("s"))
                        .arg(m_cpuFallback ? QStringLiteral(": its runs will train on the CPU")
                                           : QStringLiteral(": allow CPU fallback to train its runs on the CPU"));
    }
    QStringList devices;
    for (int l = 0; l < m_board->laneCount(); ++l)
        devices << m_board->lane(l).device;
    problems << m_launcher->problems(devices, m_store->root());
    return problems + busyDeviceWarnings();
}

QStringList Dispatcher::busyDeviceWarnings() const
{
    QStringList problems;
    QSet<QString> seen;
    for (int l = 0; l < m_board->laneCount(); ++l) {
        const DeviceInfo d = m_devices->device(effectiveDevice(l));
        if (!d.isGpu || seen.contains(d.id) || !d.busyWithOthers())
            continue;
        seen.insert(d.id);
        QStringList who;
        for (const GpuProcess &p : d.processes) {
            if (!p.ours)
                who << QStringLiteral("pid %1%2")
                           .arg(p.pid)
                           .arg(p.name.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(p.name));
        }
        problems << QStringLiteral("%1 (%2) is busy with another user's process: %3")
                        .arg(d.id, d.name, who.join(QStringLiteral(", ")));
    }
    return problems;
}

int Dispatcher::threadsPerCpuRun() const
{
    if (m_cpuThreadsOverride > 0)
        return m_cpuThreadsOverride;
    int slotCount = 0;
    for (int l = 0; l < m_board->laneCount(); ++l) {
        if (Device::parse(effectiveDevice(l)).isCpu())
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
    const Device device = Device::parse(options.device);
    options.threads = device.isCpu() ? threadsPerCpuRun() : 0;
    if (device.isSlurm()) {
        // The job's GPUs are the node's: CPU fallback there means a node
        // without a usable one trains on its CPU (the worker decides).
        options.gres = m_board->lane(r->lane).gres;
        options.cpuFallback = m_cpuFallback;
    } else if (device.isRemote()) {
        options.cpuFallback = m_cpuFallback; // the same on a host's GPU the worker cannot use
    }
    options.resume = m_resumeNext.contains(id);
    return options;
}

bool Dispatcher::launch(RunId id, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    const StartOptions options = startOptions(id);
    qCDebug(lcDispatcher, "lane %d starts %s on %s", r->lane + 1, qUtf8Printable(r->name),
            qUtf8Printable(options.device));
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
    for (int l = 0; l < m_board->laneCount(); ++l) {
        const QString device = effectiveDevice(l);
        if (isMissing(device))
            continue; // preflight told the user
        if (!m_launcher->unavailable(device).isEmpty())
            continue; // a host not reached: its runs wait, its header says why
        const DeviceInfo d = m_devices->device(device);
        if (d.isGpu && d.busyWithOthers() && m_warnedBusyLanes.value(l) != device) {
            m_warnedBusyLanes.insert(l, device);
            Q_EMIT warning(QStringLiteral("%1 is busy with another user's process; lane %2 starts there anyway")
                               .arg(device)
                               .arg(l + 1));
        }
        const QList<RunId> queue = m_board->lane(l).runs;
        for (RunId id : queue) {
            if (l >= m_board->laneCount() || !laneHasFreeSlot(l))
                break;
            const RunInfo *r = m_runs->find(id);
            if (!r || r->state != RunState::Queued || r->held)
                continue;
            QString error;
            if (!launch(id, &error))
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
    if (!r || !isTerminal(r->state) || resumesOnRetry(id) || !m_store->hasResults(r->name))
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
    const QString device = effectiveDevice(r->lane);
    if (isMissing(device))
        return refuse(error,
                      QStringLiteral("this machine has no %1; allow CPU fallback to run it on the CPU").arg(device));
    if (const QString why = m_launcher->unavailable(device); !why.isEmpty())
        return refuse(error, why);
    if (!laneHasFreeSlot(r->lane))
        return refuse(error, QStringLiteral("lane %1 has no free slot (%2 in use)")
                                 .arg(r->lane + 1)
                                 .arg(m_board->lane(r->lane).slotCount));
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
    if (!launch(id, &why)) {
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
        const QString device = effectiveDevice(l);
        // A missing GPU's runs wait for CPU fallback, and a cluster's are
        // submitted at once; a host's wait for it to be reached.
        if (isMissing(device) || Device::parse(device).isSlurm())
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
    m_warnedBusyLanes.clear();
    m_dispatching = false;
}

void Dispatcher::forget(RunId id)
{
    m_resumeNext.remove(id);
}

} // namespace trainyard
