#include "orchestration/records/runinfo.h"

#include "orchestration/runspec/runspecview.h"

#include <algorithm>

#include <array>
#include <utility>

namespace trainyard {

namespace {
const std::array<std::pair<RunState, const char *>, 13> kStateNames = {{
    {RunState::Queued, "queued"},
    {RunState::Waiting, "waiting"},
    {RunState::Starting, "starting"},
    {RunState::Running, "running"},
    {RunState::Paused, "paused"},
    {RunState::Stalled, "stalled"},
    {RunState::Stopping, "stopping"},
    {RunState::Finished, "finished"},
    {RunState::Failed, "failed"},
    {RunState::Diverged, "diverged"},
    {RunState::Stopped, "stopped"},
    {RunState::Cancelled, "cancelled"},
    {RunState::Lost, "lost"},
}};
} // namespace

QString runStateName(RunState state)
{
    for (const auto &[s, name] : kStateNames) {
        if (s == state) {
            return QString::fromLatin1(name);
        }
    }
    return QStringLiteral("unknown");
}

bool runStateFromName(const QString &name, RunState *state)
{
    for (const auto &[s, n] : kStateNames) {
        if (name == QLatin1String(n)) {
            *state = s;
            return true;
        }
    }
    return false;
}

bool isActive(RunState state)
{
    switch (state) {
    case RunState::Starting:
    case RunState::Running:
    case RunState::Paused:
    case RunState::Stalled:
    case RunState::Stopping:
        return true;
    default:
        return false;
    }
}

bool isTerminal(RunState state)
{
    switch (state) {
    case RunState::Finished:
    case RunState::Failed:
    case RunState::Diverged:
    case RunState::Stopped:
    case RunState::Cancelled:
    case RunState::Lost:
        return true;
    default:
        return false;
    }
}

bool isAllowedTransition(RunState from, RunState to)
{
    using S = RunState;
    if (from == to) {
        return true;
    }
    switch (from) {
    case S::Queued:
        return to == S::Starting || to == S::Running || to == S::Waiting || isTerminal(to);
    case S::Waiting: // released, reattached after a restart, cancelled or found ended
        return to == S::Queued || to == S::Running || isTerminal(to);
    case S::Starting: // "running" or hello; silence; a stop; the end
        return to == S::Running || to == S::Stalled || to == S::Stopping || isTerminal(to);
    case S::Running:
        return to == S::Starting || to == S::Stalled || to == S::Paused || to == S::Stopping || isTerminal(to);
    case S::Stalled: // heard again, paused, requeued, stopped, ended
        return to == S::Starting || to == S::Running || to == S::Paused || to == S::Stopping || isTerminal(to);
    case S::Paused: // resumed, requeued (the job's pause is lost), stopped, ended
        return to == S::Starting || to == S::Running || to == S::Stopping || isTerminal(to);
    case S::Stopping:
        return isTerminal(to);
    case S::Finished:
    case S::Failed:
    case S::Diverged:
    case S::Stopped:
    case S::Cancelled:
    case S::Lost:
        return to == S::Queued;
    }
    return false;
}

double budgetLeft(const RunInfo &run)
{
    const std::optional<double> budget = RunSpecView(run.spec).maxSeconds();
    return budget ? std::max(0.0, *budget - std::max(0.0, run.wall)) : -1;
}

double runProgress(const RunInfo &run)
{
    if (run.state == RunState::Finished) {
        return 1.0;
    }
    double progress = -1;
    if (run.totalSteps > 0 && run.step >= 0) {
        progress = std::min(1.0, double(run.step) / double(run.totalSteps));
    }
    const std::optional<double> budget = RunSpecView(run.spec).maxSeconds();
    if (budget && run.wall > 0) {
        progress = std::max(progress, std::min(1.0, run.wall / *budget));
    }
    return progress;
}

double estimatedSecondsLeft(qint64 step, qint64 totalSteps, double stepsPerSecond, double budgetLeft)
{
    double eta = -1;
    if (totalSteps > 0 && step >= 0 && stepsPerSecond > 0) {
        eta = double(std::max<qint64>(0, totalSteps - step)) / stepsPerSecond;
    }
    if (budgetLeft >= 0) {
        eta = eta >= 0 ? std::min(eta, budgetLeft) : budgetLeft;
    }
    return eta;
}

double trainedSeconds(const RunInfo &run)
{
    if (run.wall > 0) {
        return run.wall;
    }
    if (run.started.isValid() && run.ended.isValid()) {
        return double(run.started.secsTo(run.ended));
    }
    return -1;
}

} // namespace trainyard
