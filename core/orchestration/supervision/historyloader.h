#pragma once

#include "orchestration/supervision/supervisor.h"

#include <QStringList>

#include <functional>

namespace trainyard {

class Ingestion;
class RunRegistry;
class RunStateFile;
class RunStore;

// What a new session finds on disk, run by run of the board: a finished
// run (its status.json) with its curves; a live one, named by the state
// file, reattached through the Supervisor; one that ended or was
// interrupted while Trainyard was away, ended from its metrics.jsonl (its
// done line judged as every end is, else Stopped with a checkpoint, else
// Failed). A run whose saved pid or job proves not to be its own, or that
// a refused state file names, ends Lost (nothing signalled). A folder that
// holds another spec's results (RunAttempts::otherSpec) is not the run's:
// it stays queued, its message says so, and its start is a new attempt.
class HistoryLoader
{
public:
    HistoryLoader(RunRegistry *runs, RunStore *store, Ingestion *ingestion, const RunStateFile *stateFile,
                  Supervisor *supervisor);

    // Returns what the user must be told: a refused state file, each lost
    // run. `startOptions`: what each run would be started with now.
    QStringList load(const std::function<StartOptions(RunId)> &startOptions);

private:
    RunRegistry *m_runs;
    RunStore *m_store;
    Ingestion *m_ingestion;
    const RunStateFile *m_stateFile;
    Supervisor *m_supervisor;
};

} // namespace trainyard
