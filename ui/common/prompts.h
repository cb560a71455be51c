#pragma once

#include <QDateTime>
#include <QString>
#include <QStringList>

#include <functional>

namespace trainyard {

/// The questions the app asks its user, in one place: dialogs in the app
/// (DialogPrompts), answers given in advance where nobody is there to click
/// (ScriptedPrompts: tests, the screenshot tool, benchmarks).
class Prompts
{
public:
    /// What to do with training runs when the experiment closes.
    enum class CloseChoice {
        StopRuns,
        LeaveRunning,
        Cancel
    };
    /// What to do with board edits that are not saved when it closes. Save
    /// means the prompt has saved them (the caller checks: edits still
    /// unsaved cancel the close, so nothing is lost).
    enum class UnsavedChoice {
        Save,
        Discard,
        Cancel
    };

    virtual ~Prompts() = default;
    /// `training` runs of `experiment` are active: stop them, leave them running, or cancel.
    virtual CloseChoice howToClose(const QString &experiment, int training) = 0;
    /// The board of `experiment` has unsaved edits.
    virtual UnsavedChoice unsavedEdits(const QString &experiment) = 0;
    /// An autosaved copy of the board of `experiment` from `savedAt` is newer
    /// than its file: true recovers it, false throws it away.
    virtual bool recover(const QString &experiment, const QDateTime &savedAt) = 0;
    /// `file` runs `commands` and this version of it is not trusted: true
    /// trusts it. `about`: why it asks again, if it was trusted, and what
    /// trust covers (TrustList::coverage).
    virtual bool trust(const QString &file, const QStringList &commands, const QString &about) = 0;
    /// Start all found `problems` (missing or busy GPUs, data): true starts anyway.
    virtual bool startAnyway(const QStringList &problems) = 0;
    /// `verb` (Start, Retry) would start new attempts of runs that hold
    /// results, as `question` explains: true starts them.
    virtual bool startNewAttempts(const QString &verb, const QString &question) = 0;
    /// Something the user must see that asks nothing (a refused board edit).
    virtual void tell(const QString &title, const QString &message) = 0;
};

/// Prompts answered without asking: each answer is a function a test may
/// replace. The defaults are what is safe with nobody there: stop the runs,
/// discard unsaved edits, throw away an autosaved copy, trust nothing, start
/// despite problems and start new attempts (nothing is deleted either way);
/// messages are kept in `told`.
class ScriptedPrompts : public Prompts
{
public:
    std::function<CloseChoice()> close = [] { return CloseChoice::StopRuns; };
    std::function<UnsavedChoice()> unsaved = [] { return UnsavedChoice::Discard; };
    std::function<bool(const QString &experiment, const QDateTime &savedAt)> recovery =
        [](const QString &, const QDateTime &) { return false; };
    std::function<bool(const QString &file, const QStringList &commands)> trusts =
        [](const QString &, const QStringList &) { return false; };
    std::function<bool(const QStringList &problems)> start = [](const QStringList &) { return true; };
    std::function<bool(const QString &question)> attempts = [](const QString &) { return true; };

    CloseChoice howToClose(const QString &, int) override { return close(); }
    UnsavedChoice unsavedEdits(const QString &) override { return unsaved(); }
    bool recover(const QString &experiment, const QDateTime &savedAt) override { return recovery(experiment, savedAt); }
    bool trust(const QString &file, const QStringList &commands, const QString &about) override
    {
        trustAbout = about;
        return trusts(file, commands);
    }
    QString trustAbout; // the last question's `about`
    bool startAnyway(const QStringList &problems) override { return start(problems); }
    bool startNewAttempts(const QString &, const QString &question) override { return attempts(question); }
    void tell(const QString &, const QString &message) override { told << message; }

    QStringList told; ///< every message tell() was given, oldest first
};

} // namespace trainyard
