// Closing the orchestrator with "leave runs running" and opening the
// experiment again: the workers train on, reconnect with their tokens, the
// new session reattaches, and no metric line is lost.

#include "metrics/metricstore.h"
#include "orchestration/board/board.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/ingest/metricsserver.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"
#include "testutil.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace trainyard;
using namespace trainyard::test;

class TestReattach : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
    }

    void closeLeavingRunsRunningLosesNoLine()
    {
        QTemporaryDir dir;
        const Experiment ex = experiment(
            experimentJson(QStringLiteral("reattach"), dir.filePath(QStringLiteral("runs")),
                           {lane(QStringLiteral("cpu"), 2, {withRepeat(fakeSpec(QStringLiteral("w"), 250, 8), 2)})}));
        QStringList errors;

        qint64 pids[2] = {0, 0};
        {
            Session first;
            QVERIFY2(first.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
            first.orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
            first.orchestrator()->dispatcher()->startAll();
            const QList<RunId> ids = first.orchestrator()->board()->runIds();
            QCOMPARE(ids.size(), 2);
            QTRY_VERIFY_WITH_TIMEOUT(first.orchestrator()->runs()->value(ids.at(0)).step >= 20
                                         && first.orchestrator()->runs()->value(ids.at(1)).step >= 20,
                                     10000);
            pids[0] = first.orchestrator()->runs()->value(ids.at(0)).pid;
            pids[1] = first.orchestrator()->runs()->value(ids.at(1)).pid;
            // The state file holds the tokens: owner-only.
            struct stat st
            {};
            QVERIFY(
                ::stat(QFile::encodeName(first.runsRoot() + QStringLiteral("/.trainyard-state.json")).constData(), &st)
                == 0);
            QCOMPARE(st.st_mode & 0777, 0600u);
            first.close(/*leaveRunning=*/true);
        }
        // The workers are still alive.
        QVERIFY(RunStore::processStartTicks(pids[0]) > 0);
        QVERIFY(RunStore::processStartTicks(pids[1]) > 0);

        Session second;
        QVERIFY2(second.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        second.orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
        Orchestrator *orch = second.orchestrator();
        const QList<RunId> ids = orch->board()->runIds();
        for (RunId id : ids) {
            const RunInfo r = orch->runs()->value(id);
            QVERIFY2(r.reattached, qPrintable(r.name));
            QCOMPARE(r.state, RunState::Running);
            QVERIFY(r.pid == pids[0] || r.pid == pids[1]);
        }
        // They reconnect with their old tokens.
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(ids.at(0)).connected
                                     || orch->runs()->value(ids.at(0)).state == RunState::Finished,
                                 10000);
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(ids.at(0)).state == RunState::Finished
                                     && orch->runs()->value(ids.at(1)).state == RunState::Finished,
                                 20000);
        QCOMPARE(orch->dispatcher()->finishedCount(), 2);
        for (RunId id : ids) {
            const RunInfo r = orch->runs()->value(id);
            const int lines = countLines(r.runDir + QStringLiteral("/metrics.jsonl"), "metric");
            QCOMPARE(lines, 250);
            const MetricSeries *loss = second.metrics()->series(id, QStringLiteral("loss"));
            QVERIFY(loss);
            QCOMPARE(int(loss->size()), lines);
            for (std::size_t i = 0; i < loss->size(); ++i) {
                QCOMPARE(loss->step(i), std::int64_t(i + 1));
            }
            QCOMPARE(readJsonFile(r.runDir + QStringLiteral("/status.json")).value(QStringLiteral("state")).toString(),
                     QStringLiteral("finished"));
            QCOMPARE(r.exitCode, 0);
        }
    }

    void pastRunsAndCurvesLoadAtStart()
    {
        QTemporaryDir dir;
        const Experiment ex =
            experiment(experimentJson(QStringLiteral("history"), dir.filePath(QStringLiteral("runs")),
                                      {lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("h"), 30)})}));
        const QString trained = trainUntilIdle(ex);
        QVERIFY2(trained.isEmpty(), qPrintable(trained));
        // A torn last line (a writer that died mid-line) is skipped.
        QFile metrics(dir.filePath(QStringLiteral("runs/h/metrics.jsonl")));
        QVERIFY(metrics.open(QIODevice::Append));
        metrics.write("{\"type\":\"metric\",\"wall\":9.0,\"st");
        metrics.close();

        Session second;
        QStringList errors;
        QVERIFY2(second.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        const RunId id = second.orchestrator()->runs()->findByName(QStringLiteral("h"));
        QCOMPARE(second.orchestrator()->runs()->value(id).state, RunState::Finished);
        QCOMPARE(second.orchestrator()->dispatcher()->finishedCount(), 1);
        const MetricSeries *loss = second.metrics()->series(id, QStringLiteral("loss"));
        QVERIFY(loss);
        QCOMPARE(int(loss->size()), 30);
        QVERIFY(second.metrics()->series(id, QStringLiteral("valid/mrr")));
    }

    void oneOrchestratorPerExperiment()
    {
        QTemporaryDir dir;
        const Experiment ex =
            experiment(experimentJson(QStringLiteral("lock"), dir.filePath(QStringLiteral("runs")),
                                      {lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("l"))})}));
        QStringList errors;
        Session first;
        QVERIFY(first.open(ex, QString(), &errors));
        Session second;
        QVERIFY(!second.open(ex, QString(), &errors));
        QVERIFY2(errors.join(QString()).contains(QStringLiteral("already open")), qPrintable(errors.join(QString())));
    }
};

QTEST_GUILESS_MAIN(TestReattach)
#include "tst_reattach.moc"
