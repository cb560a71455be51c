#include "dispatch/scheduler.h"

#include "dispatch/board.h"
#include "dispatch/dispatcher.h"
#include "ingest/ingestion.h"
#include "launch/launcherrouter.h"
#include "launch/workerprocess.h"
#include "logcategories.h"
#include "metrics/metricstore.h"
#include "records/runregistry.h"
#include "supervision/supervisor.h"

namespace trainyard {

Scheduler::Scheduler(RunStore *store, MetricsServer *server, MetricStore *metrics, DeviceInventory *devices,
                     QObject *parent)
    : Scheduler(store, server, metrics, devices, std::make_unique<LauncherRouter>(), parent)
{
    m_router = static_cast<LauncherRouter *>(m_launcher.get());
    m_dispatcher->setRouter(m_router);
}

Scheduler::Scheduler(RunStore *store, MetricsServer *server, MetricStore *metrics, DeviceInventory *devices,
                     std::unique_ptr<Launcher> launcher, QObject *parent)
    : QObject(parent)
    , m_metrics(metrics)
    , m_runs(std::make_unique<RunRegistry>())
    , m_board(std::make_unique<Board>(m_runs.get(), store))
    , m_ingestion(std::make_unique<Ingestion>(m_runs.get(), store, metrics))
    , m_launcher(std::move(launcher))
    , m_supervisor(std::make_unique<Supervisor>(m_runs.get(), store, server, m_ingestion.get(), m_launcher.get()))
    , m_dispatcher(std::make_unique<Dispatcher>(m_board.get(), m_runs.get(), m_supervisor.get(), m_ingestion.get(),
                                                store, devices))
{
    qRegisterMetaType<RunId>("trainyard::RunId");
    qRegisterMetaType<RunState>("trainyard::RunState");
    qRegisterMetaType<QList<RunId>>("QList<trainyard::RunId>");
    m_supervisor->setWorkerProgram(WorkerProcess::findWorkerProgram());
    wire();
}

// The parts' signals are the façade's. Connection order is delivery order:
// the façade's listeners hear runEnded before the finish count moves on.
void Scheduler::wire()
{
    connect(m_runs.get(), &RunRegistry::changed, this, &Scheduler::runChanged);

    Board *b = m_board.get();
    connect(b, &Board::reset, this, &Scheduler::reset);
    connect(b, &Board::laneAboutToBeAdded, this, &Scheduler::laneAboutToBeAdded);
    connect(b, &Board::laneAdded, this, &Scheduler::laneAdded);
    connect(b, &Board::laneAboutToBeRemoved, this, &Scheduler::laneAboutToBeRemoved);
    connect(b, &Board::laneRemoved, this, &Scheduler::laneRemoved);
    connect(b, &Board::laneChanged, this, &Scheduler::laneChanged);
    connect(b, &Board::runAboutToBeAdded, this, &Scheduler::runAboutToBeAdded);
    connect(b, &Board::runAdded, this, &Scheduler::runAdded);
    connect(b, &Board::runAboutToBeRemoved, this, &Scheduler::runAboutToBeRemoved);
    connect(b, &Board::runDropping, this, [this](RunId id) {
        m_supervisor->forget(id);
        m_ingestion->forget(id);
        m_dispatcher->forget(id);
    });
    connect(b, &Board::runRemoved, this, &Scheduler::runRemoved);
    connect(b, &Board::runRemoved, m_dispatcher.get(), &Dispatcher::onRunRemoved);
    connect(b, &Board::runAboutToBeMoved, this, &Scheduler::runAboutToBeMoved);
    connect(b, &Board::runMoved, this, &Scheduler::runMoved);

    connect(m_supervisor.get(), &Supervisor::runEnded, this, &Scheduler::runEnded);
    connect(m_supervisor.get(), &Supervisor::runEnded, m_dispatcher.get(), &Dispatcher::onRunEnded);
    connect(m_supervisor.get(), &Supervisor::shutdownFinished, this, &Scheduler::shutdownFinished);
    connect(m_supervisor.get(), &Supervisor::attemptArchived, this, [this](RunId id, const QString &dir) {
        Q_EMIT logLine(id, QStringLiteral("info"), QStringLiteral("new attempt; the last one is kept in %1").arg(dir));
        Q_EMIT attemptArchived(id, dir);
    });

    connect(m_ingestion.get(), &Ingestion::progressChanged, this, &Scheduler::progressChanged);
    connect(m_ingestion.get(), &Ingestion::logLine, this, &Scheduler::logLine);

    Dispatcher *d = m_dispatcher.get();
    connect(d, &Dispatcher::runEnded, this, &Scheduler::runEnded);
    connect(d, &Dispatcher::finishCountChanged, this, &Scheduler::finishCountChanged);
    connect(d, &Dispatcher::laneChanged, this, &Scheduler::laneChanged);
    connect(d, &Dispatcher::warning, this, &Scheduler::warning);
    connect(d, &Dispatcher::idle, this, &Scheduler::idle);
}

// The members go in reverse order: the supervisor kills what still runs
// (synchronously, no event loop) while the launcher is still there.
Scheduler::~Scheduler() = default;

// ---- the board ----------------------------------------------------------------

void Scheduler::setExperiment(const Experiment &experiment)
{
    // Never orphan a worker by replacing the board under it.
    m_supervisor->clear();
    m_ingestion->clear();
    m_dispatcher->reset();
    if (m_router)
        m_router->setClusters(experiment.clusters);
    m_board->setExperiment(experiment);
    qCDebug(lcScheduler, "board: %d lanes, %d runs", m_board->laneCount(), m_runs->size());
    m_dispatcher->notifyCounts();
}

Experiment Scheduler::toExperiment(const QString &name, const QString &runsRoot) const
{
    return m_board->toExperiment(name, runsRoot);
}

int Scheduler::laneCount() const
{
    return m_board->laneCount();
}
bool Scheduler::contains(RunId id) const
{
    return m_runs->contains(id);
}
QList<RunId> Scheduler::runIds() const
{
    return m_board->runIds();
}
RunInfo Scheduler::run(RunId id) const
{
    return m_runs->value(id);
}
RunId Scheduler::findRun(const QString &name) const
{
    return m_runs->findByName(name);
}
int Scheduler::position(RunId id) const
{
    return m_board->position(id);
}
QString Scheduler::uniqueName(const QString &base) const
{
    return m_board->uniqueName(base);
}

QJsonObject Scheduler::duplicateSpec(RunId id) const
{
    return m_board->duplicateSpec(id);
}

LaneInfo Scheduler::lane(int index) const
{
    LaneInfo info;
    if (!m_board->hasLane(index))
        return info;
    const Board::Lane &lane = m_board->lane(index);
    info.device = lane.device;
    info.slotCount = lane.slotCount;
    info.runs = lane.runs;
    info.effectiveDevice = m_dispatcher->effectiveDevice(index);
    return info;
}

// ---- edits --------------------------------------------------------------------

int Scheduler::addLane(const QString &device, int slotCount, int position, QString *error)
{
    return m_board->addLane(device, slotCount, position, error);
}

bool Scheduler::removeLane(int index, QString *error)
{
    if (!m_board->removeLane(index, error))
        return false;
    m_dispatcher->laneRemoved();
    return true;
}

bool Scheduler::setLaneDevice(int index, const QString &device, QString *error)
{
    if (!m_board->setLaneDevice(index, device, error))
        return false;
    m_dispatcher->laneDeviceChanged(index);
    m_dispatcher->dispatch();
    return true;
}

bool Scheduler::setLaneSlots(int index, int slotCount, QString *error)
{
    if (!m_board->setLaneSlots(index, slotCount, error))
        return false;
    m_dispatcher->dispatch();
    return true;
}

QList<RunId> Scheduler::addRun(int lane, const QJsonObject &spec, int repeat, int position, QString *error)
{
    const QList<RunId> ids = m_board->addRun(lane, spec, repeat, position, error);
    if (!ids.isEmpty()) {
        m_dispatcher->notifyCounts();
        m_dispatcher->dispatch();
    }
    return ids;
}

QList<RunId> Scheduler::addHeldRun(int lane, const QJsonObject &spec, int position, QString *error)
{
    const QList<RunId> ids = m_board->addRun(lane, spec, 1, position, error);
    for (RunId id : ids)
        m_runs->update(
            id, [](RunInfo &r) { r.held = true; }, RunRegistry::Notify::Quiet);
    if (!ids.isEmpty())
        m_dispatcher->notifyCounts();
    return ids;
}

RunId Scheduler::duplicateRun(RunId id, QString *error)
{
    const RunId copy = m_board->duplicateRun(id, error);
    if (copy != 0) {
        m_dispatcher->notifyCounts();
        m_dispatcher->dispatch();
    }
    return copy;
}

bool Scheduler::removeRun(RunId id, QString *error)
{
    return m_board->removeRun(id, error); // the parts forget it on runDropping
}

bool Scheduler::moveRun(RunId id, int lane, int position, QString *error)
{
    if (!m_board->moveRun(id, lane, position, error))
        return false;
    m_dispatcher->dispatch();
    return true;
}

bool Scheduler::setRunSpec(RunId id, const QJsonObject &spec, QString *error)
{
    return m_board->setRunSpec(id, spec, error);
}

void Scheduler::runsRootChanged()
{
    m_board->refreshRunDirs();
}

// ---- control ------------------------------------------------------------------

void Scheduler::startAll()
{
    m_dispatcher->startAll();
}
void Scheduler::stopAll()
{
    m_dispatcher->stopAll();
}
void Scheduler::killAll()
{
    m_dispatcher->killAll();
}
bool Scheduler::isDispatching() const
{
    return m_dispatcher->isDispatching();
}
bool Scheduler::startRun(RunId id, QString *error)
{
    return m_dispatcher->startRun(id, error);
}
bool Scheduler::pauseRun(RunId id, QString *error)
{
    return m_supervisor->pause(id, error);
}
bool Scheduler::cancelRun(RunId id, QString *error)
{
    return m_dispatcher->cancelRun(id, error);
}

bool Scheduler::stopRun(RunId id, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (r && r->state == RunState::Queued)
        return m_dispatcher->cancelRun(id, error);
    return m_supervisor->stop(id, error);
}

bool Scheduler::resumeRun(RunId id, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (r && r->state == RunState::Stopped)
        return m_dispatcher->startRun(id, error);
    return m_supervisor->resume(id, error);
}

int Scheduler::finishedCount() const
{
    return m_dispatcher->finishedCount();
}
int Scheduler::totalCount() const
{
    return m_dispatcher->totalCount();
}
int Scheduler::activeCount() const
{
    return m_dispatcher->activeCount();
}
bool Scheduler::isIdle() const
{
    return m_dispatcher->isIdle();
}

// ---- settings -----------------------------------------------------------------

void Scheduler::setWorkerProgram(const QString &program)
{
    m_supervisor->setWorkerProgram(program);
}
QString Scheduler::workerProgram() const
{
    return m_supervisor->workerProgram();
}
void Scheduler::setCpuFallback(bool on)
{
    m_dispatcher->setCpuFallback(on);
}
bool Scheduler::cpuFallback() const
{
    return m_dispatcher->cpuFallback();
}
QList<int> Scheduler::missingDeviceLanes() const
{
    return m_dispatcher->missingDeviceLanes();
}
QStringList Scheduler::preflight() const
{
    return m_dispatcher->preflight();
}

QStringList Scheduler::busyDeviceWarnings() const
{
    return m_dispatcher->busyDeviceWarnings();
}
void Scheduler::setStopTimeout(int ms)
{
    m_supervisor->setStopTimeout(ms);
}
void Scheduler::setStallTimeout(int ms)
{
    m_supervisor->setStallTimeout(ms);
}
void Scheduler::setCpuThreads(int threads)
{
    m_dispatcher->setCpuThreads(threads);
}
int Scheduler::threadsPerCpuRun() const
{
    return m_dispatcher->threadsPerCpuRun();
}

QStringList Scheduler::commandLine(RunId id) const
{
    const RunInfo *r = m_runs->find(id);
    if (!r)
        return {};
    if (r->state != RunState::Queued && !r->command.isEmpty())
        return r->command;
    return m_supervisor->launchSpec(id, m_dispatcher->startOptions(id)).commandLine();
}
QSet<qint64> Scheduler::workerPids() const
{
    return m_supervisor->workerPids();
}

// ---- history, shutdown, the socket ----------------------------------------------

QStringList Scheduler::loadHistory()
{
    const QStringList warnings = m_supervisor->loadHistory([this](RunId id) { return m_dispatcher->startOptions(id); });
    m_metrics->flush();
    m_dispatcher->notifyCounts();
    return warnings;
}

void Scheduler::shutdown(bool leaveRunning)
{
    m_dispatcher->halt();
    m_supervisor->shutdown(leaveRunning);
}

bool Scheduler::isShuttingDown() const
{
    return m_supervisor->isShuttingDown();
}

void Scheduler::handleMessage(RunId id, const nlohmann::json &message)
{
    m_supervisor->handleMessage(id, message);
}

void Scheduler::handleMetric(RunId id, const MetricLine &line)
{
    m_supervisor->handleMetric(id, line);
}

} // namespace trainyard
