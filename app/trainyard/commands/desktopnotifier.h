#pragma once

#include "orchestration/records/endnotice.h"

#include <QDBusPendingCall>
#include <QList>
#include <QObject>
#include <QString>

namespace trainyard {

class Session;

// `trainyard run --notify`: the notices the app's tray shows (endnotice),
// sent to the desktop's notification service over the session bus
// (org.freedesktop.Notifications' Notify), for runs that end while
// nobody watches the terminal. A missing bus or service never stops a run:
// the command warns once and goes on.
class DesktopNotifier : public QObject
{
    Q_OBJECT
public:
    explicit DesktopNotifier(QObject *parent = nullptr);

    // Empty when the session bus is there; otherwise why no notice can be sent.
    QString unavailable() const;
    // Sends a notice as each of `session`'s runs ends and when its board is idle.
    void follow(Session *session);
    void send(const EndNotice &notice);
    // Waits, bounded by each call's timeout, for the notices sent to be
    // delivered: the command exits right after its board is idle.
    void flush();

private:
    void warnOnce(const QString &why);

    QList<QDBusPendingCall> m_pending;
    bool m_warned = false;
};

} // namespace trainyard
