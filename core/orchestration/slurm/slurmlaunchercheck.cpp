// What SlurmLauncher says beside tracking jobs (slurmlauncher.cpp): the
// words for an end the queue caused (a time limit, a failed launch), and
// check(), what `trainyard check` asks a cluster about a lane's job,
// blocking and bounded (a command line's, never the window's), with
// slurmlauncher.cpp's own options and script, not a copy.

#include "slurm/slurmcommand.h"
#include "slurm/slurmlauncher.h"

#include <QDir>
#include <QEventLoop>
#include <QFileInfo>

#include <optional>

namespace trainyard {

QString SlurmLauncher::checkpointStamp(const QString &runDir)
{
    if (runDir.isEmpty())
        return {};
    const QFileInfoList files = QDir(runDir + QStringLiteral("/checkpoints"))
                                    .entryInfoList(QDir::Files | QDir::NoDotAndDotDot | QDir::NoSymLinks, QDir::Time);
    if (files.isEmpty())
        return {};
    const QFileInfo &newest = files.constFirst();
    return QStringLiteral("%1 %2 %3")
        .arg(newest.fileName())
        .arg(newest.size())
        .arg(newest.lastModified().toMSecsSinceEpoch());
}

QString SlurmLauncher::endReason(const Job &job, const SlurmJob &final, bool timeLimit, const QString &stamp) const
{
    const QString state = final.state.section(QLatin1Char(' '), 0, 0);
    if (timeLimit) {
        const QString limit = m_cluster.time.isEmpty() ? QString() : QStringLiteral(" (--time=%1)").arg(m_cluster.time);
        return stamp.isEmpty()
                   ? tr("job %1 reached its time limit%2 with no checkpoint to resume from").arg(job.id, limit)
                   : tr("job %1 reached its time limit%2 without writing a new checkpoint (not resubmitted again)")
                         .arg(job.id, limit);
    }
    if (state == QLatin1String("FAILED") && final.reason == QLatin1String("JobLaunchFailure")) {
        // Slurm says "signal 53": its launch failed before the script ran.
        const QString node = final.nodes.isEmpty() ? job.node : final.nodes;
        return !job.spec.runDir.isEmpty() && !QFileInfo(job.spec.runDir).isDir()
                   ? tr("Slurm could not launch job %1 on %2: its run folder %3 (the job's --chdir and --output) "
                        "does not exist")
                         .arg(job.id, node, job.spec.runDir)
                   : tr("Slurm could not launch job %1 on %2 (JobLaunchFailure): the node could not open the job's "
                        "output file or folder, or start its script; slurmd's log there says which")
                         .arg(job.id, node);
    }
    return {};
}

SlurmCommandResult SlurmLauncher::ask(const QString &program, const QStringList &args, const QByteArray &input)
{
    // The runner's own deadline bounds the wait (commandTimeoutMs).
    std::optional<SlurmCommandResult> answer;
    QEventLoop loop;
    m_runner->run(program, args, input, {}, this, [&answer, &loop](const SlurmCommandResult &r) {
        answer = r;
        loop.quit();
    });
    if (!answer)
        loop.exec();
    return *answer;
}

SlurmLauncher::LaneCheck SlurmLauncher::check(const LaunchSpec &spec)
{
    LaneCheck out;
    LaunchSpec job = spec;
    prepare(job);
    const QString partition = job.partition.isEmpty() ? m_cluster.partition : job.partition;
    // The partition first: its answer also says whether the cluster answers at all.
    QStringList args{QStringLiteral("show"), QStringLiteral("partition"), QStringLiteral("-o")};
    if (!partition.isEmpty())
        args << QStringLiteral("--") << partition;
    SlurmCommandResult r = ask(QStringLiteral("scontrol"), args, {});
    const bool sshFailed = !m_cluster.sshCommand.isEmpty() && r.exitCode == 255;
    if (!r.started || r.timedOut || sshFailed
        || (!r.ok() && !(r.out + r.err).contains(QByteArrayLiteral("not found")))) {
        out.reachable = false;
        out.cluster = tr("cluster %1 did not answer: %2").arg(m_cluster.name, r.message(QStringLiteral("scontrol")));
        return out;
    }
    if (!r.ok()) {
        const SlurmCommandResult names =
            ask(QStringLiteral("sinfo"), {QStringLiteral("--noheader"), QStringLiteral("--format=%R")}, {});
        QStringList known = QString::fromUtf8(names.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        known.removeDuplicates();
        out.partition =
            tr("partition %1 does not exist on cluster %2 (%3)")
                .arg(partition, m_cluster.name,
                     names.ok() && !known.isEmpty() ? tr("its partitions: %1").arg(known.join(QStringLiteral(", ")))
                                                    : r.message(QStringLiteral("scontrol")));
    } else {
        // The very options start() submits, with the very script: nothing is queued.
        QStringList options = sbatchArguments(job);
        options.insert(1, QStringLiteral("--test-only"));
        r = ask(QStringLiteral("sbatch"), options, jobScript(job));
        if (!r.ok())
            out.options = tr("sbatch --test-only refused the job: %1").arg(r.message(QStringLiteral("sbatch")));
    }
    // A program run's command is the user's (their PATH on the node); the worker is ours to find.
    if (!job.isProgram()) {
        if (job.program.isEmpty()) {
            out.worker = tr("no trainyard-worker for cluster %1 (set its \"worker\")").arg(m_cluster.name);
        } else if (m_cluster.sshCommand.isEmpty()) {
            // Reached locally: the nodes see this machine's paths (a shared filesystem).
            const QFileInfo worker(job.program);
            if (!worker.isFile() || !worker.isExecutable())
                out.worker = tr("%1 is not an executable file").arg(job.program);
        } else {
            r = ask(QStringLiteral("test"),
                    {QStringLiteral("-f"), job.program, QStringLiteral("-a"), QStringLiteral("-x"), job.program}, {});
            if (r.exitCode == 1)
                out.worker = tr("%1 is not an executable file on cluster %2").arg(job.program, m_cluster.name);
            else if (!r.ok())
                out.worker = tr("%1 could not be looked at on cluster %2: %3")
                                 .arg(job.program, m_cluster.name, r.message(QStringLiteral("test")));
        }
    }
    return out;
}

} // namespace trainyard
