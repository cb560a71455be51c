// The Scheduler's part about a run's history: starting an ended run again
// (resume, or a new attempt that keeps the old folder) and putting a
// removed run back as it was.

#include "dispatch/board.h"
#include "dispatch/dispatcher.h"
#include "dispatch/scheduler.h"
#include "ingest/ingestion.h"
#include "metrics/metricstore.h"

namespace trainyard {

bool Scheduler::retryRun(RunId id, bool fromCheckpoint, QString *error)
{
    return m_dispatcher->retryRun(id, fromCheckpoint, error);
}

bool Scheduler::resumesOnRetry(RunId id) const
{
    return m_dispatcher->resumesOnRetry(id);
}

QString Scheduler::attemptKeptOnRetry(RunId id) const
{
    return m_dispatcher->attemptKeptOnRetry(id);
}

RunId Scheduler::restoreRun(const RunInfo &run, int position, QString *error)
{
    const RunId id = m_board->restoreRun(run, position, error);
    if (id == 0)
        return 0;
    // Its folder was never touched: its curves come back from it.
    if (isTerminal(run.state)) {
        m_ingestion->ingestMetricsFile(id);
        m_metrics->flush();
    }
    m_dispatcher->notifyCounts();
    m_dispatcher->dispatch();
    return id;
}

} // namespace trainyard
