#include "commands/desktopnotifier.h"

#include "commandline.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"

#include <QDBusConnection>
#include <QDBusError>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QStringList>
#include <QVariantMap>

namespace trainyard {

namespace {

const QString kService = QStringLiteral("org.freedesktop.Notifications");
const QString kPath = QStringLiteral("/org/freedesktop/Notifications");
constexpr int kCallTimeoutMs = 5000; // a notification service answers at once; a hung one is not waited on longer

} // namespace

DesktopNotifier::DesktopNotifier(QObject *parent)
    : QObject(parent)
{
}

QString DesktopNotifier::unavailable() const
{
    const QDBusConnection bus = QDBusConnection::sessionBus();
    if (bus.isConnected()) {
        return {};
    }
    const QString why = bus.lastError().message();
    return why.isEmpty() ? QStringLiteral("no D-Bus session bus")
                         : QStringLiteral("no D-Bus session bus (%1)").arg(why);
}

void DesktopNotifier::follow(Session *session)
{
    Orchestrator *orchestrator = session->orchestrator();
    const RunRegistry *runs = orchestrator->runs();
    connect(orchestrator->dispatcher(), &Dispatcher::runEnded, this, [this, runs](RunId id, RunState state) {
        if (const auto notice = endnotice::runEnded(runs->value(id), state, endnotice::finishCountText(*runs))) {
            send(*notice);
        }
    });
    connect(orchestrator->dispatcher(), &Dispatcher::idle, this, [this, session, runs] {
        if (runs->size() > 0) {
            send(endnotice::experimentDone(session->name(), endnotice::finishCountText(*runs)));
        }
    });
}

void DesktopNotifier::send(const EndNotice &notice)
{
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected()) {
        return; // said once at the start (unavailable)
    }
    QDBusMessage call = QDBusMessage::createMethodCall(kService, kPath, kService, QStringLiteral("Notify"));
    const QVariantMap hints{{QStringLiteral("desktop-entry"), QStringLiteral("io.github.trainyard.Trainyard")}};
    call << QStringLiteral("Trainyard") << uint(0) << QStringLiteral("trainyard") << notice.title << notice.text
         << QStringList() << hints << int(-1);
    const QDBusPendingCall pending = bus.asyncCall(call, kCallTimeoutMs);
    m_pending << pending;
    auto *watcher = new QDBusPendingCallWatcher(pending, this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher *w) {
        if (w->isError()) {
            warnOnce(w->error().message());
        }
        w->deleteLater();
    });
}

void DesktopNotifier::flush()
{
    for (QDBusPendingCall &pending : m_pending) {
        pending.waitForFinished();
        if (pending.isError()) {
            warnOnce(pending.error().message());
        }
    }
    m_pending.clear();
}

void DesktopNotifier::warnOnce(const QString &why)
{
    if (!m_warned) {
        m_warned = true;
        printWarning(QStringLiteral("--notify: a desktop notification was not sent (%1); the runs go on").arg(why));
    }
}

} // namespace trainyard
