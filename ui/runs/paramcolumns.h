#pragma once

#include "ui/runs/runrow.h"

#include <QHash>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QMap>
#include <QSet>
#include <QStringList>
#include <QVariant>

namespace trainyard {

/// The runs table's hyperparameter columns, as W&B's run table has them: the
/// keys of the runs' resolved specs, flattened ("model.dim", "train.lr") in
/// RunSpecView's one order, without those the fixed columns show (the name,
/// model.type), then the names of their summaries ("summary.best_acc", a
/// program's run.summary); which of them differ between the runs; and what
/// a cell shows. Built row by row (add): rows whose keys are known cost a
/// comparison a key.
class ParamColumns
{
public:
    /// False for the keys the fixed columns show already (Run, Model).
    static bool isParam(const QString &key);
    /// The columns of the rows `live` and `past` (RunRow::params).
    static ParamColumns of(const QList<RunRow> &live, const QList<RunRow> &past);
    /// Takes one more row into the columns.
    void add(const RunRow &row);

    const QStringList &keys() const { return m_keys; }
    /// True when the runs do not all have the same value of `key` (one
    /// without it counts as a value).
    bool differs(const QString &key) const { return m_differing.contains(key); }
    bool operator==(const ParamColumns &o) const { return m_keys == o.m_keys && m_differing == o.m_differing; }
    bool operator!=(const ParamColumns &o) const { return !(*this == o); }

    /// What `row`'s cell of `key` shows for the Qt `role` (display, tooltip,
    /// alignment: numbers right); nothing when the run has no such key.
    static QVariant data(const RunRow &row, const QString &key, int role);
    /// What the cell sorts by: numbers as numbers (2 before 10), booleans as
    /// 0 and 1, text as shown; null ("no limit") and a missing key sort last
    /// (no value).
    static QVariant sortValue(const RunRow &row, const QString &key);

private:
    QStringList m_keys;
    QSet<QString> m_differing;
    QJsonObject m_union;                ///< the rows' keys as objects: their order
    QHash<QString, QJsonValue> m_first; ///< the first row's value of each key (null: none)
    QMap<QString, bool> m_summaryNames; ///< the rows' run.summary names, in name order
    qsizetype m_rows = 0;
};

} // namespace trainyard
