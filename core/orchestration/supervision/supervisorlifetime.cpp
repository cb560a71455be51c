// The Supervisor across the orchestrator's lifetimes: reattaching a run the
// state file names (RunStateFile), loading what is on disk
// (HistoryLoader), the shutdown's parts (Shutdown drives it) and the
// synchronous kill. The rest of the class is in supervisor.cpp.

#include "orchestration/supervision/supervisor.h"

#include "orchestration/ingest/ingestion.h"
#include "orchestration/ingest/metricsserver.h"
#include "orchestration/launch/launcher.h"
#include "orchestration/logcategories.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/supervision/exitoutcome.h"
#include "orchestration/supervision/historyloader.h"
#include "orchestration/supervision/runstatefile.h"

namespace trainyard {

// ---- history and reattachment -----------------------------------------------

Launcher::AttachResult Supervisor::reattach(RunId id, const RunStore::LiveWorker &live, const StartOptions &options,
                                            QString *why)
{
    const Launcher::AttachResult result =
        m_supervised.stateFile()->attach(m_runs, id, live, launchSpec(id, options), why);
    if (result != Launcher::AttachResult::Attached) {
        return result;
    }
    const RunInfo *r = m_runs->find(id);
    SupervisedRuns::Run &s = m_supervised.track(id, r);
    s.phase = SupervisedRuns::Phase::Live;
    s.followFile = RunStateFile::followsFile(live, *r); // a batch job's file is its channel again
    if (s.followFile) {
        m_ingestion->follow(id);
    }
    qCInfo(lcSupervisor, "%s reattached", qUtf8Printable(r->name));
    m_ingestion->ingestMetricsFile(id);
    m_runs->touch(id);
    return result;
}

QStringList Supervisor::loadHistory(const std::function<StartOptions(RunId)> &startOptions)
{
    return HistoryLoader(m_runs, m_store, m_ingestion, m_supervised.stateFile(), this).load(startOptions);
}

// ---- shutdown ---------------------------------------------------------------

int Supervisor::detachAll()
{
    m_supervised.persist();
    const QList<RunId> ids = supervisedIds();
    for (RunId id : ids) {
        m_launcher->detach(id);
        m_supervised.untrack(id);
    }
    return int(ids.size());
}

void Supervisor::killNow(const QString &message)
{
    const QList<RunId> ids = supervisedIds();
    for (RunId id : ids) {
        const RunInfo *r = m_runs->find(id);
        m_launcher->release(id); // kills and waits: no event loop
        m_supervised.untrack(id);
        if (!r || !isActive(r->state)) {
            continue;
        }
        qCWarning(lcSupervisor, "%s: %s", qUtf8Printable(r->name), qUtf8Printable(message));
        recordKilled(m_runs, m_store, id, message);
        m_server->unregisterRun(id);
    }
    m_shutdown.cancel();
    if (!ids.isEmpty()) {
        m_supervised.persist();
    }
}

} // namespace trainyard
