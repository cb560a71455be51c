#pragma once

#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/records/runrecord.h"
#include "ui/runs/runrow.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QMutex>
#include <QObject>
#include <QStringList>
#include <QThreadPool>

#include <atomic>
#include <memory>

namespace trainyard {

/// The past runs the runs table shows: those of every experiment folder in
/// the history roots but the open experiment's, and the open experiment's
/// earlier attempts (kept by a new attempt: RunStore::archiveRunDir), each a
/// RunRecord (RunStore::readRunFiles, readRunMetrics) with its params.json,
/// and the table's RunRow of it (its spec resolved with the catalogue).
///
/// Thousands of run folders are read without holding up the window: a
/// refresh lists the folders and compares their files' sizes, times and
/// inodes with what was read before (no file is opened), on a thread pool;
/// what is new or changed is read there too, the small files first (the runs appear,
/// with status.json's last step and loss), then what each metrics.jsonl
/// gained since it was last read (its evaluations). Each read replaces a
/// run's record and row whole, unless a later refresh asked for it again.
class PastRuns : public QObject
{
    Q_OBJECT
public:
    explicit PastRuns(QObject *parent = nullptr);
    /// Waits for the reads in flight (their results are dropped).
    ~PastRuns() override;

    /// Folders holding past experiments' runs roots (read on refresh()).
    void setRoots(const QStringList &roots) { m_roots = roots; }
    QStringList roots() const { return m_roots; }
    /// Folders of TensorBoard logs (TensorBoardRun), each one experiment
    /// named as the folder: its subfolders holding events files are its
    /// runs (or it is one run itself). Read only, as every past run.
    void setTensorBoardFolders(const QStringList &folders) { m_tensorBoardFolders = folders; }
    QStringList tensorBoardFolders() const { return m_tensorBoardFolders; }
    /// The catalogue the rows' specs are resolved with; the rows are made
    /// again in the background (changed()).
    void setCatalogue(const ModelCatalogue &catalogue);
    /// Lists the runs again, in the background; `runsRoot` and `experiment`
    /// are the open experiment's (empty: none). Runs whose folder is gone go
    /// (between removing() and removed()); new and changed ones are read and
    /// announced by added() and changed().
    void refresh(const QString &runsRoot, const QString &experiment);
    /// Runs the reads refresh() started to their end and announces them
    /// (tests, tools, the benchmark).
    void waitForReads();
    /// Reads not announced yet.
    int pending() const { return m_inFlight; }

    int size() const { return int(m_entries.size()); }
    /// Past run `i`, in the order they were read.
    const RunRecord &run(int i) const { return m_entries.at(i).run; }
    /// Its row of the runs table.
    const RunRow &row(int i) const { return m_entries.at(i).row; }
    /// The name of the experiment of past run `i` (its folder's name).
    QString experiment(int i) const { return m_entries.at(i).experiment; }
    /// The tags and note of past run `i` changed (the run details saved them).
    void setNotes(int i, const RunNotes &notes);

    /// A file of a run folder as a refresh compares it (lstat: a link is
    /// not followed; size -1 when absent).
    struct FileStamp
    {
        qint64 size = -1;
        qint64 modifiedNs = 0;
        quint64 inode = 0;
        bool operator==(const FileStamp &o) const
        {
            return size == o.size && modifiedNs == o.modifiedNs && inode == o.inode;
        }
        bool operator!=(const FileStamp &o) const { return !(*this == o); }
    };
    /// A run folder's small files (spec, status, notes, params) and its metrics.jsonl.
    struct Stamps
    {
        FileStamp spec, status, notes, params, metrics;
        bool sameFiles(const Stamps &o) const
        {
            return spec == o.spec && status == o.status && notes == o.notes && params == o.params;
        }
    };

Q_SIGNALS:
    void removing();
    void removed();
    /// Runs `first` to `first + count - 1` were read for the first time (appended).
    void added(int first, int count);
    /// Runs `indices` were read again (a file changed, their metrics, the
    /// catalogue); `specs`: the hyperparameters of one of them changed.
    void changed(const QList<int> &indices, bool specs);

private:
    enum class Work {
        Files,   ///< spec, status, notes, params
        Metrics, ///< what metrics.jsonl gained
        Row      ///< the row again (another catalogue)
    };
    struct Entry
    {
        RunRecord run;
        RunRow row;
        QString experiment;
        QJsonObject reported; ///< params.json
        Stamps stamps;        ///< the small files as read (its `metrics` unused)
        FileStamp metricsApplied;
        FileStamp metricsAsked;
        quint64 serial = 0; ///< the read asked for last; an older one's result is dropped
        int generation = 0; ///< of the catalogue `row` was made with
    };
    /// One run folder to read, and what came of it.
    struct Item
    {
        QString root;
        QString name;
        Work work = Work::Files;
        quint64 serial = 0;
        Stamps stamps;
        QString experiment;
        RunRecord run;       ///< read into (a copy of the entry's)
        RunRow row;          ///< made again (the entry's lends its resolved spec)
        bool hasRow = false; ///< `row` is made with the catalogue of now
        QJsonObject reported;
        bool isRun = true;
        int generation = 0; ///< of the catalogue the row was made with
    };
    struct Listed
    {
        QString root, name, experiment;
        Stamps stamps;
    };
    /// What a refresh found on disk.
    struct Scan
    {
        quint64 serial = 0;
        QList<Listed> listed;
    };
    /// Compares what a refresh found with what was read, and reads what changed.
    void apply(const Scan &scan);
    Item itemOf(int index, Work work);
    void queueDrain(); ///< (m_resultsLock held)
    void read(QList<Item> items, int priority);
    void post(QList<Item> items);
    void drain();

    QStringList m_roots;
    QStringList m_tensorBoardFolders;
    ModelCatalogue m_catalogue;
    int m_generation = 0; ///< of m_catalogue
    QList<Entry> m_entries;
    QHash<QString, int> m_index;        ///< run folder -> its entry
    QHash<QString, quint64> m_newReads; ///< run folder -> the read asked for of one not listed yet
    quint64 m_serial = 0;
    int m_inFlight = 0; ///< reads asked for, their results not applied

    QThreadPool m_pool;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    QMutex m_resultsLock;
    QList<Item> m_results; ///< read, not yet applied (guarded by m_resultsLock)
    QList<Scan> m_scanned; ///< listed, not yet applied (guarded by m_resultsLock)
    quint64 m_scan = 0;    ///< the last refresh's
    bool m_drainQueued = false;
};

} // namespace trainyard
