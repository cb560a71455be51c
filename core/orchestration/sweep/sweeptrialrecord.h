#pragma once

#include "orchestration/sweep/sweepstatefile.h"

#include <QString>
#include <QStringList>

namespace trainyard {

class SweepSearch;

/// What a sweep keeps of its trials between sessions, checked before it is
/// believed: its state file (SweepStateFile) and its trials' run folders.
/// The SweepRunner saves it after each decision and, opening, places again
/// the trials that load() returns.
class SweepTrialRecord
{
public:
    explicit SweepTrialRecord(const QString &runsRoot);

    /// Writes the placed trials of `sweep` (one never placed has nothing on
    /// disk to come back to); a failure is logged.
    void save(const SweepSearch &sweep) const;
    /// The saved state, keeping the trials that are the sweep's own: an
    /// index of one of its trials, saved once, a run named for it whose
    /// folder (if any) holds that trial's spec; each other one is left out
    /// with a warning. Without a state file (or with one refused, said in
    /// `warnings`) the trials whose folders exist, on `firstLane`.
    SweepState load(const SweepSearch &sweep, int firstLane, QStringList *warnings) const;

private:
    bool isTrialFolder(const SweepSearch &sweep, int index, const QString &run, QString *why) const;

    QString m_root;
};

} // namespace trainyard
