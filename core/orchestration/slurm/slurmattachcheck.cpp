#include "orchestration/slurm/slurmattachcheck.h"

#include "orchestration/slurm/slurmcommand.h"
#include "orchestration/slurm/slurmjob.h"

#include <QDir>

#include <unistd.h>

namespace trainyard {

SlurmAttachCheck::SlurmAttachCheck(const SlurmClusterConfig &cluster, SlurmCommandRunner &runner)
    : m_cluster(cluster)
    , m_runner(runner)
{
}

Launcher::AttachResult SlurmAttachCheck::check(const QJsonObject &handle, const LaunchSpec &expected, QString *id,
                                               QString *why)
{
    const QString handleKind = handle.value(QStringLiteral("kind")).toString();
    const QString job = handle.value(QStringLiteral("job")).toString();
    const QString cluster = handle.value(QStringLiteral("cluster")).toString();
    QString reason;
    Launcher::AttachResult result = Launcher::AttachResult::Gone;
    if (handleKind != QLatin1String("slurm")) {
        reason = tr("a %1 run; this launcher submits to Slurm").arg(handleKind.isEmpty() ? tr("local") : handleKind);
    } else if (job.isEmpty()) {
        reason = tr("no job id");
    } else if (!SlurmJob::isJobId(job)) {
        // Never a job Trainyard submitted: "-uroot" would be an option.
        reason = tr("\"%1\" is not a Slurm job id; nothing was signalled").arg(job);
        result = Launcher::AttachResult::NotOurs;
    } else if (!cluster.isEmpty() && cluster != m_cluster.name) {
        reason = tr("job %1 is on cluster %2, not %3").arg(job, cluster, m_cluster.name);
    }
    if (reason.isEmpty()) {
        const SlurmCommandResult r =
            m_runner.runNow(QStringLiteral("scontrol"), SlurmJob::showArguments(job), m_cluster.commandTimeoutMs);
        const SlurmJob described = r.ok() ? SlurmJob::parseScontrol(r.out) : SlurmJob();
        if (r.saysUnknownJob() || (r.ok() && described.id.isEmpty())) {
            reason = tr("job %1 is no longer known to Slurm").arg(job);
        } else if (!r.ok()) {
            reason = tr("job %1: %2").arg(job, r.message(QStringLiteral("scontrol")));
        } else if (const QString other = notTheRun(described, expected); !other.isEmpty()) {
            // Ids start again after a controller reset: the saved one may be
            // a colleague's job now.
            reason = tr("job %1 is not this run's (%2); nothing was signalled").arg(job, other);
            result = Launcher::AttachResult::NotOurs;
        }
    }
    if (!reason.isEmpty()) {
        if (why) {
            *why = reason;
        }
        return result;
    }
    if (id) {
        *id = job;
    }
    return Launcher::AttachResult::Attached;
}

QString SlurmAttachCheck::notTheRun(const SlurmJob &job, const LaunchSpec &expected)
{
    if (job.ambiguous) {
        return tr("scontrol's description of it names a field twice");
    }
    QString error;
    const qint64 uid = userId(&error);
    if (uid < 0) {
        return tr("whose it is cannot be told: %1").arg(error);
    }
    if (job.uid != uid) {
        return tr("it is user %1's (uid %2)").arg(job.userName).arg(job.uid);
    }
    if (job.name != expected.name) {
        return tr("its name is \"%1\", not \"%2\"").arg(job.name, expected.name);
    }
    const QString dir = QDir::cleanPath(expected.workingDirectory());
    if (expected.workingDirectory().isEmpty() || QDir::cleanPath(job.workDir) != dir) {
        return tr("its working directory is %1, not %2").arg(job.workDir, dir);
    }
    return {};
}

qint64 SlurmAttachCheck::userId(QString *error)
{
    if (m_userId >= 0) {
        return m_userId;
    }
    if (m_cluster.sshCommand.isEmpty()) {
        m_userId = qint64(::geteuid());
        return m_userId;
    }
    // Over ssh the jobs are the login's on the cluster: asked once.
    const SlurmCommandResult r =
        m_runner.runNow(QStringLiteral("id"), {QStringLiteral("-u")}, m_cluster.commandTimeoutMs);
    bool ok = false;
    const qint64 uid = r.ok() ? QString::fromUtf8(r.out).trimmed().toLongLong(&ok) : -1;
    if (!ok) {
        if (error) {
            *error = r.ok() ? tr("id -u said \"%1\"").arg(QString::fromUtf8(r.out).trimmed())
                            : r.message(QStringLiteral("id"));
        }
        return -1;
    }
    m_userId = uid;
    return m_userId;
}

} // namespace trainyard
