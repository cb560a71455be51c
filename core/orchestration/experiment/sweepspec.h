#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>

namespace trainyard {

class Experiment;
class ModelCatalogue;

/// One searched key of a sweep's space (docs/experiment-format.md#sweeps):
/// `{"values": [...]}`, `{"range": [lo, hi], "step": s}`, `{"uniform": [lo, hi]}`,
/// `{"log_uniform": [lo, hi]}` (each with an optional `"int": true`), or
/// `{"fixed": v}`.
struct SweepParameter
{
    enum class Kind {
        Fixed,
        Values,
        Range,
        Uniform,
        LogUniform
    };
    QString key; ///< a dotted path into the run spec: "train.lr", "model.dim", "config.depth"
    Kind kind = Kind::Fixed;
    QList<QJsonValue> values; ///< Fixed (one), Values
    double low = 0;           ///< Range, Uniform, LogUniform
    double high = 0;
    double step = 1;      ///< Range
    bool integer = false; ///< values are ints (Range/Uniform/LogUniform rounded; all-int Values)

    /// Whether a grid can enumerate it (Fixed, Values, Range).
    bool isDiscrete() const { return kind == Kind::Fixed || kind == Kind::Values || kind == Kind::Range; }
    /// The values a grid takes, in order (Range: low, low+step, ... <= high). Empty when not discrete.
    QList<QJsonValue> gridValues() const;
    /// Whether the sweep views draw this key on a log axis (LogUniform).
    bool isLogarithmic() const { return kind == Kind::LogUniform; }
};

/// The early-stopping rule of a sweep: none, ASHA (Li et al., MLSys 2020)
/// or the median stopping rule, over a resource the trials report.
struct SweepStopping
{
    enum class Rule {
        None,
        Asha,
        Median
    };
    Rule rule = Rule::None;
    QString resource = QStringLiteral("epoch"); ///< "epoch" or "step"
    double min = 1;                             ///< the first rung (ASHA) / the grace period (median)
    double max = 0;                             ///< the last rung: trials train up to it
    double eta = 3;                             ///< ASHA's reduction factor, > 1
};

/// A sweep of the experiment file: a base run, a space over its keys, how
/// to search it, the lanes its trials may use (one shared queue), the
/// objective and early stopping. Each trial is a normal run: the base with
/// the trial's values set at their keys, named "<sweep>-<n>" (n from 1),
/// train.seed = base seed + index unless the space sets train.seed.
struct SweepSpec
{
    QString name;     ///< like a run name (isSafeRunName); trials are "<name>-<n>"
    QJsonObject base; ///< a run spec (model/data/... or program), without "repeat"
    QList<SweepParameter> space;
    QString method = QStringLiteral("grid"); ///< "grid" or "random"
    int trials = 0;                          ///< random: how many; grid: 0 = all of the grid (else the first N)
    std::uint64_t seed = 1;                  ///< random: the sampler's seed (reproducible)
    int maxGrid = 1000;                      ///< a larger grid is refused
    QList<int> lanes;                        ///< lane indices the trials may use; empty: every lane
    QString objective;                       ///< a metric the trials report, "valid/mrr"
    bool maximize = true;                    ///< "mode": "max" or "min"
    SweepStopping stopping;

    /// Reads and validates one entry of "sweeps"; `path` ("sweeps[0]")
    /// prefixes each problem added to `errors` (e.g. `sweeps[0].space.train.lr.log_uniform:
    /// a log range must stay above 0, got [0, 0.1]`). `laneCount` checks `lanes`;
    /// `catalogue`, when given, checks the base and the space's keys and values
    /// as the worker reads them (else structurally, as validateRunSpec does).
    static std::optional<SweepSpec> fromJson(const QJsonObject &o, const QString &path, int laneCount,
                                             QStringList &errors, const ModelCatalogue *catalogue = nullptr);
    QJsonObject toJson() const;

    /// How many trials the sweep runs in all (grid: the grid's size or `trials`).
    int trialCount() const;
    /// The values of trial `index` (0-based), one per key of the space, as
    /// {"train.lr": 0.003, "model.dim": 200}; the same for the same spec on
    /// every machine (random: a fixed generator seeded by `seed`, not <random>'s
    /// distributions). Grid: the space's keys in name order (a JSON object
    /// keeps none), the last one changing fastest.
    QJsonObject trialValues(int index) const;
    /// The run spec of trial `index`: the base with its values set at their
    /// keys, the name "<name>-<index+1>", the seed as above.
    QJsonObject trialSpec(int index) const;
    static QString trialName(const QString &sweep, int index);
    /// Whether `run` can be trial `index`'s run: its name, or that name with
    /// the "-N" the board adds when a run had taken it first. A state file's
    /// claim that a folder is a trial's is checked with it.
    static bool isTrialRunName(const QString &sweep, int index, const QString &run);
};

/// Reads the experiment file's optional "sweeps" (`top` is the whole file)
/// into `ex.sweeps`, after its lanes: each sweep as fromJson does, plus its
/// name and trial names against the runs' names and the other sweeps'. A
/// sweep with problems is kept too, without its bad keys (for the `partial`
/// of Experiment::fromJson); the problems go to `errors`.
void readSweeps(const QJsonObject &top, Experiment &ex, const ModelCatalogue *catalogue, QStringList &errors);
QJsonArray sweepsToJson(const QList<SweepSpec> &sweeps);

/// Sets `value` at the dotted `key` of `spec` ("train.lr"), making objects on the way.
void setSpecValue(QJsonObject &spec, const QString &key, const QJsonValue &value);

} // namespace trainyard
