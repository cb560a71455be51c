#pragma once

#include "orchestration/launch/launcher.h"
#include "orchestration/slurm/slurmclusterconfig.h"

#include <QByteArray>
#include <QProcessEnvironment>
#include <QStringList>

namespace trainyard {

// What sbatch is given for one run's job on one cluster: the cluster's say
// in the run's spec, the options, the script and the environment. No
// process is started here: SlurmLauncher submits what this builds, and
// SlurmLaneCheck tests the very same with sbatch --test-only.
class SlurmSubmission
{
public:
    explicit SlurmSubmission(SlurmClusterConfig cluster);

    const SlurmClusterConfig &cluster() const { return m_cluster; }

    // The lane's partition (from "slurm:CLUSTER/PARTITION") and gres, the
    // device the job sees (cuda:0 with a GPU request, else cpu), the
    // cluster's worker; no socket unless connectBack: metrics come from the
    // run's metrics.jsonl on the shared filesystem.
    void prepare(LaunchSpec &spec) const;
    // The sbatch options for a prepared `job` (without the script).
    QStringList arguments(const LaunchSpec &job) const;
    // The batch script for a prepared `job`: it only execs the worker's
    // argument list (a program run's variables set first, never the token).
    QByteArray script(const LaunchSpec &job) const;
    // sbatch's environment, exported to the job: the orchestrator's without
    // its run variables and GPUs, then the run's (the token included).
    QProcessEnvironment environment(const LaunchSpec &job) const;

private:
    SlurmClusterConfig m_cluster;
};

} // namespace trainyard
