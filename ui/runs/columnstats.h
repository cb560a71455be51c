#pragma once

#include "ui/runs/numberformat.h"

#include <QList>
#include <QStringList>
#include <QVector>

#include <functional>

namespace trainyard {

struct RunRow;

/// What the runs table knows of each column over a set of rows: whether any
/// row has a value in it (a column blank for every run is hidden unless the
/// user shows it) and how its numbers are written (NumberFormat). Kept for
/// the past runs and the live ones apart and merged, so a live run's new
/// loss does not go over ten thousand past rows again.
class ColumnStats
{
public:
    /// The statistics of `count` rows (`rowAt(0)` ...) over the fixed
    /// columns and `paramKeys`.
    static ColumnStats of(int count, const std::function<const RunRow &(int)> &rowAt, const QStringList &paramKeys);
    static ColumnStats of(const QList<RunRow> &rows, const QStringList &paramKeys)
    {
        return of(
            int(rows.size()), [&rows](int i) -> const RunRow & { return rows.at(i); }, paramKeys);
    }
    /// Both sets of rows (the same columns).
    void merge(const ColumnStats &other);

    int columnCount() const { return int(m_present.size()); }
    /// True when no row has a value in `column` (or the column is unknown).
    bool blank(int column) const { return column < 0 || column >= m_present.size() || !m_present.at(column); }
    NumberFormat format(int column) const { return m_formats.value(column); }
    /// The columns blank for every row.
    QList<int> blankColumns() const;
    bool operator==(const ColumnStats &o) const { return m_present == o.m_present && m_formats == o.m_formats; }
    bool operator!=(const ColumnStats &o) const { return !(*this == o); }

private:
    QVector<bool> m_present;
    QVector<NumberFormat> m_formats;
};

} // namespace trainyard
