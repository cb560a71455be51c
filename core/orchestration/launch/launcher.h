#pragma once

#include "orchestration/devices/deviceinventory.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/shelltext.h"
#include "orchestration/records/runinfo.h"

#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <utility>

namespace trainyard {

// Everything a launcher needs to start one run: a trainyard-worker, or a
// program run's own command. The command line is always an argument list
// built from these fields (arguments()), never a shell string. An
// experiment file names none of a worker's; a program run's argv is the
// file's, which is why such a file must be trusted first (TrustList).
struct LaunchSpec
{
    // The worker's arguments: --spec, --run-dir, --connect, --device (cuda:0
    // for any GPU: CUDA_VISIBLE_DEVICES narrows the GPUs to the lane's one),
    // --threads, --resume; a program run's: its argv after the program.
    // The one place they are built: what a launcher starts and what the run
    // details show are the same list.
    QStringList arguments() const;
    // The program followed by arguments().
    QStringList commandLine() const;
    // The variables Trainyard sets for the run, beside the lane's
    // CUDA_VISIBLE_DEVICES (a launcher's own): TRAINYARD_TOKEN, OMP_NUM_THREADS;
    // for a program run also TRAINYARD_RUN_DIR, TRAINYARD_RUN_NAME,
    // TRAINYARD_CONNECT, TRAINYARD_RESUME, TRAINYARD_SEED, TRAINYARD_DEVICE,
    // TRAINYARD_CONFIG (with a "config"), TRAINYARD_INPUTS (with an "after":
    // RunInputs) and its spec's own "env" (docs/python.md). Every launcher applies
    // exactly these.
    QList<std::pair<QString, QString>> environment() const;
    // CUDA_VISIBLE_DEVICES for the run's GPUs of `target` ("1,3" for
    // "cuda:1,3" or "ssh:HOST/cuda:1,3"); empty (no GPU) for anything else.
    QString visibleDevices() const;
    // Every name environment() can set: what a launcher removes from the
    // environment it inherits before adding the run's.
    static const QStringList &runVariableNames();
    bool isProgram() const { return !programArgv.isEmpty(); }
    // Where it runs: a program run's cwd, else the run folder.
    QString workingDirectory() const { return workingDir.isEmpty() ? runDir : workingDir; }

    QString program;  // the trainyard-worker to run (a program run: its argv[0])
    QString name;     // the run's name (a batch job's name)
    QString specPath; // RUN_DIR/spec.json
    QString runDir;
    QString connect; // "unix:PATH" or "tcp:HOST:PORT"; empty: none
    QString token;   // travels in the environment, never on the command line
    Device device;   // what the worker is given: "cpu" or "cuda:N" (a batch launcher's prepare() sets it)
    Device target;   // the lane's device as the experiment names it ("cuda:1", "slurm:hpc/gpu"): who launches it
    int threads = 0; // 0: let the worker decide
    bool resume = false;
    QString partition;        // a batch job's partition; empty: the cluster's default
    QString gres;             // a batch job's request ("gpu:1"); empty: the launcher's default
    bool cpuFallback = false; // --cpu-fallback: a GPU the worker cannot use means its CPU
    // A run of several GPUs ("cuda:1,3"): the rendezvous of its ranks
    // (torchrun, torch.distributed), MASTER_ADDR 127.0.0.1 and this port. 0: none.
    int masterPort = 0;

    // A program run ("program" in its spec); all empty for a worker.
    QStringList programArgv;                       // the whole command, program first, config substituted
    QString workingDir;                            // its cwd; empty: the run folder
    QList<std::pair<QString, QString>> programEnv; // its spec's "env"
    qint64 seed = -1;                              // train.seed: TRAINYARD_SEED; -1: none
    QString configPath; // RUN_DIR/config.json for a spec with "config": TRAINYARD_CONFIG; empty: none
    QString inputsPath; // RUN_DIR/inputs.json for a run with an "after": TRAINYARD_INPUTS; empty: none
    QString pythonPath; // the trainyard module's folder, put first on PYTHONPATH; empty: none needed

    // A run on a host over ssh (RemoteLauncher::prepare): runDir, specPath,
    // configPath and connect are the host's; these are this machine's.
    QString mirrorDir;     // the run's folder here, the mirror of the host's; empty: runDir is here
    QString mirrorConnect; // the metrics socket here, which connect's socket on the host is forwarded to
};

// The seam between the Supervisor and whatever runs the workers: local
// processes (LocalLauncher) today, a batch queue (Slurm) next. The
// supervisor talks to workers' processes only through this interface; it
// never sees a QProcess, a pid it must signal or a job id it must parse.
//
// Commands (all asynchronous; what happened comes back as the events):
//   start      launch `spec` for `run`
//   terminate  graceful stop: the worker checkpoints and exits 4 (local:
//              SIGTERM to the top process only, so it checkpoints while its
//              children and ranks still live; batch: signal the job). A run
//              still pending in a queue is cancelled: it never starts.
//   kill       end it now (local: SIGKILL to every process of the run; a
//              host: SIGKILL to its top process, then the rest of its tree
//              gets SIGTERM and 2 s later SIGKILL from the host's waiting sh;
//              batch: cancel the job). Also cancels.
//   attach     watch a run of an earlier orchestrator from its persisted
//              handle, once what runs there proves to be that run (checked
//              against `expected`: the run's name and folder from the run
//              itself; the program and token it was started with from the
//              state file, which an unrelated process cannot carry: the
//              token must be in its environment); Gone (with why) when that
//              run is gone,
//              NotOurs when something else runs under the handle (a reused
//              pid or job id, a forged state file): it is never signalled
//   detach     forget a run, leaving it running (close with "leave runs
//              running"); its handle stays valid for a later attach
//   release    forget a run; one still going is killed first, synchronously
//              and bounded (no event loop): no orphan by accident
//
// Events, per run, in this order:
//   failedToLaunch                                   (final) or
//   started -> (pending <-> running)* -> lingering* -> exited      (final)
//   started(pid, jobId)  the launcher created it: a local process (pid) or a
//                        submitted job (jobId); handle() is valid from here.
//                        A batch launcher that resubmits a run (a requeue
//                        at the time limit) sends it again with the new id.
//   pending(reason)      waiting in a queue ("Priority", "Resources", ...). A
//                        batch launcher reports it at once after started:
//                        a submitted job is pending until the queue says
//                        otherwise. After running it means requeued: the
//                        job will run again (its worker resumes from its
//                        checkpoint and reconnects with its token).
//   running              the launcher knows the worker executes (a job left
//                        the queue). A local launcher does not send it: its
//                        process runs from started, and the worker's hello
//                        on the metrics socket says it is up.
//   lingering(message)   the run's top process has ended but other processes
//                        of the run live on (a child it left, a DataLoader
//                        worker): the launcher ends them (SIGTERM, then
//                        SIGKILL) and `message` names the pids it waits for,
//                        again whenever they change. The run stays active.
//   exited(code, signal) the end: the exit status (protocol::ExitCode), or
//                        the signal (code -1), or neither (-1, 0) when the
//                        launcher cannot know (an attached process that is
//                        not our child; a job whose accounting is gone):
//                        the worker's "done" line then tells.
// After exited or failedToLaunch the launcher has forgotten the run. Events
// normally come from the event loop, but a launcher may emit failedToLaunch
// from inside start(); the supervisor copes with either.
//
// State by polling: a launcher that cannot be told (a batch queue) polls on
// its own timer, for all its runs in one query, and emits an event only on a
// change. The supervisor never polls a launcher.
//
// The handle: opaque launcher data (JSON with at least "kind" == kind()) that
// the supervisor keeps in .trainyard-state.json beside the pid and token
// fields, and hands back to attach() after a restart.
class Launcher : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    // What attach() found behind a persisted handle.
    enum class AttachResult {
        Attached, // the run's own process or job: watched again
        Gone,     // nothing of the run's runs there any more (or the handle is another launcher's)
        NotOurs,  // something runs there that is not this run: left alone, the run is lost
    };

    // "local", "slurm", ...: the "kind" of every handle this launcher writes.
    virtual QString kind() const = 0;

    // The launcher's say in a run's spec before start() and before its
    // command line is shown: a batch launcher names the cluster's worker,
    // the device the job sees, and leaves out the socket (its metrics come
    // from the shared filesystem). Local processes: nothing to change.
    virtual void prepare(LaunchSpec &spec) const { Q_UNUSED(spec); }

    virtual void start(RunId run, const LaunchSpec &spec) = 0;
    virtual void terminate(RunId run) = 0;
    virtual void kill(RunId run) = 0;
    // `expected`: the run as it would be launched (the spec start() would
    // get: Supervisor::launchSpec), with the token it was given and program
    // what it was started as. Its name, runDir, workingDirectory(), program
    // and programArgv tell the run; a batch launcher keeps the whole spec to
    // submit it again (a requeue), as it would one it started.
    virtual AttachResult attach(RunId run, const QJsonObject &handle, const LaunchSpec &expected,
                                QString *why = nullptr) = 0;
    // Empty until started (and for a run it does not know).
    virtual QJsonObject handle(RunId run) const = 0;
    virtual void detach(RunId run) = 0;
    virtual void release(RunId run) = 0;
    // The machine `run` executes on, as the user would name it (a batch
    // launcher: the job's node). Local processes: this machine's host name.
    virtual QString host(RunId run) const;

    // The experiment's clusters, for a launcher that sends runs to them
    // (LauncherRouter); the others have none to know.
    virtual void setClusters(const QList<ExperimentCluster> &clusters) { Q_UNUSED(clusters); }
    // The experiment's hosts, for a launcher that starts runs on them over
    // ssh (LauncherRouter: one RemoteLauncher per host).
    virtual void setHosts(const QList<ExperimentHost> &hosts) { Q_UNUSED(hosts); }
    // Why runs for `device` cannot start now (a host that cannot be
    // reached, or is being connected to), empty when they can: the
    // Dispatcher leaves such a lane's runs queued, and its header says why.
    // availabilityChanged() when it may have changed.
    virtual QString unavailable(const Device &device) const
    {
        Q_UNUSED(device);
        return {};
    }
    // What a user should know before starting lanes on `devices` whose runs
    // go to `runsRoot` (a cluster that cannot see that folder, no sbatch...).
    // Empty when all is clear, and for launchers with nothing to check.
    virtual QStringList problems(const QList<Device> &devices, const QString &runsRoot) const
    {
        Q_UNUSED(devices);
        Q_UNUSED(runsRoot);
        return {};
    }

    // What the system that runs `run` says of it, for a person to read (the
    // run details' "Job details"): a batch launcher asks its queue about the
    // run's job (run.jobId, or the newest it submitted) the way it submits,
    // through the cluster's reach and settings; a run it no longer tracks
    // is found by its device. Asynchronous: `done(title, text)` runs once
    // from the event loop, never after `context` is destroyed: the command
    // asked and its answer, or why it gave none. False, and `done` never
    // runs, when there is nobody to ask: local processes (the run details
    // say all there is), no job, a cluster the experiment does not define.
    using Described = std::function<void(const QString &title, const QString &text)>;
    virtual bool describe(const RunInfo &run, QObject *context, Described done)
    {
        Q_UNUSED(run);
        Q_UNUSED(context);
        Q_UNUSED(done);
        return false;
    }

Q_SIGNALS:
    void started(trainyard::RunId run, qint64 pid, const QString &jobId);
    void pending(trainyard::RunId run, const QString &reason);
    void running(trainyard::RunId run);
    // Before exited: the top process ended, these of the run's are awaited.
    void lingering(trainyard::RunId run, const QString &message);
    void exited(trainyard::RunId run, int exitCode, int signal);
    // Right before exited, where the queue itself ended the job and says
    // more than a status: a time limit reached with nothing to resume, a
    // launch that failed on the node. The run failed, for `why`.
    void endedBecause(trainyard::RunId run, const QString &why);
    void failedToLaunch(trainyard::RunId run, const QString &message);
    // unavailable() may say something else now.
    void availabilityChanged();
    // What a host over ssh has (its GPUs by nvidia-smi, as the lanes name
    // them: "ssh:HOST/cuda:N"), polled over its connection; `problem`: why
    // it could not be asked (then `devices` is empty).
    void devicesReported(const QString &host, const QList<trainyard::DeviceInfo> &devices, const QString &problem);
};

} // namespace trainyard
