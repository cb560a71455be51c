#include "orchestration/supervision/launchprogress.h"

#include "orchestration/ingest/ingestion.h"
#include "orchestration/launch/launcher.h"
#include "orchestration/logcategories.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/supervision/stallwatch.h"
#include "protocol/metricrecord.h"

namespace trainyard {

using Phase = SupervisedRuns::Phase;

LaunchProgress::LaunchProgress(RunRegistry *runs, Ingestion *ingestion, Launcher *launcher, SupervisedRuns *supervised,
                               StallWatch *stall, QObject *parent)
    : QObject(parent)
    , m_runs(runs)
    , m_ingestion(ingestion)
    , m_launcher(launcher)
    , m_supervised(supervised)
    , m_stall(stall)
{
    connect(launcher, &Launcher::started, this, &LaunchProgress::onStarted);
    connect(launcher, &Launcher::pending, this, &LaunchProgress::onPending);
    connect(launcher, &Launcher::running, this, &LaunchProgress::onRunning);
    connect(ingestion, &Ingestion::helloReceived, this, &LaunchProgress::onHello);
}

void LaunchProgress::onStarted(RunId id, qint64 pid, const QString &jobId)
{
    SupervisedRuns::Run *s = m_supervised->find(id);
    if (!s) {
        return;
    }
    if (s->phase == Phase::Launching) {
        s->phase = Phase::Live;
    }
    if (s->followFile) {
        m_ingestion->follow(id); // launched: its file is read as it grows
    }
    m_runs->update(id, [&](RunInfo &r) {
        if (pid > 0) {
            r.pid = pid;
        }
        r.jobId = jobId;
        r.host = m_launcher->host(id);
    });
    m_stall->restart(id);
    qCInfo(lcSupervisor, "%s started: %s", qUtf8Printable(s->info->name),
           qUtf8Printable(jobId.isEmpty() ? QStringLiteral("pid %1").arg(pid) : jobId));
    m_supervised->persist();
}

void LaunchProgress::onPending(RunId id, const QString &reason)
{
    SupervisedRuns::Run *s = m_supervised->find(id);
    if (!s) {
        return;
    }
    const RunInfo *r = s->info;
    // A requeue only after it was seen running here: a job reattached while
    // it still waits is pending, not requeued.
    const bool requeued =
        s->phase == Phase::Live && s->ranHere
        && (r->state == RunState::Running || r->state == RunState::Stalled || r->state == RunState::Paused);
    const QString why = reason.isEmpty() ? QStringLiteral("in the queue") : reason;
    s->phase = Phase::Pending;
    m_stall->setQueued(id, true);
    if (s->followFile) {
        m_ingestion->follow(id);
    }
    s->pendingReason = why;
    qCInfo(lcSupervisor, "%s %s: %s", qUtf8Printable(r->name), requeued ? "requeued, pending" : "pending",
           qUtf8Printable(why));
    if (r->state == RunState::Stopping) {
        m_runs->update(id, [&](RunInfo &run) { run.message = QStringLiteral("stopping; pending: %1").arg(why); });
        return;
    }
    s->pendingShown = true;
    m_runs->update(id, [&](RunInfo &run) {
        run.queueReason = why;
        run.state = RunState::Starting;
        run.message = (requeued ? QStringLiteral("requeued; pending: %1") : QStringLiteral("pending: %1")).arg(why);
    });
}

void LaunchProgress::leavePending(SupervisedRuns::Run *s, RunInfo &run)
{
    s->phase = Phase::Live;
    m_stall->setQueued(run.id, false);
    m_stall->restart(run.id);
    run.queueReason.clear();
    if (s->pendingShown) {
        s->pendingShown = false;
        run.message.clear();
    }
}

void LaunchProgress::onRunning(RunId id)
{
    SupervisedRuns::Run *s = m_supervised->find(id);
    if (!s) {
        return;
    }
    s->ranHere = true;
    qCInfo(lcSupervisor, "%s running", qUtf8Printable(s->info->name));
    m_runs->update(id, [&](RunInfo &r) {
        if (s->phase != Phase::Live) {
            leavePending(s, r);
        }
        m_stall->restart(id);
        r.host = m_launcher->host(id); // a batch job's node is known from here
        if (r.state == RunState::Starting) {
            r.state = RunState::Running;
        }
    });
}

void LaunchProgress::onHello(RunId id, const MetricRecord &hello)
{
    m_runs->update(
        id,
        [&](RunInfo &r) {
            r.connected = true;
            if (r.pid <= 0) {
                r.pid = hello.pid;
            }
            if (SupervisedRuns::Run *s = m_supervised->find(id)) {
                if (s->phase != Phase::Live) {
                    leavePending(s, r); // it says hello: it runs, whatever the queue said last
                }
                s->ranHere = true;
            }
            if (r.state == RunState::Starting) {
                r.state = RunState::Running;
            }
        },
        RunRegistry::Notify::Quiet);
    // Anything written while we were not connected comes from the file.
    m_ingestion->ingestMetricsFile(id);
    m_runs->touch(id);
}

} // namespace trainyard
