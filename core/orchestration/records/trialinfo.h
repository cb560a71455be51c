#pragma once

#include "orchestration/records/runinfo.h"

#include <QJsonObject>
#include <QString>

#include <QtNumeric>

namespace trainyard {

/// One trial as the Sweep view and `trainyard run` show it.
struct TrialInfo
{
    int index = -1;     ///< 0-based; named SweepSpec::trialName(sweep, index)
    QJsonObject values; ///< {"train.lr": 0.003, ...}
    RunId run = 0;      ///< 0 while it waits in the sweep's shared queue (not on a lane yet)
    enum class Phase {
        Waiting,  ///< not placed yet
        Training, ///< on a lane: queued there, starting or running
        Paused,   ///< ASHA paused it at a rung (checkpointed, slot freed)
        Stopped,  ///< stopped by the rule or by hand, for good
        Finished, ///< trained to the end (max)
        Failed    ///< failed, diverged or lost: out of the search
    };
    Phase phase = Phase::Waiting;
    int rung = -1;              ///< highest rung reached (ASHA), -1 if none
    double objective = qQNaN(); ///< best value so far (by the sweep's mode), NaN if none
    double resource = -1;       ///< latest epoch/step of an objective report
    QString reason;             ///< why it paused or stopped, for the card and details
};

} // namespace trainyard
