#include "orchestration/experiment/afterreference.h"

#include "orchestration/experiment/experiment.h"

namespace trainyard::afterref {

namespace {
const QString kPrefix = QStringLiteral("after.");
const QString kFields[] = {QStringLiteral("checkpoint"), QStringLiteral("dir")};
} // namespace

std::optional<Ref> parse(QStringView inner)
{
    if (!inner.startsWith(kPrefix)) {
        return std::nullopt;
    }
    const QStringView rest = inner.mid(kPrefix.size());
    const qsizetype dot = rest.lastIndexOf(QLatin1Char('.'));
    Ref ref;
    if (dot < 0) {
        ref.name = rest.toString();
        return ref;
    }
    ref.name = rest.left(dot).toString();
    ref.field = rest.mid(dot + 1).toString();
    return ref;
}

bool isValid(const Ref &ref)
{
    if (!isSafeRunName(ref.name)) {
        return false;
    }
    for (const QString &field : kFields) {
        if (ref.field == field) {
            return true;
        }
    }
    return false;
}

QString fieldNames()
{
    return kFields[0] + QStringLiteral(", ") + kFields[1];
}

QString placeholder(const Ref &ref)
{
    return QStringLiteral("{after.%1.%2}").arg(ref.name, ref.field);
}

QList<Ref> find(const QString &text)
{
    QList<Ref> refs;
    for (qsizetype i = text.indexOf(QStringLiteral("{after.")); i >= 0;
         i = text.indexOf(QStringLiteral("{after."), i + 1)) {
        const qsizetype end = text.indexOf(QLatin1Char('}'), i);
        if (end < 0) {
            break;
        }
        if (const auto ref = parse(QStringView(text).mid(i + 1, end - i - 1))) {
            refs << *ref;
        }
    }
    return refs;
}

bool substitute(const QString &text, const Values &values, QString *out, QString *error)
{
    out->clear();
    qsizetype from = 0;
    for (qsizetype i = text.indexOf(QStringLiteral("{after.")); i >= 0;
         i = text.indexOf(QStringLiteral("{after."), from)) {
        const qsizetype end = text.indexOf(QLatin1Char('}'), i);
        if (end < 0) {
            break;
        }
        const auto ref = parse(QStringView(text).mid(i + 1, end - i - 1));
        const auto it = values.constFind(key(*ref));
        if (it == values.constEnd()) {
            if (error) {
                *error = QStringLiteral("%1 has no value (%2)")
                             .arg(placeholder(*ref),
                                  isValid(*ref)
                                      ? QStringLiteral("%1 is not a run it runs after, or left "
                                                       "no checkpoint")
                                            .arg(ref->name)
                                      : QStringLiteral("expected {after.NAME.FIELD}, FIELD one of ") + fieldNames());
            }
            out->clear();
            return false;
        }
        *out += QStringView(text).mid(from, i - from);
        *out += *it;
        from = end + 1;
    }
    *out += QStringView(text).mid(from);
    return true;
}

} // namespace trainyard::afterref
