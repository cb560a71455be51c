#pragma once

#include "catalogue/modelcatalogue.h"
#include "records/runinfo.h"
#include "runs/paramcolumns.h"
#include "runs/pastruns.h"
#include "runs/runrow.h"
#include "runstore/runnotes.h"
#include "runstore/runrecord.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QHash>
#include <QPointer>
#include <QSortFilterProxyModel>
#include <QTimer>

namespace trainyard {

class MetricStore;
class Orchestrator;
class Session;

/// Every run of the open experiment (live, from the Orchestrator) and of past
/// experiments (PastRuns), one row each (RunRow), with its tags and note
/// (notes.json), its final metrics and, after the fixed columns, one column
/// per hyperparameter (ParamColumns): the keys of the runs' specs, flattened
/// ("model.dim", "train.lr") and resolved with the catalogue's defaults when
/// it has one. The view shows the ones whose values differ between the runs
/// (paramDiffers) unless the user chose otherwise. It only formats: the run
/// folders are RunStore's.
class RunTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns {
        ExperimentColumn,
        NameColumn,
        TagsColumn,
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
        NoteColumn,
        FolderColumn,
        FixedColumnCount ///< the hyperparameter columns follow
    };
    enum Roles {
        SortRole = Qt::UserRole, ///< numbers as numbers, for sorting
        RunIdRole,               ///< RunId of a live run, 0 for past runs
        RunDirRole,
        ExperimentRole, ///< the experiment's name (without "(open)")
        ParamKeyRole,   ///< header: the hyperparameter of a column ("train.lr"); empty for fixed columns
    };

    explicit RunTableModel(QObject *parent = nullptr);

    /// The open experiment (live rows); nullptr for none. Its name and runs
    /// root are followed: a rename (Save as of a new experiment) moves its
    /// runs folder, whose runs stay the live rows, never past ones too.
    void setSession(Session *session);
    /// The same from its parts (tests; a session renamed is not followed).
    void setSession(const QString &experimentName, const QString &runsRoot, Orchestrator *orchestrator,
                    MetricStore *metrics);
    /// The open experiment's name and runs root changed: the live rows are
    /// labelled with the name and the past runs read again without that root.
    void setExperiment(const QString &experimentName, const QString &runsRoot);
    /// Folders holding past experiments' runs roots (scanned on refreshHistory()).
    void setHistoryRoots(const QStringList &roots) { m_history.setRoots(roots); }
    /// Reads the past runs again (only what their metrics.jsonl gained since the last time).
    void refreshHistory();
    /// The catalogue the hyperparameters are resolved with (their defaults);
    /// empty: the specs as spec.json holds them.
    void setCatalogue(const ModelCatalogue &catalogue);
    /// The tags and note of the run in `runDir` changed (the run details saved them).
    void setNotes(const QString &runDir, const RunNotes &notes);
    /// The past run of a row (nullptr for live rows): what its details show.
    const RunRecord *pastRun(int row) const;

    /// The hyperparameters of the runs, in column order (after FixedColumnCount).
    QStringList paramKeys() const { return m_params.keys(); }
    /// The column of hyperparameter `key`, -1 when no run has it.
    int paramColumn(const QString &key) const;
    /// True when the runs do not all have the same value of `key` (one
    /// without it counts as a value): the columns shown by default.
    bool paramDiffers(const QString &key) const { return m_params.differs(key); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    RunRow liveRow(RunId id) const;
    /// runconfigfile::readParams of `runDir`, read again only when the file changed.
    QJsonObject reportedParams(const QString &runDir) const;
    void rebuildLive();
    void addLive(RunId id);
    void refreshLive();
    const RunRow &rowAt(int row) const;

    QPointer<Session> m_session;
    Orchestrator *m_orchestrator = nullptr;
    MetricStore *m_metrics = nullptr;
    QString m_experiment;
    QString m_runsRoot;
    QList<RunRow> m_live;
    QList<RunRow> m_past;                 ///< m_history's runs, in its order
    PastRuns m_history;                   ///< m_past's records
    QHash<QString, RunNotes> m_liveNotes; ///< run name -> notes.json of the open experiment's runs
    struct Reported
    {
        QDateTime modified;
        qint64 size = -1;
        QJsonObject values;
    };
    mutable QHash<QString, Reported> m_reported; ///< run folder -> its params.json, as last read
    ModelCatalogue m_catalogue;
    ParamColumns m_params;
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
