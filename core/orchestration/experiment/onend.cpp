#include "orchestration/experiment/onend.h"

#include "orchestration/experiment/jsonchecks.h"

#include <QJsonArray>

namespace trainyard::onend {

using namespace jsonchecks;

namespace {

bool isNameChar(QChar c)
{
    return (c >= QLatin1Char('a') && c <= QLatin1Char('z')) || (c >= QLatin1Char('A') && c <= QLatin1Char('Z'))
           || (c >= QLatin1Char('0') && c <= QLatin1Char('9')) || c == QLatin1Char('_');
}

// Walks `text`: each literal piece and each placeholder ({name}) in turn,
// to `literal` and `placeholder`; false as soon as `placeholder` says so.
template <typename Literal, typename Placeholder>
bool walk(const QString &text, Literal literal, Placeholder placeholder)
{
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if ((c == QLatin1Char('{') || c == QLatin1Char('}')) && i + 1 < text.size() && text.at(i + 1) == c) {
            literal(c);
            ++i;
            continue;
        }
        if (c == QLatin1Char('{')) {
            qsizetype end = i + 1;
            while (end < text.size() && isNameChar(text.at(end))) {
                ++end;
            }
            if (end > i + 1 && end < text.size() && text.at(end) == QLatin1Char('}')) {
                if (!placeholder(text.mid(i + 1, end - i - 1))) {
                    return false;
                }
                i = end;
                continue;
            }
        }
        literal(c);
    }
    return true;
}

QString braced(const QStringList &names)
{
    QStringList out;
    for (const QString &n : names) {
        out << QLatin1Char('{') + n + QLatin1Char('}');
    }
    return out.join(QStringLiteral(", "));
}

} // namespace

QStringList placeholders(Level level)
{
    if (level == Level::Run) {
        return {QStringLiteral("name"), QStringLiteral("state"), QStringLiteral("folder"),
                QStringLiteral("experiment")};
    }
    return {QStringLiteral("experiment"), QStringLiteral("finished"), QStringLiteral("failed"), QStringLiteral("total"),
            QStringLiteral("folder")};
}

QStringList check(const QJsonValue &value, const QString &path, Level level)
{
    const QString what = QStringLiteral("a non-empty list of strings: the program and its arguments, as a program "
                                        "run's argv (e.g. [\"notify-send\", \"{name} {state}\"])");
    if (!value.isArray() || value.toArray().isEmpty() || value.toArray().size() > 1000) {
        return {expected(path, what, value)};
    }
    QStringList errors;
    const QStringList known = placeholders(level);
    const QJsonArray items = value.toArray();
    for (qsizetype i = 0; i < items.size(); ++i) {
        const QString at = QStringLiteral("%1[%2]").arg(path).arg(i);
        const QJsonValue item = items.at(i);
        const QString text = item.toString();
        if (!item.isString() || text.contains(QChar(0)) || text.size() > 100000 || (i == 0 && text.isEmpty())) {
            errors << expected(at,
                               i == 0 ? QStringLiteral("a program name or path")
                                      : QStringLiteral("a string without NUL characters"),
                               item);
            continue;
        }
        walk(
            text, [](QChar) {},
            [&](const QString &name) {
                if (i == 0) {
                    errors << QStringLiteral("%1: the program itself cannot be a placeholder ({%2})").arg(at, name);
                } else if (!known.contains(name)) {
                    errors << QStringLiteral("%1: unknown placeholder {%2} (expected one of %3; {{ and }} are "
                                             "braces)")
                                  .arg(at, name, braced(known));
                }
                return true;
            });
    }
    return errors;
}

QStringList read(const QJsonValue &value)
{
    QStringList argv;
    for (const QJsonValue &v : value.toArray()) {
        argv << v.toString();
    }
    return argv;
}

bool substitute(const QStringList &argv, const QHash<QString, QString> &values, QStringList *out, QString *error)
{
    out->clear();
    for (const QString &element : argv) {
        QString result;
        const bool ok = walk(
            element, [&](QChar c) { result += c; },
            [&](const QString &name) {
                const auto it = values.constFind(name);
                if (it == values.constEnd()) {
                    *error = QStringLiteral("unknown placeholder {%1}").arg(name);
                    return false;
                }
                result += *it; // never read again: a value's braces are its own
                return true;
            });
        if (!ok) {
            return false;
        }
        *out << result;
    }
    return true;
}

} // namespace trainyard::onend
