#pragma once

#include "orchestration/experiment/sshtarget.h"

#include <QString>
#include <QStringList>

namespace trainyard {

struct ExperimentCluster;

// How jobs go to one Slurm cluster: what sbatch is given besides the job.
struct SlurmClusterConfig
{
    QString name;                           // the experiment's name for the cluster; handles carry it
    QString partition;                      // empty: the cluster's default partition
    QString account;                        // empty: the user's default
    QString qos;                            // empty: the default
    QString time;                           // sbatch --time ("1:00:00"); empty: the partition's limit
    QString gres = QStringLiteral("gpu:1"); // empty: no GPU request
    QStringList extraArgs;                  // more sbatch options, one argument each (never a shell string)
    int warnSeconds = 300;                  // --signal=B:USR2@N before the time limit; 0: none
    int pollMs = 10000;                     // one squeue for all jobs this often (sites limit RPCs)
    int commandTimeoutMs = 30000;
    QString worker;           // trainyard-worker on the cluster; empty: the orchestrator's (a shared filesystem)
    bool connectBack = false; // keep the metrics socket address: only where the nodes can reach it
    // Non-empty: every Slurm command goes through this ssh command (reach
    // "ssh"): "ssh -o BatchMode=yes ... -- HOST", the destination last.
    QStringList sshCommand;
    SshTarget sshTarget; // reach "ssh": where sshCommand goes
    // Reach "ssh": the cluster's runs_root. A run whose folder here is not
    // under it (no shared filesystem) gets its folder there, made and
    // mirrored over ssh (RemoteRunFolders).
    QString runsRoot;

    // The settings of `cluster` of the experiment file for any of its lanes;
    // each job names its lane's partition and gres in its LaunchSpec.
    static SlurmClusterConfig forCluster(const ExperimentCluster &cluster);

    // The settings of a lane "slurm:NAME/PARTITION" with `gres` (empty:
    // gpu:1) on `cluster` of the experiment file: the lane's partition wins
    // over the cluster's sbatch.partition. What the Orchestrator will build its
    // SlurmLaunchers from once it uses them.
    static SlurmClusterConfig forLane(const ExperimentCluster &cluster, const QString &partition, const QString &gres);
};

} // namespace trainyard
