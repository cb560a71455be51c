#include "orchestration/experiment/jsonchecks.h"

#include "orchestration/experiment/keytables.h"

#include <QRegularExpression>

#include <cmath>

namespace trainyard::jsonchecks {

QString describe(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Double: {
        const double d = v.toDouble();
        if (std::floor(d) == d && std::fabs(d) < 1e15) {
            return QString::number(static_cast<qint64>(d));
        }
        return QString::number(d);
    }
    case QJsonValue::String: {
        QString s = v.toString();
        if (s.size() > 40) {
            s = s.left(40) + QStringLiteral("…");
        }
        return QLatin1Char('"') + s + QLatin1Char('"');
    }
    case QJsonValue::Array:
        return QStringLiteral("an array");
    case QJsonValue::Object:
        return QStringLiteral("an object");
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("nothing");
}

bool isInteger(const QJsonValue &v)
{
    if (!v.isDouble()) {
        return false;
    }
    const double d = v.toDouble();
    return std::floor(d) == d && std::fabs(d) <= 9.0e15;
}

QString child(const QString &path, const QString &key)
{
    return path.isEmpty() ? key : path + QLatin1Char('.') + key;
}

QString expected(const QString &path, const QString &what, const QJsonValue &got)
{
    return path + QStringLiteral(": expected ") + what + QStringLiteral(", got ") + describe(got);
}

void checkInt(const QJsonObject &o, const QString &key, const QString &path, qint64 min, qint64 max,
              QStringList &errors, bool nullable)
{
    if (!o.contains(key)) {
        return;
    }
    const QJsonValue v = o.value(key);
    if (nullable && v.isNull()) {
        return;
    }
    const bool ok = isInteger(v) && v.toDouble() >= double(min) && (max <= 0 || v.toDouble() <= double(max));
    if (!ok) {
        QString what = QStringLiteral("an integer ≥ %1").arg(min);
        if (max > 0) {
            what = QStringLiteral("an integer from %1 to %2").arg(min).arg(max);
        }
        if (nullable) {
            what += QStringLiteral(" or null");
        }
        errors << expected(child(path, key), what, v);
    }
}

namespace {

// `known` is what the message names; `accepted` may hold more (keytables::kUnlisted).
void checkKeys(const QJsonObject &o, const QStringList &accepted, const QStringList &known, const QString &path,
               QStringList &errors)
{
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (!accepted.contains(it.key())) {
            errors << QStringLiteral("%1: unknown key \"%2\" (expected one of %3)")
                          .arg(path.isEmpty() ? QStringLiteral("(top level)") : path, it.key(),
                               known.join(QStringLiteral(", ")));
        }
    }
}

} // namespace

void checkKeys(const QJsonObject &o, const QStringList &known, const QString &path, QStringList &errors)
{
    checkKeys(o, known, known, path, errors);
}

void checkKeys(const QJsonObject &o, const keytables::Table &table, const QString &path, QStringList &errors,
               bool entry)
{
    checkKeys(o, table.accepted(entry), table.names(entry), path, errors);
}

const QJsonObject *objectAt(const QJsonObject &o, const QString &key, const QString &path, QStringList &errors,
                            QJsonObject &holder)
{
    if (!o.contains(key)) {
        return nullptr;
    }
    const QJsonValue v = o.value(key);
    if (!v.isObject()) {
        errors << expected(child(path, key), QStringLiteral("an object"), v);
        return nullptr;
    }
    holder = v.toObject();
    return &holder;
}

void checkString(const QJsonObject &o, const QString &key, const QString &path, const QString &what,
                 const QRegularExpression &re, QString *into, QStringList &errors)
{
    if (!o.contains(key)) {
        return;
    }
    const QJsonValue v = o.value(key);
    if (!v.isString() || !re.match(v.toString()).hasMatch()) {
        errors << expected(child(path, key), what, v);
    } else {
        *into = v.toString();
    }
}

} // namespace trainyard::jsonchecks
