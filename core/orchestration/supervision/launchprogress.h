#pragma once

#include "orchestration/records/runinfo.h"
#include "orchestration/supervision/supervisedruns.h"

#include <QObject>
#include <QString>

namespace trainyard {

class Ingestion;
class Launcher;
struct MetricRecord;
class RunRegistry;
class StallWatch;

// A launched run's way to training, from the launcher's events and the
// worker's hello: started (its pid or job, its host; its metrics.jsonl
// followed when that is its channel; the state file written), pending in a
// batch queue (why; "requeued" once it ran here), running (out of its
// queue, its node known) and its hello (connected, Running). Each moves the
// run's phase (SupervisedRuns), its record and its stall watch. How a run
// ends is the Supervisor's.
class LaunchProgress : public QObject
{
    Q_OBJECT
public:
    LaunchProgress(RunRegistry *runs, Ingestion *ingestion, Launcher *launcher, SupervisedRuns *supervised,
                   StallWatch *stall, QObject *parent = nullptr);

private:
    void onStarted(RunId id, qint64 pid, const QString &jobId);
    void onPending(RunId id, const QString &reason);
    void onRunning(RunId id);
    void onHello(RunId id, const MetricRecord &hello);
    void leavePending(SupervisedRuns::Run *s, RunInfo &run); // inside RunRegistry::update

    RunRegistry *m_runs;
    Ingestion *m_ingestion;
    Launcher *m_launcher;
    SupervisedRuns *m_supervised;
    StallWatch *m_stall;
};

} // namespace trainyard
