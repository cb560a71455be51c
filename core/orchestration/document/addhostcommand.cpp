#include "orchestration/document/addhostcommand.h"

#include "orchestration/board/board.h"
#include "orchestration/session/orchestrator.h"

#include <QCoreApplication>

namespace trainyard {

namespace {
QString tr(const char *text)
{
    return QCoreApplication::translate("trainyard::BoardCommand", text);
}
} // namespace

AddHostCommand::AddHostCommand(Orchestrator *orchestrator, EditErrorHandler onError, const ExperimentHost &host,
                               const QStringList &devices)
    : BoardCommand(orchestrator, std::move(onError), tr("Add host %1").arg(host.name))
    , m_host(host)
    , m_devices(devices)
{
}

void AddHostCommand::redo()
{
    QList<ExperimentHost> hosts = m_orchestrator->hosts();
    for (const ExperimentHost &h : std::as_const(hosts)) {
        if (h.name == m_host.name) {
            fail(tr("the experiment already has a host named %1").arg(m_host.name));
            setObsolete(true);
            return;
        }
    }
    hosts << m_host;
    m_orchestrator->setHosts(hosts);
    m_lanes.clear();
    for (const QString &device : std::as_const(m_devices)) {
        QString error;
        const int index = m_orchestrator->board()->addLane(device, 1, -1, &error);
        if (index < 0) {
            fail(error);
            undo();
            setObsolete(true);
            return;
        }
        m_lanes << index;
    }
}

void AddHostCommand::undo()
{
    while (!m_lanes.isEmpty()) {
        QString error;
        if (!m_orchestrator->board()->removeLane(m_lanes.last(), &error)) {
            fail(error);
            return;
        }
        m_lanes.removeLast();
    }
    QList<ExperimentHost> hosts = m_orchestrator->hosts();
    hosts.removeIf([this](const ExperimentHost &h) { return h.name == m_host.name; });
    m_orchestrator->setHosts(hosts);
}

} // namespace trainyard
