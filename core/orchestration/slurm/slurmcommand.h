#pragma once

#include <QByteArray>
#include <QObject>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <QPointer>

#include <deque>
#include <functional>
#include <memory>

namespace trainyard {

struct SlurmClusterConfig;

// What one Slurm command (sbatch, squeue, scontrol, scancel) did.
struct SlurmCommandResult
{
    int exitCode = -1;
    bool started = true; // false: the program could not be run at all
    bool timedOut = false;
    QByteArray out;
    QByteArray err;

    bool ok() const { return started && !timedOut && exitCode == 0; }
    // Slurm's words for a job it no longer knows (squeue -j, scontrol show job).
    bool saysUnknownJob() const { return started && !timedOut && err.contains("Invalid job id"); }
    // The command's own words for a failure (its stderr, one line), else
    // what went wrong around it: "sbatch: error: invalid partition ...".
    QString message(const QString &program) const;
};

// Runs the Slurm client commands for SlurmLauncher: always an argument list
// (never a shell), asynchronously with a deadline, or blocking and bounded
// for release() (which must not return to the event loop). An interface so
// the launcher's logic can be driven by canned answers; the real one is
// SlurmProcessRunner, and the tests use it against a real cluster.
class SlurmCommandRunner
{
public:
    using Done = std::function<void(const SlurmCommandResult &)>;
    virtual ~SlurmCommandRunner() = default;

    // `done` runs from the event loop, never after `context` is destroyed.
    // `env` empty: the orchestrator's environment.
    virtual void run(const QString &program, const QStringList &args, const QByteArray &input,
                     const QProcessEnvironment &env, QObject *context, Done done) = 0;
    virtual SlurmCommandResult runNow(const QString &program, const QStringList &args, int timeoutMs) = 0;
};

// SlurmCommandRunner with QProcess. `binDir` empty: the programs on PATH.
// At most `maxRunning` commands run at once, the others wait their turn in
// order: 500 runs started together are 500 sbatch calls, and a controller
// answers a few at a time better than all at once (sites ask for it). The
// deadline counts from a command's start, not from its call.
class SlurmProcessRunner : public SlurmCommandRunner
{
public:
    explicit SlurmProcessRunner(int timeoutMs = 30000, QString binDir = QString(), int maxRunning = 4);
    // The runner of `cluster`'s commands: its deadline, its ssh (setRemote).
    static std::unique_ptr<SlurmCommandRunner> forCluster(const SlurmClusterConfig &cluster);

    void run(const QString &program, const QStringList &args, const QByteArray &input, const QProcessEnvironment &env,
             QObject *context, Done done) override;
    SlurmCommandResult runNow(const QString &program, const QStringList &args, int timeoutMs) override;
    // The same with `input` on the command's standard input (a token that
    // must not be on a command line).
    SlurmCommandResult runNow(const QString &program, const QStringList &args, const QByteArray &input, int timeoutMs);

    // Every command through ssh: `ssh` is the ssh program, its options, "--"
    // and the host (SlurmClusterConfig::sshCommand). The remote
    // shell gets the command with every word single-quoted; the environment
    // does not travel (the job gets the login's, and no token: jobs of an ssh
    // cluster have no socket to prove themselves to).
    void setRemote(QStringList ssh) { m_ssh = std::move(ssh); }

    int running() const { return m_running; }
    int waiting() const { return int(m_waiting.size()); }

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
    QString resolve(const QString &program) const;
    // What QProcess runs for `program args`: itself, or ssh with it.
    QPair<QString, QStringList> command(const QString &program, const QStringList &args) const;
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
