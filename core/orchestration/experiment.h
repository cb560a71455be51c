#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace trainyard {

// One entry of a lane's queue as written in the experiment file: a run spec
// (fixed keys of DESIGN.md) and how many repeats of it to run.
struct ExperimentRun
{
    QJsonObject spec; // without "repeat"
    int repeat = 1;
};

// One lane as written in the experiment file.
struct ExperimentLane
{
    QString device = QStringLiteral("cpu"); // "cpu" or "cuda:N"
    int slotCount = 1;
    QList<ExperimentRun> runs;
};

// An experiment file (docs/experiment-format.md): a name, an optional runs
// root and lanes. Loading validates everything the orchestrator relies on
// and reports each problem with its JSON path and what was expected, e.g.
// `lanes[1].slotCount: expected an integer ≥ 1, got -3`. Model details are left
// to the worker, which knows its models.
class Experiment
{
public:
    QString name;
    QString runsRoot; // empty: QStandardPaths::AppDataLocation/<name>
    QList<ExperimentLane> lanes;

    // Parses and validates. On failure returns nullopt and fills `errors`
    // (one message per problem, each starting with the JSON path).
    static std::optional<Experiment> fromJson(const QJsonValue &json, QStringList *errors);
    // `errors` messages are prefixed with the file name.
    static std::optional<Experiment> load(const QString &path, QStringList *errors);
    // The built-in demo (resource :/trainyard/demo.json).
    static Experiment demo();
    static QString demoPath(); // ":/trainyard/demo.json"

    QJsonObject toJson() const;
    bool save(const QString &path, QString *error) const;

    // The runs root actually used (runsRoot, or the default location).
    QString effectiveRunsRoot() const;
    int runCount() const; // repeats expanded
};

// Checks one run spec's fixed keys; `path` prefixes messages
// (e.g. "lanes[0].runs[2]"). Returns the problems, empty when valid.
// `allowRepeat` accepts the experiment-only key "repeat".
QStringList validateRunSpec(const QJsonObject &spec, const QString &path, bool allowRepeat);

// Fills the documented defaults of missing fixed keys (train.seed 1, ...).
QJsonObject withDefaults(const QJsonObject &spec);

// The spec of repeat `index` (0-based) of `count`: name "<name>-<index+1>"
// and train.seed + index when count > 1; unchanged otherwise.
QJsonObject expandRepeat(const QJsonObject &spec, int index, int count);

// True if `name` can be a run folder name: 1–100 characters of
// [A-Za-z0-9._+@-], not starting with '.', so it never leaves the runs root.
bool isSafeRunName(const QString &name);

// True for "cpu" and "cuda:N".
bool isDeviceName(const QString &device);

} // namespace trainyard
