#include "orchestration/runspec/runspecview.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainyard {

std::optional<qint64> RunSpecView::integer(const QJsonObject &o, const QString &key)
{
    const QJsonValue v = o.value(key);
    if (!v.isDouble()) {
        return std::nullopt;
    }
    const double d = v.toDouble();
    if (std::floor(d) != d || std::fabs(d) > 9.0e15) {
        return std::nullopt;
    }
    return static_cast<qint64>(d);
}

QString RunSpecView::name() const
{
    return m_spec.value(QStringLiteral("name")).toString();
}

QString RunSpecView::effectiveName() const
{
    const QString n = name();
    if (!n.isEmpty()) {
        return n;
    }
    return isProgram() ? programStem() : modelType();
}

QString RunSpecView::kindLabel() const
{
    if (!isProgram()) {
        return modelType();
    }
    const QStringList argv = programArgv();
    for (int i = 1; i < argv.size(); ++i) {
        if (!argv.at(i).startsWith(QLatin1Char('-'))) {
            return QFileInfo(argv.at(i)).fileName();
        }
    }
    return argv.isEmpty() ? QStringLiteral("program") : QFileInfo(argv.first()).fileName();
}

QStringList RunSpecView::programArgv() const
{
    QStringList argv;
    const QJsonArray array = program().value(QStringLiteral("argv")).toArray();
    for (const QJsonValue &v : array) {
        if (!v.isString()) {
            return {};
        }
        argv << v.toString();
    }
    return argv;
}

QString RunSpecView::programCwd() const
{
    return program().value(QStringLiteral("cwd")).toString();
}

QList<std::pair<QString, QString>> RunSpecView::programEnv() const
{
    QList<std::pair<QString, QString>> env;
    const QJsonObject o = program().value(QStringLiteral("env")).toObject();
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (it.value().isString()) {
            env.append({it.key(), it.value().toString()});
        }
    }
    return env;
}

QString RunSpecView::programStem() const
{
    // The first argument that is not an option names the script; a name
    // that is no run name (spaces, a leading dot) falls back to "program".
    static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9._+@-]"));
    QString stem = QFileInfo(kindLabel()).completeBaseName();
    stem.replace(unsafe, QStringLiteral("_"));
    while (stem.startsWith(QLatin1Char('.'))) {
        stem.remove(0, 1);
    }
    return stem.isEmpty() ? QStringLiteral("program") : stem.left(100);
}

QString RunSpecView::modelType() const
{
    return model().value(QStringLiteral("type")).toString();
}

QString RunSpecView::dataKind() const
{
    return data().value(QStringLiteral("kind")).toString();
}

QString RunSpecView::dataPath() const
{
    return data().value(QStringLiteral("path")).toString();
}

QString RunSpecView::dataSummary() const
{
    const QString path = dataPath();
    return path.isEmpty() ? dataKind() : QStringLiteral("%1: %2").arg(dataKind(), QFileInfo(path).fileName());
}

std::optional<qint64> RunSpecView::epochs() const
{
    return integer(train(), QStringLiteral("epochs"));
}

std::optional<qint64> RunSpecView::maxSteps() const
{
    return integer(train(), QStringLiteral("max_steps"));
}

std::optional<qint64> RunSpecView::batchSize() const
{
    return integer(train(), QStringLiteral("batch_size"));
}

QString RunSpecView::optimizer() const
{
    return train().value(QStringLiteral("optimizer")).toString();
}

std::optional<double> RunSpecView::learningRate() const
{
    const QJsonValue v = train().value(QStringLiteral("lr"));
    return v.isDouble() ? std::optional<double>(v.toDouble()) : std::nullopt;
}

std::optional<double> RunSpecView::maxSeconds() const
{
    const QJsonValue v = train().value(QStringLiteral("max_seconds"));
    return v.isDouble() && v.toDouble() > 0 ? std::optional<double>(v.toDouble()) : std::nullopt;
}

std::optional<qint64> RunSpecView::seed() const
{
    return integer(train(), QStringLiteral("seed"));
}

std::optional<qint64> RunSpecView::evalEveryEpochs() const
{
    return integer(section(QStringLiteral("eval")), QStringLiteral("every_epochs"));
}

QString RunSpecView::evalSplit() const
{
    return section(QStringLiteral("eval")).value(QStringLiteral("split")).toString();
}

std::optional<qint64> RunSpecView::reportEverySteps() const
{
    return integer(section(QStringLiteral("report")), QStringLiteral("every_steps"));
}

int RunSpecView::repeat() const
{
    const auto r = integer(m_spec, QStringLiteral("repeat"));
    return r && *r >= 1 && *r <= std::numeric_limits<int>::max() ? static_cast<int>(*r) : 1;
}

namespace {

int sectionRank(const QString &key)
{
    static const QStringList order{QStringLiteral("name"),       QStringLiteral("program"), QStringLiteral("model"),
                                   QStringLiteral("data"),       QStringLiteral("train"),   QStringLiteral("eval"),
                                   QStringLiteral("checkpoint"), QStringLiteral("report")};
    const qsizetype rank = order.indexOf(key);
    return rank < 0 ? int(order.size()) : int(rank);
}

// The keys of `o` in flattened() order: "type" and "kind" (what the other
// keys of model and data mean) first, then by key.
QStringList orderedKeys(const QJsonObject &o, bool sections)
{
    QStringList keys = o.keys(); // sorted
    std::stable_sort(keys.begin(), keys.end(), [sections](const QString &a, const QString &b) {
        if (sections) {
            return sectionRank(a) < sectionRank(b);
        }
        const auto first = [](const QString &k) { return k == QLatin1String("type") || k == QLatin1String("kind"); };
        return first(a) && !first(b);
    });
    return keys;
}

void flatten(const QJsonObject &o, const QString &prefix, bool sections, QList<RunSpecView::Param> *out)
{
    for (const QString &key : orderedKeys(o, sections)) {
        const QJsonValue value = o.value(key);
        const QString path = prefix.isEmpty() ? key : prefix + QLatin1Char('.') + key;
        if (value.isObject()) {
            flatten(value.toObject(), path, false, out);
        } else {
            out->append(RunSpecView::Param{path, value});
        }
    }
}

} // namespace

QList<RunSpecView::Param> RunSpecView::flattened() const
{
    QList<Param> out;
    flatten(m_spec, QString(), true, &out);
    return out;
}

QString RunSpecView::shortValueText(const QJsonValue &value)
{
    const double d = value.toDouble();
    return value.isDouble() && d != std::floor(d) ? QString::number(d, 'g', 4) : valueText(value);
}

QString RunSpecView::valueText(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Bool:
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Double: {
        // Integers as integers: a batch size of 1000000 is not "1e+06".
        const double d = value.toDouble();
        if (std::floor(d) == d && std::fabs(d) < 1e15) {
            return QString::number(static_cast<qint64>(d));
        }
        return QString::number(d, 'g', QLocale::FloatingPointShortest);
    }
    case QJsonValue::String:
        return value.toString();
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Array:
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    case QJsonValue::Object:
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    case QJsonValue::Undefined:
        break;
    }
    return QString();
}

} // namespace trainyard
