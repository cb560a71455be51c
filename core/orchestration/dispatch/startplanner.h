#pragma once

#include "orchestration/records/runinfo.h"
#include "orchestration/supervision/runlaunch.h"

#include <QSet>
#include <QString>
#include <QStringList>

namespace trainyard {

class Board;
class Ingestion;
class LaneDevices;
class RunRegistry;
class RunStore;
class Supervisor;

// How each run starts when its turn comes (its StartOptions): its lane's
// effective device, the CPU threads, a Slurm lane's gres, and whether it
// continues from its checkpoint or starts a new attempt. An ended run that
// starts again (Retry, Start, a sweep's promotion, a retry after running out
// of GPU memory) is planned here: resumed from a checkpoint when it did not
// finish, else a new attempt with its curves reset (its folder's results are
// kept at launch). Also the command line a run starts (or would start) with.
class StartPlanner
{
public:
    StartPlanner(const Board *board, const RunRegistry *runs, const RunStore *store, Ingestion *ingestion,
                 const Supervisor *supervisor, const LaneDevices *lanes);

    // How `id` starts when its turn comes: its lane's effective device, the
    // CPU threads, whether it resumes from its checkpoint.
    StartOptions startOptions(RunId id) const;
    // The worker's command line of `id` (program, then arguments): the one
    // it was started with, or for a run that waits in its queue the one it
    // would start with now (its lane's device, the CPU threads). The token
    // is never on it. Empty for an unknown run.
    QStringList commandLine(RunId id) const;

    // How an ended run starts again (Retry, Start, --retry-failed): from its
    // checkpoint when it has one and did not finish, else as a new attempt.
    bool resumesOnRetry(RunId id) const;
    // The folder name its results would be kept under when it starts again
    // (a new attempt over a folder that holds results), else empty.
    QString attemptKeptOnRetry(RunId id) const;

    void planRetry(RunId id);      // resume or a new attempt (resumesOnRetry)
    void planNewAttempt(RunId id); // never from the checkpoint; its curves start afresh
    // A stopped run queued again (Start all): from its checkpoint when it has one.
    void planContinue(RunId id);
    void started(RunId id); // its next start is planned afresh

    // The board was replaced (nothing runs): forget every run's plans.
    void reset() { m_resumeNext.clear(); }
    void forget(RunId id) { m_resumeNext.remove(id); }

private:
    const Board *m_board;
    const RunRegistry *m_runs;
    const RunStore *m_store;
    Ingestion *m_ingestion;
    const Supervisor *m_supervisor;
    const LaneDevices *m_lanes;
    QSet<RunId> m_resumeNext; // next start continues from the checkpoint
};

} // namespace trainyard
