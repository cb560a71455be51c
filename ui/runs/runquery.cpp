#include "ui/runs/runquery.h"

#include "orchestration/runspec/runspecview.h"
#include "ui/runs/runrow.h"
#include "ui/runs/runtablecolumns.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QLocale>

#include <cmath>

namespace trainyard {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("trainyard::RunQuery", text);
}

// The terms of `text`: split at whitespace outside double quotes (the
// quotes stay, so a term knows which parts were quoted); an unmatched quote
// is an error.
QStringList split(const QString &text, QString *error)
{
    QStringList terms;
    QString term;
    bool quoted = false;
    for (const QChar c : text) {
        if (c == QLatin1Char('"')) {
            quoted = !quoted;
        }
        if (c.isSpace() && !quoted) {
            if (!term.isEmpty()) {
                terms << term;
            }
            term.clear();
        } else {
            term += c;
        }
    }
    if (quoted) {
        *error = tr("a quote (\") is not closed");
    }
    if (!term.isEmpty()) {
        terms << term;
    }
    return terms;
}

QString unquoted(const QString &text)
{
    QString out = text;
    out.remove(QLatin1Char('"'));
    return out;
}

// The first comparison operator of `term` outside quotes, -1 when none;
// `length` gets its length.
qsizetype operatorAt(const QString &term, int *length)
{
    bool quoted = false;
    for (qsizetype i = 0; i < term.size(); ++i) {
        const QChar c = term.at(i);
        if (c == QLatin1Char('"')) {
            quoted = !quoted;
        }
        if (quoted) {
            continue;
        }
        if (c == QLatin1Char('<') || c == QLatin1Char('>') || c == QLatin1Char('=') || c == QLatin1Char('!')) {
            const bool two = i + 1 < term.size() && term.at(i + 1) == QLatin1Char('=') && c != QLatin1Char('=');
            if (c == QLatin1Char('!') && !two) {
                continue; // a lone '!' is part of a name
            }
            *length = two ? 2 : 1;
            return i;
        }
    }
    return -1;
}

RunQuery::Op opOf(const QString &op)
{
    if (op == QLatin1String("<")) {
        return RunQuery::Op::Less;
    }
    if (op == QLatin1String("<=")) {
        return RunQuery::Op::LessOrEqual;
    }
    if (op == QLatin1String(">")) {
        return RunQuery::Op::Greater;
    }
    if (op == QLatin1String(">=")) {
        return RunQuery::Op::GreaterOrEqual;
    }
    if (op == QLatin1String("!=")) {
        return RunQuery::Op::NotEqual;
    }
    return RunQuery::Op::Equal;
}

bool compare(double a, RunQuery::Op op, double b)
{
    // Equal as typed: 0.001 is the 0.001 a spec holds, whatever its last bits.
    const bool equal = a == b || std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b));
    switch (op) {
    case RunQuery::Op::Less:
        return a < b && !equal;
    case RunQuery::Op::LessOrEqual:
        return a < b || equal;
    case RunQuery::Op::Greater:
        return a > b && !equal;
    case RunQuery::Op::GreaterOrEqual:
        return a > b || equal;
    case RunQuery::Op::Equal:
        return equal;
    case RunQuery::Op::NotEqual:
        return !equal;
    }
    return false;
}

// A date typed for the Started column, in milliseconds.
bool readDate(const QString &text, double *msecs)
{
    QDateTime time = QDateTime::fromString(text, Qt::ISODate);
    if (!time.isValid()) {
        const QDate date = QDate::fromString(text, Qt::ISODate);
        if (!date.isValid()) {
            return false;
        }
        time = date.startOfDay();
    }
    *msecs = double(time.toMSecsSinceEpoch());
    return true;
}

} // namespace

QString RunQuery::columnOf(const QString &name, const QStringList &paramKeys, Term *term)
{
    const QString wanted = name.toLower();
    for (int c = 0; c < RunTableColumns::FixedColumnCount; ++c) {
        if (RunTableColumns::title(c).toLower() == wanted) {
            term->column = c;
            return {};
        }
    }
    if (wanted == QLatin1String("name")) {
        term->column = RunTableColumns::NameColumn;
        return {};
    }
    QStringList byLastPart;
    for (const QString &key : paramKeys) {
        if (key.toLower() == wanted) {
            term->key = key;
            return {};
        }
        if (key.section(QLatin1Char('.'), -1).toLower() == wanted) {
            byLastPart << key;
        }
    }
    if (byLastPart.size() == 1) {
        term->key = byLastPart.first();
        return {};
    }
    if (byLastPart.size() > 1) {
        return tr("\"%1\" could be %2: name one").arg(name, byLastPart.join(QLatin1String(", ")));
    }
    return tr("no column is called \"%1\"").arg(name);
}

RunQuery RunQuery::parse(const QString &text, const QStringList &paramKeys)
{
    RunQuery query;
    const QStringList terms = split(text, &query.m_error);
    for (const QString &typed : terms) {
        if (!query.m_error.isEmpty()) {
            break;
        }
        Term term;
        const QString lower = typed.toLower();
        if (lower.startsWith(QLatin1String("tag:")) || lower.startsWith(QLatin1String("note:"))) {
            term.kind = lower.startsWith(QLatin1String("tag:")) ? Term::Tag : Term::Note;
            term.text = unquoted(typed.mid(typed.indexOf(QLatin1Char(':')) + 1));
            if (term.text.isEmpty()) {
                query.m_error = tr("\"%1\": which %2?").arg(typed, typed.section(QLatin1Char(':'), 0, 0));
            }
            query.m_terms << term;
            continue;
        }
        int length = 0;
        const qsizetype at = operatorAt(typed, &length);
        if (at < 0) {
            term.text = unquoted(typed);
            query.m_terms << term;
            continue;
        }
        term.kind = Term::Compare;
        const QString name = unquoted(typed.left(at));
        const QString op = typed.mid(at, length);
        term.op = opOf(op);
        term.text = unquoted(typed.mid(at + length));
        if (name.isEmpty()) {
            query.m_error = tr("\"%1\": name a column before %2").arg(typed, op);
            break;
        }
        if (term.text.isEmpty()) {
            query.m_error = tr("\"%1\": a value after %2").arg(typed, op);
            break;
        }
        query.m_error = columnOf(name, paramKeys, &term);
        if (!query.m_error.isEmpty()) {
            break;
        }
        const bool ordered = term.op != Op::Equal && term.op != Op::NotEqual;
        if (term.column == RunTableColumns::StartedColumn) {
            term.isNumber = readDate(term.text, &term.number);
            if (!term.isNumber) {
                query.m_error = tr("\"%1\": a date such as 2026-01-31").arg(typed);
            }
        } else {
            term.number = QLocale::c().toDouble(term.text, &term.isNumber);
            const bool textColumn = term.column >= 0 && !RunTableColumns::isNumberColumn(term.column);
            if (ordered && textColumn) {
                query.m_error = tr("\"%1\": %2 holds text; %3 compares numbers")
                                    .arg(typed, RunTableColumns::title(term.column), op);
            } else if (ordered && !term.isNumber) {
                query.m_error = tr("\"%1\": %2 is not a number").arg(typed, term.text);
            }
        }
        query.m_terms << term;
    }
    if (!query.m_error.isEmpty()) {
        query.m_terms.clear();
    }
    return query;
}

bool RunQuery::matches(const RunRow &row, const QStringList &paramKeys) const
{
    for (const Term &term : m_terms) {
        if (!holds(term, row, paramKeys)) {
            return false;
        }
    }
    return true;
}

bool RunQuery::holds(const Term &term, const RunRow &row, const QStringList &paramKeys) const
{
    switch (term.kind) {
    case Term::Word:
        return row.name.contains(term.text, Qt::CaseInsensitive)
               || row.experiment.contains(term.text, Qt::CaseInsensitive);
    case Term::Tag:
        return row.notes.tags.contains(term.text, Qt::CaseInsensitive);
    case Term::Note:
        return row.notes.note.contains(term.text, Qt::CaseInsensitive);
    case Term::Compare:
        break;
    }
    // The cell as a number, else as text.
    bool isNumber = false;
    double number = 0;
    QString text;
    if (term.column < 0) {
        const auto it = row.params.constFind(term.key);
        if (it == row.params.constEnd() || it->isNull() || it->isUndefined()) {
            return false;
        }
        isNumber = it->isDouble();
        number = it->toDouble();
        text = RunSpecView::valueText(*it);
    } else {
        const QVariant value = RunTableColumns::value(row, term.column, paramKeys);
        if (!value.isValid()) {
            return false;
        }
        if (term.column == RunTableColumns::StartedColumn) {
            isNumber = true;
            number = double(value.toDateTime().toMSecsSinceEpoch());
        } else if (RunTableColumns::isNumberColumn(term.column)) {
            isNumber = true;
            number = value.toDouble();
        } else {
            text = value.toString();
        }
    }
    if (isNumber && term.isNumber) {
        return compare(number, term.op, term.number);
    }
    if (term.op == Op::Equal || term.op == Op::NotEqual) {
        if (isNumber) {
            text = RunSpecView::valueText(QJsonValue(number));
        }
        const bool equal = text.compare(term.text, Qt::CaseInsensitive) == 0;
        return term.op == Op::Equal ? equal : !equal;
    }
    return false; // an ordered comparison of text (a hyperparameter that is text for this run)
}

} // namespace trainyard
