#include "ui/runs/runtableproxy.h"

#include "ui/runs/runtablemodel.h"

#include <QDateTime>

#include <cmath>
#include <limits>

namespace trainyard {

RunTableProxy::RunTableProxy(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(RunTableModel::SortRole);
    // Only the values sort and filter: a change of how they are written
    // (Qt::DisplayRole alone) does neither again.
    setFilterRole(RunTableModel::SortRole);
}

void RunTableProxy::setSourceModel(QAbstractItemModel *model)
{
    m_model = qobject_cast<RunTableModel *>(model);
    m_keysColumn = -1;
    QSortFilterProxyModel::setSourceModel(model);
    if (m_model) {
        // Columns come and go: the query is read against them again.
        connect(m_model, &RunTableModel::columnDefaultsChanged, this, [this] {
            if (!m_queryText.isEmpty()) {
                setQuery(m_queryText);
            }
        });
    }
}

QString RunTableProxy::setQuery(const QString &text)
{
    m_queryText = text;
    m_query = RunQuery::parse(text, m_model ? m_model->paramKeys() : QStringList());
    // One new layout, not a signal per range of rows that went or came: a
    // view handles each of those over all its rows.
    invalidate();
    return m_query.error();
}

bool RunTableProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (!m_model || m_query.isEmpty() || sourceParent.isValid()) {
        return true;
    }
    return m_query.matches(m_model->row(sourceRow), m_model->paramKeys());
}

void RunTableProxy::takeKeys(int column) const
{
    const int rows = m_model->rowCount();
    m_keysColumn = column;
    m_keysRevision = m_model->revision();
    m_numbers.fill(std::numeric_limits<double>::quiet_NaN(), rows);
    m_texts.fill(QString(), rows);
    m_has.fill(false, rows);
    for (int r = 0; r < rows; ++r) {
        const QVariant v = m_model->value(r, column);
        if (!v.isValid()) {
            continue;
        }
        m_has[r] = true;
        if (v.typeId() == QMetaType::QDateTime) {
            m_numbers[r] = double(v.toDateTime().toMSecsSinceEpoch());
        } else if (v.typeId() == QMetaType::QString) {
            m_texts[r] = v.toString();
        } else {
            m_numbers[r] = v.toDouble();
        }
    }
}

bool RunTableProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    if (!m_model) {
        return QSortFilterProxyModel::lessThan(left, right);
    }
    const int column = left.column();
    if (column != m_keysColumn || m_keysRevision != m_model->revision() || m_has.size() != m_model->rowCount()) {
        takeKeys(column);
    }
    const int a = left.row();
    const int b = right.row();
    if (!m_has[a] || !m_has[b]) {
        // Rows without a value go last in either order (the view reverses
        // lessThan for a descending sort, so say the opposite then).
        if (m_has[a] == m_has[b]) {
            return false;
        }
        return m_has[a] != (sortOrder() == Qt::DescendingOrder);
    }
    const bool aNumber = !std::isnan(m_numbers[a]);
    const bool bNumber = !std::isnan(m_numbers[b]);
    if (aNumber && bNumber) {
        return m_numbers[a] < m_numbers[b];
    }
    if (aNumber != bNumber) {
        return aNumber; // numbers before text
    }
    return m_texts[a].compare(m_texts[b], Qt::CaseInsensitive) < 0;
}

} // namespace trainyard
