#include "ui/runs/rundetailsdialog.h"

#include "orchestration/experiment/shelltext.h"
#include "orchestration/records/exittext.h"
#include "orchestration/runstore/runstore.h"
#include "ui/board/carddelegate.h"
#include "ui/runs/logview.h"
#include "ui/runs/resolvedspecview.h"
#include "ui/runs/runusage.h"

#include <QClipboard>
#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QTabWidget>
#include <QTimer>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>

#include <cmath>

namespace trainyard {

namespace {

QString timeText(const QDateTime &time)
{
    return time.isValid() ? time.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")) : QStringLiteral("—");
}

QString numberText(double value)
{
    return std::isfinite(value) ? QString::number(value, 'g', 6) : QStringLiteral("—");
}

QString stepText(std::int64_t step)
{
    return step >= 0 ? QString::number(step) : QStringLiteral("—");
}

QTreeWidgetItem *metricItem(const QString &name, const QString &last, const QString &lastStep,
                            const QString &best = QString(), const QString &bestStep = QString())
{
    auto *item = new QTreeWidgetItem(QStringList{name, last, lastStep, best, bestStep});
    for (int c = 1; c < 5; ++c) {
        item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
    }
    return item;
}

} // namespace

RunDetailsDialog::RunDetailsDialog(const RunRecord &run, const QString &experiment, const ModelCatalogue &catalogue,
                                   QWidget *parent)
    : QDialog(parent)
    , m_run(run)
    , m_experiment(experiment)
    , m_savedNotes(run.notes)
    , m_tabs(new QTabWidget(this))
    , m_specView(new ResolvedSpecView(catalogue, this))
    , m_log(new LogView(this))
    , m_timer(new QTimer(this))
{
    setObjectName(QStringLiteral("runDetails"));
    setWindowTitle(tr("Run details: %1").arg(run.info.name));
    m_log->setObjectName(QStringLiteral("log"));
    m_tabs->addTab(createOverview(), tr("Overview"));
    m_tabs->addTab(m_specView, tr("Spec"));
    m_tabs->addTab(createNotes(), tr("Notes"));
    m_tabs->addTab(m_log, tr("Log"));

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_tabs, 1);
    layout->addWidget(buttons);
    resize(820, 620);

    connect(m_timer, &QTimer::timeout, this, &RunDetailsDialog::refresh);
    setRecord(run);
    showNotes();
    m_log->setFile(run.info.runDir.isEmpty() ? QString() : run.info.runDir + QStringLiteral("/worker.log"));
}

QLabel *RunDetailsDialog::addRow(QFormLayout *form, const QString &label, const QString &objectName)
{
    auto *value = new QLabel(this);
    value->setObjectName(objectName);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    value->setWordWrap(true);
    form->addRow(label, value);
    return value;
}

QWidget *RunDetailsDialog::createOverview()
{
    auto *page = new QWidget(this);
    auto *form = new QFormLayout;
    m_name = addRow(form, tr("Run"), QStringLiteral("name"));
    m_state = addRow(form, tr("State"), QStringLiteral("state"));
    m_exit = addRow(form, tr("Exit"), QStringLiteral("exit"));
    m_device = addRow(form, tr("Device"), QStringLiteral("device"));
    m_host = addRow(form, tr("Host"), QStringLiteral("host"));
    auto *jobRow = new QHBoxLayout;
    m_job = new QLabel(this);
    m_job->setObjectName(QStringLiteral("job"));
    m_job->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_jobDetails = new QPushButton(tr("Job details"), this);
    m_jobDetails->setObjectName(QStringLiteral("jobDetails"));
    m_jobDetails->setToolTip(tr("What the batch system says of the job (Slurm: scontrol show job)"));
    connect(m_jobDetails, &QPushButton::clicked, this, &RunDetailsDialog::showJobDetails);
    jobRow->addWidget(m_job, 1);
    jobRow->addWidget(m_jobDetails);
    form->addRow(tr("Batch job"), jobRow);
    m_started = addRow(form, tr("Started"), QStringLiteral("started"));
    m_ended = addRow(form, tr("Ended"), QStringLiteral("ended"));
    m_duration = addRow(form, tr("Duration"), QStringLiteral("duration"));
    m_progress = addRow(form, tr("Progress"), QStringLiteral("progress"));
    m_throughput = addRow(form, tr("Throughput"), QStringLiteral("throughput"));
    m_memory = addRow(form, tr("Memory"), QStringLiteral("memory"));
    m_budget = addRow(form, tr("Time budget"), QStringLiteral("budget"));
    m_after = addRow(form, tr("Runs after"), QStringLiteral("after"));

    auto *folderRow = new QHBoxLayout;
    m_folder = new QLabel(this);
    m_folder->setObjectName(QStringLiteral("folder"));
    m_folder->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *open = new QPushButton(tr("Open folder"), this);
    connect(open, &QPushButton::clicked, this, [this] {
        if (QFileInfo::exists(m_run.info.runDir)) {
            QDesktopServices::openUrl(QUrl::fromLocalFile(m_run.info.runDir));
        }
    });
    folderRow->addWidget(m_folder, 1);
    folderRow->addWidget(open);
    form->addRow(tr("Folder"), folderRow);

    m_metrics = new QTreeWidget(this);
    m_metrics->setObjectName(QStringLiteral("metrics"));
    m_metrics->setRootIsDecorated(false);
    m_metrics->setHeaderLabels({tr("Metric"), tr("Last"), tr("At step"), tr("Best"), tr("At step")});
    m_metrics->header()->setSectionResizeMode(0, QHeaderView::Stretch);

    m_command = new QPlainTextEdit(this);
    m_command->setObjectName(QStringLiteral("command"));
    m_command->setReadOnly(true);
    m_command->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_command->setMaximumHeight(72);
    auto *copyCommand = new QPushButton(tr("Copy command"), this);
    copyCommand->setObjectName(QStringLiteral("copyCommand"));
    connect(copyCommand, &QPushButton::clicked, this, [this] { QGuiApplication::clipboard()->setText(commandText()); });
    auto *commandRow = new QHBoxLayout;
    commandRow->addWidget(m_command, 1);
    commandRow->addWidget(copyCommand, 0, Qt::AlignTop);

    auto *layout = new QVBoxLayout(page);
    layout->addLayout(form);
    m_metricsTitle = new QLabel(this);
    m_metricsTitle->setObjectName(QStringLiteral("metricsTitle"));
    layout->addWidget(m_metricsTitle);
    layout->addWidget(m_metrics, 1);
    m_commandLabel = new QLabel(this);
    layout->addWidget(m_commandLabel);
    layout->addLayout(commandRow);
    return page;
}

QWidget *RunDetailsDialog::createNotes()
{
    auto *page = new QWidget(this);
    m_tags = new QLineEdit(this);
    m_tags->setObjectName(QStringLiteral("tags"));
    m_tags->setPlaceholderText(tr("comma-separated, e.g. baseline, lr sweep"));
    m_note = new QPlainTextEdit(this);
    m_note->setObjectName(QStringLiteral("note"));
    m_note->setPlaceholderText(tr("What this run was for, what came of it…"));
    m_notesStatus = new QLabel(this);
    auto *save = new QPushButton(tr("Save notes"), this);
    save->setObjectName(QStringLiteral("saveNotes"));
    connect(save, &QPushButton::clicked, this, [this] {
        QString error;
        if (!saveNotes(&error)) {
            m_notesStatus->setText(error);
        }
    });
    const auto edited = [this] {
        m_notesEdited = true;
        m_notesStatus->setText(tr("Not saved yet (closing saves them)."));
    };
    connect(m_tags, &QLineEdit::textEdited, this, edited);
    connect(m_note, &QPlainTextEdit::textChanged, this, [this, edited] {
        if (m_note->toPlainText() != m_savedNotes.note) {
            edited();
        }
    });
    auto *form = new QFormLayout;
    form->addRow(tr("Tags"), m_tags);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_notesStatus, 1);
    buttons->addWidget(save);
    auto *layout = new QVBoxLayout(page);
    layout->addLayout(form);
    layout->addWidget(new QLabel(tr("Note (kept in the run folder's notes.json)"), this));
    layout->addWidget(m_note, 1);
    layout->addLayout(buttons);
    return page;
}

void RunDetailsDialog::setSource(Source source)
{
    m_source = std::move(source);
    if (m_source) {
        m_timer->start(1000);
    } else {
        m_timer->stop();
    }
}

void RunDetailsDialog::refresh()
{
    if (!m_source || !isVisible()) {
        return;
    }
    if (std::optional<RunRecord> run = m_source()) {
        run->notes = m_run.notes; // this dialog writes them: its copy is the latest
        setRecord(*run);
    } else {
        m_timer->stop(); // gone: what it last was stays
    }
}

void RunDetailsDialog::setRecord(const RunRecord &run)
{
    const bool specChanged =
        run.info.spec != m_run.info.spec || run.info.recipe != m_run.info.recipe || m_specView->resolved().isEmpty();
    m_run = run;
    if (specChanged) {
        // before the overview: its budget is the resolved spec's
        m_specView->setSpec(run.info.spec, run.info.recipe);
    }
    showOverview();
    if (!m_notesEdited && run.notes != m_savedNotes) {
        m_savedNotes = run.notes;
        showNotes();
    }
}

void RunDetailsDialog::showOverview()
{
    const RunInfo &info = m_run.info;
    m_name->setText(m_experiment.isEmpty() ? info.name : tr("%1 (experiment %2)").arg(info.name, m_experiment));
    const QString state = m_run.stateName();
    m_state->setText(info.message.isEmpty() ? state : QStringLiteral("%1: %2").arg(state, info.message));
    // A folder with neither status.json nor a done line (TensorBoard logs, a
    // script killed before its end) does not say how the run ended.
    const bool endTold = m_run.hasStatus || (m_run.hasDone && !m_run.doneStatus.isEmpty());
    m_exit->setText(endTold ? exitText(info) : tr("unknown: the run's folder does not say"));
    m_device->setText(info.device.isEmpty() ? QStringLiteral("—") : info.device.toString());
    m_host->setText(info.host.isEmpty() ? QStringLiteral("—") : info.host);
    m_job->setText(info.jobId.isEmpty()         ? tr("— (a local process)")
                   : info.queueReason.isEmpty() ? info.jobId
                                                : tr("%1, pending: %2").arg(info.jobId, info.queueReason));
    m_jobDetails->setEnabled(!info.jobId.isEmpty() && canAskJobs() && !m_asking);
    m_started->setText(timeText(info.started));
    m_ended->setText(timeText(info.ended));
    QString duration = QStringLiteral("—");
    if (isTerminal(info.state) && trainedSeconds(info) >= 0) {
        duration = CardDelegate::formatDuration(trainedSeconds(info));
    } else if (info.started.isValid() && isActive(info.state)) {
        duration = tr("%1 so far")
                       .arg(CardDelegate::formatDuration(double(info.started.secsTo(QDateTime::currentDateTimeUtc()))));
    }
    m_duration->setText(duration);
    QString progress = QStringLiteral("—");
    if (info.step >= 0) {
        progress = info.totalSteps > 0 ? tr("step %1 of %2").arg(info.step).arg(info.totalSteps)
                                       : tr("step %1").arg(info.step);
        if (info.epoch >= 0) {
            progress += tr(", epoch %1").arg(info.epoch);
        }
    }
    m_progress->setText(progress);
    m_throughput->setText(runusage::throughputText(m_run));
    m_memory->setText(runusage::memoryText(m_run));
    m_budget->setText(runusage::budgetText(m_run, m_specView->resolved()));
    // Final only once it has ended; while it trains they are the latest.
    m_metricsTitle->setText(isTerminal(info.state) ? tr("Final metrics") : tr("Latest metrics"));
    m_folder->setText(info.runDir.isEmpty() ? QStringLiteral("—") : info.runDir);
    QString after = info.after.isEmpty() ? QStringLiteral("—") : info.after.join(QStringLiteral(", "));
    if (info.round > 0) {
        after += tr(" (round %1 of %2 of %3)").arg(info.round).arg(info.roundCount).arg(info.rounds);
    }
    m_after->setText(after);

    m_metrics->clear();
    m_metrics->addTopLevelItem(metricItem(QStringLiteral("loss"), numberText(info.loss), stepText(info.step)));
    for (auto it = m_run.evals.constBegin(); it != m_run.evals.constEnd(); ++it) {
        m_metrics->addTopLevelItem(metricItem(it.key(), numberText(it->last), stepText(it->lastStep),
                                              numberText(it->best), stepText(it->bestStep)));
    }
    for (int c = 1; c < m_metrics->columnCount(); ++c) {
        m_metrics->resizeColumnToContents(c);
    }

    // The token travels in the worker's environment, never on its command line.
    m_commandLabel->setText(!endTold ? tr("Command line")
                            : info.state == RunState::Queued || info.state == RunState::Waiting
                                ? tr("Worker command line it would start with now (its token goes in its environment)")
                                : tr("Worker command line it started with (its token went in its environment)"));
    const QString command = commandText();
    const QString none = endTold ? tr("Not recorded (the run started before Trainyard kept it).")
                                 : tr("Not recorded: the run's folder holds no record of how it started.");
    if (m_command->toPlainText() != (command.isEmpty() ? none : command)) {
        m_command->setPlainText(command.isEmpty() ? none : command);
    }
}

void RunDetailsDialog::showNotes()
{
    const QSignalBlocker noteBlocker(m_note);
    m_tags->setText(m_savedNotes.tagsText());
    m_note->setPlainText(m_savedNotes.note);
    m_notesStatus->clear();
}

QJsonObject RunDetailsDialog::resolvedSpec() const
{
    return m_specView->resolved();
}

QString RunDetailsDialog::commandText() const
{
    return shellQuoted(m_run.info.command);
}

QString RunDetailsDialog::shellQuoted(const QStringList &command)
{
    return shellText(command);
}

RunNotes RunDetailsDialog::editedNotes() const
{
    RunNotes notes;
    notes.tags = RunNotes::parseTags(m_tags->text());
    notes.note = m_note->toPlainText();
    return notes;
}

bool RunDetailsDialog::saveNotes(QString *error)
{
    const RunNotes notes = editedNotes();
    if (!m_notesEdited || notes == m_savedNotes) {
        m_notesEdited = false;
        return true;
    }
    const QFileInfo dir(m_run.info.runDir);
    if (m_run.info.runDir.isEmpty()) {
        if (error) {
            *error = tr("The run has no folder to keep notes in.");
        }
        return false;
    }
    // The run's own store: the folder's parent is its runs root, also for past experiments.
    if (!RunStore(dir.absolutePath()).writeNotes(dir.fileName(), notes, error)) {
        return false;
    }
    m_savedNotes = notes;
    m_run.notes = notes;
    m_notesEdited = false;
    showNotes();
    m_notesStatus->setText(tr("Saved."));
    Q_EMIT notesSaved(m_run.info.runDir, notes);
    return true;
}

void RunDetailsDialog::showPage(Page page)
{
    m_tabs->setCurrentIndex(int(page));
}

RunDetailsDialog::Page RunDetailsDialog::currentPage() const
{
    return Page(m_tabs->currentIndex());
}

void RunDetailsDialog::done(int result)
{
    QString error;
    if (!m_discardNotes && !saveNotes(&error)) {
        // Kept open once, so the notes are not lost without a word.
        m_discardNotes = true;
        showPage(Page::Notes);
        m_notesStatus->setText(tr("Not saved: %1. Closing again discards them.").arg(error));
        return;
    }
    QDialog::done(result);
}

RunDetailsDialog::~RunDetailsDialog() = default;

void RunDetailsDialog::setJobSource(JobSource source, QObject *owner)
{
    if (m_jobsOwner) {
        disconnect(m_jobsOwner, nullptr, this, nullptr);
    }
    m_jobs = owner ? std::move(source) : JobSource();
    m_jobsOwner = m_jobs ? owner : nullptr;
    m_asking = false;
    if (m_jobsOwner) {
        // An experiment closed never answers: ask no more.
        connect(owner, &QObject::destroyed, this, [this] {
            m_jobs = {};
            m_asking = false;
            m_jobDetails->setEnabled(false);
        });
    }
    m_jobDetails->setEnabled(!m_run.info.jobId.isEmpty() && canAskJobs());
}

void RunDetailsDialog::showJobDetails()
{
    const QString job = m_run.info.jobId;
    if (job.isEmpty() || !canAskJobs() || m_asking) {
        return;
    }
    const auto show = [this, job](const QString &title, const QString &text) {
        auto *box = new QMessageBox(QMessageBox::Information, tr("Job %1").arg(job), title, QMessageBox::Close, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setObjectName(QStringLiteral("jobDetailsBox"));
        box->setDetailedText(text);
        box->setInformativeText(text.left(400));
        box->open();
    };
    // Asynchronous: a slow controller must not freeze the window.
    const bool asked = m_jobs(m_run.info, this, [this, show](const QString &title, const QString &text) {
        m_asking = false;
        m_jobDetails->setEnabled(canAskJobs());
        show(title, text);
    });
    if (!asked) {
        show(tr("Nobody to ask about job %1").arg(job),
             tr("The open experiment defines no cluster that runs %1's jobs.").arg(m_run.info.device.toString()));
        return;
    }
    m_asking = true;
    m_jobDetails->setEnabled(false);
}

} // namespace trainyard
