#pragma once

#include "orchestration/records/runinfo.h"

#include <QObject>
#include <QString>

class QMainWindow;

namespace trainyard {

class ExperimentDocument;
class SessionController;

/// Tells the user how runs end while they look elsewhere: a run finished or
/// failed, the experiment is done. Each message goes to the window's status
/// bar, the system tray (where there is one) and the taskbar (an alert).
/// What it says and when is endnotice's, which `trainyard run --notify` shares.
class RunNotifier : public QObject
{
    Q_OBJECT
public:
    /// Follows every session `sessions` opens.
    RunNotifier(SessionController *sessions, QMainWindow *window);

    void notify(const QString &title, const QString &text);
    /// The last message shown (tests).
    QString lastNotification() const { return m_last; }

private:
    void follow(ExperimentDocument *document);
    void onRunEnded(RunId id, RunState state);

    SessionController *m_sessions;
    QMainWindow *m_window;
    QString m_last;
};

} // namespace trainyard
