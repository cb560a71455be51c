#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace trainyard {

struct RunRow;

/// A query of the runs table, as W&B's and MLflow's run filters are typed:
/// whitespace-separated terms that must all hold,
///   model=transe      a column's value, text without regard to case, or a number
///   lr<0.01           <, <=, >, >=, =, != on numbers (a date for `started`)
///   tag:best          one of the run's tags (notes.json), without regard to case
///   note:"for paper"  a piece of its note
///   exp1              a piece of its name or its experiment's
/// A column is named by its title ("Loss", "MRR", "State", "Run" or "name")
/// or a hyperparameter by its key ("train.lr") or the key's last part ("lr")
/// when no other has that last part. Values with spaces go in double
/// quotes. A run without a value in the column matches no comparison. A
/// query that cannot be read says why (error()) and matches every run.
class RunQuery
{
public:
    /// Reads `text` against the table's columns: its hyperparameters are `paramKeys`.
    static RunQuery parse(const QString &text, const QStringList &paramKeys);

    bool isEmpty() const { return m_terms.isEmpty(); }
    bool isValid() const { return m_error.isEmpty(); }
    /// Why the query cannot be read, naming the term; empty when it can.
    QString error() const { return m_error; }
    /// Whether `row` satisfies every term (always, for an invalid query).
    bool matches(const RunRow &row, const QStringList &paramKeys) const;

    enum class Op {
        Less,
        LessOrEqual,
        Greater,
        GreaterOrEqual,
        Equal,
        NotEqual
    };

private:
    struct Term
    {
        enum Kind {
            Word,
            Tag,
            Note,
            Compare
        };
        Kind kind = Word;
        int column = -1; ///< a fixed column of RunTableColumns, or -1 for `key`
        QString key;     ///< a hyperparameter
        Op op = Op::Equal;
        QString text; ///< the value as typed
        double number = 0;
        bool isNumber = false; ///< `text` reads as a number (or a date, for the start)
    };
    bool holds(const Term &term, const RunRow &row, const QStringList &paramKeys) const;
    static QString columnOf(const QString &name, const QStringList &paramKeys, Term *term);

    QList<Term> m_terms;
    QString m_error;
};

} // namespace trainyard
