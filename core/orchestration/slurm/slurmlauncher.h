#pragma once

#include "launch/launcher.h"
#include "slurm/slurmjob.h"

#include <QHash>
#include <QStringList>

#include <memory>
#include <optional>

class QTimer;

namespace trainyard {

class SlurmCommandRunner;
struct SlurmCommandResult;
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

    // The settings of `cluster` of the experiment file for any of its lanes;
    // each job names its lane's partition and gres in its LaunchSpec.
    static SlurmClusterConfig forCluster(const ExperimentCluster &cluster);

    // The settings of a lane "slurm:NAME/PARTITION" with `gres` (empty:
    // gpu:1) on `cluster` of the experiment file: the lane's partition wins
    // over the cluster's sbatch.partition. What the Scheduler will build its
    // SlurmLaunchers from once it uses them.
    static SlurmClusterConfig forLane(const ExperimentCluster &cluster, const QString &partition, const QString &gres);
};

// Workers as Slurm batch jobs on a cluster reached locally (the Slurm client
// commands on this machine; ssh is not implemented yet). One job per run:
//   start      sbatch --parsable, the job script on standard input; it only
//              execs the worker's argument list, each argument single-quoted.
//              Output appended to RUN_DIR/worker.log; the token travels in
//              sbatch's environment (exported to the job), never on a command
//              line. started(0, id), then pending("submitted").
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
//   attach     the job is still known to scontrol (blocking, bounded), and
//              is the run's: its JobName the run's name, its WorkDir the
//              run's working directory, its UserId the user's. A job that
//              is not (an id reused after a controller reset, a forged state
//              file) is NotOurs and never signalled. The run's spec is kept:
//              an attached job is requeued like one started here.
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
    // The lane's partition (from "slurm:CLUSTER/PARTITION") and gres, the
    // device the job sees (cuda:0 with a GPU request, else cpu), the
    // cluster's worker; no socket unless connectBack: metrics come from the
    // run's metrics.jsonl on the shared filesystem.
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
    // The sbatch options for `spec` (without the script): for tests and logs.
    QStringList sbatchArguments(const LaunchSpec &spec) const;
    // The squeue calls made so far (the cost of tracking).
    int pollCount() const { return m_polls; }

    // What `trainyard check` asks the cluster about one lane's job, blocking
    // (each command bounded by commandTimeoutMs; for a command line, not the
    // window): the partition exists (`scontrol show partition`), sbatch
    // --test-only accepts the options and script start() would submit, the
    // worker is an executable file where jobs run (over ssh: `test -f -a -x`
    // there; reached locally: here, the shared filesystem). Each field is one
    // problem, empty when fine.
    struct LaneCheck
    {
        bool reachable = true; // false: `cluster` says why, nothing else was asked
        QString cluster;
        QString partition;
        QString options;
        QString worker;
    };
    LaneCheck check(const LaunchSpec &spec);

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
        // The newest checkpoint when it was submitted; unset for an attached job.
        std::optional<QString> checkpointAtSubmit;
    };
    // The newest file in a run folder's checkpoints/ (where the worker
    // writes them, RunStore::hasCheckpoint) as "name size mtime"; empty when
    // none. A different answer later means the worker wrote one meanwhile.
    static QString checkpointStamp(const QString &runDir);
    // The run's message for an end the queue caused and no exit status
    // tells (endedBecause): TIMEOUT (`timeLimit`, with the checkpoint's
    // stamp now), a failed launch; empty for any other end.
    QString endReason(const Job &job, const SlurmJob &final, bool timeLimit, const QString &stamp) const;
    // The batch script for `job` (prepared): what submit() sends.
    QByteArray jobScript(const LaunchSpec &job) const;
    // One command, waited for (check()).
    SlurmCommandResult ask(const QString &program, const QStringList &args, const QByteArray &input);
    void submit(RunId run, const LaunchSpec &spec, const QString &pendingReason);
    void submitted(RunId run, quint64 serial, const QString &id, const QString &pendingReason);
    void poll();
    void polled(const QList<RunId> &runs, const QStringList &ids, const QHash<QString, SlurmJob> &listed);
    void observe(RunId run, const SlurmJob &seen);
    void finish(RunId run);
    void ended(RunId run, const SlurmJob &final);
    void scancel(const QString &id, const QStringList &options);
    void schedulePoll();
    // Why the job scontrol described is not the run `expected` (its name,
    // working directory, user); empty when it is.
    QString notTheRun(const SlurmJob &job, const LaunchSpec &expected);
    // The uid jobs are submitted as (this user's; over ssh the login's, asked once); -1 with `error`.
    qint64 userId(QString *error);

    SlurmClusterConfig m_cluster;
    std::unique_ptr<SlurmCommandRunner> m_runner;
    QHash<RunId, Job> m_jobs;
    QTimer *m_timer = nullptr;
    bool m_polling = false;
    quint64 m_serial = 0;
    int m_polls = 0;
    qint64 m_userId = -1; // userId()'s answer, once known
};

} // namespace trainyard
