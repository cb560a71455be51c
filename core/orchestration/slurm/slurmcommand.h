#pragma once

#include "orchestration/process/processrunner.h"

#include <QByteArray>
#include <QObject>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

namespace trainyard {

struct SlurmClusterConfig;

// What one Slurm command (sbatch, squeue, scontrol, scancel) did.
struct SlurmCommandResult : ProcessResult
{
    SlurmCommandResult() = default;
    SlurmCommandResult(ProcessResult result)
        : ProcessResult(std::move(result))
    {
    }

    // Slurm's words for a job it no longer knows (squeue -j, scontrol show job).
    bool saysUnknownJob() const { return started && !timedOut && err.contains("Invalid job id"); }
    // ProcessResult::message, naming the Slurm client when a command could
    // not be run: "sbatch: error: invalid partition ...".
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

// SlurmCommandRunner with the real programs, through ProcessRunner (its
// queue, deadline and ssh). `binDir` empty: the programs on PATH.
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

    // Every command through ssh (SlurmClusterConfig::sshCommand): see
    // ProcessRunner::setRemote. The job gets the login's environment, and no
    // token: jobs of an ssh cluster have no socket to prove themselves to.
    void setRemote(QStringList ssh) { m_runner.setRemote(std::move(ssh)); }

    int running() const { return m_runner.running(); }
    int waiting() const { return m_runner.waiting(); }

private:
    ProcessRunner m_runner;
};

} // namespace trainyard
