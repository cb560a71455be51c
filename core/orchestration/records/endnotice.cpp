#include "orchestration/records/endnotice.h"

#include "orchestration/records/runregistry.h"

#include <QStringList>

namespace trainyard::endnotice {

QString finishCountText(const RunRegistry &runs)
{
    QStringList others;
    int ended = 0;
    for (RunState state :
         {RunState::Stopped, RunState::Failed, RunState::Diverged, RunState::Cancelled, RunState::Lost}) {
        const int n = runs.count(state);
        if (n > 0) {
            ended += n;
            others << QStringLiteral("%1 %2").arg(n).arg(runStateName(state));
        }
    }
    const int finished = runs.count(RunState::Finished);
    const int total = runs.size();
    if (others.isEmpty()) {
        return QStringLiteral("%1 of %2 finished").arg(finished).arg(total);
    }
    return QStringLiteral("%1 of %2 ended (%3 finished, %4)")
        .arg(finished + ended)
        .arg(total)
        .arg(finished)
        .arg(others.join(QStringLiteral(", ")));
}

QString endText(const QString &run, RunState state, const QString &message)
{
    const QString said = runStateName(state);
    if (message.isEmpty()) {
        return QStringLiteral("%1 %2").arg(run, said);
    }
    // A message that starts with the state ("diverged: loss is nan…") says it once.
    if (message.startsWith(said + QLatin1Char(':')) || message == said) {
        return QStringLiteral("%1 %2").arg(run, message);
    }
    return QStringLiteral("%1 %2: %3").arg(run, said, message);
}

std::optional<EndNotice> runEnded(const RunInfo &run, RunState state, const QString &finishCount)
{
    if (state == RunState::Finished) {
        return EndNotice{QStringLiteral("Run finished"),
                         QStringLiteral("%1 finished (%2).").arg(run.name, finishCount)};
    }
    if (state == RunState::Failed || state == RunState::Diverged || state == RunState::Lost) {
        return EndNotice{QStringLiteral("Run %1").arg(runStateName(state)), endText(run.name, state, run.message)};
    }
    return std::nullopt;
}

EndNotice experimentDone(const QString &experiment, const QString &finishCount)
{
    return EndNotice{QStringLiteral("Experiment done"), QStringLiteral("%1: %2.").arg(experiment, finishCount)};
}

} // namespace trainyard::endnotice
