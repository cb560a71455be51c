#include "orchestration/slurm/slurmlanecheck.h"

#include "orchestration/slurm/slurmcommand.h"

#include <QEventLoop>
#include <QFileInfo>

#include <optional>

namespace trainyard {

SlurmLaneCheck::SlurmLaneCheck(SlurmClusterConfig cluster, std::unique_ptr<SlurmCommandRunner> runner)
    : m_submission(std::move(cluster))
    , m_runner(runner ? std::move(runner) : SlurmProcessRunner::forCluster(m_submission.cluster()))
{
}

SlurmLaneCheck::~SlurmLaneCheck() = default;

SlurmCommandResult SlurmLaneCheck::ask(const QString &program, const QStringList &args, const QByteArray &input)
{
    // The runner's own deadline bounds the wait (commandTimeoutMs).
    std::optional<SlurmCommandResult> answer;
    QEventLoop loop;
    QObject context;
    m_runner->run(program, args, input, {}, &context, [&answer, &loop](const SlurmCommandResult &r) {
        answer = r;
        loop.quit();
    });
    if (!answer) {
        loop.exec();
    }
    return *answer;
}

SlurmLaneCheck::Result SlurmLaneCheck::check(const LaunchSpec &spec)
{
    const SlurmClusterConfig &cluster = m_submission.cluster();
    Result out;
    LaunchSpec job = spec;
    m_submission.prepare(job);
    const QString partition = job.partition.isEmpty() ? cluster.partition : job.partition;
    // The partition first: its answer also says whether the cluster answers at all.
    QStringList args{QStringLiteral("show"), QStringLiteral("partition"), QStringLiteral("-o")};
    if (!partition.isEmpty()) {
        args << QStringLiteral("--") << partition;
    }
    SlurmCommandResult r = ask(QStringLiteral("scontrol"), args, {});
    const bool sshFailed = !cluster.sshCommand.isEmpty() && r.exitCode == 255;
    if (!r.started || r.timedOut || sshFailed
        || (!r.ok() && !(r.out + r.err).contains(QByteArrayLiteral("not found")))) {
        out.reachable = false;
        out.cluster = tr("cluster %1 did not answer: %2").arg(cluster.name, r.message(QStringLiteral("scontrol")));
        return out;
    }
    if (!r.ok()) {
        const SlurmCommandResult names =
            ask(QStringLiteral("sinfo"), {QStringLiteral("--noheader"), QStringLiteral("--format=%R")}, {});
        QStringList known = QString::fromUtf8(names.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        known.removeDuplicates();
        out.partition =
            tr("partition %1 does not exist on cluster %2 (%3)")
                .arg(partition, cluster.name,
                     names.ok() && !known.isEmpty() ? tr("its partitions: %1").arg(known.join(QStringLiteral(", ")))
                                                    : r.message(QStringLiteral("scontrol")));
    } else {
        // The very options start() submits, with the very script: nothing is queued.
        QStringList options = m_submission.arguments(job);
        options.insert(1, QStringLiteral("--test-only"));
        r = ask(QStringLiteral("sbatch"), options, m_submission.script(job));
        if (!r.ok()) {
            out.options = tr("sbatch --test-only refused the job: %1").arg(r.message(QStringLiteral("sbatch")));
        }
    }
    // A program run's command is the user's (their PATH on the node); the worker is ours to find.
    if (!job.isProgram()) {
        if (job.program.isEmpty()) {
            out.worker = tr("no trainyard-worker for cluster %1 (set its \"worker\")").arg(cluster.name);
        } else if (cluster.sshCommand.isEmpty()) {
            // Reached locally: the nodes see this machine's paths (a shared filesystem).
            const QFileInfo worker(job.program);
            if (!worker.isFile() || !worker.isExecutable()) {
                out.worker = tr("%1 is not an executable file").arg(job.program);
            }
        } else {
            r = ask(QStringLiteral("test"),
                    {QStringLiteral("-f"), job.program, QStringLiteral("-a"), QStringLiteral("-x"), job.program}, {});
            if (r.exitCode == 1) {
                out.worker = tr("%1 is not an executable file on cluster %2").arg(job.program, cluster.name);
            } else if (!r.ok()) {
                out.worker = tr("%1 could not be looked at on cluster %2: %3")
                                 .arg(job.program, cluster.name, r.message(QStringLiteral("test")));
            }
        }
    }
    return out;
}

} // namespace trainyard
