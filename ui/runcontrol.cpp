#include "runcontrol.h"

#include "boardview.h"
#include "logcategories.h"
#include "scheduler.h"
#include "session.h"
#include "sessioncontroller.h"

#include <QMainWindow>
#include <QMessageBox>
#include <QStatusBar>

namespace trainyard {

RunControl::RunControl(SessionController *sessions, BoardView *board, QMainWindow *window)
    : QObject(window)
    , m_sessions(sessions)
    , m_board(board)
    , m_window(window)
{
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

void RunControl::startSelected()
{
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
    forEachSelected([](Scheduler *s, RunId id, QString *e) {
        // A stopped run has a checkpoint: carry on from it rather than start over.
        const bool fromCheckpoint = s->run(id).state == RunState::Stopped;
        return s->retryRun(id, fromCheckpoint, e);
    });
}

void RunControl::startAll()
{
    Scheduler *scheduler = this->scheduler();
    if (!scheduler) {
        return;
    }
    const QStringList problems = scheduler->preflight();
    if (!problems.isEmpty() && m_confirmStart) {
        const auto answer =
            QMessageBox::warning(m_window, tr("Start all"),
                                 tr("Before starting:\n\n%1\n\nStart anyway?").arg(problems.join(QLatin1Char('\n'))),
                                 QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
        if (answer != QMessageBox::Yes) {
            return;
        }
    }
    qCInfo(lcUi) << "start all:" << scheduler->totalCount() - scheduler->finishedCount() << "runs not finished";
    scheduler->startAll();
    Q_EMIT runsChanged();
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
