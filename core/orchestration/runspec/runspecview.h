#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>
#include <utility>

namespace trainyard {

/// A read-only view of one run spec (the JSON object of the fixed keys,
/// docs/models.md, as it sits in an experiment, spec.json or a drag payload), so that
/// code showing or scheduling a run asks for "the model type" instead of
/// digging through nested objects. It checks nothing (validateRunSpec does):
/// a missing or mistyped value reads as empty / nullopt. It holds its own
/// copy of the object, which QJsonObject shares implicitly, so views are
/// cheap to make and never dangle.
class RunSpecView
{
public:
    explicit RunSpecView(const QJsonObject &spec)
        : m_spec(spec)
    {
    }

    const QJsonObject &json() const { return m_spec; }

    /// "name"; empty when absent.
    QString name() const;
    /// The name a run gets: "name", else the model type (withDefaults).
    QString effectiveName() const;

    QJsonObject model() const { return object(QStringLiteral("model")); }
    QString modelType() const;
    /// What the run is, in a word or two: the model type, or for a program
    /// run its script ("train.py") or program ("bash").
    QString kindLabel() const;

    /// A program run ("program" instead of "model"/"data": any command).
    bool isProgram() const { return m_spec.contains(QStringLiteral("program")); }
    QJsonObject program() const { return object(QStringLiteral("program")); }
    /// program.argv; empty when absent or not all strings.
    QStringList programArgv() const;
    QString programCwd() const; ///< program.cwd; empty: the run folder
    /// program.env (string values only).
    QList<std::pair<QString, QString>> programEnv() const;
    /// The name a program run gets by default: its script's stem
    /// ("train" for python3 train.py), else its program's name.
    QString programStem() const;

    QJsonObject data() const { return object(QStringLiteral("data")); }
    QString dataKind() const;
    QString dataPath() const;
    /// How a table shows the data: "kg: UMLS" (kind and folder name), or the
    /// kind alone for generated data.
    QString dataSummary() const;

    /// A section ("train", "eval", "checkpoint", "report"); empty when absent.
    QJsonObject section(const QString &name) const { return object(name); }
    QJsonObject train() const { return object(QStringLiteral("train")); }
    std::optional<qint64> epochs() const;
    std::optional<qint64> maxSteps() const; ///< nullopt also for null ("no limit")
    std::optional<qint64> batchSize() const;
    QString optimizer() const;
    std::optional<double> learningRate() const;
    /// train.max_seconds, the run's time budget; nullopt for null ("no limit") or none.
    std::optional<double> maxSeconds() const;
    std::optional<qint64> seed() const;

    std::optional<qint64> evalEveryEpochs() const;
    QString evalSplit() const;
    std::optional<qint64> reportEverySteps() const;

    /// The experiment-only "repeat"; 1 when absent.
    int repeat() const;

    /// One hyperparameter of a flattened spec: "model.dim", "train.lr",
    /// "data.path" (a section's key after its section's name and a dot).
    struct Param
    {
        QString key;
        QJsonValue value;
    };
    /// Every value of the spec, flattened (nested objects joined with dots),
    /// the sections in the order a reader looks for them (name, model,
    /// data, train, eval, checkpoint, report, then any other key), and
    /// within one section its "type" or "kind" first, then by key: the one
    /// order the runs table's columns, the cards' tooltips and the run
    /// details list hyperparameters in.
    QList<Param> flattened() const;
    /// How a spec value reads: numbers in their shortest form ("0.001",
    /// "64"), true/false, "null", strings as they are, arrays and objects
    /// as compact JSON.
    static QString valueText(const QJsonValue &value);
    /// valueText, but a number with a fraction to four digits ("0.1719"):
    /// a sampled value where it is read at a glance (the tooltip has it all).
    static QString shortValueText(const QJsonValue &value);

private:
    QJsonObject object(const QString &key) const { return m_spec.value(key).toObject(); }
    static std::optional<qint64> integer(const QJsonObject &o, const QString &key);

    QJsonObject m_spec;
};

} // namespace trainyard
