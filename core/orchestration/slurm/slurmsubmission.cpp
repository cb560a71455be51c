#include "orchestration/slurm/slurmsubmission.h"

#include "orchestration/devices/device.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/slurm/slurmjob.h"

#include <QDir>

namespace trainyard {

SlurmSubmission::SlurmSubmission(SlurmClusterConfig cluster)
    : m_cluster(std::move(cluster))
{
}

void SlurmSubmission::prepare(LaunchSpec &spec) const
{
    if (const QString partition = spec.target.partition(); !partition.isEmpty()) {
        spec.partition = partition;
    }
    if (spec.gres.isEmpty()) {
        spec.gres = m_cluster.gres;
    }
    // Slurm narrows CUDA_VISIBLE_DEVICES to the job's GPUs: its first is cuda:0.
    spec.device = spec.gres.startsWith(QStringLiteral("gpu")) ? Device::gpus({0}) : Device::cpu();
    if (!m_cluster.worker.isEmpty() && !spec.isProgram()) {
        spec.program = m_cluster.worker;
    }
    // This machine's build tree means nothing on a cluster reached over ssh:
    // there the module must be installed (docs/python.md).
    if (!m_cluster.sshCommand.isEmpty()) {
        spec.pythonPath.clear();
    }
    if (!m_cluster.connectBack) {
        spec.connect.clear();
    }
}

QStringList SlurmSubmission::arguments(const LaunchSpec &job) const
{
    const QString log = QDir(job.runDir).filePath(QStringLiteral("worker.log"));
    // --export=ALL: the job gets sbatch's environment, the token included,
    // whatever SBATCH_EXPORT the site sets.
    QStringList args{QStringLiteral("--parsable"),
                     QStringLiteral("--job-name=%1").arg(job.name),
                     QStringLiteral("--output=%1").arg(log),
                     QStringLiteral("--open-mode=append"),
                     QStringLiteral("--chdir=%1").arg(job.workingDirectory()),
                     QStringLiteral("--export=ALL")};
    const QString partition = job.partition.isEmpty() ? m_cluster.partition : job.partition;
    if (!partition.isEmpty()) {
        args << QStringLiteral("--partition=%1").arg(partition);
    }
    if (!m_cluster.account.isEmpty()) {
        args << QStringLiteral("--account=%1").arg(m_cluster.account);
    }
    if (!m_cluster.qos.isEmpty()) {
        args << QStringLiteral("--qos=%1").arg(m_cluster.qos);
    }
    if (!m_cluster.time.isEmpty()) {
        args << QStringLiteral("--time=%1").arg(m_cluster.time);
    }
    const QString gres = job.gres.isEmpty() ? m_cluster.gres : job.gres;
    if (!gres.isEmpty()) {
        args << QStringLiteral("--gres=%1").arg(gres);
    }
    // USR2, to the batch shell, which is the worker (the script execs it);
    // USR1 is NCCL's.
    if (m_cluster.warnSeconds > 0) {
        args << QStringLiteral("--signal=B:USR2@%1").arg(m_cluster.warnSeconds);
    }
    args << m_cluster.extraArgs; // last: a site's own options win
    return args;
}

QByteArray SlurmSubmission::script(const LaunchSpec &job) const
{
    QList<std::pair<QString, QString>> exports;
    if (job.isProgram()) {
        // A program run's variables but the token: Slurm keeps the script
        // where administrators can read it.
        exports = job.environment();
        exports.removeIf([](const auto &entry) { return entry.first == QLatin1String("TRAINYARD_TOKEN"); });
    }
    return SlurmJob::script(job.program, job.arguments(), exports);
}

QProcessEnvironment SlurmSubmission::environment(const LaunchSpec &job) const
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString &key : LaunchSpec::runVariableNames()) {
        env.remove(key);
    }
    env.remove(QStringLiteral("CUDA_VISIBLE_DEVICES")); // the orchestrator's GPUs are not the node's
    env.insert(QStringLiteral("CUDA_DEVICE_ORDER"), QStringLiteral("PCI_BUS_ID"));
    for (const auto &[key, value] : job.environment()) {
        env.insert(key, value);
    }
    return env;
}

} // namespace trainyard
