#include "ui/runs/columnstats.h"

#include "ui/runs/runrow.h"
#include "ui/runs/runtablecolumns.h"

namespace trainyard {

ColumnStats ColumnStats::of(int count, const std::function<const RunRow &(int)> &rowAt, const QStringList &paramKeys)
{
    const int fixed = RunTableColumns::FixedColumnCount;
    ColumnStats stats;
    stats.m_present.fill(false, fixed + paramKeys.size());
    stats.m_formats.resize(fixed + paramKeys.size());
    for (int i = 0; i < count; ++i) {
        const RunRow &row = rowAt(i);
        for (int c = 0; c < fixed; ++c) {
            const QVariant value = RunTableColumns::value(row, c, paramKeys);
            if (!value.isValid()) {
                continue;
            }
            stats.m_present[c] = true;
            if (RunTableColumns::isNumberColumn(c)) {
                stats.m_formats[c].add(value.toDouble());
            }
        }
        for (qsizetype k = 0; k < paramKeys.size(); ++k) {
            const auto it = row.params.constFind(paramKeys.at(k));
            if (it == row.params.constEnd() || it->isNull() || it->isUndefined()) {
                continue;
            }
            stats.m_present[fixed + k] = true;
            if (it->isDouble()) {
                stats.m_formats[fixed + k].add(it->toDouble());
            }
        }
    }
    return stats;
}

void ColumnStats::merge(const ColumnStats &other)
{
    for (qsizetype c = 0; c < m_present.size() && c < other.m_present.size(); ++c) {
        m_present[c] = m_present[c] || other.m_present[c];
        m_formats[c].merge(other.m_formats[c]);
    }
}

QList<int> ColumnStats::blankColumns() const
{
    QList<int> blank;
    for (qsizetype c = 0; c < m_present.size(); ++c) {
        if (!m_present.at(c)) {
            blank.append(int(c));
        }
    }
    return blank;
}

} // namespace trainyard
