#include "orchestration/supervision/shutdown.h"

#include "orchestration/logcategories.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/supervision/supervisor.h"

namespace trainyard {

Shutdown::Shutdown(Supervisor *supervisor, const RunRegistry *runs, QObject *parent)
    : QObject(parent)
    , m_supervisor(supervisor)
    , m_runs(runs)
{
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this, &Shutdown::onDeadline);
}

void Shutdown::begin(bool leaveRunning)
{
    m_shuttingDown = true;
    if (leaveRunning) {
        const int left = m_supervisor->detachAll();
        m_closing = false;
        m_deadline.stop();
        qCInfo(lcSupervisor, "shutdown: %d runs left running", left);
        Q_EMIT finished();
        return;
    }
    if (m_closing) {
        return; // already waiting
    }
    m_closing = true;
    for (RunId id : m_runs->ids()) {
        const RunInfo *r = m_runs->find(id);
        if (r && isActive(r->state) && r->state != RunState::Stopping) {
            m_supervisor->stop(id);
        }
    }
    if (m_runs->activeCount() > 0) {
        qCInfo(lcSupervisor, "shutdown: waiting for %d runs to stop", m_runs->activeCount());
        // The whole escalation (stop, SIGTERM, SIGKILL), then a little.
        m_deadline.start(2 * m_supervisor->stopTimeout() + 3000);
    }
    runEnded();
}

void Shutdown::onDeadline()
{
    for (RunId id : m_supervisor->supervisedIds()) {
        const RunInfo *r = m_runs->find(id);
        if (r && isActive(r->state)) {
            qCWarning(lcSupervisor, "%s still running at the shutdown deadline; killed", qUtf8Printable(r->name));
            m_supervisor->finishRun(id, RunState::Failed, QStringLiteral("killed at shutdown"));
        }
    }
    // Active runs nobody supervises (none, normally) cannot be waited for.
    if (m_closing && m_runs->activeCount() > 0) {
        m_closing = false;
        m_supervisor->persistState();
        Q_EMIT finished();
    }
}

void Shutdown::runEnded()
{
    if (!m_closing || m_runs->activeCount() > 0) {
        return;
    }
    m_closing = false;
    m_deadline.stop();
    m_supervisor->persistState();
    qCInfo(lcSupervisor, "shutdown: every run has ended");
    Q_EMIT finished();
}

void Shutdown::cancel()
{
    m_closing = false;
    m_deadline.stop();
}

void Shutdown::reset()
{
    cancel();
    m_shuttingDown = false;
}

} // namespace trainyard
