#pragma once

// A Launcher that starts nothing: it records what the supervisor asks of it
// and reports the events a test tells it to, the way a batch-queue launcher
// would (a job id, pending with a reason, running, requeued, an exit).

#include "orchestration/launch/launcher.h"

#include <QElapsedTimer>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QSet>
#include <QString>
#include <QStringList>

namespace trainyard::test {

class FakeLauncher : public Launcher
{
public:
    FakeLauncher() { m_clock.start(); }

    // What the supervisor asked, in order ("start 1", "terminate 1", ...).
    QStringList calls;
    QList<qint64> callTimes; // ms since construction, one per call
    QList<QPair<RunId, LaunchSpec>> starts;
    QList<QPair<RunId, QJsonObject>> attaches;
    QHash<RunId, QJsonObject> handles;                // what handle() returns
    QSet<QString> aliveJobs;                          // the jobs attach() finds
    QSet<QString> foreignJobs;                        // the jobs attach() finds not to be the run's (NotOurs)
    QList<QPair<RunId, LaunchSpec>> expectedAtAttach; // what the supervisor said each run is
    QString failInsideStart;                          // non-empty: failedToLaunch from inside start()

    int count(const QString &what, RunId run) const
    {
        return int(calls.count(QStringLiteral("%1 %2").arg(what).arg(run)));
    }

    QString kind() const override { return QStringLiteral("fake"); }
    void start(RunId run, const LaunchSpec &spec) override
    {
        record(QStringLiteral("start"), run);
        starts << qMakePair(run, spec);
        if (!failInsideStart.isEmpty()) {
            Q_EMIT failedToLaunch(run, failInsideStart);
        }
    }
    void terminate(RunId run) override { record(QStringLiteral("terminate"), run); }
    void kill(RunId run) override { record(QStringLiteral("kill"), run); }
    AttachResult attach(RunId run, const QJsonObject &handle, const LaunchSpec &expected, QString *why) override
    {
        record(QStringLiteral("attach"), run);
        attaches << qMakePair(run, handle);
        expectedAtAttach << qMakePair(run, expected);
        const QString job = handle.value(QStringLiteral("job")).toString();
        if (foreignJobs.contains(job)) {
            if (why) {
                *why = QStringLiteral("job %1 is another user's").arg(job);
            }
            return AttachResult::NotOurs;
        }
        if (handle.value(QStringLiteral("kind")).toString() != kind() || !aliveJobs.contains(job)) {
            if (why) {
                *why = QStringLiteral("no such job");
            }
            return AttachResult::Gone;
        }
        handles.insert(run, handle);
        return AttachResult::Attached;
    }
    QJsonObject handle(RunId run) const override { return handles.value(run); }
    void detach(RunId run) override
    {
        record(QStringLiteral("detach"), run);
        handles.remove(run);
    }
    void release(RunId run) override
    {
        record(QStringLiteral("release"), run);
        handles.remove(run);
    }

    // The events, as the test decides.
    void reportStarted(RunId run, qint64 pid, const QString &job = QString())
    {
        handles.insert(run,
                       QJsonObject{{QStringLiteral("kind"), kind()},
                                   {QStringLiteral("job"), job.isEmpty() ? QStringLiteral("pid-%1").arg(pid) : job}});
        Q_EMIT started(run, pid, job);
    }
    void reportPending(RunId run, const QString &reason) { Q_EMIT pending(run, reason); }
    void reportRunning(RunId run) { Q_EMIT running(run); }
    void reportExit(RunId run, int exitCode, int signal)
    {
        handles.remove(run);
        Q_EMIT exited(run, exitCode, signal);
    }
    void reportLaunchFailure(RunId run, const QString &message)
    {
        handles.remove(run);
        Q_EMIT failedToLaunch(run, message);
    }

private:
    void record(const QString &what, RunId run)
    {
        calls << QStringLiteral("%1 %2").arg(what).arg(run);
        callTimes << m_clock.elapsed();
    }
    QElapsedTimer m_clock;
};

} // namespace trainyard::test
