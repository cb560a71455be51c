#pragma once

#include "orchestration/records/runinfo.h"

#include <QDateTime>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QUndoCommand>

#include <functional>

namespace trainyard {

class Orchestrator;

/// Reports a board edit the board refused (the run started meanwhile, ...).
using EditErrorHandler = std::function<void(const QString &message)>;

/// Undoable board edits. They name runs by their (unique) name rather than
/// their id: undoing a removal adds the run back under a new id, and later
/// commands on the stack must still find it.
class BoardCommand : public QUndoCommand
{
public:
    BoardCommand(Orchestrator *orchestrator, EditErrorHandler onError, const QString &text);

protected:
    void fail(const QString &message) const;
    Orchestrator *m_orchestrator;
    EditErrorHandler m_onError;
};

/// Queues a spec (with its repeats) on a lane at a position.
class AddRunsCommand : public BoardCommand
{
public:
    AddRunsCommand(Orchestrator *orchestrator, EditErrorHandler onError, int lane, int position,
                   const QJsonObject &spec, int repeat);
    void redo() override;
    void undo() override;
    QStringList names() const { return m_names; }
    enum class Hold {
        No,
        WhileDispatching, ///< held (not started by the dispatching under way) when it is under way at redo
        Always,           ///< held: a duplicate of a held run waits for its Start as the original does
    };
    void setHold(Hold hold) { m_hold = hold; }

private:
    Hold m_hold = Hold::No;
    int m_lane;
    int m_position;
    QJsonObject m_spec;
    int m_repeat;
    QStringList m_names;
};

/// Takes a run that is not active off the board; undo puts it back where
/// it was, as it was (a finished run stays finished, with its curves).
class RemoveRunCommand : public BoardCommand
{
public:
    RemoveRunCommand(Orchestrator *orchestrator, EditErrorHandler onError, const QString &name);
    void redo() override;
    void undo() override;

private:
    QString m_name;
    RunInfo m_run; ///< the record as it was when removed
    int m_position = -1;
};

/// Moves a run to another lane or position.
class MoveRunCommand : public BoardCommand
{
public:
    MoveRunCommand(Orchestrator *orchestrator, EditErrorHandler onError, const QString &name, int toLane,
                   int toPosition);
    void redo() override;
    void undo() override;

private:
    QString m_name;
    int m_fromLane = -1;
    int m_fromPosition = -1;
    int m_toLane;
    int m_toPosition;
};

/// Replaces the spec of a run that has not started. Its undo is refused
/// once the run has started since (a Retry queues it again): the spec then
/// describes an attempt that ran.
class EditRunCommand : public BoardCommand
{
public:
    EditRunCommand(Orchestrator *orchestrator, EditErrorHandler onError, const QString &name, const QJsonObject &spec);
    void redo() override;
    void undo() override;

private:
    bool apply(const QString &from, const QJsonObject &spec);
    QString m_name;
    QJsonObject m_old;
    QJsonObject m_new;
    QDateTime m_started; ///< the run's last start when edited
};

/// Sets what a run runs after (Dependencies::setAfter: no unknown name, no
/// cycle); undo puts back what it ran after before. Refused while the run
/// is active.
class SetAfterCommand : public BoardCommand
{
public:
    SetAfterCommand(Orchestrator *orchestrator, EditErrorHandler onError, const QString &name,
                    const QStringList &after);
    void redo() override;
    void undo() override;

private:
    bool apply(const QStringList &after);
    QString m_name;
    QStringList m_old;
    QStringList m_new;
};

/// Adds a lane for a device.
class AddLaneCommand : public BoardCommand
{
public:
    AddLaneCommand(Orchestrator *orchestrator, EditErrorHandler onError, const QString &device, int slotCount);
    void redo() override;
    void undo() override;

private:
    QString m_device;
    int m_slots;
    int m_index = -1;
};

/// Removes an empty lane.
class RemoveLaneCommand : public BoardCommand
{
public:
    RemoveLaneCommand(Orchestrator *orchestrator, EditErrorHandler onError, int index);
    void redo() override;
    void undo() override;

private:
    int m_index;
    QString m_device;
    int m_slots = 1;
    QString m_name;
};

/// Names a lane (an empty name: its device is its title again).
class RenameLaneCommand : public BoardCommand
{
public:
    RenameLaneCommand(Orchestrator *orchestrator, EditErrorHandler onError, int index, const QString &name);
    void redo() override;
    void undo() override;

private:
    int m_index;
    QString m_oldName;
    QString m_name;
};

/// Changes a lane's device or slot count.
class EditLaneCommand : public BoardCommand
{
public:
    EditLaneCommand(Orchestrator *orchestrator, EditErrorHandler onError, int index, const QString &device,
                    int slotCount);
    void redo() override;
    void undo() override;

private:
    bool apply(const QString &device, int slotCount);
    int m_index;
    QString m_oldDevice;
    int m_oldSlots = 1;
    QString m_device;
    int m_slots;
};

} // namespace trainyard
