#pragma once

#include "records/runinfo.h"

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>

class QAction;
class QUndoStack;

namespace trainyard {

struct ExperimentHost;
struct SweepSpec;

class ExperimentDocument;

/// The window's side of the board's edits: they are the open document's
/// (ExperimentDocument, which owns the one undo stack, as Tiled's documents
/// own theirs), and this forwards them, so drops (BoardModel) and the
/// window's actions need not know which document is open. Its Undo and
/// Redo actions follow whichever document is current.
class BoardController : public QObject
{
    Q_OBJECT
public:
    explicit BoardController(QObject *parent = nullptr);
    ~BoardController() override;

    /// The document to edit (nullptr: none); it never owns it.
    void setDocument(ExperimentDocument *document);
    ExperimentDocument *document() const { return m_document; }
    /// The document's history (nullptr without one).
    QUndoStack *undoStack() const;
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
    /// An edit was made, undone or redone.
    void edited();
    /// The history changed (an edit, a save, another document): the actions follow.
    void historyChanged();

private:
    QAction *createStepAction(QObject *parent, bool labelled, bool forward);

    ExperimentDocument *m_document = nullptr;
    QList<QMetaObject::Connection> m_connections; // to the document
};

} // namespace trainyard
