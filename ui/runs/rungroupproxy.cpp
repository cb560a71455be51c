#include "ui/runs/rungroupproxy.h"

#include "ui/board/carddelegate.h"
#include "ui/runs/runtablemodel.h"

#include <QBrush>
#include <QDateTime>
#include <QFont>
#include <QGuiApplication>
#include <QPalette>

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainyard {

namespace {

// How groups are ordered: numbers as numbers, then text, then no value.
struct GroupValue
{
    int kind = 2; ///< 0 number, 1 text, 2 none
    double number = 0;
    QString text;

    static GroupValue of(const QVariant &v)
    {
        GroupValue g;
        if (!v.isValid()) {
            return g;
        }
        if (v.typeId() == QMetaType::QString) {
            g.kind = 1;
            g.text = v.toString();
        } else {
            g.kind = 0;
            g.number = v.typeId() == QMetaType::QDateTime ? double(v.toDateTime().toMSecsSinceEpoch()) : v.toDouble();
        }
        return g;
    }
    QString key() const
    {
        return kind == 0 ? QString::number(number, 'g', 17) : kind == 1 ? QLatin1Char('t') + text : QString();
    }
    bool operator<(const GroupValue &o) const
    {
        if (kind != o.kind) {
            return kind < o.kind;
        }
        return kind == 0 ? number < o.number : text.compare(o.text, Qt::CaseInsensitive) < 0;
    }
};

} // namespace

RunGroupProxy::RunGroupProxy(RunTableModel *model, QObject *parent)
    : QAbstractProxyModel(parent)
    , m_model(model)
{
}

void RunGroupProxy::setSourceModel(QAbstractItemModel *source)
{
    beginResetModel();
    if (sourceModel()) {
        sourceModel()->disconnect(this);
    }
    QAbstractProxyModel::setSourceModel(source);
    connect(source, &QAbstractItemModel::modelAboutToBeReset, this, [this] { beginResetModel(); });
    connect(source, &QAbstractItemModel::modelReset, this, [this] {
        rebuild();
        endResetModel();
    });
    // Ungrouped, rows come and go one to one; grouped, every change of the
    // source's rows is a new layout.
    connect(source, &QAbstractItemModel::rowsAboutToBeInserted, this, [this](const QModelIndex &, int first, int last) {
        if (!grouped()) {
            beginInsertRows({}, first, last);
        } else {
            beginChange();
        }
    });
    connect(source, &QAbstractItemModel::rowsInserted, this, [this] {
        if (!grouped()) {
            endInsertRows();
        } else {
            endChange();
        }
    });
    connect(source, &QAbstractItemModel::rowsAboutToBeRemoved, this, [this](const QModelIndex &, int first, int last) {
        if (!grouped()) {
            beginRemoveRows({}, first, last);
        } else {
            beginChange();
        }
    });
    connect(source, &QAbstractItemModel::rowsRemoved, this, [this] {
        if (!grouped()) {
            endRemoveRows();
        } else {
            endChange();
        }
    });
    connect(source, &QAbstractItemModel::layoutAboutToBeChanged, this, &RunGroupProxy::beginChange);
    connect(source, &QAbstractItemModel::layoutChanged, this, &RunGroupProxy::endChange);
    connect(source, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex &topLeft, const QModelIndex &bottomRight, const QList<int> &roles) {
                const bool regroup = grouped() && (roles.isEmpty() || roles.contains(RunTableModel::SortRole));
                if (regroup) {
                    beginChange(); // a value changed its group, or a group's means
                    endChange();
                }
                if (!grouped()) {
                    Q_EMIT dataChanged(mapFromSource(topLeft), mapFromSource(bottomRight), roles);
                } else if (rowCount() > 0) {
                    Q_EMIT dataChanged(index(0, topLeft.column()), index(rowCount() - 1, bottomRight.column()), roles);
                }
            });
    connect(source, &QAbstractItemModel::headerDataChanged, this, &QAbstractItemModel::headerDataChanged);
    rebuild();
    endResetModel();
}

void RunGroupProxy::setGroupColumn(int column)
{
    if (column == m_column) {
        return;
    }
    beginResetModel();
    m_column = column;
    m_collapsed.clear();
    rebuild();
    endResetModel();
}

void RunGroupProxy::toggleGroup(int row)
{
    if (!isGroupHeader(row)) {
        return;
    }
    const QString key = m_groups.at(m_rows.at(row).group).key;
    beginChange();
    if (!m_collapsed.remove(key)) {
        m_collapsed.insert(key);
    }
    endChange();
}

void RunGroupProxy::rebuild()
{
    m_rows.clear();
    m_groups.clear();
    m_fromSource.clear();
    const QAbstractItemModel *source = sourceModel();
    if (m_column < 0 || !source || m_column >= source->columnCount()) {
        return; // rows one to one: no table
    }
    const int rows = source->rowCount();
    m_fromSource.fill(-1, rows);
    // The groups in the order of their values, each with its rows in the source's order.
    QList<GroupValue> values;
    QHash<QString, QVector<int>> members;
    for (int r = 0; r < rows; ++r) {
        const GroupValue value = GroupValue::of(source->index(r, m_column).data(RunTableModel::SortRole));
        auto it = members.find(value.key());
        if (it == members.end()) {
            values.append(value);
            it = members.insert(value.key(), {});
        }
        it->append(r);
    }
    std::stable_sort(values.begin(), values.end());
    const QString title = m_model->headerData(m_column, Qt::Horizontal).toString();
    for (const GroupValue &value : std::as_const(values)) {
        const QVector<int> &runs = members.value(value.key());
        Group group;
        group.key = value.key();
        const QString shown = source->index(runs.first(), m_column).data().toString();
        group.label = value.kind == 2 ? tr("%1: none").arg(title) : QStringLiteral("%1 = %2").arg(title, shown);
        group.runs = int(runs.size());
        group.means.fill(std::numeric_limits<double>::quiet_NaN(), RunTableModel::FixedColumnCount);
        for (int c = 0; c < RunTableModel::FixedColumnCount; ++c) {
            if (!RunTableModel::isNumberColumn(c) || c == RunTableModel::StepColumn) {
                continue;
            }
            double sum = 0;
            int count = 0;
            for (int r : runs) {
                const QVariant v = source->index(r, c).data(RunTableModel::SortRole);
                if (v.isValid()) {
                    sum += v.toDouble();
                    ++count;
                }
            }
            if (count > 0) {
                group.means[c] = sum / count;
            }
        }
        const int g = int(m_groups.size());
        m_groups.append(group);
        m_rows.append({-1, g});
        if (m_collapsed.contains(group.key)) {
            continue;
        }
        for (int r : runs) {
            m_fromSource[r] = int(m_rows.size());
            m_rows.append({r, g});
        }
    }
}

void RunGroupProxy::beginChange()
{
    if (m_changing) {
        return;
    }
    m_changing = true;
    Q_EMIT layoutAboutToBeChanged();
    m_savedProxy = persistentIndexList();
    m_saved.clear();
    for (const QModelIndex &index : std::as_const(m_savedProxy)) {
        Saved saved;
        saved.column = index.column();
        if (isGroupHeader(index.row())) {
            saved.header = true;
            saved.group = m_groups.at(m_rows.at(index.row()).group).key;
        } else {
            saved.source = QPersistentModelIndex(mapToSource(index));
        }
        m_saved.append(saved);
    }
}

void RunGroupProxy::endChange()
{
    if (!m_changing) {
        return;
    }
    rebuild();
    QModelIndexList moved;
    for (const Saved &saved : std::as_const(m_saved)) {
        QModelIndex to;
        if (saved.header) {
            for (int r = 0; r < m_rows.size(); ++r) {
                if (m_rows.at(r).source < 0 && m_groups.at(m_rows.at(r).group).key == saved.group) {
                    to = index(r, saved.column);
                    break;
                }
            }
        } else if (saved.source.isValid()) {
            to = mapFromSource(saved.source);
        }
        moved.append(to);
    }
    changePersistentIndexList(m_savedProxy, moved);
    m_savedProxy.clear();
    m_saved.clear();
    m_changing = false;
    Q_EMIT layoutChanged();
}

QModelIndex RunGroupProxy::index(int row, int column, const QModelIndex &parent) const
{
    if (parent.isValid() || row < 0 || row >= rowCount() || column < 0 || column >= columnCount()) {
        return {};
    }
    return createIndex(row, column);
}

QModelIndex RunGroupProxy::parent(const QModelIndex &) const
{
    return {};
}

int RunGroupProxy::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() || !sourceModel()) {
        return 0;
    }
    return grouped() ? int(m_rows.size()) : sourceModel()->rowCount();
}

bool RunGroupProxy::grouped() const
{
    return m_column >= 0 && m_column < columnCount();
}

int RunGroupProxy::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() || !sourceModel() ? 0 : sourceModel()->columnCount();
}

QModelIndex RunGroupProxy::mapToSource(const QModelIndex &proxyIndex) const
{
    if (!proxyIndex.isValid() || !sourceModel()) {
        return {};
    }
    if (!grouped()) {
        return sourceModel()->index(proxyIndex.row(), proxyIndex.column());
    }
    if (proxyIndex.row() >= m_rows.size()) {
        return {};
    }
    const int source = m_rows.at(proxyIndex.row()).source;
    return source < 0 ? QModelIndex() : sourceModel()->index(source, proxyIndex.column());
}

QModelIndex RunGroupProxy::mapFromSource(const QModelIndex &sourceIndex) const
{
    if (!sourceIndex.isValid()) {
        return {};
    }
    if (!grouped()) {
        return index(sourceIndex.row(), sourceIndex.column());
    }
    if (sourceIndex.row() >= m_fromSource.size()) {
        return {};
    }
    const int row = m_fromSource.at(sourceIndex.row());
    return row < 0 ? QModelIndex() : index(row, sourceIndex.column());
}

QVariant RunGroupProxy::data(const QModelIndex &index, int role) const
{
    if (!index.isValid()) {
        return {};
    }
    if (!grouped()) {
        return role == RunTableModel::GroupHeaderRole ? QVariant(false) : mapToSource(index).data(role);
    }
    if (index.row() >= m_rows.size()) {
        return {};
    }
    const Row &row = m_rows.at(index.row());
    if (row.source >= 0) {
        return role == RunTableModel::GroupHeaderRole ? QVariant(false) : mapToSource(index).data(role);
    }
    return headerRowData(m_groups.at(row.group), index.column(), role);
}

QVariant RunGroupProxy::headerRowData(const Group &group, int column, int role) const
{
    switch (role) {
    case RunTableModel::GroupHeaderRole:
        return true;
    case Qt::FontRole: {
        QFont font;
        font.setBold(true);
        return font;
    }
    case Qt::BackgroundRole:
        return QGuiApplication::palette().brush(QPalette::Midlight);
    case Qt::TextAlignmentRole:
        return RunTableModel::isNumberColumn(column) ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
        break;
    default:
        return {};
    }
    const bool collapsed = m_collapsed.contains(group.key);
    if (column == RunTableModel::ExperimentColumn) {
        return QStringLiteral("%1 %2").arg(collapsed ? QStringLiteral("▸") : QStringLiteral("▾"), group.label);
    }
    if (column == RunTableModel::NameColumn) {
        return group.runs == 1 ? tr("1 run") : tr("%1 runs").arg(group.runs);
    }
    if (column < group.means.size() && !std::isnan(group.means.at(column))) {
        const QString mean = column == RunTableModel::DurationColumn
                                 ? CardDelegate::formatDuration(group.means.at(column))
                                 : m_model->columnFormat(column).text(group.means.at(column));
        return role == Qt::ToolTipRole ? tr("%1: the mean of %2 runs").arg(mean).arg(group.runs) : mean;
    }
    return {};
}

QVariant RunGroupProxy::headerData(int section, Qt::Orientation orientation, int role) const
{
    // The columns are the source's (a header row maps to no source row).
    return orientation == Qt::Horizontal && sourceModel() ? sourceModel()->headerData(section, orientation, role)
                                                          : QVariant();
}

Qt::ItemFlags RunGroupProxy::flags(const QModelIndex &index) const
{
    if (!index.isValid()) {
        return Qt::NoItemFlags;
    }
    return isGroupHeader(index.row()) ? Qt::ItemIsEnabled : mapToSource(index).flags();
}

} // namespace trainyard
