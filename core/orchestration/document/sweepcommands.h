#pragma once

#include "orchestration/experiment/sweepspec.h"

#include <QUndoCommand>

#include <functional>

namespace trainyard {

class Orchestrator;

/// Adds a sweep built in the app to the board's SweepRunner, as one undo
/// step of the open document (BoardController::addSweep); undo removes it again while none of its
/// trials is active (the runner refuses otherwise, and the step is dropped
/// from the history with the runner's message).
class AddSweepCommand : public QUndoCommand
{
public:
    AddSweepCommand(Orchestrator *orchestrator, const SweepSpec &sweep, std::function<void(const QString &)> onError);
    void redo() override;
    void undo() override;

private:
    Orchestrator *m_orchestrator;
    SweepSpec m_sweep;
    std::function<void(const QString &)> m_onError;
};

} // namespace trainyard
