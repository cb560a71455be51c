// The Supervisor across the orchestrator's lifetimes: the state file
// (RunStateFile), reattaching a run it names, loading what is on disk
// (HistoryLoader), and the asynchronous shutdown. The rest of the class is
// in supervisor.cpp.

#include "supervision/supervisor.h"

#include "ingest/ingestion.h"
#include "ingest/metricsserver.h"
#include "launch/launcher.h"
#include "logcategories.h"
#include "records/runregistry.h"
#include "supervision/historyloader.h"
#include "supervision/runstatefile.h"

namespace trainyard {

// ---- history and reattachment -----------------------------------------------

void Supervisor::persistState()
{
    QList<RunStateFile::Live> live;
    for (const auto &[id, s] : m_supervised)
        live.append({id, s->followFile});
    m_stateFile.write(*m_runs, live);
}

Launcher::AttachResult Supervisor::reattach(RunId id, const RunStore::LiveWorker &live, const StartOptions &options,
                                            QString *why)
{
    const RunInfo *r = m_runs->find(id);
    const QJsonObject handle = RunStateFile::handle(live);
    // What the run is, from the run itself (its name, folder, program)
    // and the command and token it was started with.
    const LaunchSpec expected = RunStateFile::expected(launchSpec(id, options), live);
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
    s.followFile = RunStateFile::followsFile(live, *r); // a batch job's file is its channel again
    if (s.followFile)
        m_ingestion->follow(id);
    qCInfo(lcSupervisor, "%s reattached", qUtf8Printable(r->name));
    m_ingestion->ingestMetricsFile(id);
    m_runs->touch(id);
    return result;
}

QStringList Supervisor::loadHistory(const std::function<StartOptions(RunId)> &startOptions)
{
    return HistoryLoader(m_runs, m_store, m_ingestion, &m_stateFile, this).load(startOptions);
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
