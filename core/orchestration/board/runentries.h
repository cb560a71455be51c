#pragma once

#include "orchestration/experiment/experiment.h"
#include "orchestration/records/runinfo.h"

#include <QJsonObject>
#include <QList>
#include <QString>

namespace trainyard {

class RunRegistry;
class RunStore;

// A queue's entries as the experiment file writes them (a spec with its
// "after", a repeat, a run of rounds) and the board's run records, one into
// the other: an entry expands into records, and a lane's records collapse
// back into entries, so that a board saved unchanged writes the file it was
// loaded from. The Board keeps which lane and place each record has.
class RunEntries
{
public:
    RunEntries(RunRegistry *runs, RunStore *store);

    // A record for `spec`, run `index` of the `count` of `group`, on `lane`:
    // its "after" goes out of the spec (RunInfo::after) and makes it Waiting.
    RunId add(const QJsonObject &spec, const QString &group, int index, int count, int lane, bool held) const;
    // The records of the file's `entry` on `lane` in queue order: each of
    // its repeats a run of its group, a round's place on its one run.
    // `allRounds` are the experiment's (Experiment::rounds).
    QList<RunId> expand(const ExperimentRun &entry, const QList<QJsonObject> &allRounds, int lane) const;
    // The entries of a lane's `runs` in order: a group's untouched repeats
    // collapse back into one entry with "repeat" where its first repeat is
    // (also with other runs between them), every other run is its own
    // (with its round, which Experiment::toJson writes back as one entry);
    // a sweep's trials are left out, their sweep being saved in "sweeps".
    QList<ExperimentRun> collapse(const QList<RunId> &runs) const;

private:
    RunRegistry *m_runs;
    RunStore *m_store;
};

} // namespace trainyard
