#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>

class QRegularExpression;

namespace trainyard::keytables {
struct Table;
}

// The small checks behind every experiment-file message: what was expected
// at which JSON path and what was found there ("lanes[1].slots: expected an
// integer ≥ 1, got -3"). Shared by the experiment, cluster and run-spec
// readers so that every message reads alike.
namespace trainyard::jsonchecks {

// How a JSON value is shown after "got".
QString describe(const QJsonValue &v);
bool isInteger(const QJsonValue &v);
// "lanes[0].runs[1]" + "model" -> "lanes[0].runs[1].model"; a spec checked
// on its own (empty path) gives "model".
QString child(const QString &path, const QString &key);
QString expected(const QString &path, const QString &what, const QJsonValue &got);
// Integer ≥ min (and ≤ max when max > 0).
void checkInt(const QJsonObject &o, const QString &key, const QString &path, qint64 min, qint64 max,
              QStringList &errors, bool nullable = false);
void checkKeys(const QJsonObject &o, const QStringList &known, const QString &path, QStringList &errors);
// The keys of `table` (keytables.h); `entry` false: without its kEntryOnly keys.
void checkKeys(const QJsonObject &o, const keytables::Table &table, const QString &path, QStringList &errors,
               bool entry = true);
// The object at `key` (copied into `holder`), null when absent or not an
// object (then a problem is added).
const QJsonObject *objectAt(const QJsonObject &o, const QString &key, const QString &path, QStringList &errors,
                            QJsonObject &holder);
// A string at `key` matching `re` goes to `into`; anything else is a problem.
void checkString(const QJsonObject &o, const QString &key, const QString &path, const QString &what,
                 const QRegularExpression &re, QString *into, QStringList &errors);

} // namespace trainyard::jsonchecks
