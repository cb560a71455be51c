#pragma once

#include "ui/runs/runquery.h"

#include <QSortFilterProxyModel>
#include <QVector>

namespace trainyard {

class RunTableModel;

/// The runs table sorted and filtered: sorted by RunTableColumns::value
/// with the rows that have no value in the sorted column (no loss yet, no
/// MRR) last, ascending or descending (the best loss first, never a column
/// of blanks); filtered by a RunQuery. Ten thousand rows sort in
/// milliseconds: each row's key of the sorted column is taken once a sort
/// (while the model's revision holds), not at every comparison.
class RunTableProxy : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit RunTableProxy(QObject *parent = nullptr);

    void setSourceModel(QAbstractItemModel *model) override;
    /// Filters by the query `text` (RunQuery); returns why it cannot be
    /// read (then every run is shown), empty when it can.
    QString setQuery(const QString &text);
    QString queryText() const { return m_queryText; }
    QString queryError() const { return m_query.error(); }

protected:
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    void takeKeys(int column) const;

    RunTableModel *m_model = nullptr;
    QString m_queryText;
    RunQuery m_query;
    // The sorted column's keys by source row, for m_keysRevision of the model.
    mutable int m_keysColumn = -1;
    mutable quint64 m_keysRevision = 0;
    mutable QVector<double> m_numbers; ///< NaN: not a number
    mutable QVector<QString> m_texts;
    mutable QVector<bool> m_has;
};

} // namespace trainyard
