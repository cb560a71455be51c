#include "orchestration/supervision/supervisedruns.h"

#include "orchestration/ingest/ingestion.h"
#include "orchestration/ingest/metricsserver.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runspec/runspecview.h"
#include "orchestration/supervision/stallwatch.h"
#include "orchestration/supervision/stopescalation.h"
#include "protocol/protocol.h"

namespace trainyard {

SupervisedRuns::SupervisedRuns(RunRegistry *runs, RunStore *store, MetricsServer *server, Ingestion *ingestion,
                               Launcher *launcher, StallWatch *stall, QObject *parent)
    : QObject(parent)
    , m_runs(runs)
    , m_server(server)
    , m_ingestion(ingestion)
    , m_launcher(launcher)
    , m_stall(stall)
    , m_stateFile(store, server, launcher)
{
}

SupervisedRuns::Run &SupervisedRuns::track(RunId id, const RunInfo *info)
{
    untrack(id);
    auto s = std::make_unique<Run>();
    s->info = info;
    m_stall->watch(id, !RunSpecView(info->spec).isProgram());
    s->stop = new StopEscalation(
        id, m_launcher, [this, id] { return m_server->send(id, protocol::control(protocol::MessageType::Stop)); },
        this);
    connect(s->stop, &StopEscalation::stopping, this,
            [this](RunId run, const QString &message) { m_runs->setState(run, RunState::Stopping, message); });
    return *m_tracked.emplace(id, std::move(s)).first->second;
}

void SupervisedRuns::untrack(RunId id)
{
    const auto it = m_tracked.find(id);
    if (it == m_tracked.end()) {
        return;
    }
    std::unique_ptr<Run> s = std::move(it->second);
    m_tracked.erase(it);
    // We may be inside one of its calls (an exit reported from inside
    // terminate()): let the event loop delete it.
    m_ingestion->unfollow(id);
    m_stall->forget(id);
    s->stop->halt();
    s->stop->disconnect(this);
    s->stop->deleteLater();
}

QList<RunId> SupervisedRuns::ids() const
{
    QList<RunId> ids;
    for (const auto &entry : m_tracked) {
        ids << entry.first;
    }
    return ids;
}

QSet<qint64> SupervisedRuns::workerPids() const
{
    QSet<qint64> pids;
    for (const auto &entry : m_tracked) {
        // This machine's: a host's pids are other processes here.
        if (entry.second->info->pid > 0 && !entry.second->info->device.isRemote()) {
            pids.insert(entry.second->info->pid);
        }
    }
    return pids;
}

void SupervisedRuns::persist()
{
    QList<RunStateFile::Live> live;
    for (const auto &[id, s] : m_tracked) {
        live.append({id, s->followFile});
    }
    m_stateFile.write(*m_runs, live);
}

} // namespace trainyard
