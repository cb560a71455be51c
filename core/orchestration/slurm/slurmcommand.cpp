#include "orchestration/slurm/slurmcommand.h"

#include "orchestration/slurm/slurmclusterconfig.h"

namespace trainyard {

QString SlurmCommandResult::message(const QString &program) const
{
    if (!started) {
        return QStringLiteral("%1 could not be run (is the Slurm client installed?)").arg(program);
    }
    return ProcessResult::message(program);
}

SlurmProcessRunner::SlurmProcessRunner(int timeoutMs, QString binDir, int maxRunning)
    : m_runner(timeoutMs, std::move(binDir), maxRunning)
{
}

std::unique_ptr<SlurmCommandRunner> SlurmProcessRunner::forCluster(const SlurmClusterConfig &cluster)
{
    auto runner = std::make_unique<SlurmProcessRunner>(cluster.commandTimeoutMs);
    runner->setRemote(cluster.sshCommand);
    return runner;
}

void SlurmProcessRunner::run(const QString &program, const QStringList &args, const QByteArray &input,
                             const QProcessEnvironment &env, QObject *context, Done done)
{
    m_runner.run(program, args, input, env, context,
                 [done = std::move(done)](const ProcessResult &result) { done(SlurmCommandResult(result)); });
}

SlurmCommandResult SlurmProcessRunner::runNow(const QString &program, const QStringList &args, int timeoutMs)
{
    return m_runner.runNow(program, args, QByteArray(), timeoutMs);
}

SlurmCommandResult SlurmProcessRunner::runNow(const QString &program, const QStringList &args, const QByteArray &input,
                                              int timeoutMs)
{
    return m_runner.runNow(program, args, input, timeoutMs);
}

} // namespace trainyard
