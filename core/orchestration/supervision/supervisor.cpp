#include "supervision/supervisor.h"

#include "ingest/ingestion.h"
#include "ingest/metricsserver.h"
#include "launch/launcher.h"
#include "logcategories.h"
#include "protocol/metricrecord.h"
#include "protocol/protocol.h"
#include "records/runregistry.h"
#include "runspec/runspecview.h"
#include "supervision/exitoutcome.h"
#include "supervision/runlaunch.h"
#include "supervision/stopescalation.h"

#include <QPointer>

#include <utility>

namespace trainyard {

Supervisor::Supervisor(RunRegistry *runs, RunStore *store, MetricsServer *server, Ingestion *ingestion,
                       Launcher *launcher, QObject *parent)
    : QObject(parent)
    , m_runs(runs)
    , m_store(store)
    , m_server(server)
    , m_ingestion(ingestion)
    , m_launcher(launcher)
    , m_launch(runs, store, server, launcher)
    , m_stateFile(store, server, launcher)
    , m_shutdown(this, runs)
{
    connect(m_launcher, &Launcher::started, this, &Supervisor::onStarted);
    connect(m_launcher, &Launcher::pending, this, &Supervisor::onPending);
    connect(m_launcher, &Launcher::running, this, &Supervisor::onRunning);
    connect(m_launcher, &Launcher::exited, this, &Supervisor::onExited);
    connect(m_launcher, &Launcher::endedBecause, this, [this](RunId id, const QString &why) {
        if (Supervised *s = supervised(id))
            s->queueEnd = why;
    });
    connect(m_launcher, &Launcher::failedToLaunch, this, [this](RunId id, const QString &message) {
        if (Supervised *s = supervised(id)) {
            s->launcherDone = true;
            finishRun(id, RunState::Failed, message);
        }
    });
    connect(m_server, &MetricsServer::runDisconnected, this,
            [this](RunId id) { m_runs->update(id, [](RunInfo &r) { r.connected = false; }); });
    connect(m_ingestion, &Ingestion::followed, &m_stall, &StallWatch::followed);
    // Worker lines go from the server to Ingestion; the watchdog hears of them.
    m_ingestion->setHeardHandler([this](RunId id) { m_stall.heard(id); });
    connect(m_ingestion, &Ingestion::helloReceived, this, &Supervisor::onHello);
    connect(&m_shutdown, &Shutdown::finished, this, &Supervisor::shutdownFinished);
}

Supervisor::~Supervisor()
{
    m_ingestion->setHeardHandler({}); // Ingestion may outlive this
    killNow(QStringLiteral("killed at shutdown"));
}

Supervisor::Supervised &Supervisor::track(RunId id, const RunInfo *info)
{
    untrack(id);
    auto s = std::make_unique<Supervised>();
    s->info = info;
    m_stall.watch(id, !RunSpecView(info->spec).isProgram());
    s->stop = new StopEscalation(
        id, m_launcher, [this, id] { return m_server->send(id, protocol::control(protocol::MessageType::Stop)); },
        this);
    connect(s->stop, &StopEscalation::stopping, this,
            [this](RunId run, const QString &message) { m_runs->setState(run, RunState::Stopping, message); });
    return *m_supervised.emplace(id, std::move(s)).first->second;
}

void Supervisor::untrack(RunId id)
{
    const auto it = m_supervised.find(id);
    if (it == m_supervised.end())
        return;
    std::unique_ptr<Supervised> s = std::move(it->second);
    m_supervised.erase(it);
    // We may be inside one of its calls (an exit reported from inside
    // terminate()): let the event loop delete it.
    m_ingestion->unfollow(id);
    m_stall.forget(id);
    s->stop->halt();
    s->stop->disconnect(this);
    s->stop->deleteLater();
}

// ---- start ------------------------------------------------------------------

bool Supervisor::start(RunId id, const StartOptions &options, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (!r)
        return refuse(error, QStringLiteral("no such run"));
    if (m_shutdown.isShuttingDown())
        return refuse(error, QStringLiteral("the session is closing"));
    QString why, archived;
    switch (m_launch.prepare(id, options, &why, &archived)) {
    case RunLaunch::Folder::Refused:
        return refuse(error, why);
    case RunLaunch::Folder::Unkept:
        m_ingestion->ingestMetricsFile(id); // its curves, reset for the new attempt, back
        finishRun(id, RunState::Failed, why, /*record=*/false);
        return refuse(error, why);
    case RunLaunch::Folder::Ready:
        break;
    }
    if (!archived.isEmpty())
        Q_EMIT attemptArchived(id, archived);
    m_ingestion->beginRun(id, !options.resume);
    if (!m_launch.writeFiles(id, error))
        return false;
    LaunchSpec spec = launchSpec(id, options);
    spec.token = m_server->registerRun(id, r->name);
    track(id, r).followFile = spec.connect.isEmpty();
    m_runs->update(id, [&](RunInfo &run) {
        run.pid = 0;
        run.jobId.clear();
        run.exitCode = -1;
        run.exitSignal = 0;
        run.message.clear();
        run.connected = false;
        run.reattached = false;
        run.device = options.device;
        run.host.clear();
        run.runDir = m_store->runDir(run.name);
        run.started = QDateTime::currentDateTimeUtc();
        run.ended = QDateTime();
        run.command = spec.commandLine();
        run.state = RunState::Starting;
    });
    qCInfo(lcSupervisor, "starting %s on %s%s", qUtf8Printable(r->name), qUtf8Printable(r->device.toString()),
           options.resume ? " (resume)" : "");
    m_launcher->start(id, spec);
    return true;
}

void Supervisor::onStarted(RunId id, qint64 pid, const QString &jobId)
{
    Supervised *s = supervised(id);
    if (!s)
        return;
    if (s->phase == Phase::Launching)
        s->phase = Phase::Live;
    if (s->followFile)
        m_ingestion->follow(id); // launched: its file is read as it grows
    m_runs->update(id, [&](RunInfo &r) {
        if (pid > 0)
            r.pid = pid;
        r.jobId = jobId;
        r.host = m_launcher->host(id);
    });
    m_stall.restart(id);
    qCInfo(lcSupervisor, "%s started: %s", qUtf8Printable(s->info->name),
           qUtf8Printable(jobId.isEmpty() ? QStringLiteral("pid %1").arg(pid) : jobId));
    persistState();
}

void Supervisor::onPending(RunId id, const QString &reason)
{
    Supervised *s = supervised(id);
    if (!s)
        return;
    const RunInfo *r = s->info;
    // A requeue only after it was seen running here: a job reattached while
    // it still waits is pending, not requeued.
    const bool requeued =
        s->phase == Phase::Live && s->ranHere
        && (r->state == RunState::Running || r->state == RunState::Stalled || r->state == RunState::Paused);
    const QString why = reason.isEmpty() ? QStringLiteral("in the queue") : reason;
    s->phase = Phase::Pending;
    m_stall.setQueued(id, true);
    if (s->followFile)
        m_ingestion->follow(id);
    s->pendingReason = why;
    qCInfo(lcSupervisor, "%s %s: %s", qUtf8Printable(r->name), requeued ? "requeued, pending" : "pending",
           qUtf8Printable(why));
    if (r->state == RunState::Stopping) {
        m_runs->update(id, [&](RunInfo &run) { run.message = QStringLiteral("stopping; pending: %1").arg(why); });
        return;
    }
    s->pendingShown = true;
    m_runs->update(id, [&](RunInfo &run) {
        run.queueReason = why;
        run.state = RunState::Starting;
        run.message = (requeued ? QStringLiteral("requeued; pending: %1") : QStringLiteral("pending: %1")).arg(why);
    });
}

void Supervisor::leavePending(Supervised *s, RunInfo &run)
{
    s->phase = Phase::Live;
    m_stall.setQueued(run.id, false);
    m_stall.restart(run.id);
    run.queueReason.clear();
    if (s->pendingShown) {
        s->pendingShown = false;
        run.message.clear();
    }
}

void Supervisor::onRunning(RunId id)
{
    Supervised *s = supervised(id);
    if (!s)
        return;
    s->ranHere = true;
    qCInfo(lcSupervisor, "%s running", qUtf8Printable(s->info->name));
    m_runs->update(id, [&](RunInfo &r) {
        if (s->phase != Phase::Live)
            leavePending(s, r);
        m_stall.restart(id);
        r.host = m_launcher->host(id); // a batch job's node is known from here
        if (r.state == RunState::Starting)
            r.state = RunState::Running;
    });
}

// ---- the worker's lines -----------------------------------------------------

void Supervisor::onHello(RunId id, const MetricRecord &hello)
{
    m_runs->update(
        id,
        [&](RunInfo &r) {
            r.connected = true;
            if (r.pid <= 0)
                r.pid = hello.pid;
            if (Supervised *s = supervised(id)) {
                if (s->phase != Phase::Live)
                    leavePending(s, r); // it says hello: it runs, whatever the queue said last
                s->ranHere = true;
            }
            if (r.state == RunState::Starting)
                r.state = RunState::Running;
        },
        RunRegistry::Notify::Quiet);
    // Anything written while we were not connected comes from the file.
    m_ingestion->ingestMetricsFile(id);
    m_runs->touch(id);
}

// ---- control ----------------------------------------------------------------

bool Supervisor::stop(RunId id, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (!r)
        return refuse(error, QStringLiteral("no such run"));
    if (!isActive(r->state))
        return refuse(error, QStringLiteral("%1 is not running").arg(r->name));
    if (r->state == RunState::Stopping)
        return true;
    Supervised *s = supervised(id);
    if (!s)
        return refuse(error, QStringLiteral("%1 has no worker to stop").arg(r->name));
    s->stop->setTimeout(m_stopTimeoutMs);
    s->stop->stop(s->phase == Phase::Pending, s->pendingReason);
    return true;
}

bool Supervisor::pause(RunId id, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (!r || (r->state != RunState::Running && r->state != RunState::Stalled))
        return refuse(error, QStringLiteral("only a running run can pause"));
    if (const Supervised *s = supervised(id); s && s->followFile)
        return refuse(error, QStringLiteral("%1 is a batch job without a socket and cannot pause; Stop checkpoints it "
                                            "and Start resumes it in a new job")
                                 .arg(r->name));
    if (!m_server->send(id, protocol::control(protocol::MessageType::Pause)))
        return refuse(error, QStringLiteral("%1 is not connected yet").arg(r->name));
    m_runs->setState(id, RunState::Paused);
    return true;
}

bool Supervisor::resume(RunId id, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (!r)
        return refuse(error, QStringLiteral("no such run"));
    if (r->state != RunState::Paused)
        return refuse(error, QStringLiteral("%1 is not paused").arg(r->name));
    if (!m_server->send(id, protocol::control(protocol::MessageType::Resume)))
        return refuse(error, QStringLiteral("%1 is not connected").arg(r->name));
    m_stall.restart(id);
    m_runs->setState(id, RunState::Running);
    return true;
}

void Supervisor::killAll()
{
    // Collected first: a launcher may report an exit from inside kill().
    QList<std::pair<QPointer<StopEscalation>, bool>> stops;
    for (const auto &[id, s] : m_supervised)
        stops.append({s->stop, s->phase == Phase::Pending});
    for (const auto &[stop, pending] : std::as_const(stops)) {
        if (stop)
            stop->kill(pending, QStringLiteral("killed on request"));
    }
}

// ---- the end ----------------------------------------------------------------

void Supervisor::onExited(RunId id, int exitCode, int sig)
{
    Supervised *s = supervised(id);
    if (!s)
        return;
    const RunInfo *r = s->info;
    s->launcherDone = true;
    s->stop->halt();
    m_ingestion->ingestEnded(id); // whatever the socket missed, "done" included; and what only it brought
    ExitFacts facts = reportedFacts(id);
    facts.exitCode = exitCode;
    facts.signal = sig;
    facts.killed = s->stop->step() == StopEscalation::Step::Killed;
    facts.killMessage = s->stop->killMessage();
    facts.pending = s->phase == Phase::Pending;
    facts.cancelled = s->stop->cancelsPending();
    facts.pendingReason = s->pendingReason;
    facts.jobId = r->jobId;
    facts.stopAsked = s->stop->step() != StopEscalation::Step::None;
    facts.queueEnd = s->queueEnd;
    const ExitOutcome outcome = exitOutcome(facts);
    m_runs->update(
        id,
        [&](RunInfo &run) {
            run.exitCode = outcome.exitCode;
            run.exitSignal = sig;
        },
        RunRegistry::Notify::Quiet);
    const QString problem = m_ingestion->metricsFileProblem(id);
    finishRun(id, outcome.state,
              problem.isEmpty() ? outcome.message : outcome.message + QStringLiteral("; ") + problem);
}

ExitFacts Supervisor::reportedFacts(RunId id) const
{
    const RunInfo *r = m_runs->find(id);
    return r ? ExitFacts::reported(*r, m_ingestion->done(id)) : ExitFacts{};
}

void Supervisor::fail(RunId id, const QString &message)
{
    const RunInfo *r = m_runs->find(id);
    if (r && isTerminal(r->state))
        return; // ended already (a start that refused to write over history)
    finishRun(id, RunState::Failed, message);
}

void Supervisor::finishRun(RunId id, RunState state, const QString &message, bool record)
{
    const RunInfo *current = m_runs->find(id);
    if (!current)
        return;
    if (Supervised *s = supervised(id)) {
        if (!s->launcherDone)
            m_launcher->release(id); // still going (a shutdown deadline): killed and reaped
        untrack(id);
    }
    // The outcome on a copy, written to status.json, then the record's.
    RunInfo ended = *current;
    RunInfo *r = &ended;
    r->ended = QDateTime::currentDateTimeUtc();
    r->queueReason.clear();
    r->message = message;
    r->connected = false;
    if (state == RunState::Finished && r->totalSteps > 0)
        r->etaSeconds = 0;
    m_server->unregisterRun(id);
    r->state = state;
    if (record)
        recordOutcome(*m_store, r);
    qCInfo(lcSupervisor, "%s %s: %s", qUtf8Printable(r->name), qUtf8Printable(runStateName(state)),
           qUtf8Printable(r->message));
    m_runs->update(id, [&](RunInfo &run) { run = ended; });
    persistState();
    Q_EMIT runEnded(id, state);
    m_shutdown.runEnded();
}

void Supervisor::forget(RunId id)
{
    if (isSupervised(id)) {
        m_launcher->release(id);
        untrack(id);
    }
    m_server->unregisterRun(id);
}

void Supervisor::clear()
{
    killNow(QStringLiteral("killed: the board was replaced"));
    m_shutdown.reset();
}

QSet<qint64> Supervisor::workerPids() const
{
    QSet<qint64> pids;
    for (const auto &entry : m_supervised) {
        // This machine's: a host's pids are other processes here.
        if (entry.second->info->pid > 0 && !entry.second->info->device.isRemote())
            pids.insert(entry.second->info->pid);
    }
    return pids;
}

QList<RunId> Supervisor::supervisedIds() const
{
    QList<RunId> ids;
    for (const auto &entry : m_supervised)
        ids << entry.first;
    return ids;
}

} // namespace trainyard
