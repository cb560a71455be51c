#include "orchestration/supervision/historyloader.h"

#include "orchestration/ingest/ingestion.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/supervision/exitoutcome.h"
#include "orchestration/supervision/runstatefile.h"

#include <QFile>
#include <QFileInfo>

namespace trainyard {

HistoryLoader::HistoryLoader(RunRegistry *runs, RunStore *store, Ingestion *ingestion, const RunStateFile *stateFile,
                             Supervisor *supervisor)
    : m_runs(runs)
    , m_store(store)
    , m_ingestion(ingestion)
    , m_stateFile(stateFile)
    , m_supervisor(supervisor)
{
}

QStringList HistoryLoader::load(const std::function<StartOptions(RunId)> &startOptions)
{
    QStringList warnings;
    QString refusal;
    const QHash<QString, RunStore::LiveWorker> live = m_stateFile->read(&refusal);
    if (!refusal.isEmpty()) {
        warnings << refusal;
    }
    for (RunId id : m_runs->ids()) {
        const RunInfo *r = m_runs->find(id);
        if (!r) {
            continue;
        }
        const QString name = r->name;
        m_runs->update(
            id, [&](RunInfo &run) { run.runDir = m_store->runDir(name); }, RunRegistry::Notify::Quiet);
        const auto it = live.constFind(name);
        // A folder another spec trained is not this run's result: the run
        // stays queued and its start keeps the folder as an attempt. Not
        // while a worker may still write there (named live, or a refused
        // state file): never a second writer in its folder.
        const bool mayRun = it != live.constEnd() || !refusal.isEmpty();
        if (const QString other = mayRun ? QString() : m_store->attempts().otherSpec(name, r->spec); !other.isEmpty()) {
            const QString why = newAttemptMessage(other, m_store->nextAttemptName(name));
            m_runs->update(
                id, [&](RunInfo &run) { run.message = why; }, RunRegistry::Notify::Quiet);
            warnings << QStringLiteral("%1: %2").arg(name, why);
            continue;
        }
        RunInfo saved = *r;
        if (m_store->readStatus(name, &saved)) {
            m_runs->update(
                id, [&](RunInfo &run) { run = saved; }, RunRegistry::Notify::Quiet);
            m_ingestion->ingestMetricsFile(id);
            m_runs->touch(id);
            continue;
        }
        if (it != live.constEnd()) {
            QString why;
            const Launcher::AttachResult result = m_supervisor->reattach(id, *it, startOptions(id), &why);
            if (result == Launcher::AttachResult::Attached) {
                continue;
            }
            if (result == Launcher::AttachResult::NotOurs) {
                // Something else runs under the saved pid or job id: left
                // alone, and this run's own end is unknown.
                m_supervisor->finishRun(id, RunState::Lost, QStringLiteral("lost: ") + why);
                warnings << QStringLiteral("%1 lost: %2").arg(name, why);
                continue;
            }
        }
        // Started before (a metrics.jsonl, or the state file's record: a
        // program without the module writes no metrics.jsonl), gone now: it
        // ended while we were away and must not run again by itself.
        // (A folder that is a link is not the run's: RunStore reads nothing from it.)
        const bool hasMetrics =
            QFile::exists(r->runDir + QStringLiteral("/metrics.jsonl")) && !QFileInfo(r->runDir).isSymLink();
        if (hasMetrics || it != live.constEnd()) {
            if (hasMetrics) {
                m_ingestion->ingestMetricsFile(id);
            }
            const Ingestion::Done done = m_ingestion->done(id);
            if (done.seen) {
                // Its done line is all there is: judged as every end is.
                const ExitOutcome outcome = exitOutcome(m_supervisor->reportedFacts(id));
                m_runs->update(
                    id, [&](RunInfo &run) { run.exitCode = outcome.exitCode; }, RunRegistry::Notify::Quiet);
                m_supervisor->finishRun(id, outcome.state,
                                        QStringLiteral("while Trainyard was away: ") + outcome.message);
            } else if (!refusal.isEmpty()) {
                // Whether it still runs is unknown: the file that would say
                // was not believed.
                m_supervisor->finishRun(id, RunState::Lost, QStringLiteral("lost: not adopted: ") + refusal);
            } else if (m_store->hasCheckpoint(name)) {
                m_supervisor->finishRun(id, RunState::Stopped,
                                        QStringLiteral("interrupted; resumes from its checkpoint"));
            } else if (!hasMetrics) {
                m_supervisor->finishRun(
                    id, RunState::Failed,
                    QStringLiteral("ended while Trainyard was away; how is unknown (it never reported)"));
            } else {
                m_supervisor->finishRun(id, RunState::Failed, QStringLiteral("interrupted while Trainyard was away"));
            }
        }
    }
    m_supervisor->persistState();
    return warnings;
}

} // namespace trainyard
