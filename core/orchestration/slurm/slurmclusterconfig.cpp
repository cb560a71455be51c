// SlurmClusterConfig: how jobs go to one cluster, from the experiment
// file's cluster and lane.

#include "orchestration/slurm/slurmclusterconfig.h"

#include "orchestration/experiment/experiment.h"
#include "orchestration/remote/remotehostconfig.h"

#include <QDir>

namespace trainyard {

SlurmClusterConfig SlurmClusterConfig::forLane(const ExperimentCluster &cluster, const QString &partition,
                                               const QString &gres)
{
    SlurmClusterConfig c;
    c.name = cluster.name;
    c.partition = partition.isEmpty() ? cluster.partition : partition;
    c.account = cluster.account;
    c.qos = cluster.qos;
    c.time = cluster.time;
    if (!gres.isEmpty()) {
        c.gres = gres;
    }
    c.extraArgs = cluster.extraArgs;
    return c;
}

SlurmClusterConfig SlurmClusterConfig::forCluster(const ExperimentCluster &cluster)
{
    SlurmClusterConfig c = forLane(cluster, QString(), QString());
    c.worker = cluster.worker;
    c.pollMs = cluster.pollSeconds * 1000;
    if (cluster.reach == QLatin1String("ssh")) {
        c.sshTarget = cluster.sshTarget();
        c.runsRoot = cluster.runsRoot;
        // BatchMode: never a prompt (a key or an agent, or a ControlMaster
        // the user opened with 2FA); host keys checked, never accepted
        // here; one master connection in the user's 0700 runtime folder
        // carries every later command.
        c.sshCommand = QStringList{QStringLiteral("ssh")} + RemoteHostConfig::sshOptions() + cluster.sshArguments();
    }
    c.warnSeconds = cluster.warnSeconds;
    return c;
}

} // namespace trainyard
