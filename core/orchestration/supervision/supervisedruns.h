#pragma once

#include "orchestration/records/runinfo.h"
#include "orchestration/supervision/runstatefile.h"

#include <QList>
#include <QObject>
#include <QSet>
#include <QString>

#include <map>
#include <memory>

namespace trainyard {

class Ingestion;
class Launcher;
class MetricsServer;
class RunRegistry;
class RunStore;
class StallWatch;
class StopEscalation;

// The runs under supervision, from their launch (or reattachment) to their
// end: one record each (its phase, its StopEscalation, what its queue said,
// whether its metrics.jsonl is its channel), its stall watch, and the state
// file that lists them for the next opening (RunStateFile). The Supervisor
// and LaunchProgress decide what happens to each; this keeps track of them.
class SupervisedRuns : public QObject
{
    Q_OBJECT
public:
    enum class Phase {
        Launching, // start() asked, no event yet
        Pending,   // waiting in a queue: no stall watchdog
        Live,      // started (or running, or attached)
    };
    struct Run
    {
        const RunInfo *info = nullptr; // the registry's record, to read (RunRegistry::update writes)
        Phase phase = Phase::Launching;
        StopEscalation *stop = nullptr; // its stop, from the start (a child of this)
        bool pendingShown = false;      // info->message is the pending reason
        bool launcherDone = false;      // exited or failed to launch: the launcher forgot it
        bool followFile = false;        // no socket: Ingestion follows its metrics.jsonl once it started
        QString pendingReason;
        bool ranHere = false; // seen running in this session: a pending after it is a requeue
        QString queueEnd;     // the launcher's endedBecause: why the queue ended it
    };

    SupervisedRuns(RunRegistry *runs, RunStore *store, MetricsServer *server, Ingestion *ingestion, Launcher *launcher,
                   StallWatch *stall, QObject *parent = nullptr);

    Run *find(RunId id) const
    {
        const auto it = m_tracked.find(id);
        return it == m_tracked.end() ? nullptr : it->second.get();
    }
    bool contains(RunId id) const { return m_tracked.count(id) != 0; }
    // Supervises `id` from now (a record it had is dropped): watched for
    // stalls, with a StopEscalation that shows the run Stopping.
    Run &track(RunId id, const RunInfo *info);
    void untrack(RunId id);
    QList<RunId> ids() const;
    // This machine's worker pids (a host's are other processes here).
    QSet<qint64> workerPids() const;

    RunStateFile *stateFile() { return &m_stateFile; }
    void persist(); // the state file, as the supervised runs are now

private:
    RunRegistry *m_runs;
    MetricsServer *m_server;
    Ingestion *m_ingestion;
    Launcher *m_launcher;
    StallWatch *m_stall;
    RunStateFile m_stateFile;
    std::map<RunId, std::unique_ptr<Run>> m_tracked; // from start (or attach) to the end
};

} // namespace trainyard
