#pragma once

#include "records/runinfo.h"

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>
#include <QUndoGroup>

class QAction;
class QUndoCommand;
class QUndoStack;

namespace trainyard {

struct ExperimentHost;
struct SweepSpec;

class Orchestrator;

/// The board's edits: the only place that pushes onto the open experiment's
/// undo stack (ExperimentDocument owns it, as Tiled's documents own theirs):
/// queueing, moving, duplicating, removing and editing runs, adding,
/// removing and editing lanes, and the macros that make an edit of several
/// runs one undo step (commands in boardcommands.h). Drops (BoardModel) and
/// the window's actions only call it. Its Undo and Redo actions follow
/// whichever history is current.
class BoardController : public QObject
{
    Q_OBJECT
public:
    explicit BoardController(QObject *parent = nullptr);
    ~BoardController() override;

    /// The board to edit (nullptr: none) and its edit history, the open
    /// document's undo stack; without one (tests, tools) a history of the
    /// controller's own, new for every board. It owns neither.
    void setOrchestrator(Orchestrator *orchestrator, QUndoStack *history = nullptr);
    Orchestrator *orchestrator() const { return m_orchestrator; }
    QUndoStack *undoStack() const { return m_history.activeStack(); }

    /// Undoes the last edit; an edit whose undo the board refuses (its run
    /// has started since) is dropped from the history instead of staying on
    /// top of it, and editFailed says why.
    void undo();
    void redo();
    /// Undo and Redo actions that call undo() and redo(). `labelled`: the
    /// text names the edit ("Undo Duplicate transe-1", for a menu); otherwise
    /// it stays "Undo"/"Redo" and the tooltip names it, so tool bar buttons
    /// keep their size.
    QAction *createUndoAction(QObject *parent, bool labelled);
    QAction *createRedoAction(QObject *parent, bool labelled);

    /// Whether the board is as opened or last saved.
    bool isClean() const;
    /// The board was just written: this is its clean state now.
    void markSaved();
    /// The board holds edits no file has (a recovered autosave).
    void markUnsaved();

    // Edits, one undo step each. Each returns false when there is no board,
    // no such run or lane, or the board refused (then editFailed said why).

    /// Queues `spec` `repeat` times on `lane` at `position` (-1: the end);
    /// `queued` receives the new runs.
    bool queueSpec(int lane, int position, const QJsonObject &spec, int repeat, QList<RunId> *queued = nullptr);
    /// Moves a run; true without a step when it is already there.
    bool moveRun(RunId id, int lane, int position);
    /// Queues a copy of a run's spec on `lane` at `position`.
    bool duplicateRun(RunId id, int lane, int position);
    bool removeRun(RunId id);
    /// Replaces the spec of a run that has not started. A run that has run
    /// keeps its folder and curves: its edited spec becomes a new run queued
    /// right after it, held while the others are being dispatched (it starts
    /// when the user starts it, or at the next Start all).
    bool editRun(RunId id, const QJsonObject &spec);
    /// Makes a run that is not active run after `after` (names of runs,
    /// repeat groups, rounds or sweeps; empty: nothing): it waits until they
    /// have finished. A name that is none of these, or one that would make
    /// runs wait for one another, is refused.
    bool setRunAfter(RunId id, const QStringList &after);
    bool addLane(const QString &device, int slotCount);
    /// Removes an empty lane.
    bool removeLane(int lane);
    bool editLane(int lane, const QString &device, int slotCount);
    /// Names a lane (empty: no name; its header shows its device).
    bool renameLane(int lane, const QString &name);
    /// Adds `host` to the experiment and a lane per device of it (AddHostCommand).
    bool addHost(const ExperimentHost &host, const QStringList &devices);
    /// Adds a sweep built in the app to the board's SweepRunner (its trials come as it places them).
    bool addSweep(const SweepSpec &sweep);

    // Edits of several runs, one undo step for all; true when any run changed.

    /// Moves `ids` in order to `lane`, the first at `position` counted in the
    /// lane as it is before the move (what a drop between two cards means).
    bool moveRuns(const QList<RunId> &ids, int lane, int position);
    /// Copies `ids` in order into `lane` from `position` on (a copy drop).
    bool copyRuns(const QList<RunId> &ids, int lane, int position);
    /// Duplicates each run `copies` times right after itself, each copy with a seed of its own.
    bool duplicateRuns(const QList<RunId> &ids, int copies = 1);
    bool removeRuns(const QList<RunId> &ids);

Q_SIGNALS:
    /// A board edit (or its undo) was refused; the message says why.
    void editFailed(const QString &message);
    /// The board reached or left its clean state.
    void cleanChanged(bool clean);
    /// An edit was made, undone or redone.
    void edited();

private:
    /// Pushes `command`; false when its first redo failed (the stack then deleted it).
    bool push(QUndoCommand *command);
    void reportFailure(const QString &message);

    void step(bool forward);
    QAction *createStepAction(QObject *parent, bool labelled, bool forward);

    QUndoGroup m_history; // the current history is its active stack
    QUndoStack *m_own;    // the history when the board comes without one
    QUndoStack *m_undo;   // the active stack
    Orchestrator *m_orchestrator = nullptr;
    bool m_failed = false;
    QUndoCommand *m_stepping = nullptr; // the command being undone or redone
};

} // namespace trainyard
