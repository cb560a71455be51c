#include "board/boardcontroller.h"

#include "board/addhostcommand.h"
#include "board/board.h"
#include "board/boardcommands.h"
#include "common/uilogcategories.h"
#include "board/board.h"
#include "dispatch/dispatcher.h"
#include "dispatch/lanedevices.h"
#include "runspec/runspecview.h"
#include "records/runregistry.h"
#include "runspec/runspecview.h"
#include "session/orchestrator.h"
#include "sweep/sweepcommands.h"

#include <QAction>
#include <QUndoStack>

namespace trainyard {

BoardController::BoardController(QObject *parent)
    : QObject(parent)
    , m_own(new QUndoStack(this))
    , m_undo(m_own)
{
    m_history.addStack(m_own);
    m_history.setActiveStack(m_own);
    connect(&m_history, &QUndoGroup::cleanChanged, this, &BoardController::cleanChanged);
    connect(&m_history, &QUndoGroup::indexChanged, this, &BoardController::edited);
}

BoardController::~BoardController() = default;

void BoardController::setOrchestrator(Orchestrator *orchestrator, QUndoStack *history)
{
    // The commands point at the old board: they must not outlive it.
    m_own->clear();
    m_orchestrator = orchestrator;
    m_undo = history ? history : m_own;
    if (!m_history.stacks().contains(m_undo)) {
        m_history.addStack(m_undo); // it leaves the group when it is deleted
    }
    m_history.setActiveStack(m_undo);
}

bool BoardController::isClean() const
{
    return m_undo->isClean();
}

void BoardController::markSaved()
{
    m_undo->setClean();
}

void BoardController::markUnsaved()
{
    m_undo->resetClean();
}

void BoardController::undo()
{
    step(false);
}

void BoardController::redo()
{
    step(true);
}

void BoardController::step(bool forward)
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

QAction *BoardController::createUndoAction(QObject *parent, bool labelled)
{
    return createStepAction(parent, labelled, false);
}

QAction *BoardController::createRedoAction(QObject *parent, bool labelled)
{
    return createStepAction(parent, labelled, true);
}

QAction *BoardController::createStepAction(QObject *parent, bool labelled, bool forward)
{
    const QString verb = forward ? tr("&Redo") : tr("&Undo");
    auto *action = new QAction(verb, parent);
    const auto update = [this, action, verb, labelled, forward] {
        const QUndoStack *stack = m_history.activeStack();
        if (!stack) {
            action->setEnabled(false); // a history going away
            return;
        }
        const QString what = forward ? stack->redoText() : stack->undoText();
        const QString full = what.isEmpty() ? verb : tr("%1 %2").arg(verb, what);
        action->setEnabled(forward ? stack->canRedo() : stack->canUndo());
        action->setText(labelled ? full : verb);
        action->setToolTip(QString(full).remove(QLatin1Char('&')));
    };
    connect(&m_history, &QUndoGroup::indexChanged, action, update);
    connect(&m_history, &QUndoGroup::cleanChanged, action, update);
    connect(&m_history, &QUndoGroup::activeStackChanged, action, update);
    connect(action, &QAction::triggered, this, [this, forward] { step(forward); });
    update();
    return action;
}

bool BoardController::push(QUndoCommand *command)
{
    // Every command reports a failed first redo through reportFailure() and
    // marks itself obsolete, which makes push() delete it.
    m_failed = false;
    m_undo->push(command);
    return !m_failed;
}

void BoardController::reportFailure(const QString &message)
{
    m_failed = true;
    if (m_stepping) {
        m_stepping->setObsolete(true);
    }
    qCInfo(lcUi) << "board edit refused:" << message;
    Q_EMIT editFailed(message);
}

bool BoardController::queueSpec(int lane, int position, const QJsonObject &spec, int repeat, QList<RunId> *queued)
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
    qCDebug(lcUi) << "queued" << command->names() << "on lane" << lane;
    return true;
}

bool BoardController::moveRun(RunId id, int lane, int position)
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

bool BoardController::duplicateRun(RunId id, int lane, int position)
{
    if (!m_orchestrator || !m_orchestrator->runs()->contains(id)) {
        return false;
    }
    const RunInfo run = m_orchestrator->runs()->value(id);
    // A new sample of the same spec: a unique name and a seed of its own.
    const QJsonObject spec = m_orchestrator->board()->duplicateSpec(id);
    auto *command = new AddRunsCommand(
        m_orchestrator, [this](const QString &m) { reportFailure(m); }, lane, position, spec, 1);
    command->setText(tr("Duplicate %1 as %2").arg(run.name, spec.value(QLatin1String("name")).toString()));
    // A copy of a held run waits for its Start as the original does (it started at once).
    if (run.held && run.state == RunState::Queued) {
        command->setHold(AddRunsCommand::Hold::Always);
    }
    return push(command);
}

bool BoardController::removeRun(RunId id)
{
    if (!m_orchestrator || !m_orchestrator->runs()->contains(id)) {
        return false;
    }
    return push(new RemoveRunCommand(
        m_orchestrator, [this](const QString &m) { reportFailure(m); }, m_orchestrator->runs()->value(id).name));
}

bool BoardController::editRun(RunId id, const QJsonObject &spec)
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

bool BoardController::setRunAfter(RunId id, const QStringList &after)
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

bool BoardController::addLane(const QString &device, int slotCount)
{
    if (!m_orchestrator) {
        return false;
    }
    return push(new AddLaneCommand(
        m_orchestrator, [this](const QString &m) { reportFailure(m); }, device, slotCount));
}

bool BoardController::addHost(const ExperimentHost &host, const QStringList &devices)
{
    if (!m_orchestrator) {
        return false;
    }
    return push(new AddHostCommand(
        m_orchestrator, [this](const QString &m) { reportFailure(m); }, host, devices));
}

bool BoardController::addSweep(const SweepSpec &sweep)
{
    if (!m_orchestrator) {
        return false;
    }
    return push(new AddSweepCommand(m_orchestrator, sweep, [this](const QString &m) { reportFailure(m); }));
}

bool BoardController::removeLane(int lane)
{
    if (!m_orchestrator || lane < 0 || lane >= m_orchestrator->board()->laneCount()) {
        return false;
    }
    return push(new RemoveLaneCommand(
        m_orchestrator, [this](const QString &m) { reportFailure(m); }, lane));
}

bool BoardController::editLane(int lane, const QString &device, int slotCount)
{
    if (!m_orchestrator || lane < 0 || lane >= m_orchestrator->board()->laneCount()) {
        return false;
    }
    return push(new EditLaneCommand(
        m_orchestrator, [this](const QString &m) { reportFailure(m); }, lane, device, slotCount));
}

bool BoardController::renameLane(int lane, const QString &name)
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

bool BoardController::moveRuns(const QList<RunId> &ids, int lane, int position)
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

bool BoardController::copyRuns(const QList<RunId> &ids, int lane, int position)
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

bool BoardController::duplicateRuns(const QList<RunId> &ids, int copies)
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
        // The copies follow the original in order: copy k goes after copy k-1.
        for (int k = 0; k < copies; ++k) {
            any =
                duplicateRun(id, m_orchestrator->runs()->value(id).lane, m_orchestrator->board()->position(id) + 1 + k)
                || any;
        }
    }
    m_undo->endMacro();
    return any;
}

bool BoardController::removeRuns(const QList<RunId> &ids)
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
