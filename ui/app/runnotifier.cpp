#include "ui/app/runnotifier.h"

#include "orchestration/document/experimentdocument.h"
#include "orchestration/records/endnotice.h"
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
            const EndNotice notice = endnotice::experimentDone(d->name(), m_sessions->finishCountText());
            notify(notice.title, notice.text);
        }
    });
}

void RunNotifier::onRunEnded(RunId id, RunState state)
{
    const ExperimentDocument *document = m_sessions->document();
    if (!document) {
        return;
    }
    if (const auto notice = endnotice::runEnded(document->run(id), state, m_sessions->finishCountText())) {
        notify(notice->title, notice->text);
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
