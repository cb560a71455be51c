// The Supervisor across the orchestrator's lifetimes: the state file
// (RunStateFile), reattaching a run it names, loading what is on disk
// (HistoryLoader), the shutdown's parts (Shutdown drives it) and the
// synchronous kill. The rest of the class is in supervisor.cpp.

#include "supervision/supervisor.h"

#include "ingest/ingestion.h"
#include "ingest/metricsserver.h"
#include "launch/launcher.h"
#include "logcategories.h"
#include "records/runregistry.h"
#include "supervision/exitoutcome.h"
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
    const Launcher::AttachResult result = m_stateFile.attach(m_runs, id, live, launchSpec(id, options), why);
    if (result != Launcher::AttachResult::Attached)
        return result;
    const RunInfo *r = m_runs->find(id);
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

int Supervisor::detachAll()
{
    persistState();
    const QList<RunId> ids = supervisedIds();
    for (RunId id : ids) {
        m_launcher->detach(id);
        untrack(id);
    }
    return int(ids.size());
}

void Supervisor::killNow(const QString &message)
{
    const QList<RunId> ids = supervisedIds();
    for (RunId id : ids) {
        const RunInfo *r = m_runs->find(id);
        m_launcher->release(id); // kills and waits: no event loop
        untrack(id);
        if (!r || !isActive(r->state))
            continue;
        qCWarning(lcSupervisor, "%s: %s", qUtf8Printable(r->name), qUtf8Printable(message));
        recordKilled(m_runs, m_store, id, message);
        m_server->unregisterRun(id);
    }
    m_shutdown.cancel();
    if (!ids.isEmpty())
        persistState();
}

} // namespace trainyard
