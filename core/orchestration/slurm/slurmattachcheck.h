#pragma once

#include "orchestration/launch/launcher.h"
#include "orchestration/slurm/slurmclusterconfig.h"

#include <QCoreApplication>
#include <QJsonObject>

namespace trainyard {

class SlurmCommandRunner;
struct SlurmJob;

// Whether the job a persisted handle names may be watched again as the run
// (SlurmLauncher::attach): the handle is a Slurm job of this cluster with a
// job id (digits only, SlurmJob::isJobId: "-uroot" is never passed on),
// still known to scontrol (blocking, bounded: attach answers at once), and
// the run's: its JobName the run's name, its WorkDir the run's working
// directory, its UserId the user's (over ssh the login's, asked once). A job
// that is not (an id reused after a controller reset, a forged state file)
// is NotOurs and never signalled.
class SlurmAttachCheck
{
    Q_DECLARE_TR_FUNCTIONS(SlurmAttachCheck)
public:
    // Both must outlive this (the launcher's own).
    SlurmAttachCheck(const SlurmClusterConfig &cluster, SlurmCommandRunner &runner);

    // Attached with the handle's job id in `id`, else Gone or NotOurs with
    // why in `why`.
    Launcher::AttachResult check(const QJsonObject &handle, const LaunchSpec &expected, QString *id, QString *why);

private:
    // Why the job scontrol described is not the run `expected` (its name,
    // working directory, user); empty when it is.
    QString notTheRun(const SlurmJob &job, const LaunchSpec &expected);
    // The uid jobs are submitted as (this user's; over ssh the login's,
    // asked once); -1 with `error`.
    qint64 userId(QString *error);

    const SlurmClusterConfig &m_cluster;
    SlurmCommandRunner &m_runner;
    qint64 m_userId = -1; // userId()'s answer, once known
};

} // namespace trainyard
