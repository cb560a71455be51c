#pragma once

#include <QList>
#include <QObject>
#include <QString>

class QAction;
class QUndoStack;

namespace trainyard {

class ExperimentDocument;

/// The window's side of the board's edits: which document the window edits
/// now, and the Undo and Redo actions that follow it. The edits themselves
/// are the document's (ExperimentDocument, which owns the one undo stack, as
/// Tiled's documents own theirs): views call it directly.
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
