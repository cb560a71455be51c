// The Supervisor across the orchestrator's lifetimes: the state file of
// live runs (with each launcher's handle), what a new session finds on disk
// (finished runs, runs to reattach through the launcher, interrupted ones),
// and the asynchronous shutdown. The rest of the class is in supervisor.cpp.

#include "supervision/supervisor.h"

#include "experiment/runspecview.h"
#include "ingest/ingestion.h"
#include "ingest/metricsserver.h"
#include "launch/launcher.h"
#include "logcategories.h"
#include "records/runregistry.h"
#include "supervision/exitoutcome.h"

#include <QFile>

namespace trainyard {

// ---- history and reattachment -----------------------------------------------

void Supervisor::persistState()
{
    if (m_store->root().isEmpty())
        return;
    QHash<QString, RunStore::LiveWorker> live;
    for (const auto &[id, s] : m_supervised) {
        const RunInfo *r = s->info;
        if (!isActive(r->state))
            continue;
        const QJsonObject handle = m_launcher->handle(id);
        if (handle.isEmpty())
            continue; // not started yet
        RunStore::LiveWorker w;
        w.pid = r->pid;
        w.token = m_server->token(id);
        w.device = r->device;
        w.startTicks = r->pid > 0 ? RunStore::processStartTicks(r->pid) : 0;
        w.started = r->started;
        w.launcher = handle;
        w.command = r->command;
        w.followFile = s->followFile;
        live.insert(r->name, w);
    }
    if (live.isEmpty() && !QFile::exists(m_store->root() + QStringLiteral("/.trainyard-state.json")))
        return;
    m_store->writeState(live, m_server->socketPath());
}

Launcher::AttachResult Supervisor::reattach(RunId id, const RunStore::LiveWorker &live, const StartOptions &options,
                                            QString *why)
{
    const RunInfo *r = m_runs->find(id);
    QJsonObject handle = live.launcher;
    if (handle.isEmpty()) {
        // A state file from before the launcher seam: a local process.
        handle = QJsonObject{{QStringLiteral("kind"), QStringLiteral("local")},
                             {QStringLiteral("pid"), live.pid},
                             {QStringLiteral("start_ticks"), live.startTicks}};
    }
    // What the run is, from the run itself (its name, folder, program)
    // and the command and token it was started with: the process or job
    // the state file names must prove to be it. The whole spec, as start()
    // would hand it over: a batch launcher submits it again on a requeue.
    LaunchSpec expected = launchSpec(id, options);
    expected.program = live.command.value(0, expected.programArgv.value(0));
    expected.token = live.token;
    const Launcher::AttachResult result = m_launcher->attach(id, handle, expected, why);
    if (result != Launcher::AttachResult::Attached) {
        qCInfo(lcSupervisor, "%s not reattached: %s", qUtf8Printable(r->name), qUtf8Printable(*why));
        return result;
    }
    // Still training from an earlier session: watch it again and let it
    // reconnect with its token.
    m_runs->update(
        id,
        [&](RunInfo &run) {
            run.pid = live.pid;
            run.device = live.device;
            run.started = live.started;
            run.command = live.command;
            run.host = m_launcher->host(id);
            run.jobId = handle.value(QStringLiteral("job")).toString();
            run.reattached = true;
            run.state = RunState::Running;
        },
        RunRegistry::Notify::Quiet);
    m_server->registerRun(id, r->name, live.token);
    Supervised &s = track(id, r);
    s.phase = Phase::Live;
    // Started without a socket (a batch job): its file is its channel
    // again. A state file from before follow_file: the worker's command
    // line says (a program run's never has --connect).
    s.followFile = live.followFile.value_or(!RunSpecView(r->spec).isProgram()
                                            && !r->command.contains(QStringLiteral("--connect")));
    qCInfo(lcSupervisor, "%s reattached", qUtf8Printable(r->name));
    m_ingestion->ingestMetricsFile(id);
    m_runs->touch(id);
    return result;
}

QStringList Supervisor::loadHistory(const std::function<StartOptions(RunId)> &startOptions)
{
    QStringList warnings;
    QString refusal;
    const QHash<QString, RunStore::LiveWorker> live = m_store->readState(nullptr, &refusal);
    if (!refusal.isEmpty())
        warnings << refusal;
    for (RunId id : m_runs->ids()) {
        const RunInfo *r = m_runs->find(id);
        if (!r)
            continue;
        const QString name = r->name;
        m_runs->update(
            id, [&](RunInfo &run) { run.runDir = m_store->runDir(name); }, RunRegistry::Notify::Quiet);
        RunInfo saved = *r;
        if (m_store->readStatus(name, &saved)) {
            m_runs->update(
                id, [&](RunInfo &run) { run = saved; }, RunRegistry::Notify::Quiet);
            m_ingestion->ingestMetricsFile(id);
            m_runs->touch(id);
            continue;
        }
        const auto it = live.constFind(name);
        if (it != live.constEnd()) {
            QString why;
            const Launcher::AttachResult result = reattach(id, *it, startOptions(id), &why);
            if (result == Launcher::AttachResult::Attached)
                continue;
            if (result == Launcher::AttachResult::NotOurs) {
                // Something else runs under the saved pid or job id: left
                // alone, and this run's own end is unknown.
                finishRun(id, RunState::Lost, QStringLiteral("lost: ") + why);
                warnings << QStringLiteral("%1 lost: %2").arg(name, why);
                continue;
            }
        }
        // Started before (a metrics.jsonl, or the state file's record: a
        // program without the module writes no metrics.jsonl), gone now: it
        // ended while we were away and must not run again by itself.
        const bool hasMetrics = QFile::exists(r->runDir + QStringLiteral("/metrics.jsonl"));
        if (hasMetrics || it != live.constEnd()) {
            if (hasMetrics)
                m_ingestion->ingestMetricsFile(id);
            const Ingestion::Done done = m_ingestion->done(id);
            if (done.seen) {
                // Its done line is all there is: judged as every end is.
                const ExitOutcome outcome = exitOutcome(reportedFacts(id));
                m_runs->update(
                    id, [&](RunInfo &run) { run.exitCode = outcome.exitCode; }, RunRegistry::Notify::Quiet);
                finishRun(id, outcome.state, QStringLiteral("while Trainyard was away: ") + outcome.message);
            } else if (!refusal.isEmpty()) {
                // Whether it still runs is unknown: the file that would say
                // was not believed.
                finishRun(id, RunState::Lost, QStringLiteral("lost: not adopted: ") + refusal);
            } else if (m_store->hasCheckpoint(name)) {
                finishRun(id, RunState::Stopped, QStringLiteral("interrupted; resumes from its checkpoint"));
            } else if (!hasMetrics) {
                finishRun(id, RunState::Failed,
                          QStringLiteral("ended while Trainyard was away; how is unknown (it never reported)"));
            } else {
                finishRun(id, RunState::Failed, QStringLiteral("interrupted while Trainyard was away"));
            }
        }
    }
    persistState();
    return warnings;
}

// ---- shutdown ---------------------------------------------------------------

void Supervisor::shutdown(bool leaveRunning)
{
    m_shuttingDown = true;
    if (leaveRunning) {
        persistState();
        QList<RunId> ids;
        for (const auto &entry : m_supervised)
            ids << entry.first;
        for (RunId id : std::as_const(ids)) {
            m_launcher->detach(id);
            untrack(id);
        }
        m_closing = false;
        m_shutdownDeadline.stop();
        qCInfo(lcSupervisor, "shutdown: %lld runs left running", static_cast<long long>(ids.size()));
        Q_EMIT shutdownFinished();
        return;
    }
    if (m_closing)
        return; // already waiting
    m_closing = true;
    for (RunId id : m_runs->ids()) {
        const RunInfo *r = m_runs->find(id);
        if (r && isActive(r->state) && r->state != RunState::Stopping)
            stop(id);
    }
    if (m_runs->activeCount() > 0) {
        qCInfo(lcSupervisor, "shutdown: waiting for %d runs to stop", m_runs->activeCount());
        // The whole escalation (stop, SIGTERM, SIGKILL), then a little.
        m_shutdownDeadline.start(2 * m_stopTimeoutMs + 3000);
    }
    maybeFinishShutdown();
}

void Supervisor::onShutdownDeadline()
{
    QList<RunId> ids;
    for (const auto &entry : m_supervised)
        ids << entry.first;
    for (RunId id : std::as_const(ids)) {
        const RunInfo *r = m_runs->find(id);
        if (r && isActive(r->state)) {
            qCWarning(lcSupervisor, "%s still running at the shutdown deadline; killed", qUtf8Printable(r->name));
            finishRun(id, RunState::Failed, QStringLiteral("killed at shutdown"));
        }
    }
    // Active runs nobody supervises (none, normally) cannot be waited for.
    if (m_closing && m_runs->activeCount() > 0) {
        m_closing = false;
        persistState();
        Q_EMIT shutdownFinished();
    }
}

void Supervisor::maybeFinishShutdown()
{
    if (!m_closing || m_runs->activeCount() > 0)
        return;
    m_closing = false;
    m_shutdownDeadline.stop();
    persistState();
    qCInfo(lcSupervisor, "shutdown: every run has ended");
    Q_EMIT shutdownFinished();
}

void Supervisor::killNow(const QString &message)
{
    QList<RunId> ids;
    for (const auto &entry : m_supervised)
        ids << entry.first;
    for (RunId id : std::as_const(ids)) {
        const RunInfo *r = m_runs->find(id);
        m_launcher->release(id); // kills and waits: no event loop
        untrack(id);
        if (!r || !isActive(r->state))
            continue;
        qCWarning(lcSupervisor, "%s: %s", qUtf8Printable(r->name), qUtf8Printable(message));
        m_runs->update(
            id,
            [&](RunInfo &run) {
                run.state = RunState::Failed;
                run.message = message;
                run.connected = false;
                run.ended = QDateTime::currentDateTimeUtc();
            },
            RunRegistry::Notify::Quiet); // no signals here
        m_server->unregisterRun(id);
        m_store->writeStatus(*r);
    }
    m_closing = false;
    m_shutdownDeadline.stop();
    if (!ids.isEmpty())
        persistState();
}

} // namespace trainyard
