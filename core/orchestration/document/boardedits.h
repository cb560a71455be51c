#pragma once

#include "orchestration/records/runinfo.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

class QJsonObject;
class QUndoCommand;
class QUndoStack;

namespace trainyard {

struct ExperimentHost;
class Orchestrator;
struct SweepSpec;

/// The open document's edits (ExperimentDocument forwards to it; its
/// comments say what each does): each pushes one undo command, or a macro
/// of several, onto the document's history; a refused one says why in
/// editFailed. Undo and redo drop an entry whose step the board refuses.
class BoardEdits : public QObject
{
    Q_OBJECT
public:
    BoardEdits(Orchestrator *orchestrator, QUndoStack *history, QObject *parent = nullptr);

    bool queueSpec(int lane, int position, const QJsonObject &spec, int repeat, QList<RunId> *queued);
    bool moveRun(RunId id, int lane, int position);
    bool duplicateRun(RunId id, int lane, int position, int copies = 1);
    bool removeRun(RunId id);
    bool editRun(RunId id, const QJsonObject &spec);
    bool setRunAfter(RunId id, const QStringList &after);
    bool addLane(const QString &device, int slotCount);
    bool removeLane(int lane);
    bool editLane(int lane, const QString &device, int slotCount);
    bool renameLane(int lane, const QString &name);
    bool addHost(const ExperimentHost &host, const QStringList &devices);
    bool addSweep(const SweepSpec &sweep);
    bool moveRuns(const QList<RunId> &ids, int lane, int position);
    bool copyRuns(const QList<RunId> &ids, int lane, int position);
    bool duplicateRuns(const QList<RunId> &ids, int copies);
    bool removeRuns(const QList<RunId> &ids);
    void undo();
    void redo();
    /// The session is going: no more edits.
    void detach() { m_orchestrator = nullptr; }

Q_SIGNALS:
    void editFailed(const QString &message);

private:
    /// Pushes `command`; false when its first redo failed (the stack then deleted it).
    bool push(QUndoCommand *command);
    void reportFailure(const QString &message);
    void step(bool forward);

    Orchestrator *m_orchestrator;
    QUndoStack *m_undo;
    bool m_failed = false;
    QUndoCommand *m_stepping = nullptr; // the command being undone or redone
};

} // namespace trainyard
