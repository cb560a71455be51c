#pragma once

#include "orchestration/experiment/sweepspec.h"
#include "orchestration/records/trialinfo.h"

#include <QList>
#include <QString>

namespace trainyard {

// What the board's `after`s ask of the sweeps (SweepRunner): which sweeps
// there are, a sweep's trials and whether all have ended. An interface so
// that Dependencies, which the Dispatcher asks before every dispatch, sits
// below the sweeps' runtime, which drives the Dispatcher.
class SweepTrials
{
public:
    virtual ~SweepTrials() = default;
    virtual QList<SweepSpec> sweeps() const = 0;
    virtual const SweepSpec *sweep(const QString &name) const = 0;
    virtual QList<TrialInfo> trials(const QString &sweep) const = 0;
    virtual bool isDone(const QString &sweep) const = 0; // every trial ended (finished, stopped or failed)
};

} // namespace trainyard
