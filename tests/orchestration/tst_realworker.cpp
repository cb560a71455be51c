// The orchestrator with the real trainyard-worker on tiny generated data:
// runs finish with their curves and evaluation, bad input fails clearly.

#include "metrics/metricstore.h"
#include "orchestration/board/board.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"
#include "testutil.h"

#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace trainyard;
using namespace trainyard::test;

class TestRealWorker : public QObject
{
    Q_OBJECT

private:
    QString m_worker;

private Q_SLOTS:
    void initTestCase()
    {
        m_worker = qEnvironmentVariable("TRAINYARD_WORKER");
        if (m_worker.isEmpty() || !QFileInfo(m_worker).isExecutable()) {
            QSKIP("TRAINYARD_WORKER is not set or not executable");
        }
    }

    void tinyExperimentTrainsToTheEnd()
    {
        QTemporaryDir dir;
        const Experiment ex = experiment(experimentJson(
            QStringLiteral("real"), dir.filePath(QStringLiteral("runs")),
            {lane(QStringLiteral("cpu"), 1, {withRepeat(tinyKg(QStringLiteral("te"), QStringLiteral("transe")), 2)}),
             lane(QStringLiteral("cpu"), 1, {tinyKg(QStringLiteral("th"), QStringLiteral("transh"))})}));
        Session session;
        QStringList errors;
        QVERIFY2(session.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        session.orchestrator()->supervisor()->setWorkerProgram(m_worker);
        QSignalSpy idle(session.orchestrator()->dispatcher(), &Dispatcher::idle);
        session.orchestrator()->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 120000);
        QCOMPARE(session.orchestrator()->dispatcher()->finishedCount(), 3);
        for (RunId id : session.orchestrator()->board()->runIds()) {
            const RunInfo r = session.orchestrator()->runs()->value(id);
            QVERIFY2(r.state == RunState::Finished, qPrintable(r.name + QStringLiteral(": ") + r.message));
            QCOMPARE(r.exitCode, 0);
            QVERIFY(r.totalSteps > 0);
            QCOMPARE(r.step, r.totalSteps);
            const MetricSeries *loss = session.metrics()->series(id, QStringLiteral("loss"));
            QVERIFY(loss);
            QCOMPARE(int(loss->size()), countLines(r.runDir + QStringLiteral("/metrics.jsonl"), "metric"));
            QVERIFY(session.metrics()->series(id, QStringLiteral("valid/mrr")));
            // 40 entities: the worker's recipe "auto" chose "small" and said so.
            QCOMPARE(r.recipe, QStringLiteral("small"));
            QCOMPARE(readJsonFile(r.runDir + QStringLiteral("/status.json")).value(QStringLiteral("state")).toString(),
                     QStringLiteral("finished"));
        }
    }

    void stopOverTheSocketThenResume()
    {
        QTemporaryDir dir;
        QJsonObject spec = tinyKg(QStringLiteral("long"), QStringLiteral("transe"));
        // The softmax over 256 negatives of the model's own defaults: slow
        // enough per step to be stopped halfway (the small graph's recipe,
        // 32 margin negatives, runs its 800 steps before the stop arrives).
        spec.insert(QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("transe")},
                                                         {QStringLiteral("recipe"), QStringLiteral("none")},
                                                         {QStringLiteral("dim"), 8}});
        spec.insert(QStringLiteral("train"),
                    QJsonObject{{QStringLiteral("epochs"), 40}, {QStringLiteral("batch_size"), 16}});
        spec.insert(QStringLiteral("eval"), QJsonObject{{QStringLiteral("every_epochs"), 0}});
        const Experiment ex = experiment(experimentJson(QStringLiteral("stop"), dir.filePath(QStringLiteral("runs")),
                                                        {lane(QStringLiteral("cpu"), 1, {spec})}));
        Session session;
        QStringList errors;
        QVERIFY(session.open(ex, QString(), &errors));
        Orchestrator *orch = session.orchestrator();
        orch->supervisor()->setWorkerProgram(m_worker);
        const RunId id = orch->runs()->findByName(QStringLiteral("long"));
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(id).connected && orch->runs()->value(id).step >= 20, 60000);
        QVERIFY(orch->runActions()->stopRun(id));
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).state, RunState::Stopped, 30000);
        QCOMPARE(orch->runs()->value(id).exitCode, 4);
        QVERIFY(session.store()->hasCheckpoint(QStringLiteral("long")));
        const qint64 total = orch->runs()->value(id).totalSteps;
        QVERIFY(orch->runs()->value(id).step < total);

        QString error;
        QVERIFY2(orch->runActions()->startRun(id, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).state, RunState::Finished, 120000);
        // One point per step, 1..total, across the stop and the resume.
        const MetricSeries *loss = session.metrics()->series(id, QStringLiteral("loss"));
        QVERIFY(loss);
        QCOMPARE(qint64(loss->size()), total);
        for (std::size_t i = 0; i < loss->size(); ++i) {
            QCOMPARE(loss->step(i), std::int64_t(i + 1));
        }
    }

    void badInputFailsWithTheWorkersMessage()
    {
        QTemporaryDir dir;
        QJsonObject spec = tinyKg(QStringLiteral("bad"), QStringLiteral("transe"));
        spec.insert(QStringLiteral("model"),
                    QJsonObject{{QStringLiteral("type"), QStringLiteral("transe")}, {QStringLiteral("dimension"), 8}});
        const Experiment ex = experiment(experimentJson(QStringLiteral("bad"), dir.filePath(QStringLiteral("runs")),
                                                        {lane(QStringLiteral("cpu"), 1, {spec})}));
        Session session;
        QStringList errors;
        QVERIFY(session.open(ex, QString(), &errors));
        session.orchestrator()->supervisor()->setWorkerProgram(m_worker);
        QSignalSpy idle(session.orchestrator()->dispatcher(), &Dispatcher::idle);
        session.orchestrator()->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 60000);
        const RunInfo r =
            session.orchestrator()->runs()->value(session.orchestrator()->runs()->findByName(QStringLiteral("bad")));
        QCOMPARE(r.state, RunState::Failed);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.message.contains(QStringLiteral("bad input")), qPrintable(r.message));
        QVERIFY2(r.message.contains(QStringLiteral("dimension")), qPrintable(r.message));
    }
};

QTEST_GUILESS_MAIN(TestRealWorker)
#include "tst_realworker.moc"
