#include "orchestration/session/launcherrouter.h"

#include "orchestration/devices/device.h"
#include "orchestration/launch/locallauncher.h"
#include "orchestration/logcategories.h"
#include "orchestration/remote/remotelauncher.h"
#include "orchestration/slurm/slurmcommand.h"
#include "orchestration/slurm/slurmlauncher.h"

#include <QDir>
#include <QStandardPaths>

namespace trainyard {

namespace {

const ExperimentCluster *findCluster(const QList<ExperimentCluster> &clusters, const QString &name)
{
    for (const ExperimentCluster &c : clusters) {
        if (c.name == name) {
            return &c;
        }
    }
    return nullptr;
}

} // namespace

LauncherRouter::LauncherRouter(QObject *parent)
    : Launcher(parent)
    , m_local(std::make_unique<LocalLauncher>())
{
    adopt(m_local.get());
}

// Each SlurmLauncher cancels what it still holds; the local one kills.
LauncherRouter::~LauncherRouter()
{
    qDeleteAll(m_slurm);
    qDeleteAll(m_remote);
}

void LauncherRouter::adopt(Launcher *launcher)
{
    connect(launcher, &Launcher::started, this, &Launcher::started);
    connect(launcher, &Launcher::pending, this, &Launcher::pending);
    connect(launcher, &Launcher::running, this, &Launcher::running);
    connect(launcher, &Launcher::endedBecause, this, &Launcher::endedBecause);
    connect(launcher, &Launcher::lingering, this, &Launcher::lingering);
    connect(launcher, &Launcher::availabilityChanged, this, &Launcher::availabilityChanged);
    connect(launcher, &Launcher::devicesReported, this, &Launcher::devicesReported);
    // After these the sub-launcher has forgotten the run, and so does the router.
    connect(launcher, &Launcher::exited, this, [this](RunId run, int code, int signal) {
        m_owner.remove(run);
        Q_EMIT exited(run, code, signal);
    });
    connect(launcher, &Launcher::failedToLaunch, this, [this](RunId run, const QString &message) {
        m_owner.remove(run);
        Q_EMIT failedToLaunch(run, message);
    });
}

void LauncherRouter::setClusters(const QList<ExperimentCluster> &clusters)
{
    for (auto it = m_slurm.begin(); it != m_slurm.end();) {
        const ExperimentCluster *now = findCluster(clusters, it.key());
        const ExperimentCluster *was = findCluster(m_clusters, it.key());
        if (now && was && now->toJson() == was->toJson()) {
            ++it;
            continue;
        }
        // Gone or changed: its launcher goes, cancelling what it still holds.
        for (auto o = m_owner.begin(); o != m_owner.end();) {
            o = o.value() == it.value() ? m_owner.erase(o) : std::next(o);
        }
        delete it.value();
        it = m_slurm.erase(it);
    }
    m_clusters = clusters;
}

void LauncherRouter::setHosts(const QList<ExperimentHost> &hosts)
{
    const auto find = [](const QList<ExperimentHost> &list, const QString &name) -> const ExperimentHost * {
        for (const ExperimentHost &h : list) {
            if (h.name == name) {
                return &h;
            }
        }
        return nullptr;
    };
    for (auto it = m_remote.begin(); it != m_remote.end();) {
        const ExperimentHost *now = find(hosts, it.key());
        const ExperimentHost *was = find(m_hosts, it.key());
        if (now && was && now->toJson() == was->toJson()) {
            ++it;
            continue;
        }
        // Gone or changed: its launcher goes, killing what it still holds.
        for (auto o = m_owner.begin(); o != m_owner.end();) {
            o = o.value() == it.value() ? m_owner.erase(o) : std::next(o);
        }
        delete it.value();
        it = m_remote.erase(it);
    }
    m_hosts = hosts;
    for (const ExperimentHost &h : hosts) {
        if (m_remote.contains(h.name)) {
            continue;
        }
        auto *l = new RemoteLauncher(RemoteHostConfig::forHost(h));
        adopt(l);
        m_remote.insert(h.name, l);
        qCInfo(lcLauncher, "host %s: runs go there over ssh", qUtf8Printable(h.name));
    }
    Q_EMIT availabilityChanged();
}

QString LauncherRouter::unavailable(const Device &d) const
{
    if (!d.isRemote()) {
        return {};
    }
    const RemoteLauncher *l = m_remote.value(d.host());
    return l ? l->unavailable(d) : tr("%1: the experiment defines no host \"%2\"").arg(d.toString(), d.host());
}

SlurmLauncher *LauncherRouter::slurm(const QString &cluster)
{
    if (SlurmLauncher *l = m_slurm.value(cluster)) {
        return l;
    }
    const ExperimentCluster *c = findCluster(m_clusters, cluster);
    if (!c) {
        return nullptr;
    }
    auto *l = new SlurmLauncher(SlurmClusterConfig::forCluster(*c));
    adopt(l);
    m_slurm.insert(cluster, l);
    qCInfo(lcLauncher, "cluster %s: jobs go to Slurm (%s reach)", qUtf8Printable(cluster), qUtf8Printable(c->reach));
    return l;
}

Launcher *LauncherRouter::forDevice(const Device &device, QString *why)
{
    if (device.isRemote()) {
        if (RemoteLauncher *l = m_remote.value(device.host())) {
            return l;
        }
        *why = tr("%1: the experiment defines no host \"%2\"").arg(device.toString(), device.host());
        return nullptr;
    }
    const QString cluster = device.cluster();
    if (cluster.isEmpty()) {
        return m_local.get();
    }
    const ExperimentCluster *c = findCluster(m_clusters, cluster);
    if (!c) {
        *why = tr("%1: the experiment defines no cluster \"%2\"").arg(device.toString(), cluster);
        return nullptr;
    }
    return slurm(cluster);
}

QStringList LauncherRouter::problems(const QList<Device> &devices, const QString &runsRoot) const
{
    QStringList out;
    QStringList seen;
    for (const Device &d : devices) {
        if (d.isRemote()) {
            const QString why = unavailable(d);
            if (!why.isEmpty() && !seen.contains(QStringLiteral("ssh:") + d.host())) {
                out << tr("lanes on host %1 wait: %2").arg(d.host(), why);
            }
            seen << QStringLiteral("ssh:") + d.host();
            continue;
        }
        const QString name = d.cluster();
        if (name.isEmpty() || seen.contains(name)) {
            continue;
        }
        seen << name;
        const ExperimentCluster *c = findCluster(m_clusters, name);
        if (!c) {
            continue; // the experiment's validation said so
        }
        if (c->reach == QLatin1String("local") && QStandardPaths::findExecutable(QStringLiteral("sbatch")).isEmpty()) {
            out << tr("cluster %1 is reached locally, but sbatch is not on PATH: its lanes' runs will fail to submit")
                       .arg(name);
        } else if (c->reach == QLatin1String("local") && !c->runsRoot.isEmpty()
                   && QDir::cleanPath(c->runsRoot) != QDir::cleanPath(runsRoot)) {
            out << tr("cluster %1: its runs go to the experiment's runs root %2 (not its runs_root %3); the nodes "
                      "must see that folder")
                       .arg(name, runsRoot, c->runsRoot);
        }
    }
    return out;
}

void LauncherRouter::prepare(LaunchSpec &spec) const
{
    if (spec.target.isRemote()) {
        if (const RemoteLauncher *l = m_remote.value(spec.target.host())) {
            l->prepare(spec);
        }
        return;
    }
    const QString cluster = spec.target.cluster();
    if (cluster.isEmpty()) {
        return;
    }
    // A cluster's launcher is made on first use, even by this query (the
    // command line of a run not started yet).
    if (const SlurmLauncher *l = const_cast<LauncherRouter *>(this)->slurm(cluster)) {
        l->prepare(spec);
    }
}

void LauncherRouter::start(RunId run, const LaunchSpec &spec)
{
    release(run);
    QString why;
    Launcher *launcher = forDevice(spec.target, &why);
    if (!launcher) {
        Q_EMIT failedToLaunch(run, why);
        return;
    }
    m_owner.insert(run, launcher);
    launcher->start(run, spec);
}

void LauncherRouter::terminate(RunId run)
{
    if (Launcher *l = owner(run)) {
        l->terminate(run);
    }
}

void LauncherRouter::kill(RunId run)
{
    if (Launcher *l = owner(run)) {
        l->kill(run);
    }
}

Launcher::AttachResult LauncherRouter::attach(RunId run, const QJsonObject &handle, const LaunchSpec &expected,
                                              QString *why)
{
    release(run);
    Launcher *launcher = m_local.get();
    if (handle.value(QStringLiteral("kind")).toString() == QLatin1String("remote")) {
        const QString host = handle.value(QStringLiteral("host")).toString();
        launcher = m_remote.value(host);
        if (!launcher) {
            if (why) {
                *why = tr("it runs on host \"%1\", which the experiment no longer defines").arg(host);
            }
            return AttachResult::Gone;
        }
    } else if (handle.value(QStringLiteral("kind")).toString() == QLatin1String("slurm")) {
        const QString cluster = handle.value(QStringLiteral("cluster")).toString();
        launcher = slurm(cluster);
        if (!launcher) {
            if (why) {
                *why = tr("its job is on cluster \"%1\", which the experiment no longer defines").arg(cluster);
            }
            return AttachResult::Gone;
        }
    }
    const AttachResult result = launcher->attach(run, handle, expected, why);
    if (result == AttachResult::Attached) {
        m_owner.insert(run, launcher);
    }
    return result;
}

QJsonObject LauncherRouter::handle(RunId run) const
{
    const Launcher *l = owner(run);
    return l ? l->handle(run) : QJsonObject();
}

void LauncherRouter::detach(RunId run)
{
    if (Launcher *l = m_owner.take(run)) {
        l->detach(run);
    }
}

void LauncherRouter::release(RunId run)
{
    if (Launcher *l = m_owner.take(run)) {
        l->release(run);
    }
}

QString LauncherRouter::host(RunId run) const
{
    const Launcher *l = owner(run);
    return l ? l->host(run) : Launcher::host(run);
}

bool LauncherRouter::describe(const RunInfo &run, QObject *context, Described done)
{
    Launcher *l = owner(run.id);
    if (const QString cluster = run.device.cluster(); !l && !cluster.isEmpty()) {
        l = slurm(cluster);
    }
    return l && l->describe(run, context, std::move(done));
}

} // namespace trainyard
