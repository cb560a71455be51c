#pragma once

#include "orchestration/slurm/slurmjob.h"

#include <QCoreApplication>
#include <QString>

#include <optional>

namespace trainyard {

// How a job that left the queue ends its run (SlurmLauncher): pure rules on
// what the launcher saw of the job and scontrol's last word about it, with
// the run folder's newest checkpoint. A worker that checkpointed for the
// time limit (exit 5, ExitCode::Requeue, after the warning signal; or a
// TIMEOUT unwarned once it wrote a checkpoint in this job) goes on in a new
// job; otherwise the end is an exit status, a signal, or neither (the done
// line tells), and what the queue itself caused is said in words.
struct SlurmEnding
{
    Q_DECLARE_TR_FUNCTIONS(SlurmEnding)
public:
    // What the launcher knew of the job.
    struct Seen
    {
        QString id;
        QString node;                              // from squeue; empty: never seen running
        QString runDir;                            // the run folder (its checkpoints/)
        QString timeLimit;                         // the cluster's --time; empty: the partition's
        bool stopAsked = false;                    // terminate or kill: an ending was expected
        bool sawRunning = false;                   // the last poll said running
        std::optional<QString> checkpointAtSubmit; // checkpointStamp at sbatch; unset: attached
    };

    bool resubmit = false; // the run goes on in a new job, with --resume
    bool ranFirst = false; // say running before this: the job ran between two polls
    int exitCode = -1;     // unless resubmit: exited(exitCode, signal)
    int signal = 0;
    QString why; // endedBecause's words (a time limit, a failed launch); empty: none

    static SlurmEnding of(const SlurmJob &final, const Seen &seen);

    // The newest file in a run folder's checkpoints/ (where the worker
    // writes them, RunStore::hasCheckpoint) as "name size mtime"; empty when
    // none. A different answer later means the worker wrote one meanwhile.
    static QString checkpointStamp(const QString &runDir);
};

} // namespace trainyard
