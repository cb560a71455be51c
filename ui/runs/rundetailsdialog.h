#pragma once

#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/records/runnotes.h"
#include "orchestration/records/runrecord.h"

#include <QDialog>
#include <QJsonObject>
#include <QPointer>

#include <functional>
#include <optional>

class QFormLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;
class QTimer;
class QTreeWidget;

namespace trainyard {

class LogView;
class ResolvedSpecView;

/// What a run was, in one window: state and what its exit means, device,
/// host, start, end and duration, throughput, memory and time budget
/// (runusage), its metrics (the last loss, the last and best of every
/// evaluation: "final" once it ended, "latest" while it trains), the worker's command line, the spec
/// resolved with the catalogue's defaults (which values are defaults is
/// shown; copied as JSON on request), the user's tags and note (written to
/// the run folder's notes.json through RunStore) and the whole worker.log.
/// For runs of the open experiment (refreshed from a Source while shown)
/// and past ones (a RunRecord of their folder) alike.
class RunDetailsDialog : public QDialog
{
    Q_OBJECT
public:
    enum class Page {
        Overview,
        Spec,
        Notes,
        Log
    };

    /// `run.info.runDir` names the run's folder; `catalogue` may be empty
    /// (then the spec shows what spec.json holds, and says so).
    RunDetailsDialog(const RunRecord &run, const QString &experiment, const ModelCatalogue &catalogue,
                     QWidget *parent = nullptr);
    ~RunDetailsDialog() override;

    /// A live run's record, asked every second while the dialog is shown;
    /// nullopt once the run is gone (its last record stays).
    using Source = std::function<std::optional<RunRecord>()>;
    void setSource(Source source);
    /// What "Job details" asks what the batch system says of the run's job
    /// (ExperimentDocument::describeJob, through the cluster's reach): it
    /// calls `done` in `context` later, or returns false when nobody can be
    /// asked. It is asked while `owner` (its experiment) lives; empty:
    /// nobody, the button stays disabled.
    using JobDescribed = std::function<void(const QString &title, const QString &text)>;
    using JobSource = std::function<bool(const RunInfo &run, QObject *context, JobDescribed done)>;
    void setJobSource(JobSource source, QObject *owner);
    /// Shows `run` (its notes only while the user has not edited them).
    void setRecord(const RunRecord &run);

    void showPage(Page page);
    Page currentPage() const;

    QString runDir() const { return m_run.info.runDir; }
    /// The spec with the catalogue's defaults filled in (what "Copy spec" copies).
    QJsonObject resolvedSpec() const;
    /// The worker's command line as one line a shell would take.
    QString commandText() const;
    /// The tags and note as edited in the dialog.
    RunNotes editedNotes() const;
    /// Writes the edited notes to the run folder; true when there was nothing
    /// to write. Emits notesSaved.
    bool saveNotes(QString *error = nullptr);
    LogView *log() const { return m_log; }

    /// The shell form of one command line: arguments with anything but
    /// [A-Za-z0-9_./:=@%+,-] single-quoted.
    static QString shellQuoted(const QStringList &command);

Q_SIGNALS:
    void notesSaved(const QString &runDir, const trainyard::RunNotes &notes);

protected:
    /// Closing keeps what was typed into the notes: they are saved.
    void done(int result) override;

private:
    QWidget *createOverview();
    QWidget *createNotes();
    void showOverview();
    void showNotes();
    void refresh();
    void showJobDetails();
    QLabel *addRow(QFormLayout *form, const QString &label, const QString &objectName);

    RunRecord m_run;
    QString m_experiment;
    Source m_source;
    RunNotes m_savedNotes;
    bool m_notesEdited = false;
    bool m_discardNotes = false; // a save failed on closing: the next close lets them go

    QTabWidget *m_tabs;
    ResolvedSpecView *m_specView;
    QLabel *m_name = nullptr;
    QLabel *m_state = nullptr;
    QLabel *m_exit = nullptr;
    QLabel *m_device = nullptr;
    QLabel *m_host = nullptr;
    QLabel *m_job = nullptr;
    QPushButton *m_jobDetails = nullptr;
    bool canAskJobs() const { return m_jobs && m_jobsOwner; }
    JobSource m_jobs;
    QPointer<QObject> m_jobsOwner;
    bool m_asking = false; // "Job details" waits for the answer
    QLabel *m_started = nullptr;
    QLabel *m_ended = nullptr;
    QLabel *m_duration = nullptr;
    QLabel *m_after = nullptr;
    QLabel *m_progress = nullptr;
    QLabel *m_throughput = nullptr;
    QLabel *m_memory = nullptr;
    QLabel *m_budget = nullptr;
    QLabel *m_metricsTitle = nullptr;
    QLabel *m_folder = nullptr;
    QTreeWidget *m_metrics = nullptr;
    QLabel *m_commandLabel = nullptr;
    QPlainTextEdit *m_command = nullptr;
    QLineEdit *m_tags = nullptr;
    QPlainTextEdit *m_note = nullptr;
    QLabel *m_notesStatus = nullptr;
    LogView *m_log = nullptr;
    QTimer *m_timer;
};

} // namespace trainyard
