#pragma once

#include "orchestration/experiment/experiment.h"
#include "orchestration/launch/launcher.h"

#include <QHash>

#include <memory>

namespace trainyard {

class LocalLauncher;
class RemoteLauncher;
class SlurmLauncher;

// The Orchestrator's launcher when lanes may be local, on a Slurm cluster or
// on a host over ssh: each run goes to the launcher its device names
// ("cpu"/"cuda:N": this machine's LocalLauncher; "slurm:CLUSTER/PARTITION":
// that cluster's SlurmLauncher, one per cluster so that one squeue per poll
// covers all of its jobs; "ssh:HOST/...": that host's RemoteLauncher, one
// per host, made when the experiment is set so that its lanes' headers show
// its GPUs and whether it can be reached), and a persisted handle goes back
// to the launcher of its kind (and cluster or host). Every event is the
// sub-launcher's, passed on unchanged.
class LauncherRouter : public Launcher
{
    Q_OBJECT
public:
    explicit LauncherRouter(QObject *parent = nullptr);
    ~LauncherRouter() override;

    // The experiment's clusters. A cluster's launcher is made on its first
    // run and kept while the cluster keeps its settings (its jobs with it).
    void setClusters(const QList<ExperimentCluster> &clusters) override;
    // The experiment's hosts: a launcher each, kept while the host keeps
    // its settings (its runs with it).
    void setHosts(const QList<ExperimentHost> &hosts) override;
    QString unavailable(const Device &device) const override;

    QString kind() const override { return QStringLiteral("router"); }
    void prepare(LaunchSpec &spec) const override;
    void start(RunId run, const LaunchSpec &spec) override;
    void terminate(RunId run) override;
    void kill(RunId run) override;
    AttachResult attach(RunId run, const QJsonObject &handle, const LaunchSpec &expected,
                        QString *why = nullptr) override;
    QJsonObject handle(RunId run) const override;
    void detach(RunId run) override;
    void release(RunId run) override;
    QString host(RunId run) const override;

    // What a user should know before starting lanes on `devices` whose runs
    // go to `runsRoot`: a host that cannot be reached (its lanes wait), a
    // cluster reached locally without sbatch on PATH, or whose runs_root is
    // not that folder (its runs go to the experiment's runs root, which the
    // nodes must see). A cluster over ssh whose runs_root is not that
    // folder is fine: its run folders are made there and mirrored here.
    QStringList problems(const QList<Device> &devices, const QString &runsRoot) const override;
    // The run's launcher says; a run none holds any more (it ended) is
    // asked of the cluster its device names, whose queue may still know it.
    bool describe(const RunInfo &run, QObject *context, Described done) override;

    // The cluster's launcher (made if needed); null for a cluster the
    // experiment does not define.
    SlurmLauncher *slurm(const QString &cluster);
    // The host's launcher; null for a host the experiment does not define.
    RemoteLauncher *remote(const QString &host) const { return m_remote.value(host); }

private:
    Launcher *forDevice(const Device &device, QString *why);
    void adopt(Launcher *launcher);
    Launcher *owner(RunId run) const { return m_owner.value(run); }

    std::unique_ptr<LocalLauncher> m_local;
    QList<ExperimentCluster> m_clusters;
    QHash<QString, SlurmLauncher *> m_slurm; // by cluster name, owned
    QList<ExperimentHost> m_hosts;
    QHash<QString, RemoteLauncher *> m_remote; // by host name, owned
    QHash<RunId, Launcher *> m_owner;          // who runs each started or attached run
};

} // namespace trainyard
