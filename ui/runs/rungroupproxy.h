#pragma once

#include <QAbstractProxyModel>
#include <QPersistentModelIndex>
#include <QSet>
#include <QVector>

namespace trainyard {

class RunTableModel;

/// The runs table grouped by one column, as W&B groups runs: a header row
/// per value of the column ("model = transe", how many runs, the mean of
/// their metrics), then its runs in the order of the sorted table; the
/// groups in the order of their values (numbers as numbers, runs without a
/// value last). A header row can be collapsed. Without a group column it
/// passes the rows through one to one. Its source is the sorted and filtered
/// table (RunTableProxy over `model`); a change of the source's rows keeps
/// the view's selection and current row (a layout change with the
/// persistent indexes moved).
class RunGroupProxy : public QAbstractProxyModel
{
    Q_OBJECT
public:
    explicit RunGroupProxy(RunTableModel *model, QObject *parent = nullptr);

    void setSourceModel(QAbstractItemModel *source) override;
    /// Groups by `column` of the table; -1: no groups.
    void setGroupColumn(int column);
    int groupColumn() const { return m_column; }
    /// Collapses an expanded group or expands a collapsed one (`row`: its header).
    void toggleGroup(int row);
    bool isGroupHeader(int row) const
    {
        return grouped() && row >= 0 && row < m_rows.size() && m_rows.at(row).source < 0;
    }
    int groupCount() const { return int(m_groups.size()); }

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QModelIndex mapToSource(const QModelIndex &proxyIndex) const override;
    QModelIndex mapFromSource(const QModelIndex &sourceIndex) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;

private:
    struct Row
    {
        int source = -1; ///< the source row; -1 for a group's header
        int group = -1;
    };
    struct Group
    {
        QString key; ///< the value, as a hash key (collapsing is remembered by it)
        QString label;
        int runs = 0;
        QVector<double> means; ///< per fixed number column; NaN: none
    };
    struct Saved
    {
        QPersistentModelIndex source;
        QString group; ///< a header's group key
        int column = 0;
        bool header = false;
    };
    bool grouped() const;
    void rebuild();
    void beginChange();
    void endChange();
    QVariant headerRowData(const Group &group, int column, int role) const;

    RunTableModel *m_model;
    int m_column = -1;
    QVector<Row> m_rows;
    QVector<int> m_fromSource; ///< source row -> proxy row (-1: collapsed)
    QVector<Group> m_groups;
    QSet<QString> m_collapsed; ///< group keys
    bool m_changing = false;
    QModelIndexList m_savedProxy;
    QVector<Saved> m_saved;
};

} // namespace trainyard
