#pragma once

#include "runinfo.h"
#include "runrecord.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QHash>
#include <QMap>
#include <QSortFilterProxyModel>
#include <QTimer>

namespace trainyard {

class MetricStore;
class Scheduler;

/// Every run of the open experiment (live, from the Scheduler) and of past
/// experiments (RunStore::readHistory of their runs roots), one row each,
/// with its final metrics. It only formats: the run folders are RunStore's.
class RunTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns {
        ExperimentColumn,
        NameColumn,
        ModelColumn,
        DataColumn,
        StateColumn,
        StepColumn,
        LossColumn,
        MrrColumn,
        Hits10Column,
        AccuracyColumn,
        StartedColumn,
        DurationColumn,
        FolderColumn,
        ColumnCount
    };
    enum Roles {
        SortRole = Qt::UserRole, ///< numbers as numbers, for sorting
        RunIdRole,               ///< RunId of a live run, 0 for past runs
        RunDirRole,
    };

    struct Row
    {
        QString experiment;
        QString name;
        QString model;
        QString data;
        QString state;
        qint64 step = -1;
        double loss = qQNaN();
        double mrr = qQNaN();
        double hits10 = qQNaN();
        double accuracy = qQNaN();
        QDateTime started;
        QDateTime ended;
        QString runDir;
        RunId id = 0;
    };

    explicit RunTableModel(QObject *parent = nullptr);

    /// The open experiment (live rows); nullptr for none.
    void setSession(const QString &experimentName, const QString &runsRoot, Scheduler *scheduler, MetricStore *metrics);
    /// Folders holding past experiments' runs roots (scanned on refreshHistory()).
    void setHistoryRoots(const QStringList &roots) { m_historyRoots = roots; }
    /// Reads the past runs again (only what their metrics.jsonl gained since the last time).
    void refreshHistory();
    /// The row of a past run.
    static Row pastRow(const RunRecord &run, const QString &experiment);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    Row liveRow(RunId id) const;
    void rebuildLive();
    void refreshLive();

    Scheduler *m_scheduler = nullptr;
    MetricStore *m_metrics = nullptr;
    QString m_experiment;
    QString m_runsRoot;
    QStringList m_historyRoots;
    QList<Row> m_live;
    QList<Row> m_past;
    QHash<QString, QList<RunRecord>> m_history; ///< runs root -> its past runs, as read last time
    QTimer m_refresh;
};

/// Sorts the runs table by RunTableModel::SortRole with the rows that have no
/// value in the sorted column (no loss yet, no MRR) last, ascending or
/// descending: the best loss first, never a column of blanks.
class RunTableSortProxy : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit RunTableSortProxy(QObject *parent = nullptr);

protected:
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;
};

} // namespace trainyard
