#include "ui/board/runcontrol.h"

#include "orchestration/check/experimentcheck.h"
#include "orchestration/document/experimentdocument.h"
#include "orchestration/runstore/runstore.h"
#include "ui/app/sessioncontroller.h"
#include "ui/board/boardview.h"
#include "ui/common/prompts.h"
#include "ui/common/uilogcategories.h"

#include <QMainWindow>
#include <QPointer>
#include <QStatusBar>
#include <QThread>

#include <memory>

namespace trainyard {

RunControl::RunControl(SessionController *sessions, BoardView *board, QMainWindow *window)
    : QObject(window)
    , m_sessions(sessions)
    , m_board(board)
    , m_window(window)
{
}

RunControl::~RunControl()
{
    // A check still under way ends within its workers' timeouts; a QThread
    // must not be destroyed while it runs.
    if (m_checkThread) {
        m_checkThread->wait();
        delete m_checkThread;
    }
}

ExperimentDocument *RunControl::document() const
{
    return m_sessions->document();
}

void RunControl::forEachSelected(const std::function<bool(ExperimentDocument *, RunId, QString *)> &action)
{
    ExperimentDocument *document = this->document();
    if (!document) {
        return;
    }
    QStringList problems;
    for (RunId id : m_board->selectedRuns()) {
        QString error;
        if (!action(document, id, &error) && !error.isEmpty()) {
            problems.append(error);
        }
    }
    if (!problems.isEmpty()) {
        qCInfo(lcUi).noquote() << "run control refused:" << problems.join(QLatin1String("; "));
        m_window->statusBar()->showMessage(problems.join(QLatin1String("; ")), 10000);
    }
    Q_EMIT runsChanged();
}

bool RunControl::confirmNewAttempts(ExperimentDocument *document, const QString &verb)
{
    QStringList lines;
    for (RunId id : m_board->selectedRuns()) {
        const QString kept = document->attemptKeptOnRetry(id);
        if (kept.isEmpty()) {
            continue;
        }
        const RunInfo run = document->run(id);
        const int attempt = RunStore::attemptNumber(kept);
        // A queued run's folder with results holds another spec's: say which key differs.
        const QString was =
            isNewAttempt(run) ? tr("%1: %2").arg(
                run.name, run.message.mid(kNewAttempt.size()).section(QStringLiteral("; they are kept"), 0, 0))
                              : tr("%1 %2").arg(run.name, runStateName(run.state));
        lines.append(tr("%1. %2 starts attempt %3; attempt %4 is kept as %5 (its files, its curve and its row in "
                        "the runs table).")
                         .arg(was, verb)
                         .arg(attempt + 1)
                         .arg(attempt)
                         .arg(kept));
    }
    if (lines.isEmpty()) {
        return true;
    }
    const QString question = lines.join(QStringLiteral("\n\n")) + tr("\n\nNothing is deleted.");
    return !m_prompts || m_prompts->startNewAttempts(verb, question);
}

void RunControl::startSelected()
{
    if (ExperimentDocument *s = document(); s && !confirmNewAttempts(s, tr("Start"))) {
        return;
    }
    forEachSelected([](ExperimentDocument *s, RunId id, QString *e) { return s->startRun(id, e); });
}

void RunControl::stopSelected()
{
    forEachSelected([](ExperimentDocument *s, RunId id, QString *e) { return s->stopRun(id, e); });
}

void RunControl::pauseSelected()
{
    forEachSelected([](ExperimentDocument *s, RunId id, QString *e) { return s->pauseRun(id, e); });
}

void RunControl::resumeSelected()
{
    forEachSelected([](ExperimentDocument *s, RunId id, QString *e) { return s->resumeRun(id, e); });
}

void RunControl::retrySelected()
{
    if (ExperimentDocument *s = document(); s && !confirmNewAttempts(s, tr("Retry"))) {
        return;
    }
    forEachSelected([](ExperimentDocument *s, RunId id, QString *e) {
        // From its checkpoint when it has one and did not finish, else a new attempt.
        if (!s->retryRun(id, /*fromCheckpoint=*/true, e)) {
            return false;
        }
        // Retry means "run it again now", not "back to the queue"; dispatching
        // under way may have started it already.
        if (s->run(id).state == RunState::Queued && !s->startRun(id, e)) {
            *e = tr("%1 is queued again: %2").arg(s->run(id).name, *e);
            return false;
        }
        return true;
    });
}

void RunControl::startAll()
{
    ExperimentDocument *document = this->document();
    if (!document || m_checking) {
        return; // pressed again while the data is being checked: that check decides
    }
    const Experiment pending = runsToCheck(document);
    if (pending.runCount() == 0) {
        confirmAndStart(document, {});
        return;
    }
    // The worker's check takes a second or two per data source: off the GUI
    // thread (its QProcesses are waited for there), the window stays live.
    struct Outcome
    {
        QSet<QByteArray> passed;
        QStringList problems;
    };
    auto outcome = std::make_shared<Outcome>();
    outcome->passed = m_dataPassed;
    const QString program = document->workerProgram();
    QThread *thread = QThread::create([outcome, pending, program] {
        outcome->problems = ExperimentCheck(program, nullptr).dataProblems(pending, &outcome->passed);
    });
    m_checking = true;
    m_checkThread = thread;
    m_window->statusBar()->showMessage(tr("Checking the data of the runs to start…"));
    const QPointer<ExperimentDocument> checked(document);
    connect(thread, &QThread::finished, this, [this, thread, outcome, checked] {
        thread->deleteLater();
        m_checkThread = nullptr;
        m_checking = false;
        m_dataPassed = outcome->passed;
        m_window->statusBar()->clearMessage();
        // Another experiment opened meanwhile: this check was not about it.
        if (checked && checked == this->document()) {
            confirmAndStart(checked, outcome->problems);
        }
    });
    thread->start();
}

void RunControl::confirmAndStart(ExperimentDocument *document, const QStringList &dataProblems)
{
    // Missing GPUs are not asked about again: the banner above the board says
    // what becomes of their lanes.
    QStringList problems = document->busyDeviceWarnings() + (m_specProblems ? m_specProblems() : QStringList());
    for (const QString &problem : dataProblems) {
        if (!problems.contains(problem)) {
            problems << problem;
        }
    }
    // A queued run whose folder holds another spec's results starts a new attempt.
    for (const RunInfo &run : document->allRuns()) {
        if (isNewAttempt(run)) {
            problems << QStringLiteral("%1: %2").arg(run.name, run.message);
        }
    }
    if (!problems.isEmpty() && m_prompts && !m_prompts->startAnyway(problems)) {
        return;
    }
    qCInfo(lcUi) << "start all:" << document->totalCount() - document->finishedCount() << "runs not finished";
    document->startAll();
    Q_EMIT runsChanged();
}

Experiment RunControl::runsToCheck(ExperimentDocument *document) const
{
    // Only the runs Start all would start; a data source that passed once
    // this session is not checked again.
    Experiment pending;
    for (int l = 0; l < document->laneCount(); ++l) {
        ExperimentLane lane;
        lane.device = document->lane(l).device;
        for (RunId id : document->lane(l).runs) {
            const RunInfo run = document->run(id);
            if ((run.state == RunState::Queued || run.state == RunState::Stopped)
                && !m_dataPassed.contains(ExperimentCheck::dataKey(run.spec))) {
                lane.runs.append(ExperimentRun{run.spec, 1});
            }
        }
        pending.lanes.append(lane);
    }
    return pending;
}

void RunControl::stopAll()
{
    if (ExperimentDocument *s = document()) {
        qCInfo(lcUi) << "stop all:" << s->activeCount() << "active runs";
        s->stopAll();
        Q_EMIT runsChanged();
    }
}

} // namespace trainyard
