// The document's edits (BoardEdits): each pushes one undoable command (boardcommands.h)
// onto its history, or a macro of several; refused ones report editFailed.
#include "orchestration/document/boardedits.h"

#include "orchestration/board/board.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/document/addhostcommand.h"
#include "orchestration/document/boardcommands.h"
#include "orchestration/document/sweepcommands.h"
#include "orchestration/logcategories.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runspec/runspecview.h"
#include "orchestration/session/orchestrator.h"

#include <QUndoStack>

namespace trainyard {

BoardEdits::BoardEdits(Orchestrator *orchestrator, QUndoStack *history, QObject *parent)
    : QObject(parent)
    , m_orchestrator(orchestrator)
    , m_undo(history)
{
}

void BoardEdits::undo()
{
    step(false);
}

void BoardEdits::redo()
{
    step(true);
}

void BoardEdits::step(bool forward)
{
    if (forward ? !m_undo->canRedo() : !m_undo->canUndo()) {
        return;
    }
    // The top-level command (a macro's children cannot drop it): marked
    // obsolete when the board refuses, which makes the stack delete it.
    m_stepping = const_cast<QUndoCommand *>(m_undo->command(forward ? m_undo->index() : m_undo->index() - 1));
    if (forward) {
        m_undo->redo();
    } else {
        m_undo->undo();
    }
    m_stepping = nullptr;
}

bool BoardEdits::push(QUndoCommand *command)
{
    // Every command reports a failed first redo through reportFailure() and
    // marks itself obsolete, which makes push() delete it.
    m_failed = false;
    m_undo->push(command);
    return !m_failed;
}

void BoardEdits::reportFailure(const QString &message)
{
    m_failed = true;
    if (m_stepping) {
        m_stepping->setObsolete(true);
    }
    qCInfo(lcDocument) << "board edit refused:" << message;
    Q_EMIT editFailed(message);
}

bool BoardEdits::queueSpec(int lane, int position, const QJsonObject &spec, int repeat, QList<RunId> *queued)
{
    if (!m_orchestrator) {
        return false;
    }
    auto *command = new AddRunsCommand(
        m_orchestrator, [this](const QString &m) { reportFailure(m); }, lane, position, spec, repeat);
    if (!push(command)) {
        return false;
    }
    // The command lives on (on the stack or in a macro) once it succeeded.
    if (queued) {
        queued->clear();
        for (const QString &name : command->names()) {
            queued->append(m_orchestrator->runs()->findByName(name));
        }
    }
    qCDebug(lcDocument) << "queued" << command->names() << "on lane" << lane;
    return true;
}

bool BoardEdits::moveRun(RunId id, int lane, int position)
{
    if (!m_orchestrator || !m_orchestrator->runs()->contains(id)) {
        return false;
    }
    if (m_orchestrator->runs()->value(id).lane == lane && m_orchestrator->board()->position(id) == position) {
        return true; // dropped where it was
    }
    return push(new MoveRunCommand(
        m_orchestrator, [this](const QString &m) { reportFailure(m); }, m_orchestrator->runs()->value(id).name, lane,
        position));
}

bool BoardEdits::duplicateRun(RunId id, int lane, int position, int copies)
{
    if (!m_orchestrator || !m_orchestrator->runs()->contains(id)) {
        return false;
    }
    const RunInfo run = m_orchestrator->runs()->value(id);
    // A new sample of the same spec: a unique name and a seed of its own;
    // several copies are one repeat group, as a file's "repeat" makes them,
    // so that they plot as their mean with a band.
    const QJsonObject spec = m_orchestrator->board()->duplicateSpec(id, copies);
    auto *command = new AddRunsCommand(
        m_orchestrator, [this](const QString &m) { reportFailure(m); }, lane, position, spec, copies);
    const QString name = spec.value(QLatin1String("name")).toString();
    command->setText(copies > 1 ? tr("Duplicate %1 ×%2 as %3").arg(run.name).arg(copies).arg(name)
                                : tr("Duplicate %1 as %2").arg(run.name, name));
    // A copy of a held run waits for its Start as the original does (it started at once).
    if (run.held && run.state == RunState::Queued) {
        command->setHold(AddRunsCommand::Hold::Always);
    }
    return push(command);
}

bool BoardEdits::removeRun(RunId id)
{
    if (!m_orchestrator || !m_orchestrator->runs()->contains(id)) {
        return false;
    }
    return push(new RemoveRunCommand(
        m_orchestrator, [this](const QString &m) { reportFailure(m); }, m_orchestrator->runs()->value(id).name));
}

bool BoardEdits::editRun(RunId id, const QJsonObject &spec)
{
    if (!m_orchestrator || !m_orchestrator->runs()->contains(id)) {
        return false;
    }
    const RunInfo run = m_orchestrator->runs()->value(id);
    if (run.state == RunState::Queued || run.state == RunState::Waiting || run.state == RunState::Cancelled) {
        return push(new EditRunCommand(
            m_orchestrator, [this](const QString &m) { reportFailure(m); }, run.name, spec));
    }
    if (isActive(run.state)) {
        reportFailure(tr("%1 is %2; stop it before editing, or duplicate it").arg(run.name, runStateName(run.state)));
        return false;
    }
    // It cannot keep the name of the run it was made from: one of its own.
    QJsonObject asNew = spec;
    const QString name = RunSpecView(spec).effectiveName();
    if (name == run.name) {
        asNew.insert(QStringLiteral("name"), m_orchestrator->board()->uniqueName(name));
    }
    auto *command = new AddRunsCommand(
        m_orchestrator, [this](const QString &m) { reportFailure(m); }, run.lane,
        m_orchestrator->board()->position(id) + 1, asNew, 1);
    command->setText(tr("Edit %1 as %2").arg(run.name, RunSpecView(asNew).effectiveName()));
    command->setHold(AddRunsCommand::Hold::WhileDispatching);
    return push(command);
}

bool BoardEdits::setRunAfter(RunId id, const QStringList &after)
{
    if (!m_orchestrator || !m_orchestrator->runs()->contains(id)) {
        return false;
    }
    const RunInfo run = m_orchestrator->runs()->value(id);
    if (run.after == after) {
        return true;
    }
    return push(new SetAfterCommand(
        m_orchestrator, [this](const QString &m) { reportFailure(m); }, run.name, after));
}

bool BoardEdits::addLane(const QString &device, int slotCount)
{
    if (!m_orchestrator) {
        return false;
    }
    return push(new AddLaneCommand(
        m_orchestrator, [this](const QString &m) { reportFailure(m); }, device, slotCount));
}

bool BoardEdits::addHost(const ExperimentHost &host, const QStringList &devices)
{
    if (!m_orchestrator) {
        return false;
    }
    return push(new AddHostCommand(
        m_orchestrator, [this](const QString &m) { reportFailure(m); }, host, devices));
}

bool BoardEdits::addSweep(const SweepSpec &sweep)
{
    if (!m_orchestrator) {
        return false;
    }
    return push(new AddSweepCommand(m_orchestrator, sweep, [this](const QString &m) { reportFailure(m); }));
}

bool BoardEdits::removeLane(int lane)
{
    if (!m_orchestrator || lane < 0 || lane >= m_orchestrator->board()->laneCount()) {
        return false;
    }
    return push(new RemoveLaneCommand(
        m_orchestrator, [this](const QString &m) { reportFailure(m); }, lane));
}

bool BoardEdits::editLane(int lane, const QString &device, int slotCount)
{
    if (!m_orchestrator || lane < 0 || lane >= m_orchestrator->board()->laneCount()) {
        return false;
    }
    return push(new EditLaneCommand(
        m_orchestrator, [this](const QString &m) { reportFailure(m); }, lane, device, slotCount));
}

bool BoardEdits::renameLane(int lane, const QString &name)
{
    if (!m_orchestrator || lane < 0 || lane >= m_orchestrator->board()->laneCount()) {
        return false;
    }
    if (m_orchestrator->laneDevices()->lane(lane).name == name) {
        return true; // no change, no step
    }
    return push(new RenameLaneCommand(
        m_orchestrator, [this](const QString &m) { reportFailure(m); }, lane, name));
}

bool BoardEdits::moveRuns(const QList<RunId> &ids, int lane, int position)
{
    if (!m_orchestrator) {
        return false;
    }
    bool any = false;
    m_undo->beginMacro(tr("Move runs"));
    for (RunId id : ids) {
        if (!m_orchestrator->runs()->contains(id)) {
            continue;
        }
        const int from = m_orchestrator->board()->position(id);
        const bool sameLane = m_orchestrator->runs()->value(id).lane == lane;
        // `position` counts rows as they are before the move.
        const int target = sameLane && from < position ? position - 1 : position;
        if (moveRun(id, lane, target)) {
            any = true;
        }
        position = target + 1;
    }
    m_undo->endMacro();
    return any;
}

bool BoardEdits::copyRuns(const QList<RunId> &ids, int lane, int position)
{
    if (!m_orchestrator) {
        return false;
    }
    bool any = false;
    m_undo->beginMacro(tr("Duplicate runs"));
    for (RunId id : ids) {
        if (!m_orchestrator->runs()->contains(id)) {
            continue;
        }
        any = duplicateRun(id, lane, position) || any;
        ++position;
    }
    m_undo->endMacro();
    return any;
}

bool BoardEdits::duplicateRuns(const QList<RunId> &ids, int copies)
{
    if (!m_orchestrator || copies < 1) {
        return false;
    }
    bool any = false;
    m_undo->beginMacro(copies == 1 ? tr("Duplicate") : tr("Duplicate ×%1").arg(copies));
    for (RunId id : ids) {
        if (!m_orchestrator->runs()->contains(id)) {
            continue;
        }
        // The copies follow the original, in order.
        any =
            duplicateRun(id, m_orchestrator->runs()->value(id).lane, m_orchestrator->board()->position(id) + 1, copies)
            || any;
    }
    m_undo->endMacro();
    return any;
}

bool BoardEdits::removeRuns(const QList<RunId> &ids)
{
    if (!m_orchestrator) {
        return false;
    }
    bool any = false;
    m_undo->beginMacro(tr("Remove"));
    for (RunId id : ids) {
        any = removeRun(id) || any;
    }
    m_undo->endMacro();
    return any;
}

} // namespace trainyard
