// Fault injection against supervised workers (trainyard-fake-worker): random
// SIGKILLs, a hung worker, torn and garbage lines in metrics.jsonl, and a
// worker program that is missing or not executable. Each fault costs at most
// the run it touched; every other run finishes with all its points.
//
// Each test function's first comment line ("Fault: ... | User sees: ... |
// Kept: ...") feeds docs/reliability.md (tests/faults/collect-reliability.py).

#include "metrics/metricstore.h"
#include "orchestration/board/board.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/ingest/metricsserver.h"
#include "orchestration/launch/workerprocess.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"
#include "tests/orchestration/testutil.h"

#include <QFile>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/stat.h>

using namespace trainyard;
using namespace trainyard::test;

class TestFaultsWorkers : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
    }

    // Fault: SIGKILL of random workers mid-training, 3 rounds of 8 runs, 3 killed each | User sees: those runs "failed", message "killed by SIGKILL", status.json state failed + signal 9 | Kept: every other run finishes with all 60 points; the killed runs' metrics.jsonl up to the kill
    void sigkillRandomWorkersManyTimes()
    {
        QRandomGenerator rng(20261130);
        for (int round = 0; round < 3; ++round) {
            QTemporaryDir dir;
            const Experiment ex = experiment(experimentJson(
                QStringLiteral("kill%1").arg(round), dir.filePath(QStringLiteral("runs")),
                {lane(QStringLiteral("cpu"), 4, {withRepeat(fakeSpec(QStringLiteral("k"), 60, 8), 8)})}));
            QStringList errors;
            Session session;
            QVERIFY2(session.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
            Orchestrator *orch = session.orchestrator();
            orch->supervisor()->setWorkerProgram(fakeWorker());
            QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
            orch->dispatcher()->startAll();

            QSet<RunId> killed;
            while (killed.size() < 3) {
                // A random run among those running past step 5.
                QList<RunId> candidates;
                for (RunId id : orch->board()->runIds()) {
                    const RunInfo r = orch->runs()->value(id);
                    if (r.state == RunState::Running && r.step >= 5 && r.pid > 0 && !killed.contains(id)) {
                        candidates << id;
                    }
                }
                if (candidates.isEmpty()) {
                    QTest::qWait(5); // the load generator's pacing: look again soon
                    QVERIFY2(orch->dispatcher()->activeCount() > 0 || killed.size() == 3,
                             "runs ended before 3 were killed");
                    continue;
                }
                const RunId victim = candidates.at(rng.bounded(int(candidates.size())));
                QCOMPARE(::kill(pid_t(orch->runs()->value(victim).pid), SIGKILL), 0);
                killed << victim;
                QTest::qWait(int(rng.bounded(40))); // the load generator's pacing: a random gap between kills
            }
            QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 30000);
            QCOMPARE(orch->dispatcher()->finishedCount(), 8 - 3);
            for (RunId id : orch->board()->runIds()) {
                const RunInfo r = orch->runs()->value(id);
                const QJsonObject status = readJsonFile(r.runDir + QStringLiteral("/status.json"));
                if (killed.contains(id)) {
                    QCOMPARE(r.state, RunState::Failed);
                    QCOMPARE(r.exitSignal, SIGKILL);
                    QVERIFY2(r.message.contains(QStringLiteral("SIGKILL")), qPrintable(r.message));
                    QCOMPARE(status.value(QStringLiteral("state")).toString(), QStringLiteral("failed"));
                    QCOMPARE(status.value(QStringLiteral("signal")).toInt(), SIGKILL);
                    // Points written before the kill are kept and plotted.
                    const MetricSeries *loss = session.metrics()->series(id, QStringLiteral("loss"));
                    QVERIFY(loss && loss->size() >= 5);
                    QCOMPARE(int(loss->size()), countLines(r.runDir + QStringLiteral("/metrics.jsonl"), "metric"));
                } else {
                    QCOMPARE(r.state, RunState::Finished);
                    QCOMPARE(countLines(r.runDir + QStringLiteral("/metrics.jsonl"), "metric"), 60);
                    const MetricSeries *loss = session.metrics()->series(id, QStringLiteral("loss"));
                    QVERIFY(loss);
                    QCOMPARE(int(loss->size()), 60);
                    QCOMPARE(status.value(QStringLiteral("state")).toString(), QStringLiteral("finished"));
                }
            }
        }
    }

    // Fault: a worker that hangs (no heartbeat, ignores stop and SIGTERM) | User sees: the run turns "stalled" ("no heartbeat for N s"); Stop escalates to SIGTERM then SIGKILL: "did not stop within ... killed (SIGKILL)" | Kept: the other run of the lane finishes; the hung run's points up to the hang
    void hungWorkerIsStalledAndStopEscalatesToKill()
    {
        QTemporaryDir dir;
        const Experiment ex =
            experiment(experimentJson(QStringLiteral("hang"), dir.filePath(QStringLiteral("runs")),
                                      {lane(QStringLiteral("cpu"), 2,
                                            {fakeSpec(QStringLiteral("hung"), 400, 5, QStringLiteral("hang"), 10),
                                             fakeSpec(QStringLiteral("fine"), 40, 5)})}));
        QStringList errors;
        Session session;
        QVERIFY2(session.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        Orchestrator *orch = session.orchestrator();
        orch->supervisor()->setWorkerProgram(fakeWorker());
        orch->supervisor()->setStallTimeout(1200);
        orch->supervisor()->setStopTimeout(400);
        orch->dispatcher()->startAll();
        const RunId hung = orch->runs()->findByName(QStringLiteral("hung"));
        const RunId fine = orch->runs()->findByName(QStringLiteral("fine"));
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(hung).state, RunState::Stalled, 10000);
        QVERIFY2(orch->runs()->value(hung).message.contains(QStringLiteral("heartbeat")),
                 qPrintable(orch->runs()->value(hung).message));
        const qint64 pid = orch->runs()->value(hung).pid;
        QVERIFY(pid > 0);
        QVERIFY(orch->runActions()->stopRun(hung));
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(hung).state), 5000);
        const RunInfo r = orch->runs()->value(hung);
        QCOMPARE(r.state, RunState::Failed);
        QCOMPARE(r.exitSignal, SIGKILL);
        QVERIFY2(r.message.contains(QStringLiteral("did not stop")), qPrintable(r.message));
        QCOMPARE(RunStore::processStartTicks(pid), qint64(0)); // really gone
        const MetricSeries *loss = session.metrics()->series(hung, QStringLiteral("loss"));
        QVERIFY(loss);
        QCOMPARE(int(loss->size()), 9);
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(fine).state, RunState::Finished, 10000);
    }

    // Fault: a torn last line, a garbage line, a NUL-filled line and a wrong-typed line in metrics.jsonl | User sees: the run's curves load; bad lines are skipped and counted (RunStore::ReadResult::skipped) | Kept: every valid point before and after the bad lines
    void tornAndGarbageLinesAreSkippedAndCounted()
    {
        QTemporaryDir dir;
        const Experiment ex =
            experiment(experimentJson(QStringLiteral("torn"), dir.filePath(QStringLiteral("runs")),
                                      {lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("t"), 30, 1)})}));
        const QString trained = trainUntilIdle(ex);
        QVERIFY2(trained.isEmpty(), qPrintable(trained));
        const QString runDir = dir.filePath(QStringLiteral("runs/t"));
        QFile::remove(runDir + QStringLiteral("/status.json")); // as if the orchestrator had died first
        QFile metrics(runDir + QStringLiteral("/metrics.jsonl"));
        QVERIFY(metrics.open(QIODevice::ReadOnly));
        QByteArray lines = metrics.readAll();
        metrics.close();
        // Garbage in the middle, a valid point after it, a torn line last.
        lines += "this is not json\n";
        lines += QByteArray(40, '\0') + '\n';
        lines += "{\"type\":\"done\",\"status\":7,\"exit_code\":\"x\"}\n";
        lines += "{\"type\":\"metric\",\"wall\":9.0,\"step\":31,\"epoch\":3,\"loss\":0.25}\n";
        lines += "{\"type\":\"metric\",\"wall\":9.1,\"st";
        QVERIFY(writeFile(runDir + QStringLiteral("/metrics.jsonl"), lines));

        RunStore store(dir.filePath(QStringLiteral("runs")));
        int good = 0;
        const RunStore::ReadResult result =
            store.readMetrics(QStringLiteral("t"), 0, [&](const MetricRecord &) { ++good; });
        QCOMPARE(result.skipped, 3); // "not json", the NUL line, the torn line
        QCOMPARE(result.invalid, 1); // the wrong-typed done line: JSON, but no valid message
        QVERIFY(result.records > 30);
        QCOMPARE(good, result.records);
        QCOMPARE(result.offset, qint64(lines.lastIndexOf('\n') + 1)); // the torn line is not consumed

        Session second;
        QStringList errors;
        QVERIFY2(second.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        const RunId id = second.orchestrator()->runs()->findByName(QStringLiteral("t"));
        const MetricSeries *loss = second.metrics()->series(id, QStringLiteral("loss"));
        QVERIFY(loss);
        QCOMPARE(int(loss->size()), 31); // 30 from the worker + the one after the garbage
        QCOMPARE(loss->step(30), std::int64_t(31));
        // The worker's own done line counts; the wrong-typed one is ignored.
        QCOMPARE(second.orchestrator()->runs()->value(id).state, RunState::Finished);
    }

    // Fault: the worker program is missing, or exists but is not executable | User sees: each run fails at once with "trainyard-worker not found ..." or "cannot start PATH: ..." | Kept: the other queued runs; with the program fixed, Retry runs them to the end
    void missingOrNotExecutableWorker()
    {
        QTemporaryDir dir;
        const QString notExecutable = dir.filePath(QStringLiteral("trainyard-worker"));
        QVERIFY(writeFile(notExecutable, "#!/bin/sh\nexit 0\n"));
        QVERIFY(QFile::setPermissions(notExecutable, QFile::ReadOwner | QFile::WriteOwner));
        const Experiment ex = experiment(
            experimentJson(QStringLiteral("missing"), dir.filePath(QStringLiteral("runs")),
                           {lane(QStringLiteral("cpu"), 1, {withRepeat(fakeSpec(QStringLiteral("m"), 10, 2), 2)})}));
        QStringList errors;
        Session session;
        QVERIFY(session.open(ex, QString(), &errors));
        Orchestrator *orch = session.orchestrator();
        const QList<RunId> ids = orch->board()->runIds();

        orch->supervisor()->setWorkerProgram(dir.filePath(QStringLiteral("no-such-worker")));
        QString error;
        QVERIFY(orch->runActions()->startRun(ids.at(0), &error) || !error.isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(ids.at(0)).state), 5000);
        QCOMPARE(orch->runs()->value(ids.at(0)).state, RunState::Failed);
        QVERIFY2(orch->runs()->value(ids.at(0)).message.contains(QStringLiteral("no-such-worker")),
                 qPrintable(orch->runs()->value(ids.at(0)).message));

        orch->supervisor()->setWorkerProgram(notExecutable);
        QVERIFY(orch->runActions()->startRun(ids.at(1), &error) || !error.isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(ids.at(1)).state), 5000);
        QCOMPARE(orch->runs()->value(ids.at(1)).state, RunState::Failed);
        QVERIFY2(orch->runs()->value(ids.at(1)).message.contains(QStringLiteral("cannot start")),
                 qPrintable(orch->runs()->value(ids.at(1)).message));

        // The program found from the environment: none, so refuse clearly.
        qputenv("TRAINYARD_WORKER", notExecutable.toLocal8Bit());
        QVERIFY(WorkerProcess::findWorkerProgram().isEmpty());
        qunsetenv("TRAINYARD_WORKER");

        orch->supervisor()->setWorkerProgram(fakeWorker());
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        for (RunId id : ids) {
            QVERIFY(orch->runActions()->retryRun(id));
        }
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(orch->dispatcher()->finishedCount(), 2, 10000);
    }
};

QTEST_GUILESS_MAIN(TestFaultsWorkers)
#include "tst_faults_workers.moc"
