#include "scheduler.h"

#include "deviceinventory.h"
#include "exitcode.h"
#include "metricline.h"
#include "metricrecord.h"
#include "metricsserver.h"
#include "metricstore.h"
#include "protocol.h"
#include "runstore.h"
#include "workerprocess.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QThread>

#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstring>

namespace trainyard {

struct Scheduler::Run
{
    RunInfo info;
    WorkerProcess *worker = nullptr;
    qint64 metricsOffset = 0;
    QElapsedTimer lastSeen;  // since the last message (or the start)
    QTimer *stopTimer = nullptr;
    int stopPhase = 0;       // 0 asked via socket, 1 SIGTERM sent, 2 SIGKILL sent
    bool doneSeen = false;
    QString doneStatus;
    int doneExit = -1;
    bool resumeNext = false; // next start continues from the checkpoint
    bool progressDirty = false; // listed in m_progressDirty
    qint64 rateStep = -1;    // step and wall at the start of the rate window
    double rateWall = 0;
};

namespace {

QString lastLogLine(const QString &runDir)
{
    QFile file(runDir + QStringLiteral("/worker.log"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    if (file.size() > 4096)
        file.seek(file.size() - 4096);
    const QList<QByteArray> lines = file.readAll().split('\n');
    for (auto it = lines.crbegin(); it != lines.crend(); ++it) {
        const QByteArray line = it->trimmed();
        if (!line.isEmpty())
            return QString::fromUtf8(line).left(300);
    }
    return {};
}

QString exitMeaning(int code)
{
    const std::string_view text = protocol::exitMeaning(code);
    return QString::fromLatin1(text.data(), qsizetype(text.size()));
}

QString signalName(int sig)
{
    const char *abbrev = sigabbrev_np(sig);
    const char *text = sigdescr_np(sig);
    if (!abbrev || !text)
        return QStringLiteral("signal %1").arg(sig);
    return QStringLiteral("signal %1 (SIG%2: %3)").arg(sig).arg(QString::fromLatin1(abbrev), QString::fromLatin1(text));
}

RunState stateForExit(int code)
{
    using protocol::ExitCode;
    if (code == toInt(ExitCode::Finished))
        return RunState::Finished;
    if (code == toInt(ExitCode::Diverged))
        return RunState::Diverged;
    if (code == toInt(ExitCode::Stopped))
        return RunState::Stopped;
    return RunState::Failed;
}

} // namespace

Scheduler::Scheduler(RunStore *store, MetricsServer *server, MetricStore *metrics, DeviceInventory *devices,
                     QObject *parent)
    : QObject(parent)
    , m_store(store)
    , m_server(server)
    , m_metrics(metrics)
    , m_devices(devices)
{
    qRegisterMetaType<RunId>("trainyard::RunId");
    qRegisterMetaType<RunState>("trainyard::RunState");
    qRegisterMetaType<QList<RunId>>("QList<trainyard::RunId>");
    m_workerProgram = WorkerProcess::findWorkerProgram();
    m_progressTimer.setSingleShot(true);
    m_progressTimer.setInterval(33);
    connect(&m_progressTimer, &QTimer::timeout, this, &Scheduler::flushProgress);
    connect(&m_watchdog, &QTimer::timeout, this, &Scheduler::checkWatchdog);
    m_watchdog.start(500);
    connect(m_server, &MetricsServer::runDisconnected, this, [this](RunId id) {
        if (Run *r = find(id)) {
            r->info.connected = false;
            emit runChanged(id);
        }
    });
}

Scheduler::~Scheduler()
{
    if (!m_shuttingDown)
        shutdown(false);
    qDeleteAll(m_runs);
}

// ---- the board ------------------------------------------------------------

Scheduler::Run *Scheduler::find(RunId id) const
{
    return m_runs.value(id, nullptr);
}

RunId Scheduler::newRun(const QJsonObject &spec, const QString &group, int index, int count, int lane)
{
    auto *r = new Run;
    r->info.id = m_nextId++;
    r->info.spec = spec;
    r->info.name = spec.value(QStringLiteral("name")).toString();
    r->info.group = group;
    r->info.repeatIndex = index;
    r->info.repeatCount = count;
    r->info.lane = lane;
    r->info.runDir = m_store->runDir(r->info.name);
    m_runs.insert(r->info.id, r);
    return r->info.id;
}

void Scheduler::setExperiment(const Experiment &experiment)
{
    // Never orphan a worker by replacing the board under it.
    if (activeCount() > 0)
        shutdown(false);
    qDeleteAll(m_runs);
    m_runs.clear();
    m_lanes.clear();
    m_metrics->clear();
    m_warnedBusyLanes.clear();
    m_dispatching = false;
    m_shuttingDown = false;
    for (int l = 0; l < experiment.lanes.size(); ++l) {
        const ExperimentLane &el = experiment.lanes.at(l);
        Lane lane;
        lane.device = el.device;
        lane.slotCount = el.slotCount;
        for (const ExperimentRun &er : el.runs) {
            const QString group = er.spec.value(QStringLiteral("name")).toString();
            for (int i = 0; i < er.repeat; ++i)
                lane.runs << newRun(expandRepeat(er.spec, i, er.repeat), group, i, er.repeat, l);
        }
        m_lanes << lane;
    }
    emit reset();
    m_lastFinished = -1;
    emit finishCountChanged(finishedCount(), totalCount());
}

Experiment Scheduler::toExperiment(const QString &name, const QString &runsRoot) const
{
    Experiment ex;
    ex.name = name;
    ex.runsRoot = runsRoot;
    for (const Lane &lane : m_lanes) {
        ExperimentLane el;
        el.device = lane.device;
        el.slotCount = lane.slotCount;
        for (int i = 0; i < lane.runs.size();) {
            const Run *r = find(lane.runs.at(i));
            const int count = r->info.repeatCount;
            bool collapse = count > 1 && r->info.repeatIndex == 0 && i + count <= lane.runs.size();
            QJsonObject base = r->info.spec;
            base.insert(QStringLiteral("name"), r->info.group);
            for (int k = 0; collapse && k < count; ++k) {
                const Run *rk = find(lane.runs.at(i + k));
                collapse = rk->info.group == r->info.group && rk->info.repeatIndex == k
                    && rk->info.spec == expandRepeat(base, k, count);
            }
            if (collapse) {
                el.runs << ExperimentRun{base, count};
                i += count;
            } else {
                el.runs << ExperimentRun{r->info.spec, 1};
                ++i;
            }
        }
        ex.lanes << el;
    }
    return ex;
}

LaneInfo Scheduler::lane(int index) const
{
    LaneInfo info;
    if (index < 0 || index >= m_lanes.size())
        return info;
    info.device = m_lanes.at(index).device;
    info.slotCount = m_lanes.at(index).slotCount;
    info.runs = m_lanes.at(index).runs;
    info.effectiveDevice = effectiveDevice(index);
    return info;
}

QList<RunId> Scheduler::runIds() const
{
    QList<RunId> ids;
    for (const Lane &lane : m_lanes)
        ids << lane.runs;
    return ids;
}

RunInfo Scheduler::run(RunId id) const
{
    const Run *r = find(id);
    return r ? r->info : RunInfo{};
}

RunId Scheduler::findRun(const QString &name) const
{
    for (const Run *r : m_runs) {
        if (r->info.name == name)
            return r->info.id;
    }
    return 0;
}

int Scheduler::position(RunId id) const
{
    const Run *r = find(id);
    return r ? m_lanes.at(r->info.lane).runs.indexOf(id) : -1;
}

QString Scheduler::uniqueName(const QString &base) const
{
    if (findRun(base) == 0)
        return base;
    for (int n = 2;; ++n) {
        const QString candidate = base + QLatin1Char('-') + QString::number(n);
        if (findRun(candidate) == 0)
            return candidate;
    }
}

// ---- edits ------------------------------------------------------------------

namespace {
bool refuse(QString *error, const QString &text)
{
    if (error)
        *error = text;
    return false;
}
} // namespace

int Scheduler::addLane(const QString &device, int slotCount, int position, QString *error)
{
    if (!isDeviceName(device))
        return refuse(error, QStringLiteral("device: expected \"cpu\" or \"cuda:N\", got \"%1\"").arg(device)), -1;
    if (slotCount < 1)
        return refuse(error, QStringLiteral("slots: expected an integer ≥ 1, got %1").arg(slotCount)), -1;
    if (position < 0 || position > m_lanes.size())
        position = m_lanes.size();
    emit laneAboutToBeAdded(position);
    m_lanes.insert(position, Lane{device, slotCount, {}});
    for (Run *r : std::as_const(m_runs)) {
        if (r->info.lane >= position)
            ++r->info.lane;
    }
    emit laneAdded(position);
    return position;
}

bool Scheduler::removeLane(int index, QString *error)
{
    if (index < 0 || index >= m_lanes.size())
        return refuse(error, QStringLiteral("no lane %1").arg(index));
    for (RunId id : std::as_const(m_lanes.at(index).runs)) {
        if (isActive(find(id)->info.state))
            return refuse(error, QStringLiteral("lane %1 has runs in progress; stop them first").arg(index + 1));
    }
    while (!m_lanes.at(index).runs.isEmpty())
        removeRun(m_lanes.at(index).runs.last());
    emit laneAboutToBeRemoved(index);
    m_lanes.removeAt(index);
    for (Run *r : std::as_const(m_runs)) {
        if (r->info.lane > index)
            --r->info.lane;
    }
    m_warnedBusyLanes.clear();
    emit laneRemoved(index);
    return true;
}

bool Scheduler::setLaneDevice(int index, const QString &device, QString *error)
{
    if (index < 0 || index >= m_lanes.size())
        return refuse(error, QStringLiteral("no lane %1").arg(index));
    if (!isDeviceName(device))
        return refuse(error, QStringLiteral("device: expected \"cpu\" or \"cuda:N\", got \"%1\"").arg(device));
    m_lanes[index].device = device;
    m_warnedBusyLanes.remove(index);
    emit laneChanged(index);
    dispatch();
    return true;
}

bool Scheduler::setLaneSlots(int index, int slotCount, QString *error)
{
    if (index < 0 || index >= m_lanes.size())
        return refuse(error, QStringLiteral("no lane %1").arg(index));
    if (slotCount < 1)
        return refuse(error, QStringLiteral("slots: expected an integer ≥ 1, got %1").arg(slotCount));
    m_lanes[index].slotCount = slotCount;
    emit laneChanged(index);
    dispatch();
    return true;
}

QList<RunId> Scheduler::addRun(int lane, const QJsonObject &spec, int repeat, int position, QString *error)
{
    QList<RunId> ids;
    if (lane < 0 || lane >= m_lanes.size()) {
        refuse(error, QStringLiteral("no lane %1").arg(lane));
        return ids;
    }
    if (repeat < 1 || repeat > 1000) {
        refuse(error, QStringLiteral("repeat: expected an integer from 1 to 1000, got %1").arg(repeat));
        return ids;
    }
    QJsonObject clean = spec;
    clean.remove(QStringLiteral("repeat"));
    const QStringList problems = validateRunSpec(clean, QStringLiteral("run"), false);
    if (!problems.isEmpty()) {
        refuse(error, problems.join(QLatin1Char('\n')));
        return ids;
    }
    clean = withDefaults(clean);
    // Pick a base name whose expanded names are all free.
    const QString wanted = clean.value(QStringLiteral("name")).toString();
    QString base = wanted;
    for (int n = 2;; ++n) {
        bool free = true;
        for (int i = 0; i < repeat && free; ++i) {
            clean.insert(QStringLiteral("name"), base);
            free = findRun(expandRepeat(clean, i, repeat).value(QStringLiteral("name")).toString()) == 0;
        }
        if (free)
            break;
        base = wanted + QLatin1Char('-') + QString::number(n);
    }
    clean.insert(QStringLiteral("name"), base);
    if (position < 0 || position > m_lanes.at(lane).runs.size())
        position = m_lanes.at(lane).runs.size();
    for (int i = 0; i < repeat; ++i) {
        emit runAboutToBeAdded(lane, position + i);
        const RunId id = newRun(expandRepeat(clean, i, repeat), base, i, repeat, lane);
        m_lanes[lane].runs.insert(position + i, id);
        ids << id;
        emit runAdded(id);
    }
    emit finishCountChanged(finishedCount(), totalCount());
    dispatch();
    return ids;
}

RunId Scheduler::duplicateRun(RunId id, QString *error)
{
    const Run *r = find(id);
    if (!r)
        return refuse(error, QStringLiteral("no such run")), 0;
    QJsonObject spec = r->info.spec;
    spec.insert(QStringLiteral("name"), uniqueName(r->info.name));
    const QList<RunId> ids = addRun(r->info.lane, spec, 1, position(id) + 1, error);
    return ids.isEmpty() ? 0 : ids.first();
}

bool Scheduler::removeRun(RunId id, QString *error)
{
    Run *r = find(id);
    if (!r)
        return refuse(error, QStringLiteral("no such run"));
    if (isActive(r->info.state))
        return refuse(error, QStringLiteral("%1 is %2; stop it first").arg(r->info.name, runStateName(r->info.state)));
    emit runAboutToBeRemoved(id);
    m_lanes[r->info.lane].runs.removeOne(id);
    m_runs.remove(id);
    m_server->unregisterRun(id);
    m_metrics->removeRun(id);
    m_progressDirty.removeAll(id);
    delete r;
    emit runRemoved(id);
    emit finishCountChanged(finishedCount(), totalCount());
    checkIdle();
    return true;
}

bool Scheduler::moveRun(RunId id, int lane, int position, QString *error)
{
    Run *r = find(id);
    if (!r)
        return refuse(error, QStringLiteral("no such run"));
    if (lane < 0 || lane >= m_lanes.size())
        return refuse(error, QStringLiteral("no lane %1").arg(lane));
    if (isActive(r->info.state))
        return refuse(error, QStringLiteral("%1 is %2; only runs that are not running can move")
                                 .arg(r->info.name, runStateName(r->info.state)));
    const int fromLane = r->info.lane;
    const int fromPos = m_lanes.at(fromLane).runs.indexOf(id);
    const int maxPos = m_lanes.at(lane).runs.size() - (lane == fromLane ? 1 : 0);
    if (position < 0 || position > maxPos)
        position = maxPos;
    if (fromLane == lane && fromPos == position)
        return true;
    emit runAboutToBeMoved(id, fromLane, fromPos, lane, position);
    m_lanes[fromLane].runs.removeAt(fromPos);
    m_lanes[lane].runs.insert(position, id);
    r->info.lane = lane;
    emit runMoved(id);
    dispatch();
    return true;
}

bool Scheduler::setRunSpec(RunId id, const QJsonObject &spec, QString *error)
{
    Run *r = find(id);
    if (!r)
        return refuse(error, QStringLiteral("no such run"));
    if (r->info.state != RunState::Queued && r->info.state != RunState::Cancelled)
        return refuse(error, QStringLiteral("%1 has already run; duplicate it to change its spec").arg(r->info.name));
    QJsonObject clean = spec;
    clean.remove(QStringLiteral("repeat"));
    const QStringList problems = validateRunSpec(clean, QStringLiteral("run"), false);
    if (!problems.isEmpty())
        return refuse(error, problems.join(QLatin1Char('\n')));
    clean = withDefaults(clean);
    const QString name = clean.value(QStringLiteral("name")).toString();
    if (name != r->info.name && findRun(name) != 0)
        return refuse(error, QStringLiteral("run.name: \"%1\" is already used by another run").arg(name));
    r->info.spec = clean;
    r->info.name = name;
    r->info.runDir = m_store->runDir(name);
    emit runChanged(id);
    return true;
}

// ---- control ----------------------------------------------------------------

QString Scheduler::effectiveDevice(int lane) const
{
    const QString device = m_lanes.at(lane).device;
    if (device == QLatin1String("cpu") || m_devices->hasDevice(device))
        return device;
    return m_cpuFallback ? QStringLiteral("cpu") : device;
}

QList<int> Scheduler::missingDeviceLanes() const
{
    QList<int> lanes;
    for (int l = 0; l < m_lanes.size(); ++l) {
        const QString device = m_lanes.at(l).device;
        if (device != QLatin1String("cpu") && !m_devices->hasDevice(device))
            lanes << l;
    }
    return lanes;
}

void Scheduler::setCpuFallback(bool on)
{
    m_cpuFallback = on;
    for (int l : missingDeviceLanes())
        emit laneChanged(l);
    dispatch();
}

QStringList Scheduler::preflight() const
{
    QStringList problems;
    const int gpus = m_devices->gpuCount();
    for (int l : missingDeviceLanes()) {
        problems << QStringLiteral("lane %1 names %2, but this machine has %3 GPU%4%5")
                        .arg(l + 1)
                        .arg(m_lanes.at(l).device)
                        .arg(gpus)
                        .arg(gpus == 1 ? QString() : QStringLiteral("s"))
                        .arg(m_cpuFallback ? QStringLiteral(": its runs will train on the CPU")
                                           : QStringLiteral(": allow CPU fallback to train its runs on the CPU"));
    }
    QSet<QString> seen;
    for (int l = 0; l < m_lanes.size(); ++l) {
        const DeviceInfo d = m_devices->device(effectiveDevice(l));
        if (!d.isGpu || seen.contains(d.id) || !d.busyWithOthers())
            continue;
        seen.insert(d.id);
        QStringList who;
        for (const GpuProcess &p : d.processes) {
            if (!p.ours)
                who << QStringLiteral("pid %1%2").arg(p.pid).arg(p.name.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(p.name));
        }
        problems << QStringLiteral("%1 (%2) is busy with another user's process: %3")
                        .arg(d.id, d.name, who.join(QStringLiteral(", ")));
    }
    return problems;
}

int Scheduler::threadsPerCpuRun() const
{
    if (m_cpuThreadsOverride > 0)
        return m_cpuThreadsOverride;
    int slotCount = 0;
    for (int l = 0; l < m_lanes.size(); ++l) {
        if (effectiveDevice(l) == QLatin1String("cpu"))
            slotCount += m_lanes.at(l).slotCount;
    }
    return std::max(1, QThread::idealThreadCount() / std::max(1, slotCount));
}

QSet<qint64> Scheduler::workerPids() const
{
    QSet<qint64> pids;
    for (const Run *r : m_runs) {
        if (r->worker && r->info.pid > 0)
            pids.insert(r->info.pid);
    }
    return pids;
}

bool Scheduler::laneHasFreeSlot(int lane) const
{
    int busy = 0;
    for (RunId id : m_lanes.at(lane).runs) {
        if (isActive(find(id)->info.state))
            ++busy;
    }
    return busy < m_lanes.at(lane).slotCount;
}

void Scheduler::startAll()
{
    for (Run *r : std::as_const(m_runs)) {
        // A run stopped earlier continues from its checkpoint.
        if (r->info.state == RunState::Stopped) {
            r->resumeNext = m_store->hasCheckpoint(r->info.name);
            setState(r, RunState::Queued);
        }
    }
    m_dispatching = true;
    dispatch();
    checkIdle();
}

void Scheduler::stopAll()
{
    m_dispatching = false;
    for (Run *r : std::as_const(m_runs)) {
        if (isActive(r->info.state) && r->info.state != RunState::Stopping)
            stopRun(r->info.id);
    }
}

void Scheduler::killAll()
{
    m_dispatching = false;
    for (Run *r : std::as_const(m_runs)) {
        if (r->worker) {
            r->info.message = QStringLiteral("killed on request");
            r->stopPhase = 2;
            r->worker->kill();
        }
    }
}

void Scheduler::dispatch()
{
    if (!m_dispatching || m_shuttingDown)
        return;
    for (int l = 0; l < m_lanes.size(); ++l) {
        const QString device = effectiveDevice(l);
        if (device != QLatin1String("cpu") && !m_devices->hasDevice(device))
            continue; // preflight told the user
        const DeviceInfo d = m_devices->device(device);
        if (d.isGpu && d.busyWithOthers() && !m_warnedBusyLanes.contains(l)) {
            m_warnedBusyLanes.insert(l);
            emit warning(QStringLiteral("%1 is busy with another user's process; lane %2 starts there anyway")
                             .arg(device)
                             .arg(l + 1));
        }
        for (RunId id : std::as_const(m_lanes.at(l).runs)) {
            if (!laneHasFreeSlot(l))
                break;
            Run *r = find(id);
            if (r->info.state != RunState::Queued)
                continue;
            QString error;
            if (!launch(r, r->resumeNext, &error))
                finishRun(r, RunState::Failed, error);
        }
    }
}

bool Scheduler::startRun(RunId id, QString *error)
{
    Run *r = find(id);
    if (!r)
        return refuse(error, QStringLiteral("no such run"));
    if (r->info.state == RunState::Stopped) {
        r->resumeNext = m_store->hasCheckpoint(r->info.name);
    } else if (r->info.state != RunState::Queued) {
        return refuse(error, QStringLiteral("%1 is %2").arg(r->info.name, runStateName(r->info.state)));
    }
    const QString device = effectiveDevice(r->info.lane);
    if (device != QLatin1String("cpu") && !m_devices->hasDevice(device))
        return refuse(error, QStringLiteral("this machine has no %1; allow CPU fallback to run it on the CPU").arg(device));
    if (!laneHasFreeSlot(r->info.lane))
        return refuse(error, QStringLiteral("lane %1 has no free slot (%2 in use)")
                                 .arg(r->info.lane + 1)
                                 .arg(m_lanes.at(r->info.lane).slotCount));
    if (!launch(r, r->resumeNext, error)) {
        finishRun(r, RunState::Failed, error ? *error : QString());
        return false;
    }
    return true;
}

bool Scheduler::launch(Run *r, bool resume, QString *error)
{
    if (m_workerProgram.isEmpty())
        return refuse(error, QStringLiteral("trainyard-worker not found (set TRAINYARD_WORKER or install it beside trainyard)"));
    if (!m_store->ensureRoot(error))
        return false;
    if (!resume) {
        m_store->clearRunDir(r->info.name);
        m_metrics->removeRun(r->info.id);
        r->metricsOffset = 0;
        r->info.step = r->info.epoch = r->info.totalSteps = -1;
        r->info.loss = std::numeric_limits<double>::quiet_NaN();
    }
    if (!m_store->prepareRunDir(r->info.name, r->info.spec, error))
        return false;
    r->resumeNext = false;
    r->doneSeen = false;
    r->doneExit = -1;
    r->doneStatus.clear();
    r->stopPhase = 0;
    r->rateStep = -1;
    r->info.stepsPerSecond = 0;
    r->info.etaSeconds = -1;
    r->info.exitCode = -1;
    r->info.exitSignal = 0;
    r->info.message.clear();
    r->info.connected = false;
    r->info.reattached = false;
    r->info.device = effectiveDevice(r->info.lane);
    r->info.runDir = m_store->runDir(r->info.name);
    r->info.started = QDateTime::currentDateTimeUtc();
    r->info.ended = QDateTime();

    WorkerProcess::Launch launch;
    launch.program = m_workerProgram;
    launch.specPath = r->info.runDir + QStringLiteral("/spec.json");
    launch.runDir = r->info.runDir;
    launch.connect = QStringLiteral("unix:") + m_server->socketPath();
    launch.token = m_server->registerRun(r->info.id, r->info.name);
    launch.device = r->info.device;
    launch.threads = r->info.device == QLatin1String("cpu") ? threadsPerCpuRun() : 0;
    launch.resume = resume;

    r->worker = new WorkerProcess(this);
    const RunId id = r->info.id;
    connect(r->worker, &WorkerProcess::started, this, [this, id] {
        if (Run *run = find(id)) {
            run->info.pid = run->worker->pid();
            persistState();
            emit runChanged(id);
        }
    });
    connect(r->worker, &WorkerProcess::failed, this, [this, id](const QString &message) {
        if (Run *run = find(id)) {
            run->worker->deleteLater();
            run->worker = nullptr;
            finishRun(run, RunState::Failed, message);
        }
    });
    connect(r->worker, &WorkerProcess::finished, this,
            [this, id](int code, int sig) { onWorkerFinished(id, code, sig); });
    r->lastSeen.start();
    setState(r, RunState::Starting);
    r->worker->start(launch);
    return true;
}

bool Scheduler::stopRun(RunId id, QString *error)
{
    Run *r = find(id);
    if (!r)
        return refuse(error, QStringLiteral("no such run"));
    if (r->info.state == RunState::Queued)
        return cancelRun(id, error);
    if (!isActive(r->info.state))
        return refuse(error, QStringLiteral("%1 is not running").arg(r->info.name));
    if (r->info.state == RunState::Stopping)
        return true;
    r->stopPhase = 0;
    if (!m_server->send(id, protocol::control(protocol::MessageType::Stop)) && r->worker) {
        r->worker->terminate(); // same meaning to the worker: checkpoint, exit 4
        r->stopPhase = 1;
    }
    setState(r, RunState::Stopping);
    if (!r->stopTimer) {
        r->stopTimer = new QTimer(this);
        r->stopTimer->setSingleShot(true);
        connect(r->stopTimer, &QTimer::timeout, this, [this, id] { escalateStop(id); });
    }
    r->stopTimer->start(m_stopTimeoutMs);
    return true;
}

void Scheduler::escalateStop(RunId id)
{
    Run *r = find(id);
    if (!r || !r->worker || r->info.state != RunState::Stopping)
        return;
    if (r->stopPhase == 0) {
        r->worker->terminate();
        r->stopPhase = 1;
        r->stopTimer->start(m_stopTimeoutMs);
    } else {
        r->info.message = QStringLiteral("did not stop within %1 s; killed").arg(2 * m_stopTimeoutMs / 1000.0);
        r->worker->kill();
        r->stopPhase = 2;
    }
}

bool Scheduler::pauseRun(RunId id, QString *error)
{
    Run *r = find(id);
    if (!r || (r->info.state != RunState::Running && r->info.state != RunState::Stalled))
        return refuse(error, QStringLiteral("only a running run can pause"));
    if (!m_server->send(id, protocol::control(protocol::MessageType::Pause)))
        return refuse(error, QStringLiteral("%1 is not connected yet").arg(r->info.name));
    setState(r, RunState::Paused);
    return true;
}

bool Scheduler::resumeRun(RunId id, QString *error)
{
    Run *r = find(id);
    if (!r)
        return refuse(error, QStringLiteral("no such run"));
    if (r->info.state == RunState::Stopped)
        return startRun(id, error);
    if (r->info.state != RunState::Paused)
        return refuse(error, QStringLiteral("%1 is not paused").arg(r->info.name));
    if (!m_server->send(id, protocol::control(protocol::MessageType::Resume)))
        return refuse(error, QStringLiteral("%1 is not connected").arg(r->info.name));
    r->lastSeen.restart();
    setState(r, RunState::Running);
    return true;
}

bool Scheduler::cancelRun(RunId id, QString *error)
{
    Run *r = find(id);
    if (!r || r->info.state != RunState::Queued)
        return refuse(error, QStringLiteral("only a queued run can be cancelled"));
    r->info.ended = QDateTime::currentDateTimeUtc();
    setState(r, RunState::Cancelled);
    emit runEnded(id, RunState::Cancelled);
    emit finishCountChanged(finishedCount(), totalCount());
    checkIdle();
    return true;
}

bool Scheduler::retryRun(RunId id, bool fromCheckpoint, QString *error)
{
    Run *r = find(id);
    if (!r)
        return refuse(error, QStringLiteral("no such run"));
    if (!isTerminal(r->info.state))
        return refuse(error, QStringLiteral("%1 is %2").arg(r->info.name, runStateName(r->info.state)));
    r->resumeNext = fromCheckpoint && m_store->hasCheckpoint(r->info.name);
    if (!r->resumeNext) {
        m_metrics->removeRun(id);
        r->metricsOffset = 0;
    }
    r->info.message.clear();
    setState(r, RunState::Queued);
    emit finishCountChanged(finishedCount(), totalCount());
    dispatch();
    return true;
}

int Scheduler::finishedCount() const
{
    int n = 0;
    for (const Run *r : m_runs) {
        if (r->info.state == RunState::Finished)
            ++n;
    }
    return n;
}

int Scheduler::activeCount() const
{
    int n = 0;
    for (const Run *r : m_runs) {
        if (isActive(r->info.state))
            ++n;
    }
    return n;
}

bool Scheduler::isIdle() const
{
    if (activeCount() > 0)
        return false;
    for (int l = 0; l < m_lanes.size(); ++l) {
        const QString device = effectiveDevice(l);
        if (device != QLatin1String("cpu") && !m_devices->hasDevice(device))
            continue;
        for (RunId id : m_lanes.at(l).runs) {
            if (find(id)->info.state == RunState::Queued)
                return false;
        }
    }
    return true;
}

void Scheduler::checkIdle()
{
    if (m_dispatching && isIdle()) {
        m_dispatching = false;
        emit idle();
    }
}

void Scheduler::setState(Run *r, RunState state, const QString &message)
{
    if (!message.isEmpty())
        r->info.message = message;
    if (r->info.state == state && message.isEmpty())
        return;
    r->info.state = state;
    emit runChanged(r->info.id);
}

void Scheduler::onWorkerFinished(RunId id, int exitCode, int sig)
{
    Run *r = find(id);
    if (!r)
        return;
    if (r->worker) {
        r->worker->deleteLater();
        r->worker = nullptr;
    }
    if (r->stopTimer)
        r->stopTimer->stop();
    ingestMetricsFile(r); // whatever the socket missed, "done" included
    r->info.exitCode = exitCode;
    r->info.exitSignal = sig;
    RunState state;
    QString message;
    if (sig > 0) {
        state = RunState::Failed;
        message = QStringLiteral("killed by %1").arg(signalName(sig));
        if (r->stopPhase == 2)
            message = r->info.message + QStringLiteral(" (%1)").arg(signalName(sig));
    } else if (exitCode >= 0) {
        state = stateForExit(exitCode);
        message = QStringLiteral("exit %1: %2").arg(exitCode).arg(exitMeaning(exitCode));
    } else if (r->doneSeen) {
        // An attached worker: its "done" line is all we know.
        r->info.exitCode = r->doneExit;
        state = r->doneExit >= 0 ? stateForExit(r->doneExit) : RunState::Failed;
        message = QStringLiteral("reported %1 (exit %2)").arg(r->doneStatus).arg(r->doneExit);
    } else {
        state = RunState::Failed;
        message = QStringLiteral("the worker ended without reporting how (killed while Trainyard was away?)");
    }
    if (state == RunState::Failed || state == RunState::Diverged) {
        const QString last = lastLogLine(r->info.runDir);
        if (!last.isEmpty())
            message += QStringLiteral(" — worker.log: ") + last;
    }
    finishRun(r, state, message);
}

void Scheduler::finishRun(Run *r, RunState state, const QString &message)
{
    r->info.ended = QDateTime::currentDateTimeUtc();
    r->info.message = message;
    r->info.connected = false;
    if (state == RunState::Finished && r->info.totalSteps > 0)
        r->info.etaSeconds = 0;
    if (r->worker) {
        r->worker->deleteLater();
        r->worker = nullptr;
    }
    m_server->unregisterRun(r->info.id);
    r->info.state = state;
    QString error;
    if (!m_store->writeStatus(r->info, &error))
        r->info.message += QStringLiteral(" (") + error + QLatin1Char(')');
    persistState();
    emit runChanged(r->info.id);
    emit runEnded(r->info.id, state);
    emit finishCountChanged(finishedCount(), totalCount());
    dispatch();
    checkIdle();
}

void Scheduler::checkWatchdog()
{
    for (Run *r : std::as_const(m_runs)) {
        if ((r->info.state == RunState::Running || r->info.state == RunState::Starting)
            && r->lastSeen.isValid() && r->lastSeen.elapsed() > m_stallTimeoutMs) {
            setState(r, RunState::Stalled,
                     QStringLiteral("no heartbeat for %1 s").arg(r->lastSeen.elapsed() / 1000));
        }
    }
}

// ---- metrics ---------------------------------------------------------------

int Scheduler::metricIdFor(std::string_view key)
{
    // Short keys stay in std::string's inline buffer: no allocation here.
    std::string name(key);
    const auto it = m_metricIds.find(name);
    if (it != m_metricIds.end())
        return it->second;
    const int id = m_metrics->metricId(name.data(), name.size());
    m_metricIds.emplace(std::move(name), id);
    return id;
}

void Scheduler::noteAlive(Run *r)
{
    r->lastSeen.restart();
    if (r->info.state == RunState::Stalled) {
        r->info.message.clear();
        setState(r, RunState::Running);
    }
}

void Scheduler::handleMetric(RunId id, const MetricLine &line)
{
    Run *r = find(id);
    if (!r)
        return;
    noteAlive(r);
    ingestMetric(r, line.record);
}

void Scheduler::ingestMetric(Run *r, const MetricRecord &record)
{
    const RunId id = r->info.id;
    const std::int64_t step = record.step;
    const double wall = record.wall;
    for (std::size_t i = 0; i < record.fieldCount; ++i) {
        const std::string_view key = record.fields[i].name;
        const double value = record.fields[i].value;
        if (key == "total_steps") {
            r->info.totalSteps = std::isfinite(value) && value >= 0 && value < 9.0e18 ? static_cast<qint64>(value) : -1;
            continue;
        }
        if (key == "epoch")
            r->info.epoch = std::isfinite(value) && std::fabs(value) < 9.0e18 ? static_cast<qint64>(value) : -1;
        else if (key == "loss")
            r->info.loss = value;
        m_metrics->add(id, metricIdFor(key), step, wall, value);
    }
    if (step >= r->info.step) {
        r->info.step = step;
        r->info.wall = wall;
        updateRate(r);
    }
    if (!r->progressDirty) {
        r->progressDirty = true;
        m_progressDirty << id;
    }
    if (!m_progressTimer.isActive())
        m_progressTimer.start();
}

void Scheduler::handleMessage(RunId id, const nlohmann::json &message)
{
    Run *r = find(id);
    if (!r)
        return;
    noteAlive(r);
    MetricRecord record;
    if (!MetricRecord::fromJson(message, &record))
        return;
    if (record.kind == MetricRecord::Kind::Hello) {
        r->info.connected = true;
        if (r->info.pid <= 0)
            r->info.pid = record.pid;
        if (r->info.state == RunState::Starting)
            r->info.state = RunState::Running;
        // Anything written while we were not connected comes from the file.
        ingestMetricsFile(r);
        Q_EMIT runChanged(id);
        return;
    }
    ingest(r, record, true);
}

void Scheduler::ingest(Run *r, const MetricRecord &record, bool live)
{
    const RunId id = r->info.id;
    if (record.kind == MetricRecord::Kind::Metric) {
        ingestMetric(r, record);
    } else if (record.kind == MetricRecord::Kind::Eval) {
        std::string name;
        for (std::size_t i = 0; i < record.fieldCount; ++i) {
            if (record.pointName(i, &name))
                m_metrics->add(id, metricIdFor(name), record.step, record.wall, record.fields[i].value);
        }
    } else if (record.kind == MetricRecord::Kind::Done) {
        r->doneSeen = true;
        r->doneStatus = QString::fromStdString(record.status);
        r->doneExit = record.exitCode;
    } else if (record.kind == MetricRecord::Kind::Log && live) {
        Q_EMIT logLine(id, QString::fromStdString(record.level), QString::fromStdString(record.text));
    } else if (record.kind == MetricRecord::Kind::Heartbeat) {
        if (record.value("total_steps"))
            r->info.totalSteps = record.totalSteps;
    }
}

void Scheduler::updateRate(Run *r)
{
    if (r->rateStep < 0 || r->info.wall < r->rateWall) {
        r->rateStep = r->info.step;
        r->rateWall = r->info.wall;
        return;
    }
    const double dt = r->info.wall - r->rateWall;
    if (dt < 1.0)
        return;
    const double rate = (r->info.step - r->rateStep) / dt;
    r->info.stepsPerSecond = r->info.stepsPerSecond > 0 ? 0.5 * r->info.stepsPerSecond + 0.5 * rate : rate;
    r->rateStep = r->info.step;
    r->rateWall = r->info.wall;
    if (r->info.totalSteps > 0 && r->info.stepsPerSecond > 0)
        r->info.etaSeconds = std::max<double>(0, r->info.totalSteps - r->info.step) / r->info.stepsPerSecond;
}

void Scheduler::flushProgress()
{
    if (m_progressDirty.isEmpty())
        return;
    const QList<RunId> ids = m_progressDirty;
    m_progressDirty.clear();
    for (RunId id : ids) {
        if (Run *r = find(id))
            r->progressDirty = false;
    }
    emit progressChanged(ids);
}

void Scheduler::ingestMetricsFile(Run *r)
{
    const RunStore::ReadResult result = m_store->readMetrics(
        r->info.name, r->metricsOffset, [&](const MetricRecord &record) { ingest(r, record, false); });
    r->metricsOffset = result.offset;
    if (result.records > 0 && !r->progressDirty) {
        r->progressDirty = true;
        m_progressDirty << r->info.id;
        m_progressTimer.start();
    }
}

// ---- history and reattachment ---------------------------------------------

void Scheduler::persistState()
{
    if (m_store->root().isEmpty())
        return;
    QHash<QString, RunStore::LiveWorker> live;
    for (const Run *r : std::as_const(m_runs)) {
        if (!isActive(r->info.state) || r->info.pid <= 0)
            continue;
        RunStore::LiveWorker w;
        w.pid = r->info.pid;
        w.token = m_server->token(r->info.id);
        w.device = r->info.device;
        w.startTicks = RunStore::processStartTicks(r->info.pid);
        w.started = r->info.started;
        live.insert(r->info.name, w);
    }
    if (live.isEmpty() && !QFile::exists(m_store->root() + QStringLiteral("/.trainyard-state.json")))
        return;
    m_store->writeState(live, m_server->socketPath());
}

void Scheduler::loadHistory()
{
    const QHash<QString, RunStore::LiveWorker> live = m_store->readState();
    for (Run *r : std::as_const(m_runs)) {
        const QString name = r->info.name;
        r->info.runDir = m_store->runDir(name);
        RunInfo saved = r->info;
        if (m_store->readStatus(name, &saved)) {
            r->info = saved;
            ingestMetricsFile(r);
            emit runChanged(r->info.id);
            continue;
        }
        const auto it = live.constFind(name);
        if (it != live.constEnd() && it->startTicks > 0 && RunStore::processStartTicks(it->pid) == it->startTicks) {
            // Still training from an earlier session: watch it again and let
            // it reconnect with its token.
            r->info.pid = it->pid;
            r->info.device = it->device;
            r->info.started = it->started;
            r->info.reattached = true;
            m_server->registerRun(r->info.id, name, it->token);
            r->worker = new WorkerProcess(this);
            const RunId id = r->info.id;
            connect(r->worker, &WorkerProcess::finished, this,
                    [this, id](int code, int sig) { onWorkerFinished(id, code, sig); });
            r->worker->attach(it->pid);
            r->lastSeen.start();
            r->info.state = RunState::Running;
            ingestMetricsFile(r);
            emit runChanged(id);
            continue;
        }
        if (QFile::exists(r->info.runDir + QStringLiteral("/metrics.jsonl"))) {
            ingestMetricsFile(r);
            if (r->doneSeen) {
                r->info.exitCode = r->doneExit;
                finishRun(r, r->doneExit >= 0 ? stateForExit(r->doneExit) : RunState::Failed,
                          QStringLiteral("reported %1 while Trainyard was away").arg(r->doneStatus));
            } else if (m_store->hasCheckpoint(name)) {
                finishRun(r, RunState::Stopped, QStringLiteral("interrupted; resumes from its checkpoint"));
            } else {
                finishRun(r, RunState::Failed, QStringLiteral("interrupted while Trainyard was away"));
            }
        }
    }
    persistState();
    m_metrics->flush();
    emit finishCountChanged(finishedCount(), totalCount());
}

void Scheduler::shutdown(bool leaveRunning)
{
    m_dispatching = false;
    if (leaveRunning) {
        persistState();
        m_shuttingDown = true;
        for (Run *r : std::as_const(m_runs)) {
            if (r->worker) {
                r->worker->detach();
                delete r->worker;
                r->worker = nullptr;
            }
            if (r->stopTimer)
                r->stopTimer->stop();
        }
        return;
    }
    stopAll();
    if (activeCount() > 0) {
        // Wait for graceful stops (with their SIGTERM/SIGKILL escalation).
        QEventLoop loop;
        QTimer deadline;
        deadline.setSingleShot(true);
        connect(&deadline, &QTimer::timeout, &loop, &QEventLoop::quit);
        connect(this, &Scheduler::runEnded, &loop, [this, &loop] {
            if (activeCount() == 0)
                loop.quit();
        });
        deadline.start(2 * m_stopTimeoutMs + 3000);
        loop.exec();
        for (Run *r : std::as_const(m_runs)) {
            if (r->worker) {
                r->worker->kill();
                delete r->worker; // waits briefly for the process
                r->worker = nullptr;
                if (isActive(r->info.state))
                    finishRun(r, RunState::Failed, QStringLiteral("killed at shutdown"));
            }
        }
    }
    m_shuttingDown = true;
    persistState();
}

} // namespace trainyard
