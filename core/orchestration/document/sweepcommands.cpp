#include "orchestration/document/sweepcommands.h"

#include "orchestration/session/orchestrator.h"
#include "orchestration/sweep/sweeprunner.h"

#include <QCoreApplication>

namespace trainyard {

AddSweepCommand::AddSweepCommand(Orchestrator *orchestrator, const SweepSpec &sweep,
                                 std::function<void(const QString &)> onError)
    : QUndoCommand(QCoreApplication::translate("AddSweepCommand", "Add sweep %1").arg(sweep.name))
    , m_orchestrator(orchestrator)
    , m_sweep(sweep)
    , m_onError(std::move(onError))
{
}

void AddSweepCommand::redo()
{
    QString error;
    if (!m_orchestrator->sweeps()->addSweep(m_sweep, &error)) {
        setObsolete(true); // the stack drops a step the runner refused
        m_onError(error);
    }
}

void AddSweepCommand::undo()
{
    QString error;
    if (!m_orchestrator->sweeps()->removeSweep(m_sweep.name, &error)) {
        setObsolete(true);
        m_onError(error);
    }
}

} // namespace trainyard
