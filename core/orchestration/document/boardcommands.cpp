#include "orchestration/document/boardcommands.h"

#include "orchestration/board/board.h"
#include "orchestration/dependencies/dependencies.h"
#include "orchestration/devices/device.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runspec/runspecview.h"
#include "orchestration/session/orchestrator.h"

#include <QCoreApplication>

namespace trainyard {

namespace {
QString tr(const char *text)
{
    return QCoreApplication::translate("trainyard::BoardCommand", text);
}

/// A lane on a host the experiment does not define would fail every run
/// (and the file would not load again): refused, naming the way to add one.
QString unknownHost(const Orchestrator *orchestrator, const QString &device)
{
    const Device d = Device::parse(device);
    if (!d.isRemote()) {
        return {};
    }
    for (const ExperimentHost &h : orchestrator->hosts()) {
        if (h.name == d.host()) {
            return {};
        }
    }
    return tr("%1: the experiment has no host \"%2\" (Edit ▸ Add host… adds one)").arg(device, d.host());
}
} // namespace

BoardCommand::BoardCommand(Orchestrator *orchestrator, EditErrorHandler onError, const QString &text)
    : QUndoCommand(text)
    , m_orchestrator(orchestrator)
    , m_onError(std::move(onError))
{
}

void BoardCommand::fail(const QString &message) const
{
    if (m_onError) {
        m_onError(message);
    }
}

AddRunsCommand::AddRunsCommand(Orchestrator *orchestrator, EditErrorHandler onError, int lane, int position,
                               const QJsonObject &spec, int repeat)
    : BoardCommand(orchestrator, std::move(onError),
                   repeat > 1 ? tr("Queue %1 ×%2").arg(RunSpecView(spec).effectiveName()).arg(repeat)
                              : tr("Queue %1").arg(RunSpecView(spec).effectiveName()))
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
    const bool held =
        m_hold == Hold::Always
        || (m_repeat == 1 && m_hold == Hold::WhileDispatching && m_orchestrator->dispatcher()->isDispatching());
    const QList<RunId> ids = held ? m_orchestrator->board()->addHeldRun(m_lane, m_spec, m_position, &error, m_repeat)
                                  : m_orchestrator->board()->addRun(m_lane, m_spec, m_repeat, m_position, &error);
    m_names.clear();
    for (RunId id : ids) {
        m_names.append(m_orchestrator->runs()->value(id).name);
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
        const RunId id = m_orchestrator->runs()->findByName(name);
        if (id && !m_orchestrator->board()->removeRun(id, &error)) {
            fail(error);
        }
    }
}

RemoveRunCommand::RemoveRunCommand(Orchestrator *orchestrator, EditErrorHandler onError, const QString &name)
    : BoardCommand(orchestrator, std::move(onError), tr("Remove %1").arg(name))
    , m_name(name)
{
}

void RemoveRunCommand::redo()
{
    const RunId id = m_orchestrator->runs()->findByName(m_name);
    m_run = m_orchestrator->runs()->value(id);
    m_position = m_orchestrator->board()->position(id);
    QString error;
    if (!id || !m_orchestrator->board()->removeRun(id, &error)) {
        fail(error.isEmpty() ? tr("No run named %1").arg(m_name) : error);
        setObsolete(true);
    }
}

void RemoveRunCommand::undo()
{
    QString error;
    if (m_orchestrator->restoreRun(m_run, m_position, &error) == 0) {
        fail(error);
    }
}

MoveRunCommand::MoveRunCommand(Orchestrator *orchestrator, EditErrorHandler onError, const QString &name, int toLane,
                               int toPosition)
    : BoardCommand(orchestrator, std::move(onError), tr("Move %1").arg(name))
    , m_name(name)
    , m_toLane(toLane)
    , m_toPosition(toPosition)
{
}

void MoveRunCommand::redo()
{
    const RunId id = m_orchestrator->runs()->findByName(m_name);
    m_fromLane = m_orchestrator->runs()->value(id).lane;
    m_fromPosition = m_orchestrator->board()->position(id);
    QString error;
    if (!id || !m_orchestrator->board()->moveRun(id, m_toLane, m_toPosition, &error)) {
        fail(error.isEmpty() ? tr("No run named %1").arg(m_name) : error);
        setObsolete(true);
    }
}

void MoveRunCommand::undo()
{
    QString error;
    if (!m_orchestrator->board()->moveRun(m_orchestrator->runs()->findByName(m_name), m_fromLane, m_fromPosition,
                                          &error)) {
        fail(error);
    }
}

EditRunCommand::EditRunCommand(Orchestrator *orchestrator, EditErrorHandler onError, const QString &name,
                               const QJsonObject &spec)
    : BoardCommand(orchestrator, std::move(onError), tr("Edit %1").arg(name))
    , m_name(name)
    , m_new(spec)
{
    m_old = orchestrator->runs()->value(orchestrator->runs()->findByName(name)).spec;
}

bool EditRunCommand::apply(const QString &from, const QJsonObject &spec)
{
    QString error;
    if (!m_orchestrator->board()->setRunSpec(m_orchestrator->runs()->findByName(from), spec, &error)) {
        fail(error);
        return false;
    }
    return true;
}

void EditRunCommand::redo()
{
    m_started = m_orchestrator->runs()->value(m_orchestrator->runs()->findByName(m_name)).started;
    if (!apply(m_name, m_new)) {
        setObsolete(true);
    }
}

void EditRunCommand::undo()
{
    const QString name = m_new.value(QLatin1String("name")).toString(m_name);
    if (m_orchestrator->runs()->value(m_orchestrator->runs()->findByName(name)).started != m_started) {
        fail(tr("%1 has run since this edit; duplicate it to change its spec").arg(name));
        return;
    }
    apply(name, m_old);
}

AddLaneCommand::AddLaneCommand(Orchestrator *orchestrator, EditErrorHandler onError, const QString &device,
                               int slotCount)
    : BoardCommand(orchestrator, std::move(onError), tr("Add lane %1").arg(device))
    , m_device(device)
    , m_slots(slotCount)
{
}

void AddLaneCommand::redo()
{
    QString error = unknownHost(m_orchestrator, m_device);
    m_index = error.isEmpty() ? m_orchestrator->board()->addLane(m_device, m_slots, -1, &error) : -1;
    if (m_index < 0) {
        fail(error);
        setObsolete(true);
    }
}

void AddLaneCommand::undo()
{
    QString error;
    if (m_index >= 0 && !m_orchestrator->board()->removeLane(m_index, &error)) {
        fail(error);
    }
}

RemoveLaneCommand::RemoveLaneCommand(Orchestrator *orchestrator, EditErrorHandler onError, int index)
    : BoardCommand(orchestrator, std::move(onError), tr("Remove lane"))
    , m_index(index)
{
}

void RemoveLaneCommand::redo()
{
    const LaneInfo lane = m_orchestrator->laneDevices()->lane(m_index);
    m_device = lane.device.toString();
    m_slots = lane.slotCount;
    m_name = lane.name;
    QString error;
    if (!lane.runs.isEmpty()) {
        fail(tr("Lane %1 still holds runs; move or remove them first.").arg(m_index + 1));
        setObsolete(true);
        return;
    }
    if (!m_orchestrator->board()->removeLane(m_index, &error)) {
        fail(error);
        setObsolete(true);
    }
}

void RemoveLaneCommand::undo()
{
    QString error;
    if (m_orchestrator->board()->addLane(m_device, m_slots, m_index, &error) < 0
        || !m_orchestrator->board()->setLaneName(m_index, m_name, &error)) {
        fail(error);
    }
}

RenameLaneCommand::RenameLaneCommand(Orchestrator *orchestrator, EditErrorHandler onError, int index,
                                     const QString &name)
    : BoardCommand(orchestrator, std::move(onError),
                   name.isEmpty() ? tr("Unname lane %1").arg(orchestrator->board()->laneTitle(index))
                                  : tr("Rename lane %1 to %2").arg(orchestrator->board()->laneTitle(index), name))
    , m_index(index)
    , m_oldName(orchestrator->laneDevices()->lane(index).name)
    , m_name(name)
{
}

void RenameLaneCommand::redo()
{
    QString error;
    if (!m_orchestrator->board()->setLaneName(m_index, m_name, &error)) {
        fail(error);
        setObsolete(true);
    }
}

void RenameLaneCommand::undo()
{
    QString error;
    if (!m_orchestrator->board()->setLaneName(m_index, m_oldName, &error)) {
        fail(error);
    }
}

EditLaneCommand::EditLaneCommand(Orchestrator *orchestrator, EditErrorHandler onError, int index, const QString &device,
                                 int slotCount)
    : BoardCommand(orchestrator, std::move(onError), tr("Edit lane %1").arg(orchestrator->board()->laneTitle(index)))
    , m_index(index)
    , m_device(device)
    , m_slots(slotCount)
{
    const LaneInfo lane = orchestrator->laneDevices()->lane(index);
    m_oldDevice = lane.device.toString();
    m_oldSlots = lane.slotCount;
}

bool EditLaneCommand::apply(const QString &device, int slotCount)
{
    QString error = unknownHost(m_orchestrator, device);
    if (!error.isEmpty() || !m_orchestrator->board()->setLaneDevice(m_index, device, &error)
        || !m_orchestrator->board()->setLaneSlots(m_index, slotCount, &error)) {
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

SetAfterCommand::SetAfterCommand(Orchestrator *orchestrator, EditErrorHandler onError, const QString &name,
                                 const QStringList &after)
    : BoardCommand(orchestrator, std::move(onError),
                   after.isEmpty() ? tr("Run %1 after nothing").arg(name)
                                   : tr("Run %1 after %2").arg(name, after.join(QStringLiteral(", "))))
    , m_name(name)
    , m_new(after)
{
}

bool SetAfterCommand::apply(const QStringList &after)
{
    const RunId id = m_orchestrator->runs()->findByName(m_name);
    QString error;
    if (!id || !m_orchestrator->dependencies()->setAfter(id, after, &error)) {
        fail(error.isEmpty() ? tr("No run named %1").arg(m_name) : error);
        setObsolete(true);
        return false;
    }
    return true;
}

void SetAfterCommand::redo()
{
    m_old = m_orchestrator->runs()->value(m_orchestrator->runs()->findByName(m_name)).after;
    apply(m_new);
}

void SetAfterCommand::undo()
{
    apply(m_old);
}

} // namespace trainyard
