#pragma once

#include <QDateTime>
#include <QObject>
#include <QString>

class QTimer;

namespace trainyard {

class BoardController;
class Session;
class SessionController;

/// Keeps the open board's unsaved edits on disk so that a crash, a kill or a
/// power cut loses none: two seconds after an edit the board is written to
/// <AppData>/autosave/<key>.json (keyed by the experiment file, or by the
/// name of a board never saved), and the copy goes as soon as the board is
/// saved or its edits are discarded. A copy newer than its experiment file is
/// what SessionController offers to recover on open.
class Autosave : public QObject
{
    Q_OBJECT
public:
    Autosave(SessionController *sessions, BoardController *board, QObject *parent = nullptr);

    static QString folder();
    /// The copy of the board of `filePath` (empty: the board `name` that has no file).
    static QString pathFor(const QString &filePath, const QString &name);
    /// The most recent copy of a board that has no file (a crash while
    /// editing a new experiment or the demo), else empty.
    static QString newestUnsavedCopy();
    /// The copy of `filePath` when it is newer than the file, else empty.
    static QString recoverable(const QString &filePath);
    /// Forgets the copy of `filePath` / `name`.
    static void remove(const QString &filePath, const QString &name);

    /// Writes the copy now if the board has unsaved edits (tests; before quitting).
    void writeNow();

private:
    void boardChanged();
    void forget();

    SessionController *m_sessions;
    BoardController *m_board;
    QTimer *m_timer;
    QString m_path; ///< the open session's copy
};

} // namespace trainyard
