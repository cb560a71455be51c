#pragma once

#include "ui/common/prompts.h"

#include <QDateTime>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>

namespace trainyard {

class Experiment;

class BoardController;
class ExperimentDocument;
class Session;

/// The open experiment: makes its ExperimentDocument (the core Session and
/// the board's edit history) on open and destroys it on close, opens one (a
/// file, the demo, a new board), saves it, closes it (asking first what to do
/// with runs that still train), and says what the window shows about it
/// (title, finish count). It hands each board and its history to the
/// BoardController, and tells the window when a session comes and goes so the
/// views can follow it. It shows nothing itself: failures come as signals.
class SessionController : public QObject
{
    Q_OBJECT
public:
    using CloseChoice = Prompts::CloseChoice;
    using UnsavedChoice = Prompts::UnsavedChoice;

    /// Board edits of every session go through `board`, which must outlive this.
    explicit SessionController(BoardController *board, QObject *parent = nullptr);
    ~SessionController() override; ///< stops the runs of a session still open

    Session *session() const;
    /// The open experiment: its session, edit history and clean state (nullptr: none open).
    ExperimentDocument *document() const { return m_document.get(); }

    // Each closes the open session first (false when the user cancels that),
    // and returns false after openFailed / saveFailed on failure.
    bool openDemo();
    bool openFile(const QString &path);
    bool newExperiment();
    /// Writes the board to `path`. A board still called "untitled-…" takes
    /// the file's name (and its runs folder follows, see Session::rename).
    bool saveTo(const QString &path);
    /// Renames the experiment (Session::rename); false after renameFailed.
    bool rename(const QString &name);
    /// Opens the autosaved copy `copyPath` as the board of `filePath` (empty:
    /// a board without a file); its edits count as unsaved until saved.
    bool openRecovered(const QString &copyPath, const QString &filePath);
    /// What to open when the app starts without a file: the experiment whose
    /// runs were left training, else the last one used; empty: the demo.
    static QString startupFile();
    /// The app's start without a file: a board that never had one, autosaved
    /// when Trainyard went down (if the prompts want it), else
    /// startupFile(), else the demo.
    bool openAtStart();

    /// Closes the session, asking the prompts while runs train; false when cancelled.
    bool closeSession();
    /// Closes the session without asking, stopping its runs (the window goes away).
    void closeWithoutAsking();
    /// How many closed sessions still stop their runs (each ends on its own).
    int closingCount() const { return m_closing; }
    /// Who answers its questions (they must outlive this). Without prompts:
    /// unsaved edits are discarded, closing stops the runs, an autosaved
    /// copy is left where it is and a file that runs commands of its own
    /// does not open.
    void setPrompts(Prompts *prompts) { m_prompts = prompts; }

    /// "NAME[*] (FILE) — Trainyard"; "*" while the board has unsaved edits.
    QString title() const;
    /// "N of M finished" (empty without a session).
    QString finishCountText() const;

Q_SIGNALS:
    /// An experiment is open, as `document` (the BoardController already
    /// edits its board); `warnings` are what loading it reported without failing.
    void sessionOpened(trainyard::ExperimentDocument *document, const QStringList &warnings);
    /// The experiment is about to close: let go of its document now.
    void sessionAboutToClose(trainyard::ExperimentDocument *document);
    void sessionClosed();
    void titleChanged(const QString &title);
    /// An experiment could not be opened (the previous one is closed already).
    void openFailed(const QString &message);
    void saveFailed(const QString &message);
    void renameFailed(const QString &message);
    void saved(const QString &path);
    /// A file was opened or saved (absolute path), for the recent files.
    void fileUsed(const QString &path);

private:
    bool install(std::unique_ptr<Session> opened, const QStringList &errors);
    /// The one place a session ends: views let go, then Session::close.
    void endSession(bool leaveRunning);
    void updateTitle();
    /// Offers the autosaved copy `copy` of the board of `filePath` (empty: one
    /// without a file) through the prompts: what openRecovered() gave when
    /// it was wanted; nothing when there is none, nobody to ask, or it was
    /// declined (then the copy is removed).
    std::optional<bool> offerRecovery(const QString &copy, const QString &filePath);
    /// True when `experiment` runs no command of its own or the user trusts this
    /// version of it (asked through the prompts); else `errors` says why.
    bool mayRunPrograms(const Experiment &experiment, QStringList *errors);

    BoardController *m_board;
    std::unique_ptr<ExperimentDocument> m_document;
    int m_closing = 0;
    Prompts *m_prompts = nullptr;
};

} // namespace trainyard
