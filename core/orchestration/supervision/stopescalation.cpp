#include "orchestration/supervision/stopescalation.h"

#include "orchestration/launch/launcher.h"
#include "orchestration/logcategories.h"

#include <utility>

namespace trainyard {

StopEscalation::StopEscalation(RunId id, Launcher *launcher, std::function<bool()> ask, QObject *parent)
    : QObject(parent)
    , m_id(id)
    , m_launcher(launcher)
    , m_ask(std::move(ask))
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &StopEscalation::escalate);
}

void StopEscalation::stop(bool pending, const QString &pendingReason)
{
    if (m_halted || m_step == Step::Asked || m_step == Step::Terminated) {
        return; // under way
    }
    if (m_step == Step::Killed) { // killAll() was first: nothing gentler now
        Q_EMIT stopping(m_id, m_killMessage);
        return;
    }
    if (!pending && m_ask && m_ask()) {
        m_step = Step::Asked;
        m_timer.start(m_timeoutMs);
        Q_EMIT stopping(m_id, QString());
        return;
    }
    // Never started: out of the queue it goes. Not connected: the same
    // meaning to the worker as "stop" (checkpoint, exit 4).
    m_step = Step::Terminated;
    m_cancelPending = pending;
    m_timer.start(m_timeoutMs);
    Q_EMIT stopping(m_id, pending ? QStringLiteral("cancelling (was pending: %1)").arg(pendingReason) : QString());
    if (!m_halted) {
        m_launcher->terminate(m_id);
    }
}

void StopEscalation::kill(bool pending, const QString &message)
{
    if (m_halted) {
        return;
    }
    m_timer.stop();
    m_step = Step::Killed;
    m_cancelPending = pending;
    m_killMessage = message;
    m_launcher->kill(m_id);
}

void StopEscalation::halt()
{
    m_halted = true;
    m_timer.stop();
}

void StopEscalation::escalate()
{
    if (m_halted) {
        return;
    }
    switch (m_step) {
    case Step::Asked:
        qCInfo(lcSupervisor, "run %d did not stop when asked; terminating", m_id);
        m_step = Step::Terminated;
        m_timer.start(m_timeoutMs);
        m_launcher->terminate(m_id);
        break;
    case Step::Terminated:
        qCInfo(lcSupervisor, "run %d did not stop when terminated; killing", m_id);
        m_step = Step::Killed;
        m_killMessage = QStringLiteral("did not stop within %1 s; killed").arg(2 * m_timeoutMs / 1000.0);
        m_launcher->kill(m_id);
        break;
    case Step::None:
    case Step::Killed:
        break;
    }
}

} // namespace trainyard
