#include "boardcontroller.h"

#include "boardcommands.h"
#include "logcategories.h"
#include "scheduler.h"

#include <QUndoStack>

namespace trainyard {

BoardController::BoardController(QObject *parent)
    : QObject(parent)
    , m_undo(new QUndoStack(this))
{
    connect(m_undo, &QUndoStack::cleanChanged, this, &BoardController::cleanChanged);
}

BoardController::~BoardController() = default;

void BoardController::setScheduler(Scheduler *scheduler)
{
    // The commands point at the old board: they must not outlive it.
    m_undo->clear();
    m_scheduler = scheduler;
}

bool BoardController::isClean() const
{
    return m_undo->isClean();
}

void BoardController::markSaved()
{
    m_undo->setClean();
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
    qCInfo(lcUi) << "board edit refused:" << message;
    Q_EMIT editFailed(message);
}

bool BoardController::queueSpec(int lane, int position, const QJsonObject &spec, int repeat, QList<RunId> *queued)
{
    if (!m_scheduler) {
        return false;
    }
    auto *command = new AddRunsCommand(
        m_scheduler, [this](const QString &m) { reportFailure(m); }, lane, position, spec, repeat);
    if (!push(command)) {
        return false;
    }
    // The command lives on (on the stack or in a macro) once it succeeded.
    if (queued) {
        queued->clear();
        for (const QString &name : command->names()) {
            queued->append(m_scheduler->findRun(name));
        }
    }
    qCDebug(lcUi) << "queued" << command->names() << "on lane" << lane;
    return true;
}

bool BoardController::moveRun(RunId id, int lane, int position)
{
    if (!m_scheduler || !m_scheduler->contains(id)) {
        return false;
    }
    if (m_scheduler->run(id).lane == lane && m_scheduler->position(id) == position) {
        return true; // dropped where it was
    }
    return push(new MoveRunCommand(
        m_scheduler, [this](const QString &m) { reportFailure(m); }, m_scheduler->run(id).name, lane, position));
}

bool BoardController::duplicateRun(RunId id, int lane, int position)
{
    if (!m_scheduler || !m_scheduler->contains(id)) {
        return false;
    }
    const RunInfo run = m_scheduler->run(id);
    // A new sample of the same spec: a unique name and a seed of its own.
    auto *command = new AddRunsCommand(
        m_scheduler, [this](const QString &m) { reportFailure(m); }, lane, position, m_scheduler->duplicateSpec(id), 1);
    command->setText(tr("Duplicate %1").arg(run.name));
    return push(command);
}

bool BoardController::removeRun(RunId id)
{
    if (!m_scheduler || !m_scheduler->contains(id)) {
        return false;
    }
    return push(new RemoveRunCommand(
        m_scheduler, [this](const QString &m) { reportFailure(m); }, m_scheduler->run(id).name));
}

bool BoardController::editRun(RunId id, const QJsonObject &spec)
{
    if (!m_scheduler || !m_scheduler->contains(id)) {
        return false;
    }
    return push(new EditRunCommand(
        m_scheduler, [this](const QString &m) { reportFailure(m); }, m_scheduler->run(id).name, spec));
}

bool BoardController::addLane(const QString &device, int slotCount)
{
    if (!m_scheduler) {
        return false;
    }
    return push(new AddLaneCommand(
        m_scheduler, [this](const QString &m) { reportFailure(m); }, device, slotCount));
}

bool BoardController::removeLane(int lane)
{
    if (!m_scheduler || lane < 0 || lane >= m_scheduler->laneCount()) {
        return false;
    }
    return push(new RemoveLaneCommand(
        m_scheduler, [this](const QString &m) { reportFailure(m); }, lane));
}

bool BoardController::editLane(int lane, const QString &device, int slotCount)
{
    if (!m_scheduler || lane < 0 || lane >= m_scheduler->laneCount()) {
        return false;
    }
    return push(new EditLaneCommand(
        m_scheduler, [this](const QString &m) { reportFailure(m); }, lane, device, slotCount));
}

bool BoardController::moveRuns(const QList<RunId> &ids, int lane, int position)
{
    if (!m_scheduler) {
        return false;
    }
    bool any = false;
    m_undo->beginMacro(tr("Move runs"));
    for (RunId id : ids) {
        if (!m_scheduler->contains(id)) {
            continue;
        }
        const int from = m_scheduler->position(id);
        const bool sameLane = m_scheduler->run(id).lane == lane;
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
    if (!m_scheduler) {
        return false;
    }
    bool any = false;
    m_undo->beginMacro(tr("Duplicate runs"));
    for (RunId id : ids) {
        if (!m_scheduler->contains(id)) {
            continue;
        }
        any = duplicateRun(id, lane, position) || any;
        ++position;
    }
    m_undo->endMacro();
    return any;
}

bool BoardController::duplicateRuns(const QList<RunId> &ids)
{
    if (!m_scheduler) {
        return false;
    }
    bool any = false;
    m_undo->beginMacro(tr("Duplicate"));
    for (RunId id : ids) {
        if (m_scheduler->contains(id)) {
            any = duplicateRun(id, m_scheduler->run(id).lane, m_scheduler->position(id) + 1) || any;
        }
    }
    m_undo->endMacro();
    return any;
}

bool BoardController::removeRuns(const QList<RunId> &ids)
{
    if (!m_scheduler) {
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
