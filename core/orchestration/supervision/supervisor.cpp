#include "orchestration/supervision/supervisor.h"

#include "orchestration/ingest/ingestion.h"
#include "orchestration/ingest/metricsserver.h"
#include "orchestration/launch/launcher.h"
#include "orchestration/logcategories.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runspec/runspecview.h"
#include "orchestration/supervision/exitoutcome.h"
#include "orchestration/supervision/runlaunch.h"
#include "orchestration/supervision/stopescalation.h"
#include "protocol/protocol.h"

#include <QPointer>

#include <utility>

namespace trainyard {

using Phase = SupervisedRuns::Phase;

Supervisor::Supervisor(RunRegistry *runs, RunStore *store, MetricsServer *server, Ingestion *ingestion,
                       Launcher *launcher, QObject *parent)
    : QObject(parent)
    , m_runs(runs)
    , m_store(store)
    , m_server(server)
    , m_ingestion(ingestion)
    , m_launcher(launcher)
    , m_launch(runs, store, server, launcher)
    , m_supervised(runs, store, server, ingestion, launcher, &m_stall)
    , m_progress(runs, ingestion, launcher, &m_supervised, &m_stall)
    , m_shutdown(this, runs)
{
    connect(m_launcher, &Launcher::exited, this, &Supervisor::onExited);
    connect(m_launcher, &Launcher::endedBecause, this, [this](RunId id, const QString &why) {
        if (SupervisedRuns::Run *s = m_supervised.find(id)) {
            s->queueEnd = why;
        }
    });
    connect(m_launcher, &Launcher::failedToLaunch, this, [this](RunId id, const QString &message) {
        if (SupervisedRuns::Run *s = m_supervised.find(id)) {
            s->launcherDone = true;
            finishRun(id, RunState::Failed, message);
        }
    });
    connect(m_server, &MetricsServer::runDisconnected, this,
            [this](RunId id) { m_runs->update(id, [](RunInfo &r) { r.connected = false; }); });
    connect(m_ingestion, &Ingestion::followed, &m_stall, &StallWatch::followed);
    // Worker lines go from the server to Ingestion; the watchdog hears of them.
    m_ingestion->setHeardHandler([this](RunId id) { m_stall.heard(id); });
    connect(&m_shutdown, &Shutdown::finished, this, &Supervisor::shutdownFinished);
}

Supervisor::~Supervisor()
{
    m_ingestion->setHeardHandler({}); // Ingestion may outlive this
    killNow(QStringLiteral("killed at shutdown"));
}

// ---- start ------------------------------------------------------------------

bool Supervisor::start(RunId id, const StartOptions &options, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (!r) {
        return refuse(error, QStringLiteral("no such run"));
    }
    if (m_shutdown.isShuttingDown()) {
        return refuse(error, QStringLiteral("the session is closing"));
    }
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
    if (!archived.isEmpty()) {
        Q_EMIT attemptArchived(id, archived);
    }
    m_ingestion->beginRun(id, !options.resume);
    if (!m_launch.writeFiles(id, error)) {
        return false;
    }
    LaunchSpec spec = launchSpec(id, options);
    spec.token = m_server->registerRun(id, r->name);
    m_supervised.track(id, r).followFile = spec.connect.isEmpty();
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

// ---- control ----------------------------------------------------------------

bool Supervisor::stop(RunId id, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (!r) {
        return refuse(error, QStringLiteral("no such run"));
    }
    if (!isActive(r->state)) {
        return refuse(error, QStringLiteral("%1 is not running").arg(r->name));
    }
    if (r->state == RunState::Stopping) {
        return true;
    }
    SupervisedRuns::Run *s = m_supervised.find(id);
    if (!s) {
        return refuse(error, QStringLiteral("%1 has no worker to stop").arg(r->name));
    }
    s->stop->setTimeout(m_stopTimeoutMs);
    s->stop->stop(s->phase == Phase::Pending, s->pendingReason);
    return true;
}

bool Supervisor::pause(RunId id, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (!r || (r->state != RunState::Running && r->state != RunState::Stalled)) {
        return refuse(error, QStringLiteral("only a running run can pause"));
    }
    if (const SupervisedRuns::Run *s = m_supervised.find(id); s && s->followFile) {
        return refuse(error, QStringLiteral("%1 is a batch job without a socket and cannot pause; Stop checkpoints it "
                                            "and Start resumes it in a new job")
                                 .arg(r->name));
    }
    if (!m_server->send(id, protocol::control(protocol::MessageType::Pause))) {
        return refuse(error, QStringLiteral("%1 is not connected yet").arg(r->name));
    }
    m_runs->setState(id, RunState::Paused);
    return true;
}

bool Supervisor::resume(RunId id, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (!r) {
        return refuse(error, QStringLiteral("no such run"));
    }
    if (r->state != RunState::Paused) {
        return refuse(error, QStringLiteral("%1 is not paused").arg(r->name));
    }
    if (!m_server->send(id, protocol::control(protocol::MessageType::Resume))) {
        return refuse(error, QStringLiteral("%1 is not connected").arg(r->name));
    }
    m_stall.restart(id);
    m_runs->setState(id, RunState::Running);
    return true;
}

void Supervisor::killAll()
{
    // Collected first: a launcher may report an exit from inside kill().
    QList<std::pair<QPointer<StopEscalation>, bool>> stops;
    for (RunId id : m_supervised.ids()) {
        const SupervisedRuns::Run *s = m_supervised.find(id);
        stops.append({s->stop, s->phase == Phase::Pending});
    }
    for (const auto &[stop, pending] : std::as_const(stops)) {
        if (stop) {
            stop->kill(pending, QStringLiteral("killed on request"));
        }
    }
}

// ---- the end ----------------------------------------------------------------

void Supervisor::onExited(RunId id, int exitCode, int sig)
{
    SupervisedRuns::Run *s = m_supervised.find(id);
    if (!s) {
        return;
    }
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
    if (r && isTerminal(r->state)) {
        return; // ended already (a start that refused to write over history)
    }
    finishRun(id, RunState::Failed, message);
}

void Supervisor::finishRun(RunId id, RunState state, const QString &message, bool record)
{
    const RunInfo *current = m_runs->find(id);
    if (!current) {
        return;
    }
    if (SupervisedRuns::Run *s = m_supervised.find(id)) {
        if (!s->launcherDone) {
            m_launcher->release(id); // still going (a shutdown deadline): killed and reaped
        }
        m_supervised.untrack(id);
    }
    // The outcome on a copy, written to status.json, then the record's.
    RunInfo ended = *current;
    RunInfo *r = &ended;
    r->ended = QDateTime::currentDateTimeUtc();
    r->queueReason.clear();
    r->message = message;
    r->connected = false;
    if (state == RunState::Finished && r->totalSteps > 0) {
        r->etaSeconds = 0;
    }
    m_server->unregisterRun(id);
    r->state = state;
    if (record) {
        recordOutcome(*m_store, r);
    }
    qCInfo(lcSupervisor, "%s %s: %s", qUtf8Printable(r->name), qUtf8Printable(runStateName(state)),
           qUtf8Printable(r->message));
    m_runs->update(id, [&](RunInfo &run) { run = ended; });
    m_supervised.persist();
    Q_EMIT runEnded(id, state);
    m_shutdown.runEnded();
}

void Supervisor::forget(RunId id)
{
    if (isSupervised(id)) {
        m_launcher->release(id);
        m_supervised.untrack(id);
    }
    m_server->unregisterRun(id);
}

void Supervisor::clear()
{
    killNow(QStringLiteral("killed: the board was replaced"));
    m_shutdown.reset();
}

} // namespace trainyard
