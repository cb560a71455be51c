#pragma once

#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/records/runinfo.h"
#include "orchestration/records/runnotes.h"
#include "orchestration/records/runrecord.h"
#include "ui/runs/columnstats.h"
#include "ui/runs/paramcolumns.h"
#include "ui/runs/pastruns.h"
#include "ui/runs/reportedparams.h"
#include "ui/runs/runrow.h"
#include "ui/runs/runtablecolumns.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QHash>
#include <QPointer>
#include <QTimer>

namespace trainyard {

class ExperimentDocument;
class MetricStore;

/// Every run of the open experiment (live, from its document) and of past
/// experiments (PastRuns, read in the background), one row each (RunRow),
/// with its tags and note (notes.json), its final metrics and, after the
/// fixed columns (RunTableColumns), one column per hyperparameter
/// (ParamColumns): the keys of the runs' specs, flattened ("model.dim",
/// "train.lr") and resolved with the catalogue's defaults when it has one.
/// The view shows the ones whose values differ between the runs
/// (paramDiffers) and have a value somewhere (columnBlank) unless the user
/// chose otherwise; the numbers of a column are written alike (ColumnStats).
/// It only formats: the run folders are RunStore's.
class RunTableModel : public QAbstractTableModel, public RunTableColumns
{
    Q_OBJECT
public:
    explicit RunTableModel(QObject *parent = nullptr);

    /// The open experiment (live rows); nullptr for none. Its name and runs
    /// root are followed: a rename (Save as of a new experiment) moves its
    /// runs folder, whose runs stay the live rows, never past ones too.
    void setDocument(ExperimentDocument *document);
    /// The open experiment set by setDocument() (nullptr: none).
    ExperimentDocument *document() const;
    /// The same from its parts (tests; a document renamed is not followed).
    void setDocument(const QString &experimentName, const QString &runsRoot, ExperimentDocument *document);
    /// The open experiment's name and runs root changed: the live rows are
    /// labelled with the name and the past runs read again without that root.
    void setExperiment(const QString &experimentName, const QString &runsRoot);
    /// Folders holding past experiments' runs roots (scanned on refreshHistory()).
    void setHistoryRoots(const QStringList &roots) { m_history.setRoots(roots); }
    /// Folders of TensorBoard logs shown as past experiments (PastRuns).
    void setTensorBoardFolders(const QStringList &folders) { m_history.setTensorBoardFolders(folders); }
    /// Reads the past runs again: what is new or changed since the last
    /// time, in the background (rows arrive as they are read).
    void refreshHistory();
    /// Waits until the past runs refreshHistory() asked for are in (tests, tools).
    void waitForHistory();
    /// Run folders still being read.
    int historyPending() const { return m_history.pending(); }
    /// The catalogue the hyperparameters are resolved with (their defaults);
    /// empty: the specs as spec.json holds them.
    void setCatalogue(const ModelCatalogue &catalogue);
    const ModelCatalogue &catalogue() const { return m_catalogue; }
    /// The open experiment's curves (nullptr for none).
    MetricStore *metrics() const { return m_metrics; }
    /// The tags and note of the run in `runDir` changed (the run details saved them).
    void setNotes(const QString &runDir, const RunNotes &notes);
    /// The past run of a row (nullptr for live rows): what its details show.
    const RunRecord *pastRun(int row) const;
    /// The row's run as the table holds it.
    const RunRow &row(int row) const;
    /// Changes at every change of a row's data (caches of the proxy follow it).
    quint64 revision() const { return m_revision; }

    /// The hyperparameters of the runs, in column order (after FixedColumnCount).
    const QStringList &paramKeys() const { return m_params.keys(); }
    /// The column of hyperparameter `key`, -1 when no run has it.
    int paramColumn(const QString &key) const;
    /// True when the runs do not all have the same value of `key` (one
    /// without it counts as a value): the columns shown by default.
    bool paramDiffers(const QString &key) const { return m_params.differs(key); }
    /// True when no run has a value in `column`: hidden by default.
    bool columnBlank(int column) const { return m_stats.blank(column); }
    /// How the numbers of `column` are written.
    NumberFormat columnFormat(int column) const { return m_stats.format(column); }
    /// The value of `row` in `column` (RunTableColumns::value).
    QVariant value(int row, int column) const { return RunTableColumns::value(this->row(row), column, paramKeys()); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    /// Which columns are blank or differ between the runs changed (what
    /// the view shows by default).
    void columnDefaultsChanged();

private:
    RunRow liveRow(RunId id) const;
    void rebuildLive();
    void addLive(RunId id);
    void refreshLive();
    void pastAdded(int first, int count);
    void pastChanged(const QList<int> &indices, bool specs);
    void pastRebuilt();
    /// The columns of the past rows (all of them).
    ParamColumns pastColumns() const;
    /// The columns of the live and past rows; a reset when their keys changed.
    void updateColumns();
    /// The columns' statistics again; `announce` false inside a reset.
    void updateStats(bool announce = true);
    void changed();

    QPointer<ExperimentDocument> m_document;
    MetricStore *m_metrics = nullptr;
    QString m_experiment;
    QString m_runsRoot;
    QList<RunRow> m_live;
    PastRuns m_history;                   ///< the past rows, after the live ones
    int m_pastShown = 0;                  ///< of m_history's rows, those the model has announced
    QHash<QString, RunNotes> m_liveNotes; ///< run name -> notes.json of the open experiment's runs
    mutable ReportedParams m_reported;    ///< the live runs' params.json
    ModelCatalogue m_catalogue;
    ParamColumns m_pastParams; ///< the past rows' columns
    ParamColumns m_params;     ///< with the live rows'
    ColumnStats m_pastStats;   ///< the past rows' (grows as rows come; taken again by m_statsTimer)
    ColumnStats m_stats;       ///< with the live rows'
    bool m_pastStatsStale = true;
    quint64 m_revision = 0;
    QTimer m_refresh;
    QTimer m_statsTimer;
    /// Lane -> its info and busy slots, for the rows being made (liveRow).
    mutable QHash<int, QPair<LaneInfo, int>> m_lanes;
};

} // namespace trainyard
