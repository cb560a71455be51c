#include "app/runnotifier.h"

#include "app/sessioncontroller.h"
#include "common/uilogcategories.h"
#include "dispatch/dispatcher.h"
#include "records/runregistry.h"
#include "session/orchestrator.h"
#include "session/session.h"

#include <QApplication>
#include <QMainWindow>
#include <QStatusBar>
#include <QSystemTrayIcon>

namespace trainyard {

RunNotifier::RunNotifier(SessionController *sessions, QMainWindow *window)
    : QObject(window)
    , m_sessions(sessions)
    , m_window(window)
{
    connect(m_sessions, &SessionController::sessionOpened, this, [this](Session *session) { follow(session); });
    // A closing session's runs still end (they stop), but that is no news.
    connect(m_sessions, &SessionController::sessionAboutToClose, this,
            [this](Session *session) { session->orchestrator()->disconnectListener(this); });
}

void RunNotifier::follow(Session *session)
{
    Orchestrator *orchestrator = session->orchestrator();
    connect(orchestrator->dispatcher(), &Dispatcher::runEnded, this, &RunNotifier::onRunEnded);
    connect(orchestrator->dispatcher(), &Dispatcher::idle, this, [this] {
        const Session *s = m_sessions->session();
        if (s && s->orchestrator()->dispatcher()->totalCount() > 0) {
            notify(tr("Experiment done"), tr("%1: %2.").arg(s->name(), m_sessions->finishCountText()));
        }
    });
}

void RunNotifier::onRunEnded(RunId id, RunState state)
{
    const Session *session = m_sessions->session();
    if (!session) {
        return;
    }
    const RunInfo run = session->orchestrator()->runs()->value(id);
    if (state == RunState::Finished) {
        notify(tr("Run finished"), tr("%1 finished (%2).").arg(run.name, m_sessions->finishCountText()));
    } else if (state == RunState::Failed || state == RunState::Diverged || state == RunState::Lost) {
        notify(tr("Run %1").arg(runStateName(state)), tr("%1 %2: %3").arg(run.name, runStateName(state), run.message));
    }
}

void RunNotifier::notify(const QString &title, const QString &text)
{
    m_last = text;
    qCInfo(lcUi).noquote() << text;
    m_window->statusBar()->showMessage(text, 15000);
    if (QSystemTrayIcon::isSystemTrayAvailable() && QSystemTrayIcon::supportsMessages()) {
        static QSystemTrayIcon *tray = nullptr;
        if (!tray) {
            tray = new QSystemTrayIcon(m_window->windowIcon(), qApp);
            tray->show();
        }
        tray->showMessage(title, text, QSystemTrayIcon::Information, 8000);
    }
    QApplication::alert(m_window);
}

} // namespace trainyard
