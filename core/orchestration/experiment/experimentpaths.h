#pragma once

#include <QHash>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace trainyard::experimentpaths {

// The one rule for the paths of an experiment file (docs/experiment-format.md#paths):
// a local path written relative (or with "~/") means a path from the file's
// folder (or the home folder), whichever key it is in: runs_root, a
// cluster's or host's ssh_config, and in every run spec, sweep base, sweep
// space and rounds member data.path, model.path, train.init_from and
// program.cwd. A run on an ssh host or Slurm cluster lane takes its paths
// there as they are: they must be absolute. Program arguments are never
// rewritten: the program reads them in its cwd.

// The keys of a run spec that hold a local file or folder ("data.path").
QStringList specPathKeys();

// `top` (an experiment file's JSON) with every local path made absolute
// against `folder`. `written` gets, for each path made so, the text as
// written (absolute path -> text); `problems` gets a relative path of a run
// on another machine, with its JSON path.
QJsonObject resolve(const QJsonObject &top, const QString &folder, QHash<QString, QString> *written,
                    QStringList *problems);

// `top` (Experiment::toJson) to be saved in `folder`: each path that one of
// `written`'s texts, resolved against `folder`, still names gets that text
// back, so a file saved where it was keeps what its author wrote and a copy
// saved elsewhere names the same files (absolute).
QJsonObject restoreWritten(const QJsonObject &top, const QString &folder, const QHash<QString, QString> &written);

} // namespace trainyard::experimentpaths
