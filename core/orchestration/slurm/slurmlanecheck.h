#pragma once

#include "orchestration/launch/launcher.h"
#include "orchestration/slurm/slurmclusterconfig.h"
#include "orchestration/slurm/slurmcommand.h"
#include "orchestration/slurm/slurmsubmission.h"

#include <QCoreApplication>

#include <memory>

namespace trainyard {

// What `trainyard check` asks a cluster about one lane's job, blocking (each
// command bounded by commandTimeoutMs; for a command line, not the window):
// the partition exists (`scontrol show partition`), sbatch --test-only
// accepts the options and script SlurmLauncher would submit (the same
// SlurmSubmission, not a copy), the worker is an executable file where jobs
// run (over ssh: `test -f -a -x` there; reached locally: here, the shared
// filesystem).
class SlurmLaneCheck
{
    Q_DECLARE_TR_FUNCTIONS(SlurmLaneCheck)
public:
    // `runner` null: the real Slurm commands, through the cluster's reach.
    explicit SlurmLaneCheck(SlurmClusterConfig cluster, std::unique_ptr<SlurmCommandRunner> runner = nullptr);
    ~SlurmLaneCheck();

    // Each field is one problem, empty when fine.
    struct Result
    {
        bool reachable = true; // false: `cluster` says why, nothing else was asked
        QString cluster;
        QString partition;
        QString options;
        QString worker;
    };
    Result check(const LaunchSpec &spec);

private:
    // One command, waited for.
    SlurmCommandResult ask(const QString &program, const QStringList &args, const QByteArray &input);

    SlurmSubmission m_submission;
    std::unique_ptr<SlurmCommandRunner> m_runner;
};

} // namespace trainyard
