#pragma once

#include <QByteArray>
#include <QObject>
#include <QPointer>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <deque>
#include <functional>

class QProcess;

namespace trainyard {

// One program to run: always an argument list, never a shell.
struct ProcessCommand
{
    QString program;
    QStringList args;
    QByteArray input;         // written to its standard input, which is then closed
    QProcessEnvironment env;  // empty: the orchestrator's own
    QString workingDirectory; // empty: the orchestrator's
};

// What one program run did.
struct ProcessResult
{
    int exitCode = -1;     // -1 when it did not exit by itself
    bool started = true;   // false: the program could not be run at all (errorString says why)
    bool crashed = false;  // ended by a signal that was not the deadline's kill
    bool timedOut = false; // not finished by its deadline: killed
    QString errorString;   // QProcess's words for a failed start or a crash
    QByteArray out;
    QByteArray err;

    bool ok() const { return started && !timedOut && !crashed && exitCode == 0; }
    // The program's own words for a failure (its stderr, one line), else
    // what went wrong around it: "ssh: connect to host ...".
    QString message(const QString &program) const;
};

// One run of a program, the orchestration core's only way to start one
// besides a run's own worker (WorkerProcess). done() comes once, from the
// event loop, whichever of its end, a failed start or the deadline comes
// first; never after cancel() or the Process's destruction, which kill the
// program (so a Process given a context as parent dies with it, and its
// program with it).
class Process : public QObject
{
    Q_OBJECT
public:
    explicit Process(QObject *parent = nullptr);
    ~Process() override;

    // Starts `command`, abandoning a run still under way (without its
    // done()). `timeoutMs` <= 0: no deadline.
    void start(const ProcessCommand &command, int timeoutMs = 0);
    bool isRunning() const { return m_running || m_pending; }
    // Blocks up to `ms` without the event loop (a caller that may not
    // return to it); done() is emitted within when the program ends. False:
    // it still runs (and its deadline is not applied meanwhile).
    bool waitForFinished(int ms);
    // Kills the program; done() does not follow.
    void cancel();
    const ProcessResult &result() const { return m_result; }

    // Blocking, bounded by `timeoutMs` from start to end: the program is
    // killed at the deadline.
    static ProcessResult runNow(const ProcessCommand &command, int timeoutMs);

Q_SIGNALS:
    void done(const trainyard::ProcessResult &result);

private:
    void settle();
    void deliver();
    void stopProgram();

    QProcess *m_process = nullptr;
    QTimer m_deadline;
    ProcessResult m_result;
    QString m_program;
    bool m_running = false;  // the program runs (or is starting)
    bool m_starting = false; // inside start(): an answer now is deferred
    bool m_pending = false;  // settled, done() not yet emitted
};

// Runs programs for callers that ask many (Slurm's commands, ssh's):
// argument lists, asynchronously with a deadline or blocking and bounded
// (for a caller that must not return to the event loop). `binDir` empty:
// the programs on PATH. At most `maxRunning` programs run at once, the
// others wait their turn in order: 500 runs started together are 500 sbatch
// calls, and a controller answers a few at a time better than all at once
// (sites ask for it). The deadline counts from a program's start, not from
// its call.
class ProcessRunner
{
public:
    using Done = std::function<void(const ProcessResult &)>;
    explicit ProcessRunner(int timeoutMs = 30000, QString binDir = QString(), int maxRunning = 4);

    // `done` runs from the event loop, never after `context` is destroyed
    // (which kills the program). `env` empty: the orchestrator's environment.
    void run(const QString &program, const QStringList &args, const QByteArray &input, const QProcessEnvironment &env,
             QObject *context, Done done);
    // The same, blocking; `input` on the program's standard input (a token
    // that must not be on a command line).
    ProcessResult runNow(const QString &program, const QStringList &args, const QByteArray &input, int timeoutMs) const;

    // Every program through ssh: `ssh` is the ssh program, its options, "--"
    // and the host. The remote shell gets the command with every word
    // single-quoted; the environment does not travel.
    void setRemote(QStringList ssh) { m_ssh = std::move(ssh); }

    int running() const { return m_running; }
    int waiting() const { return int(m_waiting.size()); }

    // `word` in single quotes for sh: nothing in it is interpreted.
    static QString shellQuote(const QString &word);

private:
    struct Call
    {
        QString program;
        QStringList args;
        QByteArray input;
        QProcessEnvironment env;
        QPointer<QObject> context;
        Done done;
    };
    // What is run for `program args`: itself, or ssh with it.
    ProcessCommand command(const QString &program, const QStringList &args) const;
    void launch(Call call);
    void startWaiting();

    int m_timeoutMs;
    QString m_binDir;
    int m_maxRunning;
    int m_running = 0;
    std::deque<Call> m_waiting;
    QStringList m_ssh;
};

} // namespace trainyard
