#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>

namespace trainyard {

class Device;
class Experiment;

// "after": a run name, or a list of them, each once; problems at `path`.
void checkAfterValue(const QJsonValue &after, const QString &path, QStringList &problems);
// The names of a spec's "after" (a string or a list), as written.
QStringList afterNames(const QJsonObject &spec);

// Where a lane's run folders are, as a run on another lane would read them:
// empty for the experiment's runs root (this machine's lanes, and clusters
// that see it), else the place's name ("cluster hpc"). A run reads its
// inputs from the folders of the runs it runs after, so both must be in
// the same place.
QString runFolderPlace(const Experiment &experiment, const Device &device);

// The problems of the experiment's `after`s (docs/experiment-format.md#after),
// each with its JSON path: a name that is no run, repeat group, rounds or
// sweep; runs that would wait for one another (a cycle); a run on a lane
// that cannot read the folders of a run it runs after (runFolderPlace); an
// `{after.NAME.FIELD}` in a program's argv or a worker run's
// train.init_from whose NAME is not one run it runs after, or a worker run
// starting from a program run's checkpoint.
void checkDependencies(const Experiment &experiment, QStringList &problems);

} // namespace trainyard
