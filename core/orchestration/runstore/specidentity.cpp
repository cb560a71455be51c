#include "orchestration/runstore/specidentity.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QStringList>

namespace trainyard::specidentity {

namespace {

// A key path and its value as the user wrote it ("16", "\"adam\"", "absent").
QString shown(const QJsonValue &v)
{
    if (v.isUndefined()) {
        return QStringLiteral("absent");
    }
    if (v.isObject()) {
        return QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
    }
    if (v.isArray()) {
        return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
    }
    return QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact)).chopped(1).mid(1);
}

// A value of the run's spec still waiting for a run it runs after: the
// folder holds what it was replaced by (RunInputs::resolvedSpec).
bool isPlaceholder(const QJsonValue &v)
{
    return v.isString() && v.toString().contains(QLatin1String("{after."));
}

// The first path where `held` and `spec` differ, with both values; empty when none.
QString firstDifference(const QJsonValue &held, const QJsonValue &spec, const QString &path)
{
    if (isPlaceholder(spec) && held.isString()) {
        return {};
    }
    if (held.isObject() && spec.isObject()) {
        const QJsonObject h = held.toObject();
        const QJsonObject s = spec.toObject();
        QStringList keys = h.keys() + s.keys();
        keys.sort();
        keys.removeDuplicates();
        for (const QString &key : std::as_const(keys)) {
            const QString at = path.isEmpty() ? key : path + QLatin1Char('.') + key;
            if (const QString d = firstDifference(h.value(key), s.value(key), at); !d.isEmpty()) {
                return d;
            }
        }
        return {};
    }
    if (held.isArray() && spec.isArray() && held.toArray().size() == spec.toArray().size()) {
        const QJsonArray h = held.toArray();
        const QJsonArray s = spec.toArray();
        for (qsizetype i = 0; i < h.size(); ++i) {
            if (const QString d = firstDifference(h.at(i), s.at(i), QStringLiteral("%1[%2]").arg(path).arg(i));
                !d.isEmpty()) {
                return d;
            }
        }
        return {};
    }
    if (held == spec) {
        return {};
    }
    return QStringLiteral("%1: %2 there, %3 here").arg(path, shown(held), shown(spec));
}

} // namespace

QJsonObject trainedPart(const QJsonObject &spec)
{
    QJsonObject out = spec;
    // Who it is, where and after what it runs, how often it tells: not what it trains.
    for (const char *key : {"name", "repeat", "after", "resources", "report", "checkpoint"}) {
        out.remove(QLatin1String(key));
    }
    if (out.contains(QStringLiteral("eval"))) {
        QJsonObject eval = out.value(QStringLiteral("eval")).toObject();
        eval.remove(QStringLiteral("every_epochs"));
        eval.remove(QStringLiteral("batch_size")); // queries scored at once: the same scores
        if (eval.isEmpty()) {
            out.remove(QStringLiteral("eval"));
        } else {
            out.insert(QStringLiteral("eval"), eval);
        }
    }
    if (out.contains(QStringLiteral("program"))) {
        QJsonObject program = out.value(QStringLiteral("program")).toObject();
        program.remove(QStringLiteral("requires")); // what is checked before it starts
        // Resolved against the experiment file at load: the folder it names.
        if (const QString cwd = program.value(QStringLiteral("cwd")).toString(); !cwd.isEmpty()) {
            program.insert(QStringLiteral("cwd"), QDir::cleanPath(cwd));
        }
        out.insert(QStringLiteral("program"), program);
    }
    return out;
}

QString difference(const QJsonObject &held, const QJsonObject &spec)
{
    return firstDifference(trainedPart(held), trainedPart(spec), QString());
}

} // namespace trainyard::specidentity
