#include "orchestration/session/orchestrator.h"

#include "metrics/metricstore.h"
#include "orchestration/board/board.h"
#include "orchestration/dependencies/dependencies.h"
#include "orchestration/dependencies/runinputs.h"
#include "orchestration/devices/device.h"
#include "orchestration/devices/deviceinventory.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/gpuaccount.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/dispatch/startplanner.h"
#include "orchestration/ingest/ingestion.h"
#include "orchestration/launch/workerprocess.h"
#include "orchestration/logcategories.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/launcherrouter.h"
#include "orchestration/session/onendcommands.h"
#include "orchestration/supervision/supervisor.h"
#include "orchestration/sweep/sweeprunner.h"

namespace trainyard {

Orchestrator::Orchestrator(RunStore *store, MetricsServer *server, MetricStore *metrics, DeviceInventory *devices,
                           QObject *parent)
    : Orchestrator(store, server, metrics, devices, std::make_unique<LauncherRouter>(), parent)
{
}

Orchestrator::Orchestrator(RunStore *store, MetricsServer *server, MetricStore *metrics, DeviceInventory *devices,
                           std::unique_ptr<Launcher> launcher, QObject *parent)
    : QObject(parent)
    , m_metrics(metrics)
    , m_store(store)
    , m_runs(std::make_unique<RunRegistry>())
    , m_board(std::make_unique<Board>(m_runs.get(), store))
    , m_dependencies(std::make_unique<Dependencies>(m_board.get(), m_runs.get()))
    , m_inputs(std::make_unique<RunInputs>(m_dependencies.get(), m_runs.get(), metrics))
    , m_ingestion(std::make_unique<Ingestion>(m_runs.get(), store, metrics))
    , m_launcher(std::move(launcher))
    , m_supervisor(std::make_unique<Supervisor>(m_runs.get(), store, server, m_ingestion.get(), m_launcher.get()))
    , m_laneDevices(std::make_unique<LaneDevices>(m_board.get(), m_runs.get(), devices, m_launcher.get(), store,
                                                  m_supervisor.get()))
    , m_startPlanner(std::make_unique<StartPlanner>(m_board.get(), m_runs.get(), store, m_ingestion.get(),
                                                    m_supervisor.get(), m_laneDevices.get()))
    , m_dispatcher(std::make_unique<Dispatcher>(m_board.get(), m_runs.get(), m_supervisor.get(), store, devices,
                                                m_launcher.get(), m_laneDevices.get(), m_startPlanner.get()))
    , m_runActions(
          std::make_unique<RunActions>(m_runs.get(), m_supervisor.get(), m_dispatcher.get(), m_startPlanner.get()))
    , m_sweeps(
          std::make_unique<SweepRunner>(m_board.get(), m_dispatcher.get(), m_runActions.get(), m_runs.get(), metrics))
    , m_onEnd(std::make_unique<OnEndCommands>(m_dispatcher.get(), m_runs.get(), store))
{
    qRegisterMetaType<RunId>("trainyard::RunId");
    qRegisterMetaType<RunState>("trainyard::RunState");
    qRegisterMetaType<QList<RunId>>("QList<trainyard::RunId>");
    m_supervisor->setWorkerProgram(WorkerProcess::findWorkerProgram());
    // A host's GPUs, polled over its connection, for the lanes' headers.
    if (devices) {
        connect(m_launcher.get(), &Launcher::devicesReported, devices, &DeviceInventory::setRemoteDevices);
    }
    // A run whose top process ended while others of it live on stays active
    // and says which pids it waits for (the launcher ends them).
    connect(m_launcher.get(), &Launcher::lingering, this, [this](RunId id, const QString &message) {
        if (const RunInfo *r = m_runs->find(id); r && !isTerminal(r->state)) {
            m_runs->update(id, [&](RunInfo &run) { run.message = message; });
        }
    });
    // A sweep fills a pool lane with its slots on each of its GPUs.
    if (devices) {
        m_sweeps->setLaneCapacity([this, devices](int lane) {
            const int slots = m_board->lane(lane).slotCount;
            const Device device = m_laneDevices->effectiveDevice(lane);
            return device.isPool() ? slots * std::max(1, GpuAccount::gpusOf(device, *devices)) : slots;
        });
    }
    m_dependencies->setSweeps(m_sweeps.get());
    m_dispatcher->setDependencies(m_dependencies.get());
    m_runActions->setDependencies(m_dependencies.get());
    m_supervisor->setInputs(m_inputs.get());
    // A run leaving the board: its record still exists while the parts
    // that keep per-run state drop theirs.
    connect(m_board.get(), &Board::runDropping, this, [this](RunId id) {
        m_supervisor->forget(id);
        m_ingestion->forget(id);
        m_dispatcher->forget(id);
        m_startPlanner->forget(id);
    });
}

// The members go in reverse order: the supervisor kills what still runs
// (synchronously, no event loop) while the launcher is still there.
Orchestrator::~Orchestrator() = default;

void Orchestrator::setExperiment(const Experiment &experiment)
{
    // Never orphan a worker by replacing the board under it.
    m_supervisor->clear();
    m_ingestion->clear();
    m_dispatcher->reset();
    m_startPlanner->reset();
    m_launcher->setClusters(experiment.clusters);
    setHosts(experiment.hosts);
    m_board->setExperiment(experiment);
    m_onEnd->setExperiment(experiment.name, experiment.onEnd);
    m_sweepWarnings.clear();
    const QMetaObject::Connection heard =
        connect(m_sweeps.get(), &SweepRunner::warning, this, [this](const QString &w) { m_sweepWarnings << w; });
    m_sweeps->setSweeps(experiment.sweeps, m_store->root());
    disconnect(heard);
    m_dependencies->refresh();
    qCDebug(lcOrchestrator, "board: %d lanes, %d runs", m_board->laneCount(), m_runs->size());
    m_dispatcher->notifyCounts();
}

void Orchestrator::setHosts(const QList<ExperimentHost> &hosts)
{
    m_hosts = hosts;
    m_launcher->setHosts(hosts);
}

RunId Orchestrator::restoreRun(const RunInfo &run, int position, QString *error)
{
    const RunId id = m_board->restoreRun(run, position, error);
    // Its folder was never touched: its curves come back from it.
    if (id != 0 && isTerminal(run.state)) {
        m_ingestion->ingestMetricsFile(id);
        m_metrics->flush();
    }
    return id;
}

QStringList Orchestrator::loadHistory()
{
    // The trials' curves come back with the rest: the sweeps' records are rebuilt from them.
    const QStringList warnings =
        m_sweepWarnings + m_supervisor->loadHistory([this](RunId id) { return m_startPlanner->startOptions(id); });
    m_sweepWarnings.clear();
    m_metrics->flush();
    m_dependencies->refresh(); // what ran while Trainyard was away may release its dependents
    m_dispatcher->notifyCounts();
    return warnings;
}

void Orchestrator::shutdown(bool leaveRunning)
{
    m_dispatcher->halt();
    m_supervisor->shutdown(leaveRunning);
}

void Orchestrator::disconnectListener(const QObject *listener) const
{
    const QObject *parts[] = {m_runs.get(),     m_board.get(),        m_ingestion.get(),
                              m_launcher.get(), m_supervisor.get(),   m_dispatcher.get(),
                              m_sweeps.get(),   m_dependencies.get(), m_laneDevices.get()};
    for (const QObject *part : parts) {
        QObject::disconnect(part, nullptr, listener, nullptr);
    }
}

} // namespace trainyard
