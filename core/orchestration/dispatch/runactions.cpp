#include "orchestration/dispatch/runactions.h"

#include "orchestration/dependencies/dependencies.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/startplanner.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/supervision/supervisor.h"

namespace trainyard {

RunActions::RunActions(RunRegistry *runs, Supervisor *supervisor, Dispatcher *dispatcher, StartPlanner *plans)
    : m_runs(runs)
    , m_supervisor(supervisor)
    , m_dispatcher(dispatcher)
    , m_plans(plans)
{
}

bool RunActions::startRun(RunId id, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (!r) {
        return refuse(error, QStringLiteral("no such run"));
    }
    if (r->state == RunState::Waiting) {
        return refuse(error, QStringLiteral("%1 %2").arg(r->name, r->message));
    }
    if (r->state != RunState::Queued && !isTerminal(r->state)) {
        return refuse(error, QStringLiteral("%1 is %2").arg(r->name, runStateName(r->state)));
    }
    QList<int> gpus;
    QString busy;
    bool laneFull = false;
    if (!m_dispatcher->canStartNow(*r, &gpus, &busy, &laneFull) && !laneFull) {
        return refuse(error, busy);
    }
    // An ended run (Stopped, or put back by an undo) starts as Retry does.
    const bool ended = isTerminal(r->state);
    if (ended) {
        m_plans->planRetry(id);
        // Queued first, so that a launch that fails records its failure.
        m_runs->update(
            id, [](RunInfo &run) { run.message.clear(); }, RunRegistry::Notify::Quiet);
        m_runs->setState(id, RunState::Queued);
    }
    m_runs->update(
        id, [](RunInfo &run) { run.held = false; }, RunRegistry::Notify::Quiet);
    if (m_dependencies) { // an ended run that runs after others may have to wait for them again
        m_dependencies->refresh();
    }
    if (r->state == RunState::Waiting) {
        return true;
    }
    if (laneFull) {
        // Queued, not refused: it starts when a run of its lane ends.
        m_runs->update(id, [&busy](RunInfo &run) { run.message = QStringLiteral("waits: ") + busy; });
        m_dispatcher->startWhenFree(id);
        return true;
    }
    QString why;
    if (!m_dispatcher->launch(id, &why, gpus)) {
        m_supervisor->fail(id, why);
        return refuse(error, why);
    }
    if (ended) {
        m_dispatcher->notifyCounts();
    }
    return true;
}

bool RunActions::stopRun(RunId id, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (r && (r->state == RunState::Queued || r->state == RunState::Waiting)) {
        return cancelRun(id, error);
    }
    return m_supervisor->stop(id, error);
}

bool RunActions::resumeRun(RunId id, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (r && r->state == RunState::Stopped) {
        return startRun(id, error);
    }
    return m_supervisor->resume(id, error);
}

bool RunActions::cancelRun(RunId id, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (!r || (r->state != RunState::Queued && r->state != RunState::Waiting)) {
        return refuse(error, QStringLiteral("only a queued or waiting run can be cancelled"));
    }
    m_runs->update(id, [](RunInfo &run) {
        run.ended = QDateTime::currentDateTimeUtc();
        run.state = RunState::Cancelled;
        if (run.message.startsWith(QLatin1String("waits: "))) {
            run.message.clear(); // it waits no more
        }
    });
    m_dispatcher->endedInQueue(id, RunState::Cancelled);
    return true;
}

bool RunActions::retryRun(RunId id, bool fromCheckpoint, QString *error)
{
    const RunInfo *r = m_runs->find(id);
    if (!r) {
        return refuse(error, QStringLiteral("no such run"));
    }
    if (!isTerminal(r->state)) {
        return refuse(error, QStringLiteral("%1 is %2").arg(r->name, runStateName(r->state)));
    }
    if (fromCheckpoint) {
        m_plans->planRetry(id);
    } else {
        m_plans->planNewAttempt(id);
    }
    m_runs->update(id, [](RunInfo &run) {
        run.message.clear();
        run.held = false;
        run.state = RunState::Queued;
    });
    m_dispatcher->notifyCounts();
    m_dispatcher->dispatch();
    return true;
}

} // namespace trainyard
