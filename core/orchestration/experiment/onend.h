#pragma once

#include <QHash>
#include <QJsonValue>
#include <QString>
#include <QStringList>

namespace trainyard {

// "on_end" (docs/experiment-format.md#on_end-a-command-when-runs-end): a
// command Trainyard runs on this machine when a run of a lane ends (the
// run spec's key) or when the board has nothing more to run (the file's
// top-level key). Like a program run's argv it is an argument list, never a
// shell line, and a command the trust list covers (Experiment::commandLines).
// Placeholders in its elements are replaced by values at the end: `{name}`,
// `{state}`, `{folder}`, `{experiment}` for a run; `{experiment}`,
// `{finished}`, `{failed}`, `{total}`, `{folder}` for the experiment. A value
// stays inside its element whatever it holds (a run named "-x" is one
// argument, where the template put it), and is never read for placeholders
// again. `{{` and `}}` are one brace; any other brace stays as it is.
namespace onend {

enum class Level {
    Run,
    Experiment
};

// The placeholders `level` knows, in the order messages name them.
QStringList placeholders(Level level);

// The problems of an "on_end" value at `path` ("lanes[0].runs[1].on_end",
// "on_end"): a non-empty list of strings, the program first and never a
// placeholder, no unknown placeholder.
QStringList check(const QJsonValue &value, const QString &path, Level level);

// The argv of a checked value (empty when absent).
QStringList read(const QJsonValue &value);

// `argv` with every placeholder replaced from `values`, in one pass; false,
// with `error`, for a placeholder `values` lacks (a file not checked).
bool substitute(const QStringList &argv, const QHash<QString, QString> &values, QStringList *out, QString *error);

} // namespace onend

} // namespace trainyard
