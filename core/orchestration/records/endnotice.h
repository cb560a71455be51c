#pragma once

#include "orchestration/records/runinfo.h"

#include <QString>

#include <optional>

namespace trainyard {

class RunRegistry;

// What Trainyard tells someone looking elsewhere when runs end: the app's
// tray and `trainyard run --notify` send the same notices, worded here once.
struct EndNotice
{
    QString title; // "Run failed"
    QString text;  // "nanny failed: exit 3"
};

namespace endnotice {

// "2 of 2 finished", or "3 of 3 ended (1 finished, 1 failed, 1 diverged)":
// runs that ended otherwise (a sweep's early stopping, a failure) count as
// ended, so a done experiment never reads as unfinished.
QString finishCountText(const RunRegistry &runs);

// "nanny diverged: loss is nan at step 12": how a run ended, its state once.
QString endText(const QString &run, RunState state, const QString &message);

// The notice for `run` ending in `state` (a run finished, failed, diverged
// or was lost), or none for the other ends (stopped, cancelled: the user's
// own doing). `finishCount` is finishCountText's.
std::optional<EndNotice> runEnded(const RunInfo &run, RunState state, const QString &finishCount);

// "Experiment done", "mnist: 3 of 3 finished.".
EndNotice experimentDone(const QString &experiment, const QString &finishCount);

} // namespace endnotice

} // namespace trainyard
