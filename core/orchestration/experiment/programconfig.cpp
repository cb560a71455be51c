#include "orchestration/experiment/programconfig.h"

#include "orchestration/experiment/afterreference.h"
#include "orchestration/experiment/jsonchecks.h"
#include "orchestration/runspec/runspecview.h"

#include <QJsonArray>
#include <QRegularExpression>

namespace trainyard::programconfig {

using namespace jsonchecks;

namespace {

const QString kConfig = QStringLiteral("config");
constexpr qsizetype kMaxKeys = 1000;
constexpr qsizetype kMaxText = 10000;

bool isNameChar(QChar c)
{
    return (c >= QLatin1Char('a') && c <= QLatin1Char('z')) || (c >= QLatin1Char('A') && c <= QLatin1Char('Z'))
           || (c >= QLatin1Char('0') && c <= QLatin1Char('9')) || c == QLatin1Char('_');
}

// `{after.NAME.FIELD}` at `i` (its closing brace at `close`): the
// value from `after`, or the placeholder as written without values (what
// the trust list and a run that has not started show).
bool substituteAfter(const QString &text, qsizetype i, qsizetype close, const afterref::Values *after, QString *out,
                     QString *error)
{
    const QString placeholder = text.mid(i, close - i + 1);
    const auto ref = afterref::parse(QStringView(text).mid(i + 1, close - i - 1));
    if (!afterref::isValid(*ref)) {
        *error = QStringLiteral("%1: expected {after.NAME.FIELD}, NAME a run it runs after and FIELD one of %2")
                     .arg(placeholder, afterref::fieldNames());
        return false;
    }
    if (!after) {
        *out += placeholder;
        return true;
    }
    QString value;
    if (!afterref::substitute(placeholder, *after, &value, error)) {
        return false;
    }
    *out += value;
    return true;
}

// One element: `{name}` (a name's characters between braces) is a
// placeholder, and so is `{after.NAME.FIELD}` (substituteAfter); `{{` and
// `}}` are one brace; any other brace stays as it is, so `{}` (find -exec)
// and `{1: 2}` (python3 -c) keep working.
bool substituteOne(const QString &text, const QJsonObject &config, QString *out, QString *error,
                   const afterref::Values *after = nullptr)
{
    out->clear();
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if ((c == QLatin1Char('{') || c == QLatin1Char('}')) && i + 1 < text.size() && text.at(i + 1) == c) {
            *out += c;
            ++i;
            continue;
        }
        if (c == QLatin1Char('{') && QStringView(text).mid(i + 1).startsWith(QLatin1String("after."))) {
            const qsizetype close = text.indexOf(QLatin1Char('}'), i);
            if (close > i) {
                if (!substituteAfter(text, i, close, after, out, error)) {
                    return false;
                }
                i = close;
                continue;
            }
        }
        if (c == QLatin1Char('{')) {
            qsizetype end = i + 1;
            while (end < text.size() && isNameChar(text.at(end))) {
                ++end;
            }
            if (end > i + 1 && end < text.size() && text.at(end) == QLatin1Char('}')) {
                const QString name = text.mid(i + 1, end - i - 1);
                if (!config.contains(name)) {
                    *error = config.isEmpty()
                                 ? QStringLiteral("{%1} names no key of config (the run has none; write {{%1}} for "
                                                  "the text itself)")
                                       .arg(name)
                                 : QStringLiteral("{%1} names no key of config (it has %2)")
                                       .arg(name, config.keys().join(QStringLiteral(", ")));
                    return false;
                }
                *out += RunSpecView::valueText(config.value(name));
                i = end;
                continue;
            }
        }
        *out += c;
    }
    return true;
}

// Element `i` of an argv with its placeholders replaced; empty, with the
// result in `result`, when it can be used, else why not.
QString elementProblem(qsizetype i, const QString &element, const QJsonObject &config, QString *result,
                       const afterref::Values *after = nullptr)
{
    QString why;
    if (!element.contains(QLatin1Char('{')) && !element.contains(QLatin1Char('}'))) {
        *result = element;
        return {};
    }
    QString literal;
    if (i == 0 && (!substituteOne(element, QJsonObject(), &literal, &why) || !afterref::find(element).isEmpty())) {
        // What runs is the command the user trusted, never a value's choice.
        return QStringLiteral("%1: the program itself cannot be a parameter (a value would choose what runs)")
            .arg(element);
    }
    if (!substituteOne(element, config, result, &why, after)) {
        return why;
    }
    if (result->startsWith(QLatin1Char('-')) && !element.startsWith(QLatin1Char('-'))) {
        // The program's option parser would take the value for an option
        // ("-rf", or "-0.1" read as flag -0): never by substitution.
        return QStringLiteral("%1 gives \"%2\", which its program would read as an option; a value must not "
                              "start an argument with '-' (for a negative number write the option and the value "
                              "as one element, e.g. \"--lr={lr}\")")
            .arg(element, *result);
    }
    if (i == 0 && result->isEmpty()) {
        return QStringLiteral("%1 gives an empty program name").arg(element);
    }
    return {};
}

} // namespace

bool isConfigName(const QString &name)
{
    static const QRegularExpression re(QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z0-9_]{1,64}")));
    return re.match(name).hasMatch();
}

QJsonObject of(const QJsonObject &spec)
{
    return spec.value(kConfig).toObject();
}

bool substitute(const QStringList &argv, const QJsonObject &config, QStringList *out, QString *error,
                qsizetype *badIndex, const afterref::Values *after)
{
    out->clear();
    for (qsizetype i = 0; i < argv.size(); ++i) {
        QString result;
        const QString why = elementProblem(i, argv.at(i), config, &result, after);
        if (!why.isEmpty()) {
            if (error) {
                *error = why;
            }
            if (badIndex) {
                *badIndex = i;
            }
            out->clear();
            return false;
        }
        out->append(result);
    }
    return true;
}

QStringList command(const RunSpecView &view, const afterref::Values *after)
{
    QStringList out;
    if (!substitute(view.programArgv(), of(view.json()), &out, nullptr, nullptr, after)) {
        return {};
    }
    return out;
}

QStringList check(const QJsonObject &spec, const QString &path)
{
    QStringList errors;
    const QString configPath = child(path, kConfig);
    const QJsonValue config = spec.value(kConfig);
    if (!config.isUndefined()) {
        if (!config.isObject()) {
            errors << expected(configPath,
                               QStringLiteral("an object of parameter names and numbers, strings or "
                                              "booleans"),
                               config);
            return errors;
        }
        const QJsonObject values = config.toObject();
        if (values.size() > kMaxKeys) {
            errors << QStringLiteral("%1: more than %2 parameters").arg(configPath).arg(kMaxKeys);
        }
        for (auto it = values.begin(); it != values.end(); ++it) {
            const QString where = child(configPath, it.key());
            const QJsonValue v = it.value();
            if (!isConfigName(it.key())) {
                errors << QStringLiteral("%1: not a parameter name (1–64 letters, digits and _)").arg(where);
            } else if (!(v.isDouble() || v.isBool()
                         || (v.isString() && !v.toString().contains(QChar(0)) && v.toString().size() <= kMaxText))) {
                errors << expected(where, QStringLiteral("a number, a string or a boolean"), v);
            }
        }
        if (!errors.isEmpty()) {
            return errors; // the argv's placeholders are checked against a good config only
        }
    }
    const QJsonArray argv = spec.value(QStringLiteral("program")).toObject().value(QStringLiteral("argv")).toArray();
    QStringList words;
    for (const QJsonValue &v : argv) {
        if (!v.isString()) {
            return errors; // the argv's own check says so
        }
        words << v.toString();
    }
    const QString argvPath = child(child(path, QStringLiteral("program")), QStringLiteral("argv"));
    for (qsizetype i = 0; i < words.size(); ++i) {
        QString result;
        const QString why = elementProblem(i, words.at(i), config.toObject(), &result);
        if (!why.isEmpty()) {
            errors << QStringLiteral("%1[%2]: %3").arg(argvPath).arg(i).arg(why);
        }
    }
    return errors;
}

} // namespace trainyard::programconfig
