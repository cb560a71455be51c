#pragma once

#include <QHash>
#include <QList>
#include <QString>
#include <QStringView>

#include <optional>

namespace trainyard {

// `{after.NAME.FIELD}`: what a run gets from a run it runs after, written
// where a value of it is wanted (a program's argv, a worker run's
// train.init_from; docs/experiment-format.md#inputs). NAME is a run's name
// from the run's "after" (a run name may hold dots: the field is after the
// last one); FIELD is "checkpoint" (the path of the last checkpoint it
// reported) or "dir" (its run folder). The values are paths the
// orchestrator made, never a file's text: the trust list shows the
// placeholder as written.
namespace afterref {

struct Ref
{
    QString name;  // the run's name
    QString field; // "checkpoint" or "dir"
};

// `inner` is the text between the braces: "after.NAME.FIELD". Nullopt when
// it does not start with "after."; otherwise a Ref whose name or field may
// be invalid (isValid says).
std::optional<Ref> parse(QStringView inner);
// A run name and a known field.
bool isValid(const Ref &ref);
// "checkpoint, dir"
QString fieldNames();
// "{after.NAME.FIELD}"
QString placeholder(const Ref &ref);
// Every `{after.…}` in `text`, in order.
QList<Ref> find(const QString &text);

// The values a start gives: "NAME.FIELD" -> value (RunInputs::values).
using Values = QHash<QString, QString>;
inline QString key(const Ref &ref)
{
    return ref.name + QLatin1Char('.') + ref.field;
}

// `text` with every `{after.NAME.FIELD}` replaced from `values`; false, with
// `error` naming the first placeholder without a value.
bool substitute(const QString &text, const Values &values, QString *out, QString *error);

} // namespace afterref

} // namespace trainyard
