#include "board/runcontrol.h"

#include "app/sessioncontroller.h"
#include "board/boardview.h"
#include "common/uilogcategories.h"
#include "dispatch/scheduler.h"
#include "experiment/experimentcheck.h"
#include "runstore/runstore.h"
#include "session/session.h"

#include <QMainWindow>
#include <QMessageBox>
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

Scheduler *RunControl::scheduler() const
{
    return m_sessions->session() ? m_sessions->session()->scheduler() : nullptr;
}

void RunControl::forEachSelected(const std::function<bool(Scheduler *, RunId, QString *)> &action)
{
    Scheduler *scheduler = this->scheduler();
    if (!scheduler) {
        return;
    }
    QStringList problems;
    for (RunId id : m_board->selectedRuns()) {
        QString error;
        if (!action(scheduler, id, &error) && !error.isEmpty()) {
            problems.append(error);
        }
    }
    if (!problems.isEmpty()) {
        qCInfo(lcUi).noquote() << "run control refused:" << problems.join(QLatin1String("; "));
        m_window->statusBar()->showMessage(problems.join(QLatin1String("; ")), 10000);
    }
    Q_EMIT runsChanged();
}

bool RunControl::confirmNewAttempts(Scheduler *scheduler, const QString &verb)
{
    QStringList lines;
    for (RunId id : m_board->selectedRuns()) {
        const QString kept = scheduler->attemptKeptOnRetry(id);
        if (kept.isEmpty()) {
            continue;
        }
        const RunInfo run = scheduler->run(id);
        const int attempt = RunStore::attemptNumber(kept);
        lines.append(tr("%1 %2. %3 starts attempt %4; attempt %5 is kept as %6 (its files, its curve and its row in "
                        "the runs table).")
                         .arg(run.name, runStateName(run.state), verb)
                         .arg(attempt + 1)
                         .arg(attempt)
                         .arg(kept));
    }
    if (lines.isEmpty()) {
        return true;
    }
    const QString question = lines.join(QStringLiteral("\n\n")) + tr("\n\nNothing is deleted.");
    if (m_attemptChooser) {
        return m_attemptChooser(question);
    }
    if (!m_confirmStart) {
        return true; // scripted (tests, screenshots): nobody is there to ask, and nothing is lost
    }
    return QMessageBox::question(m_window, verb, question, QMessageBox::Ok | QMessageBox::Cancel, QMessageBox::Cancel)
           == QMessageBox::Ok;
}

void RunControl::startSelected()
{
    if (Scheduler *s = scheduler(); s && !confirmNewAttempts(s, tr("Start"))) {
        return;
    }
    forEachSelected([](Scheduler *s, RunId id, QString *e) { return s->startRun(id, e); });
}

void RunControl::stopSelected()
{
    forEachSelected([](Scheduler *s, RunId id, QString *e) { return s->stopRun(id, e); });
}

void RunControl::pauseSelected()
{
    forEachSelected([](Scheduler *s, RunId id, QString *e) { return s->pauseRun(id, e); });
}

void RunControl::resumeSelected()
{
    forEachSelected([](Scheduler *s, RunId id, QString *e) { return s->resumeRun(id, e); });
}

void RunControl::retrySelected()
{
    if (Scheduler *s = scheduler(); s && !confirmNewAttempts(s, tr("Retry"))) {
        return;
    }
    forEachSelected([](Scheduler *s, RunId id, QString *e) {
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
    Scheduler *scheduler = this->scheduler();
    if (!scheduler || m_checking) {
        return; // pressed again while the data is being checked: that check decides
    }
    const Experiment pending = runsToCheck(scheduler);
    if (pending.runCount() == 0) {
        confirmAndStart(scheduler, {});
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
    const QString program = scheduler->workerProgram();
    QThread *thread = QThread::create([outcome, pending, program] {
        outcome->problems = ExperimentCheck(program, nullptr).dataProblems(pending, &outcome->passed);
    });
    m_checking = true;
    m_checkThread = thread;
    m_window->statusBar()->showMessage(tr("Checking the data of the runs to start…"));
    const QPointer<Scheduler> checked(scheduler);
    connect(thread, &QThread::finished, this, [this, thread, outcome, checked] {
        thread->deleteLater();
        m_checkThread = nullptr;
        m_checking = false;
        m_dataPassed = outcome->passed;
        m_window->statusBar()->clearMessage();
        // Another experiment opened meanwhile: this check was not about it.
        if (checked && checked == this->scheduler()) {
            confirmAndStart(checked, outcome->problems);
        }
    });
    thread->start();
}

void RunControl::confirmAndStart(Scheduler *scheduler, const QStringList &dataProblems)
{
    // Missing GPUs are not asked about again: the banner above the board says
    // what becomes of their lanes.
    const QStringList problems = scheduler->busyDeviceWarnings() + dataProblems;
    if (!problems.isEmpty() && m_startChooser) {
        if (!m_startChooser(problems)) {
            return;
        }
    } else if (!problems.isEmpty() && m_confirmStart) {
        const auto answer =
            QMessageBox::warning(m_window, tr("Start all"),
                                 tr("Before starting:\n\n%1\n\nStart anyway?").arg(problems.join(QLatin1Char('\n'))),
                                 QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
        if (answer != QMessageBox::Yes) {
            return;
        }
    }
    qCInfo(lcUi) << "start all:" << scheduler->totalCount() - scheduler->finishedCount() << "runs not finished";
    scheduler->startAll();
    Q_EMIT runsChanged();
}

Experiment RunControl::runsToCheck(Scheduler *scheduler) const
{
    // Only the runs Start all would start; a data source that passed once
    // this session is not checked again.
    Experiment pending;
    for (int l = 0; l < scheduler->laneCount(); ++l) {
        ExperimentLane lane;
        lane.device = scheduler->lane(l).device;
        for (RunId id : scheduler->lane(l).runs) {
            const RunInfo run = scheduler->run(id);
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
    if (Scheduler *s = scheduler()) {
        qCInfo(lcUi) << "stop all:" << s->activeCount() << "active runs";
        s->stopAll();
        Q_EMIT runsChanged();
    }
}

} // namespace trainyard
