#pragma once

#include "orchestration/document/boardcommands.h"
#include "orchestration/experiment/experiment.h"

#include <QList>
#include <QStringList>

namespace trainyard {

/// "Add host…" as one undo step: the host joins the experiment's hosts
/// (Orchestrator::setHosts, so its launcher connects and its GPUs show) and
/// a lane per chosen device of it ("ssh:HOST/cuda:N", "ssh:HOST/cpu") goes
/// at the end of the board. Undo takes the lanes off (refused while one
/// holds runs that have run, as removing a lane is) and then the host.
class AddHostCommand : public BoardCommand
{
public:
    AddHostCommand(Orchestrator *orchestrator, EditErrorHandler onError, const ExperimentHost &host,
                   const QStringList &devices);
    void redo() override;
    void undo() override;

private:
    ExperimentHost m_host;
    QStringList m_devices;
    QList<int> m_lanes; // where its lanes went
};

} // namespace trainyard
