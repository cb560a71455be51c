// Fault injection against the orchestrator itself: `trainyard run` killed
// with SIGKILL mid-training (no chance to save anything), then the
// experiment opened again. Every live worker must be reattached, and every
// metric line written while nobody listened must reach the curves.
//
// Each test function's first comment line ("Fault: ... | User sees: ... |
// Kept: ...") feeds docs/reliability.md.

#include "metrics/metricstore.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"
#include "tests/helpers/buildprograms.h"
#include "tests/orchestration/testutil.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <csignal>
#include <sys/stat.h>

using namespace trainyard;
using namespace trainyard::test;

class TestFaultsOrchestrator : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
    }

    // Fault: SIGKILL of the orchestrator (`trainyard run`) while 3 workers train | User sees: workers keep training; reopening the experiment shows them "running" (reattached) and they reconnect with their tokens | Kept: every metric line (300 per run, steps 1..300 in the curves), status.json "finished" for each
    void sigkillOfTheOrchestratorThenReattach()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("exp.json"));
        const QString root = dir.filePath(QStringLiteral("runs"));
        const QJsonObject json =
            experimentJson(QStringLiteral("orchkill"), root,
                           {lane(QStringLiteral("cpu"), 3, {withRepeat(fakeSpec(QStringLiteral("o"), 300, 10), 3)})});
        QVERIFY(writeFile(file, QJsonDocument(json).toJson()));

        QProcess orchestrator;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TRAINYARD_WORKER"), fakeWorker());
        orchestrator.setProcessEnvironment(env);
        orchestrator.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        orchestrator.start(buildProgram("TRAINYARD_BIN"), {QStringLiteral("run"), file});
        QVERIFY(orchestrator.waitForStarted());

        const QStringList names{QStringLiteral("o-1"), QStringLiteral("o-2"), QStringLiteral("o-3")};
        RunStore store(root);
        auto allPast = [&](int step) {
            for (const QString &n : names) {
                if (countLines(store.runDir(n) + QStringLiteral("/metrics.jsonl"), "metric") < step) {
                    return false;
                }
            }
            return store.readState().size() == 3;
        };
        QTRY_VERIFY_WITH_TIMEOUT(allPast(20), 15000);
        const QHash<QString, RunStore::LiveWorker> live = store.readState();
        ::kill(pid_t(orchestrator.processId()), SIGKILL);
        QVERIFY(orchestrator.waitForFinished(5000));
        QCOMPARE(orchestrator.exitStatus(), QProcess::CrashExit);

        // Nobody supervises them now, yet they train on.
        const auto metricLines = [&](const QString &n) {
            return countLines(store.runDir(n) + QStringLiteral("/metrics.jsonl"), "metric");
        };
        QHash<QString, int> atKill;
        for (const QString &n : names) {
            QVERIFY2(RunStore::processStartTicks(live.value(n).pid) > 0, qPrintable(n));
            atKill.insert(n, metricLines(n));
        }
        // Lines written while no orchestrator listens.
        const auto allWroteOn = [&] {
            return std::all_of(names.cbegin(), names.cend(),
                               [&](const QString &n) { return metricLines(n) > atKill.value(n); });
        };
        QTRY_VERIFY_WITH_TIMEOUT(allWroteOn(), 10000);

        QStringList errors;
        Session second;
        QVERIFY2(second.load(file, &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        second.orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
        Orchestrator *orch = second.orchestrator();
        for (const QString &n : names) {
            const RunInfo r = orch->runs()->value(orch->runs()->findByName(n));
            QVERIFY2(r.reattached, qPrintable(n));
            QCOMPARE(r.state, RunState::Running);
            QCOMPARE(r.pid, live.value(n).pid);
        }
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(orch->runs()->findByName(names.at(0))).connected, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(orch->dispatcher()->finishedCount(), 3, 20000);
        for (const QString &n : names) {
            const RunId id = orch->runs()->findByName(n);
            QCOMPARE(countLines(store.runDir(n) + QStringLiteral("/metrics.jsonl"), "metric"), 300);
            const MetricSeries *loss = second.metrics()->series(id, QStringLiteral("loss"));
            QVERIFY(loss);
            QCOMPARE(int(loss->size()), 300);
            for (std::size_t i = 0; i < loss->size(); ++i) {
                QCOMPARE(loss->step(i), std::int64_t(i + 1));
            }
            QCOMPARE(readJsonFile(store.runDir(n) + QStringLiteral("/status.json"))
                         .value(QStringLiteral("state"))
                         .toString(),
                     QStringLiteral("finished"));
        }
    }

    // Fault: SIGKILL of the orchestrator, then its workers die too before it restarts | User sees: on reopening, runs with a checkpoint are "stopped" ("interrupted; resumes from its checkpoint") and Retry from checkpoint resumes them | Kept: metrics.jsonl and checkpoints; the resumed run ends with every step once in the curves
    void orchestratorAndWorkersKilledThenResume()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("exp.json"));
        const QString root = dir.filePath(QStringLiteral("runs"));
        const QJsonObject json =
            experimentJson(QStringLiteral("allkill"), root,
                           {lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("a"), 200, 10)})});
        QVERIFY(writeFile(file, QJsonDocument(json).toJson()));
        QProcess orchestrator;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TRAINYARD_WORKER"), fakeWorker());
        orchestrator.setProcessEnvironment(env);
        orchestrator.start(buildProgram("TRAINYARD_BIN"), {QStringLiteral("run"), file});
        QVERIFY(orchestrator.waitForStarted());
        RunStore store(root);
        QTRY_VERIFY_WITH_TIMEOUT(
            countLines(store.runDir(QStringLiteral("a")) + QStringLiteral("/metrics.jsonl"), "metric") >= 30
                && store.readState().size() == 1,
            15000);
        const qint64 workerPid = store.readState().value(QStringLiteral("a")).pid;
        ::kill(pid_t(orchestrator.processId()), SIGKILL);
        ::kill(pid_t(workerPid), SIGKILL);
        QVERIFY(orchestrator.waitForFinished(5000));
        QTRY_COMPARE_WITH_TIMEOUT(RunStore::processStartTicks(workerPid), qint64(0), 5000);

        QStringList errors;
        Session second;
        QVERIFY2(second.load(file, &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        Orchestrator *orch = second.orchestrator();
        orch->supervisor()->setWorkerProgram(fakeWorker());
        const RunId id = orch->runs()->findByName(QStringLiteral("a"));
        QCOMPARE(orch->runs()->value(id).state, RunState::Stopped);
        QVERIFY2(orch->runs()->value(id).message.contains(QStringLiteral("checkpoint")),
                 qPrintable(orch->runs()->value(id).message));
        QVERIFY(orch->runActions()->retryRun(id, /*fromCheckpoint=*/true));
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).state, RunState::Finished, 15000);
        const MetricSeries *loss = second.metrics()->series(id, QStringLiteral("loss"));
        QVERIFY(loss);
        QCOMPARE(int(loss->size()), 200);
        for (std::size_t i = 0; i < loss->size(); ++i) {
            QCOMPARE(loss->step(i), std::int64_t(i + 1));
        }
    }
};

QTEST_GUILESS_MAIN(TestFaultsOrchestrator)
#include "tst_faults_orchestrator.moc"
