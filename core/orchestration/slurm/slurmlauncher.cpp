#include "orchestration/slurm/slurmlauncher.h"

#include "orchestration/logcategories.h"
#include "orchestration/remote/remoterunfolders.h"
#include "orchestration/slurm/slurmcommand.h"
#include "orchestration/slurm/slurmending.h"

#include <QDir>
#include <QJsonObject>
#include <QPointer>

namespace trainyard {

namespace {

// `scancel OPTIONS -- ID`: the id after "--", never read as an option.
QStringList scancelArguments(const QStringList &options, const QString &id)
{
    return options + QStringList{QStringLiteral("--"), id};
}

} // namespace

SlurmLauncher::SlurmLauncher(SlurmClusterConfig cluster, std::unique_ptr<SlurmCommandRunner> runner, QObject *parent)
    : Launcher(parent)
    , m_cluster(std::move(cluster))
    , m_submission(m_cluster)
    , m_runner(runner ? std::move(runner) : SlurmProcessRunner::forCluster(m_cluster))
    , m_attachCheck(m_cluster, *m_runner)
    , m_poller(
          m_cluster.pollMs, *m_runner, this,
          [this](QList<RunId> *runs, QStringList *ids) {
              for (auto it = m_jobs.cbegin(); it != m_jobs.cend(); ++it) {
                  if (!it->id.isEmpty() && !it->finishing) {
                      *runs << it.key();
                      *ids << it->id;
                  }
              }
              return !m_jobs.isEmpty();
          },
          [this](const QList<RunId> &runs, const QStringList &ids, const QHash<QString, SlurmJob> &listed) {
              polled(runs, ids, listed);
          })
{
    if (!m_cluster.sshCommand.isEmpty() && !m_cluster.runsRoot.isEmpty()) {
        RemoteHostConfig files;
        files.name = m_cluster.name;
        files.target = m_cluster.sshTarget;
        files.runsRoot = m_cluster.runsRoot;
        files.pollMs = qMin(2000, m_cluster.pollMs);
        files.commandTimeoutMs = m_cluster.commandTimeoutMs;
        m_folders = new RemoteRunFolders(files, this);
    }
}

SlurmLauncher::~SlurmLauncher()
{
    const QList<RunId> runs = m_jobs.keys();
    for (RunId run : runs) {
        release(run);
    }
}

void SlurmLauncher::prepare(LaunchSpec &spec) const
{
    // Not under the cluster's runs_root: no shared filesystem, its folder is there.
    const QString root = QDir::cleanPath(m_cluster.runsRoot);
    if (m_folders && spec.mirrorDir.isEmpty() && QDir::cleanPath(spec.runDir) != root
        && !QDir::cleanPath(spec.runDir).startsWith(root + QLatin1Char('/'))) {
        m_folders->prepare(spec);
    }
    m_submission.prepare(spec);
}

void SlurmLauncher::start(RunId run, const LaunchSpec &spec)
{
    release(run); // never two jobs for one run
    LaunchSpec job = spec;
    prepare(job);
    if (job.program.isEmpty() && !job.isProgram()) {
        Q_EMIT failedToLaunch(run, tr("trainyard-worker not found for cluster %1").arg(m_cluster.name));
        return;
    }
    m_jobs.insert(run, Job());
    if (!job.mirrorDir.isEmpty()) {
        // No shared filesystem: the folder is made there first.
        const quint64 serial = m_jobs[run].serial = ++m_serial;
        m_folders->make(job, this, [this, run, serial, job](const QString &error) {
            const auto it = m_jobs.constFind(run);
            if (it == m_jobs.constEnd() || it->serial != serial) {
                return; // released meanwhile
            }
            if (!error.isEmpty()) {
                m_jobs.remove(run);
                Q_EMIT failedToLaunch(run, error);
                return;
            }
            m_folders->follow(run, job);
            submit(run, job, QStringLiteral("submitted"));
        });
        return;
    }
    submit(run, job, QStringLiteral("submitted"));
}

void SlurmLauncher::submit(RunId run, const LaunchSpec &job, const QString &pendingReason)
{
    const quint64 serial = ++m_serial;
    Job &entry = m_jobs[run];
    entry.serial = serial;
    entry.spec = job;
    entry.checkpointAtSubmit = SlurmEnding::checkpointStamp(job.mirrorDir.isEmpty() ? job.runDir : job.mirrorDir);

    const QStringList args = m_submission.arguments(job);
    qCInfo(lcSlurm, "run %d: sbatch %s", run, qUtf8Printable(args.join(QLatin1Char(' '))));
    m_runner->run(QStringLiteral("sbatch"), args, m_submission.script(job), m_submission.environment(job), this,
                  [this, run, serial, pendingReason](const SlurmCommandResult &r) {
                      const auto it = m_jobs.constFind(run);
                      const bool current = it != m_jobs.constEnd() && it->serial == serial;
                      const QString id = r.ok() ? SlurmJob::parseSubmitted(r.out) : QString();
                      if (!current) {
                          // Released or restarted while sbatch ran: nobody
                          // wants this job.
                          if (!id.isEmpty()) {
                              scancel(id, {});
                          }
                          return;
                      }
                      if (id.isEmpty()) {
                          m_jobs.remove(run);
                          const QString why =
                              r.ok() ? tr("sbatch gave no job id (%1)").arg(QString::fromUtf8(r.out.trimmed()))
                                     : r.message(QStringLiteral("sbatch"));
                          qCWarning(lcSlurm, "run %d not submitted: %s", run, qUtf8Printable(why));
                          Q_EMIT failedToLaunch(run, tr("Slurm refused the job: %1").arg(why));
                          return;
                      }
                      submitted(run, serial, id, pendingReason);
                  });
}

void SlurmLauncher::submitted(RunId run, quint64 serial, const QString &id, const QString &pendingReason)
{
    Job &job = m_jobs[run];
    job.id = id;
    job.known = false;
    job.phase = SlurmJob::Phase::Pending;
    job.reason.clear();
    job.finishing = false;
    qCInfo(lcSlurm, "run %d submitted as job %s", run, qUtf8Printable(id));
    Q_EMIT started(run, 0, id);
    // The listener may have stopped, released or restarted the run.
    const auto it = m_jobs.find(run);
    if (it == m_jobs.end() || it->serial != serial) {
        return;
    }
    if (it->cancelAsked) {
        scancel(id, {});
    }
    Q_EMIT pending(run, pendingReason);
    m_poller.keepPolling();
}

void SlurmLauncher::polled(const QList<RunId> &runs, const QStringList &ids, const QHash<QString, SlurmJob> &listed)
{
    for (int i = 0; i < runs.size(); ++i) {
        const auto it = m_jobs.constFind(runs.at(i));
        if (it == m_jobs.constEnd() || it->id != ids.at(i) || it->finishing) {
            continue; // ended, released or resubmitted meanwhile
        }
        const auto seen = listed.constFind(ids.at(i));
        if (seen == listed.constEnd()) {
            finish(runs.at(i)); // gone from the queue: ask scontrol how it ended
        } else {
            observe(runs.at(i), *seen);
        }
    }
}

void SlurmLauncher::observe(RunId run, const SlurmJob &seen)
{
    const auto it = m_jobs.find(run);
    if (it == m_jobs.end()) {
        return;
    }
    const SlurmJob::Phase phase = seen.phase();
    switch (phase) {
    case SlurmJob::Phase::Ended:
        finish(run);
        return;
    case SlurmJob::Phase::Pending: {
        // Right after sbatch the reason is often "None": "submitted" said it.
        const QString reason =
            seen.reason.isEmpty() && seen.state != QLatin1String("PENDING") ? seen.state : seen.reason;
        const bool requeued = it->known && it->phase == SlurmJob::Phase::Running;
        const bool changed = requeued || (!reason.isEmpty() && reason != it->reason);
        it->known = true;
        it->phase = phase;
        if (!reason.isEmpty()) {
            it->reason = reason;
        }
        if (changed) {
            qCInfo(lcSlurm, "run %d: job %s pending (%s)", run, qUtf8Printable(it->id), qUtf8Printable(it->reason));
            Q_EMIT pending(run, it->reason.isEmpty() ? QStringLiteral("submitted") : it->reason);
        }
        return;
    }
    case SlurmJob::Phase::Running:
        if (it->known && it->phase == SlurmJob::Phase::Running) {
            return;
        }
        it->known = true;
        it->phase = phase;
        it->reason.clear();
        it->node = seen.nodes;
        qCInfo(lcSlurm, "run %d: job %s running on %s", run, qUtf8Printable(it->id), qUtf8Printable(seen.nodes));
        Q_EMIT running(run);
        return;
    }
}

void SlurmLauncher::finish(RunId run)
{
    const auto it = m_jobs.find(run);
    if (it == m_jobs.end() || it->finishing) {
        return;
    }
    it->finishing = true;
    const QString id = it->id;
    m_runner->run(QStringLiteral("scontrol"), SlurmJob::showArguments(id), {}, {}, this,
                  [this, run, id](const SlurmCommandResult &r) {
                      const auto it = m_jobs.find(run);
                      if (it == m_jobs.end() || it->id != id) {
                          return;
                      }
                      const SlurmJob job = r.ok() ? SlurmJob::parseScontrol(r.out) : SlurmJob();
                      if (!job.id.isEmpty() && job.phase() != SlurmJob::Phase::Ended) {
                          it->finishing = false; // not over after all (squeue's view was stale)
                          observe(run, job);
                          return;
                      }
                      if (job.id.isEmpty() && !r.saysUnknownJob()) {
                          it->finishing = false; // the controller did not answer: ask again next poll
                          qCWarning(lcSlurm, "scontrol show job %s failed: %s", qUtf8Printable(id),
                                    qUtf8Printable(r.message(QStringLiteral("scontrol"))));
                          return;
                      }
                      ended(run, job);
                  });
}

void SlurmLauncher::ended(RunId run, const SlurmJob &final)
{
    const auto it = m_jobs.find(run);
    if (it == m_jobs.end()) {
        return;
    }
    const Job job = *it;
    SlurmEnding::Seen seen;
    seen.id = job.id;
    seen.node = job.node;
    seen.runDir = job.spec.mirrorDir.isEmpty() ? job.spec.runDir : job.spec.mirrorDir;
    seen.timeLimit = m_cluster.time;
    seen.stopAsked = job.stopAsked;
    seen.sawRunning = job.known && job.phase == SlurmJob::Phase::Running;
    seen.checkpointAtSubmit = job.checkpointAtSubmit;
    const SlurmEnding end = SlurmEnding::of(final, seen);
    if (end.resubmit) {
        // The same run goes on in a new job, from its checkpoint.
        LaunchSpec again = job.spec;
        again.resume = true;
        it->requeues = job.requeues + 1;
        qCInfo(lcSlurm, "run %d: job %s checkpointed before its time limit; resubmitting (requeue %d)", run,
               qUtf8Printable(job.id), it->requeues);
        if (end.ranFirst) {
            Q_EMIT running(run); // it did run
        }
        submit(run, again, tr("requeued after job %1 reached its time limit").arg(job.id));
        return;
    }
    it->node = final.nodes.isEmpty() ? job.node : final.nodes;
    if (end.ranFirst) {
        Q_EMIT running(run); // host() still names its node
    }
    m_jobs.remove(run);
    if (m_jobs.isEmpty()) {
        m_poller.stop();
    }
    qCInfo(lcSlurm, "run %d: job %s ended %s (ExitCode %d:%d) -> exit %d, signal %d", run, qUtf8Printable(job.id),
           qUtf8Printable(final.state.isEmpty() ? QStringLiteral("unknown to Slurm") : final.state), final.exitCode,
           final.signal, end.exitCode, end.signal);
    const auto report = [this, run, end] {
        if (!end.why.isEmpty()) {
            Q_EMIT endedBecause(run, end.why);
        }
        Q_EMIT exited(run, end.exitCode, end.signal);
    };
    if (m_folders && !job.spec.mirrorDir.isEmpty()) {
        m_folders->finish(run, report); // its end is read from the mirror: every byte first
    } else {
        report();
    }
}

void SlurmLauncher::scancel(const QString &id, const QStringList &options)
{
    if (!SlurmJob::isJobId(id)) {
        qCWarning(lcSlurm, "scancel refused: \"%s\" is not a job id", qUtf8Printable(id));
        return;
    }
    qCInfo(lcSlurm, "scancel %s %s", qUtf8Printable(options.join(QLatin1Char(' '))), qUtf8Printable(id));
    m_runner->run(QStringLiteral("scancel"), scancelArguments(options, id), {}, {}, this,
                  [this, id](const SlurmCommandResult &r) {
                      if (!r.ok()) {
                          qCWarning(lcSlurm, "scancel %s failed: %s", qUtf8Printable(id),
                                    qUtf8Printable(r.message(QStringLiteral("scancel"))));
                      }
                      m_poller.pollSoon();
                  });
}

void SlurmLauncher::terminate(RunId run)
{
    const auto it = m_jobs.find(run);
    if (it == m_jobs.end()) {
        return;
    }
    it->stopAsked = true;
    if (it->id.isEmpty()) {
        it->cancelAsked = true; // cancelled as soon as sbatch names it
        return;
    }
    // A running worker hears TERM and checkpoints; a pending job is cancelled
    // (it must never start).
    if (it->known && it->phase == SlurmJob::Phase::Running) {
        scancel(it->id, {QStringLiteral("--signal=TERM"), QStringLiteral("--full")});
    } else {
        scancel(it->id, {});
    }
}

void SlurmLauncher::kill(RunId run)
{
    const auto it = m_jobs.find(run);
    if (it == m_jobs.end()) {
        return;
    }
    it->stopAsked = true;
    if (it->id.isEmpty()) {
        it->cancelAsked = true;
        return;
    }
    // Running: SIGKILL at once; a plain scancel would send TERM first and
    // KILL only after the cluster's KillWait (30 s by default), and kill
    // comes when TERM was not enough.
    if (it->known && it->phase == SlurmJob::Phase::Running) {
        scancel(it->id, {QStringLiteral("--signal=KILL"), QStringLiteral("--full")});
    } else {
        scancel(it->id, {});
    }
}

Launcher::AttachResult SlurmLauncher::attach(RunId run, const QJsonObject &handle, const LaunchSpec &expected,
                                             QString *why)
{
    QString id;
    QString reason;
    const AttachResult result = m_attachCheck.check(handle, expected, &id, &reason);
    if (result != AttachResult::Attached) {
        qCInfo(lcSlurm, "run %d not attached: %s", run, qUtf8Printable(reason));
        if (why) {
            *why = reason;
        }
        return result;
    }
    release(run);
    Job entry;
    entry.id = id;
    entry.serial = ++m_serial;
    entry.spec = expected; // what a requeue submits again, as for a job started here
    prepare(entry.spec);
    m_jobs.insert(run, entry);
    if (!entry.spec.mirrorDir.isEmpty()) {
        m_folders->follow(run, entry.spec, /*syncFirst=*/true); // what it wrote meanwhile, read next
    }
    qCInfo(lcSlurm, "run %d attached to job %s", run, qUtf8Printable(id));
    // The first poll says pending or running (or how it ended meanwhile).
    m_poller.pollSoon();
    return AttachResult::Attached;
}

QString SlurmLauncher::host(RunId run) const
{
    const auto it = m_jobs.constFind(run);
    return it == m_jobs.constEnd() || it->node.isEmpty() ? m_cluster.name : it->node;
}

bool SlurmLauncher::describe(const RunInfo &run, QObject *context, Described done)
{
    const auto it = m_jobs.constFind(run.id);
    const QString id = it != m_jobs.constEnd() && !it->id.isEmpty() ? it->id : run.jobId;
    if (!SlurmJob::isJobId(id) || !context) {
        return false;
    }
    // The runner's context is this launcher, which owns it; the caller's
    // is only asked whether it still wants the answer.
    const QPointer<QObject> caller(context);
    const QStringList args{QStringLiteral("show"), QStringLiteral("job"), QStringLiteral("--"), id};
    m_runner->run(QStringLiteral("scontrol"), args, {}, {}, this,
                  [caller, done = std::move(done), id](const SlurmCommandResult &r) {
                      if (caller) {
                          done(tr("scontrol show job %1").arg(id),
                               r.ok() ? QString::fromUtf8(r.out) : r.message(QStringLiteral("scontrol")));
                      }
                  });
    return true;
}

QJsonObject SlurmLauncher::handle(RunId run) const
{
    const auto it = m_jobs.constFind(run);
    if (it == m_jobs.constEnd() || it->id.isEmpty()) {
        return {};
    }
    return QJsonObject{
        {QStringLiteral("kind"), kind()}, {QStringLiteral("job"), it->id}, {QStringLiteral("cluster"), m_cluster.name}};
}

void SlurmLauncher::detach(RunId run)
{
    if (m_folders) {
        m_folders->forget(run);
    }
    // A job whose sbatch has not answered is cancelled when it does (see
    // start): it has no handle anyone could attach to.
    if (m_jobs.remove(run)) {
        qCInfo(lcSlurm, "run %d left to Slurm", run);
    }
    if (m_jobs.isEmpty()) {
        m_poller.stop();
    }
}

void SlurmLauncher::release(RunId run)
{
    if (m_folders) {
        m_folders->forget(run);
    }
    const auto it = m_jobs.find(run);
    if (it == m_jobs.end()) {
        return;
    }
    const QString id = it->id;
    m_jobs.erase(it);
    if (m_jobs.isEmpty()) {
        m_poller.stop();
    }
    if (id.isEmpty()) {
        return; // sbatch still runs: its answer is cancelled (start)
    }
    if (!SlurmJob::isJobId(id)) {
        qCWarning(lcSlurm, "scancel refused: \"%s\" is not a job id", qUtf8Printable(id));
        return;
    }
    const SlurmCommandResult r =
        m_runner->runNow(QStringLiteral("scancel"), scancelArguments({}, id), qMin(5000, m_cluster.commandTimeoutMs));
    if (!r.ok()) {
        qCWarning(lcSlurm, "scancel %s failed: %s", qUtf8Printable(id),
                  qUtf8Printable(r.message(QStringLiteral("scancel"))));
    }
}

} // namespace trainyard
