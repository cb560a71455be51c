#include "board/boardcommands.h"

#include "dispatch/scheduler.h"
#include "experiment/runspecview.h"

#include <QCoreApplication>

namespace trainyard {

namespace {
QString tr(const char *text)
{
    return QCoreApplication::translate("trainyard::BoardCommand", text);
}
} // namespace

BoardCommand::BoardCommand(Scheduler *scheduler, EditErrorHandler onError, const QString &text)
    : QUndoCommand(text)
    , m_scheduler(scheduler)
    , m_onError(std::move(onError))
{
}

void BoardCommand::fail(const QString &message) const
{
    if (m_onError) {
        m_onError(message);
    }
}

AddRunsCommand::AddRunsCommand(Scheduler *scheduler, EditErrorHandler onError, int lane, int position,
                               const QJsonObject &spec, int repeat)
    : BoardCommand(scheduler, std::move(onError), tr("Queue %1").arg(RunSpecView(spec).name()))
    , m_lane(lane)
    , m_position(position)
    , m_spec(spec)
    , m_repeat(repeat)
{
}

void AddRunsCommand::redo()
{
    QString error;
    // After an undo the names are free again, so the runs come back under the same names.
    const QList<RunId> ids = m_held && m_scheduler->isDispatching() && m_repeat == 1
                                 ? m_scheduler->addHeldRun(m_lane, m_spec, m_position, &error)
                                 : m_scheduler->addRun(m_lane, m_spec, m_repeat, m_position, &error);
    m_names.clear();
    for (RunId id : ids) {
        m_names.append(m_scheduler->run(id).name);
    }
    if (ids.isEmpty()) {
        fail(error);
        setObsolete(true);
    }
}

void AddRunsCommand::undo()
{
    for (const QString &name : std::as_const(m_names)) {
        QString error;
        const RunId id = m_scheduler->findRun(name);
        if (id && !m_scheduler->removeRun(id, &error)) {
            fail(error);
        }
    }
}

RemoveRunCommand::RemoveRunCommand(Scheduler *scheduler, EditErrorHandler onError, const QString &name)
    : BoardCommand(scheduler, std::move(onError), tr("Remove %1").arg(name))
    , m_name(name)
{
}

void RemoveRunCommand::redo()
{
    const RunId id = m_scheduler->findRun(m_name);
    m_run = m_scheduler->run(id);
    m_position = m_scheduler->position(id);
    QString error;
    if (!id || !m_scheduler->removeRun(id, &error)) {
        fail(error.isEmpty() ? tr("No run named %1").arg(m_name) : error);
        setObsolete(true);
    }
}

void RemoveRunCommand::undo()
{
    QString error;
    if (m_scheduler->restoreRun(m_run, m_position, &error) == 0) {
        fail(error);
    }
}

MoveRunCommand::MoveRunCommand(Scheduler *scheduler, EditErrorHandler onError, const QString &name, int toLane,
                               int toPosition)
    : BoardCommand(scheduler, std::move(onError), tr("Move %1").arg(name))
    , m_name(name)
    , m_toLane(toLane)
    , m_toPosition(toPosition)
{
}

void MoveRunCommand::redo()
{
    const RunId id = m_scheduler->findRun(m_name);
    m_fromLane = m_scheduler->run(id).lane;
    m_fromPosition = m_scheduler->position(id);
    QString error;
    if (!id || !m_scheduler->moveRun(id, m_toLane, m_toPosition, &error)) {
        fail(error.isEmpty() ? tr("No run named %1").arg(m_name) : error);
        setObsolete(true);
    }
}

void MoveRunCommand::undo()
{
    QString error;
    if (!m_scheduler->moveRun(m_scheduler->findRun(m_name), m_fromLane, m_fromPosition, &error)) {
        fail(error);
    }
}

EditRunCommand::EditRunCommand(Scheduler *scheduler, EditErrorHandler onError, const QString &name,
                               const QJsonObject &spec)
    : BoardCommand(scheduler, std::move(onError), tr("Edit %1").arg(name))
    , m_name(name)
    , m_new(spec)
{
    m_old = scheduler->run(scheduler->findRun(name)).spec;
}

bool EditRunCommand::apply(const QString &from, const QJsonObject &spec)
{
    QString error;
    if (!m_scheduler->setRunSpec(m_scheduler->findRun(from), spec, &error)) {
        fail(error);
        return false;
    }
    return true;
}

void EditRunCommand::redo()
{
    m_started = m_scheduler->run(m_scheduler->findRun(m_name)).started;
    if (!apply(m_name, m_new)) {
        setObsolete(true);
    }
}

void EditRunCommand::undo()
{
    const QString name = m_new.value(QLatin1String("name")).toString(m_name);
    if (m_scheduler->run(m_scheduler->findRun(name)).started != m_started) {
        fail(tr("%1 has run since this edit; duplicate it to change its spec").arg(name));
        return;
    }
    apply(name, m_old);
}

AddLaneCommand::AddLaneCommand(Scheduler *scheduler, EditErrorHandler onError, const QString &device, int slotCount)
    : BoardCommand(scheduler, std::move(onError), tr("Add lane %1").arg(device))
    , m_device(device)
    , m_slots(slotCount)
{
}

void AddLaneCommand::redo()
{
    QString error;
    m_index = m_scheduler->addLane(m_device, m_slots, -1, &error);
    if (m_index < 0) {
        fail(error);
        setObsolete(true);
    }
}

void AddLaneCommand::undo()
{
    QString error;
    if (m_index >= 0 && !m_scheduler->removeLane(m_index, &error)) {
        fail(error);
    }
}

RemoveLaneCommand::RemoveLaneCommand(Scheduler *scheduler, EditErrorHandler onError, int index)
    : BoardCommand(scheduler, std::move(onError), tr("Remove lane"))
    , m_index(index)
{
}

void RemoveLaneCommand::redo()
{
    const LaneInfo lane = m_scheduler->lane(m_index);
    m_device = lane.device;
    m_slots = lane.slotCount;
    QString error;
    if (!lane.runs.isEmpty()) {
        fail(tr("Lane %1 still holds runs; move or remove them first.").arg(m_index + 1));
        setObsolete(true);
        return;
    }
    if (!m_scheduler->removeLane(m_index, &error)) {
        fail(error);
        setObsolete(true);
    }
}

void RemoveLaneCommand::undo()
{
    QString error;
    if (m_scheduler->addLane(m_device, m_slots, m_index, &error) < 0) {
        fail(error);
    }
}

EditLaneCommand::EditLaneCommand(Scheduler *scheduler, EditErrorHandler onError, int index, const QString &device,
                                 int slotCount)
    : BoardCommand(scheduler, std::move(onError), tr("Edit lane %1").arg(index + 1))
    , m_index(index)
    , m_device(device)
    , m_slots(slotCount)
{
    const LaneInfo lane = scheduler->lane(index);
    m_oldDevice = lane.device;
    m_oldSlots = lane.slotCount;
}

bool EditLaneCommand::apply(const QString &device, int slotCount)
{
    QString error;
    if (!m_scheduler->setLaneDevice(m_index, device, &error)
        || !m_scheduler->setLaneSlots(m_index, slotCount, &error)) {
        fail(error);
        return false;
    }
    return true;
}

void EditLaneCommand::redo()
{
    if (!apply(m_device, m_slots)) {
        setObsolete(true);
    }
}

void EditLaneCommand::undo()
{
    apply(m_oldDevice, m_oldSlots);
}

} // namespace trainyard
