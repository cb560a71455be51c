#pragma once

#include "orchestration/experiment/afterreference.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>

namespace trainyard {

class RunSpecView;

// A program run's parameters: the spec's optional top-level "config", an
// object of names (letters, digits, _) and numbers, strings or booleans.
// The run gets them twice (docs/experiment-format.md#program-runs): as
// RUN_DIR/config.json, named by TRAINYARD_CONFIG (RunConfigFile), and as
// `{name}` in program.argv, replaced by the value's text here. A value that
// reaches another program's option parser must never read as an option, so
// a substitution that makes an element start with '-' is refused.
namespace programconfig {

// What a parameter can be called (1–64 letters, digits and _): also its
// {name} in argv, a sweep's "config.<name>" and a key of params.json.
bool isConfigName(const QString &name);

// The problems of `spec`'s "config" and of the `{name}`s of its
// program.argv, each with its JSON path under `path` (the run spec's).
QStringList check(const QJsonObject &spec, const QString &path);

// `argv` with every `{name}` replaced by config's value (RunSpecView::
// valueText: 0.001, 64, true, text as it is) and, given `after`, every
// `{after.NAME.FIELD}` by its value (afterref; without, the placeholder
// stays as written); `{{` and `}}` are literal braces. False, with `error`
// saying why for element `*badIndex`, when a name is unknown, a brace is
// unmatched, a substituted element would start with '-' or the program
// itself is a placeholder. An element without `{` or `}` is left as it is.
bool substitute(const QStringList &argv, const QJsonObject &config, QStringList *out, QString *error,
                qsizetype *badIndex = nullptr, const afterref::Values *after = nullptr);

// The command a program run executes: program.argv with its config's
// values in place (what is started, shown and trusted), and the values of
// the runs it runs after when given (a start: RunInputs); empty when it
// cannot be built (validation refuses such a spec first).
QStringList command(const RunSpecView &view, const afterref::Values *after = nullptr);

// The spec's "config" (empty when absent or not an object).
QJsonObject of(const QJsonObject &spec);

} // namespace programconfig

} // namespace trainyard
