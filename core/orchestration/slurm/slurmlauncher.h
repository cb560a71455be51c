#pragma once

#include "orchestration/launch/launcher.h"
#include "orchestration/slurm/slurmattachcheck.h"
#include "orchestration/slurm/slurmclusterconfig.h"
#include "orchestration/slurm/slurmjob.h"
#include "orchestration/slurm/slurmqueuepoller.h"
#include "orchestration/slurm/slurmsubmission.h"

#include <QHash>
#include <QStringList>

#include <memory>
#include <optional>

namespace trainyard {

class RemoteRunFolders;
class SlurmCommandRunner;

// Workers as Slurm batch jobs on one cluster, its commands run here or over
// ssh (SlurmClusterConfig::sshCommand, the runner's). One job per run:
//   start      sbatch --parsable with what SlurmSubmission builds: the job
//              script on standard input (it only execs the worker's argument
//              list, each argument single-quoted), output appended to
//              RUN_DIR/worker.log, the token in sbatch's environment
//              (exported to the job), never on a command line.
//              started(0, id), then pending("submitted").
//   tracking   one squeue call per poll for all its jobs; events only on a
//              change. A job that ended (or that squeue no longer lists) gets
//              one `scontrol show job` for its exit code; when Slurm has
//              forgotten it, exited(-1, 0) lets the worker's done line tell.
//   terminate  scancel --signal=TERM --full (running: the worker checkpoints
//              and exits 4); a job still pending is cancelled.
//   kill       scancel --signal=KILL --full (running), else scancel.
//   requeue    a worker that exits 5 (ExitCode::Requeue: it checkpointed on
//              the USR2 that --signal sends before the time limit) is
//              resubmitted with --resume: started(0, new id), then
//              pending("requeued ..."); the run goes on in the same folder.
//              So is a job that reached its time limit unwarned (TIMEOUT:
//              the worker checkpointed on Slurm's TERM) once it wrote a
//              checkpoint in that job; else endedBecause("reached its time
//              limit ..."). A job Slurm could not launch (FAILED,
//              JobLaunchFailure, "signal 53") ends with endedBecause too.
//   handle     {"kind":"slurm","job":"ID","cluster":NAME}
//   attach     once SlurmAttachCheck finds the job still known to scontrol
//              and the run's (its name, working directory and user); else
//              Gone, or NotOurs and never signalled. The run's spec is kept:
//              an attached job is requeued like one started here.
//   folders   reach "ssh" and a run whose folder here is not under the
//              cluster's runs_root (no shared filesystem): its folder is
//              made there before sbatch and its files mirrored here
//              (RemoteRunFolders); its end waits for every byte.
// Job ids are digits only (SlurmJob::isJobId) and go to scancel and
// scontrol after "--", squeue as --jobs=ID: never read as options.
// A job cancelled from outside (scancel by the user, an administrator)
// exits with SIGTERM unless Slurm names another signal: nobody here asked
// it to stop, so the worker's "stopped" done line must not make it look
// like a requested stop.
class SlurmLauncher : public Launcher
{
    Q_OBJECT
public:
    // `runner` null: the real Slurm commands (SlurmProcessRunner).
    explicit SlurmLauncher(SlurmClusterConfig cluster, std::unique_ptr<SlurmCommandRunner> runner = nullptr,
                           QObject *parent = nullptr);
    ~SlurmLauncher() override; // releases (cancels) what it still holds

    QString kind() const override { return QStringLiteral("slurm"); }
    // SlurmSubmission::prepare: the lane's partition and gres, the device the
    // job sees, the cluster's worker, no socket unless connectBack.
    void prepare(LaunchSpec &spec) const override;
    void start(RunId run, const LaunchSpec &spec) override;
    void terminate(RunId run) override;
    void kill(RunId run) override;
    AttachResult attach(RunId run, const QJsonObject &handle, const LaunchSpec &expected,
                        QString *why = nullptr) override;
    QJsonObject handle(RunId run) const override;
    void detach(RunId run) override;
    void release(RunId run) override;
    // The job's node once Slurm names one; else the cluster's name.
    QString host(RunId run) const override;
    // `scontrol show job -- ID` through this launcher's runner (its ssh,
    // its deadline), ID the newest job it submitted for the run, else
    // run.jobId (a job that ended, which Slurm keeps a while). False
    // without a job id to ask about.
    bool describe(const RunInfo &run, QObject *context, Described done) override;

    const SlurmClusterConfig &cluster() const { return m_cluster; }
    // The squeue calls made so far (the cost of tracking).
    int pollCount() const { return m_poller.count(); }

private:
    struct Job
    {
        QString id;         // empty while sbatch runs
        quint64 serial = 0; // which submission a late sbatch answer belongs to
        bool known = false; // the queue's phase was seen at least once
        SlurmJob::Phase phase = SlurmJob::Phase::Pending;
        QString reason;
        QString node;             // where it runs, from squeue
        bool stopAsked = false;   // terminate or kill: an ending is expected
        bool cancelAsked = false; // terminate or kill came while sbatch ran
        bool finishing = false;   // scontrol asked for its exit code
        LaunchSpec spec;          // what was submitted (a requeue submits it again)
        int requeues = 0;
        // The newest checkpoint when it was submitted (SlurmEnding::checkpointStamp); unset for an attached job.
        std::optional<QString> checkpointAtSubmit;
    };
    void submit(RunId run, const LaunchSpec &spec, const QString &pendingReason);
    void submitted(RunId run, quint64 serial, const QString &id, const QString &pendingReason);
    void polled(const QList<RunId> &runs, const QStringList &ids, const QHash<QString, SlurmJob> &listed);
    void observe(RunId run, const SlurmJob &seen);
    void finish(RunId run);
    void ended(RunId run, const SlurmJob &final);
    void scancel(const QString &id, const QStringList &options);

    SlurmClusterConfig m_cluster;
    SlurmSubmission m_submission;
    std::unique_ptr<SlurmCommandRunner> m_runner;
    SlurmAttachCheck m_attachCheck;        // with m_cluster and *m_runner
    SlurmQueuePoller m_poller;             // squeue for m_jobs, through *m_runner
    RemoteRunFolders *m_folders = nullptr; // reach "ssh" with a runs_root: folders there, mirrored here
    QHash<RunId, Job> m_jobs;
    quint64 m_serial = 0;
};

} // namespace trainyard
