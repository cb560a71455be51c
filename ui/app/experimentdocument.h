#pragma once

#include <QObject>
#include <QString>

#include <memory>

class QUndoStack;

namespace trainyard {

class Session;

/// One open experiment from its opening to its close (Tiled's Document):
/// the Session that runs its board, the board's edit history (its undo
/// stack: BoardController pushes onto it) and whether the board is as
/// opened or last saved. The SessionController makes one on open and
/// destroys it on close, so a history never outlives its board.
class ExperimentDocument : public QObject
{
    Q_OBJECT
public:
    explicit ExperimentDocument(std::unique_ptr<Session> session, QObject *parent = nullptr);
    /// The history goes first: its commands point at the session's board.
    ~ExperimentDocument() override;

    Session *session() const { return m_session.get(); }
    QUndoStack *undoStack() const { return m_undo; }
    /// The experiment file (empty: a board never saved).
    QString filePath() const;

    /// Whether the board is as opened or last saved.
    bool isClean() const;
    void markSaved();   ///< the board was just written
    void markUnsaved(); ///< the board holds edits no file has (a recovered autosave)

    /// Hands the session over for its asynchronous close (Session::close);
    /// the history is cleared first, and the document is empty after.
    std::unique_ptr<Session> takeSession();

Q_SIGNALS:
    void cleanChanged(bool clean);

private:
    std::unique_ptr<Session> m_session;
    QUndoStack *m_undo;
};

} // namespace trainyard
