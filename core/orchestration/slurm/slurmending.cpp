#include "orchestration/slurm/slurmending.h"

#include "metrics/runfile.h"
#include "orchestration/runstore/runstore.h"
#include "protocol/exitcode.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <csignal>

namespace trainyard {

namespace {

// endedBecause's words for an end the queue caused and no exit status
// tells: TIMEOUT (`timeLimit`, with the checkpoint's stamp now), a failed
// launch; empty for any other end.
QString endReason(const SlurmEnding::Seen &job, const SlurmJob &final, bool timeLimit, const QString &stamp)
{
    const QString state = final.state.section(QLatin1Char(' '), 0, 0);
    if (timeLimit) {
        const QString limit = job.timeLimit.isEmpty() ? QString() : QStringLiteral(" (--time=%1)").arg(job.timeLimit);
        return stamp.isEmpty()
                   ? SlurmEnding::tr("job %1 reached its time limit%2 with no checkpoint to resume from")
                         .arg(job.id, limit)
                   : SlurmEnding::tr(
                         "job %1 reached its time limit%2 without writing a new checkpoint (not resubmitted again)")
                         .arg(job.id, limit);
    }
    // A stop asked for here whose TERM ended the job is that stop, whatever
    // reason Slurm gives (it can record JobLaunchFailure, ExitCode 0:15).
    const bool stoppedByUs = job.stopAsked && final.signal == SIGTERM;
    if (state == QLatin1String("FAILED") && final.reason == QLatin1String("JobLaunchFailure") && !stoppedByUs) {
        // Slurm says "signal 53": its launch failed before the script ran.
        const QString node = final.nodes.isEmpty() ? job.node : final.nodes;
        return !job.runDir.isEmpty() && !QFileInfo(job.runDir).isDir()
                   ? SlurmEnding::tr(
                         "Slurm could not launch job %1 on %2: its run folder %3 (the job's --chdir and --output) "
                         "does not exist")
                         .arg(job.id, node, job.runDir)
                   : SlurmEnding::tr(
                         "Slurm could not launch job %1 on %2 (JobLaunchFailure): the node could not open the job's "
                         "output file or folder, or start its script; slurmd's log there says which")
                         .arg(job.id, node);
    }
    return {};
}

} // namespace

SlurmEnding SlurmEnding::of(const SlurmJob &final, const Seen &seen)
{
    SlurmEnding end;
    const QString state = final.state.section(QLatin1Char(' '), 0, 0);
    // The time limit without a warning (warn_seconds 0, or Slurm's TERM came
    // first): the worker checkpointed on the TERM. Resubmitted like a
    // requeue when it wrote a checkpoint in this job (an attached job:
    // any).
    const bool timeLimit = state == QLatin1String("TIMEOUT") && !seen.stopAsked;
    const QString stamp = timeLimit ? checkpointStamp(seen.runDir) : QString();
    const bool canResubmit = !stamp.isEmpty() && (!seen.checkpointAtSubmit || *seen.checkpointAtSubmit != stamp);
    if ((final.exitCode == protocol::toInt(protocol::ExitCode::Requeue) && final.signal == 0 && !seen.stopAsked)
        || (timeLimit && canResubmit)) {
        // The worker checkpointed on the time-limit warning.
        end.resubmit = true;
        end.ranFirst = !seen.sawRunning;
        return end;
    }
    end.why = endReason(seen, final, timeLimit, stamp);
    if (final.id.isEmpty()) {
        // Slurm has forgotten the job (no accounting): the worker's done line tells.
    } else if (final.signal > 0) {
        end.signal = final.signal;
    } else if (state == QLatin1String("CANCELLED") && !seen.stopAsked) {
        // Cancelled from outside: a signal nobody here sent.
        end.signal = SIGTERM;
    } else if (state == QLatin1String("COMPLETED") || state == QLatin1String("FAILED")
               || state == QLatin1String("CANCELLED")) {
        // A cancel of ours before the worker ran has no exit status to tell.
        if (!(state == QLatin1String("CANCELLED") && final.exitCode == 0)) {
            end.exitCode = final.exitCode;
        }
    }
    // TIMEOUT, NODE_FAIL, PREEMPTED, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE
    // without a signal: (-1, 0), the done line tells.

    // A job that ran between two polls still ran: say so before its end
    // (not one of ours cancelled while it waited).
    end.ranFirst =
        !seen.sawRunning && !final.nodes.isEmpty() && !(state == QLatin1String("CANCELLED") && seen.stopAsked);
    return end;
}

QString SlurmEnding::checkpointStamp(const QString &runDir)
{
    if (runDir.isEmpty()) {
        return {};
    }
    const QFileInfoList files = RunStore::checkpointFiles(runDir);
    if (files.isEmpty()) {
        // No shared filesystem: the mirror lists the checkpoints there
        // (read as every run-folder file is: never a link, never waited on).
        QByteArray listing;
        QString newest;
        qint64 newestTime = -1;
        if (readRegularFile(runDir + QLatin1Char('/') + RunStore::remoteCheckpointsFileName(), &listing, nullptr,
                            1 << 20)) {
            const QJsonArray list = QJsonDocument::fromJson(listing).object().value(QStringLiteral("files")).toArray();
            for (const QJsonValue &v : list) {
                const QJsonObject f = v.toObject();
                if (f.value(QStringLiteral("mtime")).toInteger() > newestTime) {
                    newestTime = f.value(QStringLiteral("mtime")).toInteger();
                    newest = QStringLiteral("%1 %2 %3")
                                 .arg(f.value(QStringLiteral("name")).toString())
                                 .arg(f.value(QStringLiteral("size")).toInteger())
                                 .arg(newestTime);
                }
            }
        }
        return newest;
    }
    const QFileInfo &newest = files.constFirst();
    return QStringLiteral("%1 %2 %3")
        .arg(newest.fileName())
        .arg(newest.size())
        .arg(newest.lastModified().toMSecsSinceEpoch());
}

} // namespace trainyard
