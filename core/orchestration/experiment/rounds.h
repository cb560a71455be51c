#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>

namespace trainyard {

class Experiment;
struct ExperimentLane;
struct ExperimentRun;
class ModelCatalogue;

// Rounds: "these client runs, then this aggregate, N times" written once
// as a lane's entry (docs/experiment-format.md#rounds):
//   {"rounds": {"name": "fed", "count": 5, "clients": [SPEC, ...],
//               "aggregate": SPEC, "after": [NAME, ...]}}
// Round k's runs are named "<name>-r<k>-<member's name>" with train.seed
// + k - 1; its clients run after round k-1's aggregate (round 1's after the
// entry's own "after", if any) and its aggregate after its clients. They
// go on the entry's lane in round order, and an unchanged set is written
// back as the one entry (Experiment::toJson).
namespace rounds {

// One expanded run.
struct Member
{
    QJsonObject spec; // named, seeded, with "after"
    int round = 1;    // from 1
    bool aggregate = false;
};

// Whether a lane's entry is a rounds entry ({"rounds": ...}).
bool isEntry(const QJsonObject &entry);
// Reads and checks `entry`'s rounds at `path` ("lanes[0].runs[2]"), the
// members against `catalogue` when given: the definition (members with
// their defaults filled in), or an empty object with `problems` added.
QJsonObject read(const QJsonObject &entry, const QString &path, const ModelCatalogue *catalogue, QStringList &problems);
// Reads a rounds entry of a lane at `path` into `lane` (one entry per run)
// and its definition into `experiment.rounds`; `claim(name, path)` takes
// each run's name (false: not a run folder name). Returns the runs added,
// -1 when they would be more than `room`, and 0 with `problems` when the
// entry has problems.
int readEntry(const QJsonObject &entry, const QString &path, const ModelCatalogue *catalogue, int room,
              const std::function<bool(const QString &, const QString &)> &claim, Experiment &experiment,
              ExperimentLane &lane, QStringList &problems);
// The definition of the rounds called `name` among `definitions` (empty when none).
QJsonObject named(const QList<QJsonObject> &definitions, const QString &name);
// How many of `runs` from `index` on are one whole set of rounds as they
// were made (0 when none starts there): written back as one entry.
int spanAt(const QList<QJsonObject> &definitions, const QList<ExperimentRun> &runs, int index);
// The runs of a definition read(), round by round (clients, then the aggregate).
QList<Member> expand(const QJsonObject &definition);
QString name(const QJsonObject &definition);
int count(const QJsonObject &definition);
// Runs it expands to.
int runCount(const QJsonObject &definition);
// The member specs as written (clients, then the aggregate): their
// commands are the rounds' (Experiment::commandLines).
QList<QJsonObject> memberSpecs(const QJsonObject &definition);
// The definition with `change` applied to each member spec (a program's
// folder resolved against the file's).
QJsonObject withMembers(const QJsonObject &definition, const std::function<QJsonObject(const QJsonObject &)> &change);

} // namespace rounds

} // namespace trainyard
