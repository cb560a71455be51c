#include "ui/app/runnotifier.h"

#include "orchestration/document/experimentdocument.h"
#include "ui/app/sessioncontroller.h"
#include "ui/common/uilogcategories.h"

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
    connect(m_sessions, &SessionController::sessionOpened, this,
            [this](ExperimentDocument *document) { follow(document); });
    // A closing experiment's runs still end (they stop), but that is no news.
    connect(m_sessions, &SessionController::sessionAboutToClose, this,
            [this](ExperimentDocument *document) { disconnect(document, nullptr, this, nullptr); });
}

void RunNotifier::follow(ExperimentDocument *document)
{
    connect(document, &ExperimentDocument::runEnded, this, &RunNotifier::onRunEnded);
    connect(document, &ExperimentDocument::idle, this, [this] {
        const ExperimentDocument *d = m_sessions->document();
        if (d && d->totalCount() > 0) {
            notify(tr("Experiment done"), tr("%1: %2.").arg(d->name(), m_sessions->finishCountText()));
        }
    });
}

void RunNotifier::onRunEnded(RunId id, RunState state)
{
    const ExperimentDocument *document = m_sessions->document();
    if (!document) {
        return;
    }
    const RunInfo run = document->run(id);
    if (state == RunState::Finished) {
        notify(tr("Run finished"), tr("%1 finished (%2).").arg(run.name, m_sessions->finishCountText()));
    } else if (state == RunState::Failed || state == RunState::Diverged || state == RunState::Lost) {
        notify(tr("Run %1").arg(runStateName(state)), endText(run.name, state, run.message));
    }
}

QString RunNotifier::endText(const QString &run, RunState state, const QString &message)
{
    const QString said = runStateName(state);
    if (message.isEmpty()) {
        return tr("%1 %2").arg(run, said);
    }
    // A message that starts with the state ("diverged: loss is nan…") says it once.
    if (message.startsWith(said + QLatin1Char(':')) || message == said) {
        return tr("%1 %2").arg(run, message);
    }
    return tr("%1 %2: %3").arg(run, said, message);
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
