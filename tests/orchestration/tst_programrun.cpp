// Program runs: a real Python script (Debian's python3, no torch) reporting
// through the trainyard module (python/trainyard), launched on a lane as a
// worker would be: live metrics on the board and in metrics.jsonl, stop
// reaching should_stop(), a crash failing alone with its traceback, the
// stall watchdog only for a program that stops heart-beating, and reattach
// after the orchestrator was killed.

#include "dispatch/board.h"
#include "dispatch/dispatcher.h"
#include "experiment/trustlist.h"
#include "ingest/ingestion.h"
#include "metrics/metricstore.h"
#include "records/runregistry.h"
#include "runstore/runstore.h"
#include "session/orchestrator.h"
#include "session/session.h"
#include "supervision/supervisor.h"
#include "testutil.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace trainyard;
using namespace trainyard::test;

namespace {

QString sourceDir()
{
    return qEnvironmentVariable("TRAINYARD_SOURCE_DIR");
}

QString script()
{
    return sourceDir() + QStringLiteral("/tests/programs/report.py");
}

// A program run of tests/programs/report.py.
QJsonObject reportRun(const QString &name, const QStringList &args)
{
    QJsonArray argv{QStringLiteral("python3"), script()};
    for (const QString &a : args)
        argv.append(a);
    return QJsonObject{{QStringLiteral("name"), name},
                       {QStringLiteral("program"), QJsonObject{{QStringLiteral("argv"), argv}}}};
}

} // namespace

class TestProgramRun : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;

    std::unique_ptr<Session> open(const QJsonArray &lanes, const QString &name) const
    {
        auto session = std::make_unique<Session>();
        QStringList errors;
        if (!session->open(experiment(experimentJson(name, m_tmp.filePath(name), lanes)), QString(), &errors))
            qWarning("%s", qPrintable(errors.join(QLatin1Char('\n'))));
        // Beside it, BUILD/python holds the module: program runs get it on PYTHONPATH.
        session->orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
        return session;
    }

    // A session of one CPU lane holding one report.py run, `name`, with `args`.
    std::unique_ptr<Session> openOne(const QString &name, const QStringList &args) const
    {
        return open({lane(QStringLiteral("cpu"), 1, {reportRun(name, args)})}, name);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        if (fakeWorker().isEmpty() || sourceDir().isEmpty())
            QSKIP("TRAINYARD_FAKE_WORKER or TRAINYARD_SOURCE_DIR is not set");
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed");
    }

    // The curve arrives live over the socket and is in metrics.jsonl, with
    // the variables the run was given; the token is in neither.
    void liveMetricsOnTheBoardAndInTheFile()
    {
        const QString env = m_tmp.filePath(QStringLiteral("env.json"));
        QJsonObject spec = reportRun(QStringLiteral("live"),
                                     {QStringLiteral("40"), QStringLiteral("30"), QStringLiteral("--env-to"), env});
        spec.insert(QStringLiteral("train"), QJsonObject{{QStringLiteral("seed"), 11}});
        auto session = open({lane(QStringLiteral("cpu"), 1, {spec})}, QStringLiteral("live"));
        Orchestrator *orch = session->orchestrator();
        const RunId id = orch->board()->runIds().value(0);
        bool sawLive = false;
        connect(orch->ingestion(), &Ingestion::progressChanged, this, [&](const QList<RunId> &changed) {
            const RunInfo r = orch->runs()->value(changed.value(0));
            sawLive = sawLive || (r.connected && r.state == RunState::Running && r.step > 0 && r.step < 40);
        });
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 30000);
        const RunInfo r = orch->runs()->value(id);
        QVERIFY2(r.state == RunState::Finished, qPrintable(r.message));
        QVERIFY2(sawLive, "no step arrived over the socket while the script ran");
        QCOMPARE(r.step, 40);
        const MetricSeries *loss = session->metrics()->series(id, QStringLiteral("loss"));
        QVERIFY(loss);
        QCOMPARE(int(loss->size()), 40);
        QVERIFY(session->metrics()->series(id, QStringLiteral("valid/accuracy")));
        QCOMPARE(metricsLines(r.runDir, QStringLiteral("metric")).size(), 40);
        QCOMPARE(metricsLines(r.runDir, QStringLiteral("done")).value(0).value(QStringLiteral("status")).toString(),
                 QStringLiteral("finished"));
        QVERIFY(!metricsLines(r.runDir, QStringLiteral("heartbeat")).isEmpty());
        const QByteArray file = readFile(r.runDir + QStringLiteral("/metrics.jsonl"));
        QVERIFY(!file.contains("token"));
        QCOMPARE(readJsonFile(r.runDir + QStringLiteral("/status.json")).value(QStringLiteral("state")).toString(),
                 QStringLiteral("finished"));

        const QJsonObject given = readJsonFile(env);
        QCOMPARE(given.value(QStringLiteral("TRAINYARD_RUN_DIR")).toString(), r.runDir);
        QCOMPARE(given.value(QStringLiteral("TRAINYARD_RUN_NAME")).toString(), QStringLiteral("live"));
        QCOMPARE(given.value(QStringLiteral("TRAINYARD_SEED")).toString(), QStringLiteral("11"));
        QCOMPARE(given.value(QStringLiteral("TRAINYARD_RESUME")).toString(), QStringLiteral("0"));
        QCOMPARE(given.value(QStringLiteral("TRAINYARD_DEVICE")).toString(), QStringLiteral("cpu"));
        QCOMPARE(given.value(QStringLiteral("CUDA_VISIBLE_DEVICES")).toString(), QString()); // a CPU lane
        QVERIFY(given.value(QStringLiteral("TRAINYARD_CONNECT")).toString().startsWith(QStringLiteral("unix:")));
        QVERIFY(given.value(QStringLiteral("token_given")).toBool());
        QCOMPARE(r.command.first(), QStringLiteral("python3"));
    }

    // Stop asks over the socket: the script sees should_stop(), ends its
    // loop and exits 0; the run is Stopped, not Finished, and nothing was
    // signalled.
    void stopReachesShouldStop()
    {
        auto session = openOne(QStringLiteral("stopme"), {QStringLiteral("100000"), QStringLiteral("20")});
        Orchestrator *orch = session->orchestrator();
        const RunId id = orch->board()->runIds().value(0);
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(id).step >= 5 && orch->runs()->value(id).connected, 20000);
        QVERIFY(orch->dispatcher()->stopRun(id));
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 20000);
        const RunInfo r = orch->runs()->value(id);
        QVERIFY2(r.state == RunState::Stopped, qPrintable(runStateName(r.state) + QStringLiteral(": ") + r.message));
        QVERIFY2(r.message.contains(QStringLiteral("exit 0")), qPrintable(r.message));
        QVERIFY(readFile(r.runDir + QStringLiteral("/worker.log")).contains("stopping at step"));
        QCOMPARE(metricsLines(r.runDir, QStringLiteral("done")).value(0).value(QStringLiteral("status")).toString(),
                 QStringLiteral("stopped"));
    }

    // Start after a Stop resumes: TRAINYARD_RESUME=1, the script carries on
    // after its last run.checkpoint(), and the curve has every step once.
    void startAfterStopResumes()
    {
        auto session = openOne(QStringLiteral("again"), {QStringLiteral("60"), QStringLiteral("40")});
        Orchestrator *orch = session->orchestrator();
        const RunId id = orch->board()->runIds().value(0);
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(id).step >= 15 && orch->runs()->value(id).connected, 20000);
        QVERIFY(orch->dispatcher()->stopRun(id));
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).state, RunState::Stopped, 20000);
        QVERIFY(orch->dispatcher()->startRun(id));
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(id).state), 30000);
        const RunInfo r = orch->runs()->value(id);
        QVERIFY2(r.state == RunState::Finished, qPrintable(r.message));
        QVERIFY(readFile(r.runDir + QStringLiteral("/worker.log")).contains("resuming after step 10"));
        const MetricSeries *loss = session->metrics()->series(id, QStringLiteral("loss"));
        QVERIFY(loss);
        QCOMPARE(int(loss->size()), 60);
        for (std::size_t i = 0; i < loss->size(); ++i)
            QCOMPARE(loss->step(i), std::int64_t(i + 1));
    }

    // A script that never asks should_stop(): the stop escalation's SIGTERM
    // ends it (the module does not swallow a second request), and the run
    // is stopped, not failed, long before the SIGKILL.
    void aScriptIgnoringStopEndsOnSigterm()
    {
        auto session = openOne(QStringLiteral("stubborn"),
                               {QStringLiteral("100000"), QStringLiteral("20"), QStringLiteral("--stubborn")});
        Orchestrator *orch = session->orchestrator();
        orch->supervisor()->setStopTimeout(1500);
        const RunId id = orch->board()->runIds().value(0);
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(id).step >= 3 && orch->runs()->value(id).connected, 20000);
        QVERIFY(orch->dispatcher()->stopRun(id));
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(id).state), 10000);
        const RunInfo r = orch->runs()->value(id);
        QVERIFY2(r.state == RunState::Stopped, qPrintable(runStateName(r.state) + QStringLiteral(": ") + r.message));
        QVERIFY2(r.message.contains(QStringLiteral("SIGTERM")), qPrintable(r.message));
    }

    // Pause and resume reach paused(): no step while paused, on after.
    void pauseHaltsTheLoop()
    {
        auto session = openOne(QStringLiteral("pauseme"), {QStringLiteral("100000"), QStringLiteral("20")});
        Orchestrator *orch = session->orchestrator();
        const RunId id = orch->board()->runIds().value(0);
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(id).step >= 3 && orch->runs()->value(id).connected, 20000);
        QVERIFY(orch->supervisor()->pause(id));
        QTest::qWait(800); // a step in flight may still land
        const qint64 held = orch->runs()->value(id).step;
        QTest::qWait(1200);
        QCOMPARE(orch->runs()->value(id).step, held);
        QCOMPARE(orch->runs()->value(id).state, RunState::Paused);
        QVERIFY(orch->dispatcher()->resumeRun(id));
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(id).step > held + 3, 10000);
        QVERIFY(orch->dispatcher()->stopRun(id));
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(id).state), 20000);
        QCOMPARE(orch->runs()->value(id).state, RunState::Stopped);
    }

    // A script that raises fails alone, its traceback in the message (the
    // card's tooltip) and in worker.log (the log dialog); its neighbour on
    // the lane trains on to the end.
    void crashFailsAloneWithItsTraceback()
    {
        auto session =
            open({lane(QStringLiteral("cpu"), 2,
                       {reportRun(QStringLiteral("crash"), {QStringLiteral("50"), QStringLiteral("20"),
                                                            QStringLiteral("--crash-at"), QStringLiteral("4")}),
                        reportRun(QStringLiteral("fine"), {QStringLiteral("30"), QStringLiteral("20")})})},
                 QStringLiteral("crash"));
        Orchestrator *orch = session->orchestrator();
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 30000);
        const RunInfo crash = orch->runs()->value(orch->board()->runIds().value(0));
        const RunInfo fine = orch->runs()->value(orch->board()->runIds().value(1));
        QCOMPARE(crash.state, RunState::Failed);
        QVERIFY2(crash.message.startsWith(QStringLiteral("exit 1")), qPrintable(crash.message));
        QVERIFY2(crash.message.contains(QStringLiteral("Traceback (most recent call last):")),
                 qPrintable(crash.message));
        QVERIFY2(crash.message.contains(QStringLiteral("ZeroDivisionError")), qPrintable(crash.message));
        QVERIFY(readFile(crash.runDir + QStringLiteral("/worker.log")).contains("ZeroDivisionError"));
        QCOMPARE(crash.step, 3);
        QCOMPARE(metricsLines(crash.runDir, QStringLiteral("done")).value(0).value(QStringLiteral("status")).toString(),
                 QStringLiteral("failed"));
        QVERIFY2(fine.state == RunState::Finished, qPrintable(fine.message));
        QCOMPARE(fine.step, 30);
    }

    // Silent but heart-beating: never stalled. Frozen (SIGSTOP): stalled,
    // and running again once it heart-beats (SIGCONT).
    void stalledOnlyWhenHeartbeatsStop()
    {
        auto session =
            openOne(QStringLiteral("quiet"), {QStringLiteral("200"), QStringLiteral("40"), QStringLiteral("--silent")});
        Orchestrator *orch = session->orchestrator();
        orch->supervisor()->setStallTimeout(2000);
        const RunId id = orch->board()->runIds().value(0);
        bool stalled = false;
        connect(orch->runs(), &RunRegistry::changed, this,
                [&](RunId changed) { stalled = stalled || orch->runs()->value(changed).state == RunState::Stalled; });
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(id).connected, 10000);
        QTest::qWait(4000); // twice the stall timeout without a metric line
        QVERIFY(!stalled);
        QCOMPARE(orch->runs()->value(id).state, RunState::Running);
        const qint64 pid = orch->runs()->value(id).pid;
        QVERIFY(pid > 0);
        ::kill(pid_t(pid), SIGSTOP);
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).state, RunState::Stalled, 6000);
        ::kill(pid_t(pid), SIGCONT);
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).state, RunState::Running, 6000);
        QVERIFY(orch->dispatcher()->stopRun(id));
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(id).state), 20000);
        QCOMPARE(orch->runs()->value(id).state, RunState::Stopped);
    }

    // A program that never uses the module is never stalled (it never
    // heart-beat to begin with) and finishes with its exit status.
    void programWithoutTheModule()
    {
        const QJsonObject ok{
            {QStringLiteral("name"), QStringLiteral("plain")},
            {QStringLiteral("program"),
             QJsonObject{{QStringLiteral("argv"), QJsonArray{QStringLiteral("sh"), QStringLiteral("-c"),
                                                             QStringLiteral("sleep 3; echo done")}}}}};
        const QJsonObject bad{
            {QStringLiteral("name"), QStringLiteral("exit7")},
            {QStringLiteral("program"),
             QJsonObject{{QStringLiteral("argv"), QJsonArray{QStringLiteral("sh"), QStringLiteral("-c"),
                                                             QStringLiteral("echo something broke >&2; exit 7")}}}}};
        auto session = open({lane(QStringLiteral("cpu"), 2, {ok, bad})}, QStringLiteral("plain"));
        Orchestrator *orch = session->orchestrator();
        orch->supervisor()->setStallTimeout(1000);
        bool stalled = false;
        connect(orch->runs(), &RunRegistry::changed, this,
                [&](RunId changed) { stalled = stalled || orch->runs()->value(changed).state == RunState::Stalled; });
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 20000);
        QVERIFY(!stalled);
        const RunInfo plain = orch->runs()->value(orch->board()->runIds().value(0));
        const RunInfo exit7 = orch->runs()->value(orch->board()->runIds().value(1));
        QVERIFY2(plain.state == RunState::Finished, qPrintable(plain.message));
        QCOMPARE(exit7.state, RunState::Failed);
        QVERIFY2(exit7.message.startsWith(QStringLiteral("exit 7")), qPrintable(exit7.message));
        QVERIFY2(exit7.message.contains(QStringLiteral("something broke")), qPrintable(exit7.message));
    }

    // Left running, a program without the module ends while the app is
    // away: the next session ends it (it reported nothing, so how is
    // unknown) instead of queueing it to run again.
    void aProgramThatEndedWhileAwayIsNotRunAgain()
    {
        const QJsonObject quiet{
            {QStringLiteral("name"), QStringLiteral("away")},
            {QStringLiteral("program"),
             QJsonObject{{QStringLiteral("argv"),
                          QJsonArray{QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("sleep 1")}}}}};
        const Experiment ex = experiment(experimentJson(QStringLiteral("away"), m_tmp.filePath(QStringLiteral("away")),
                                                        {lane(QStringLiteral("cpu"), 1, {quiet})}));
        {
            Session first;
            QStringList errors;
            QVERIFY2(first.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
            first.orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
            first.orchestrator()->dispatcher()->startAll();
            const RunId id = first.orchestrator()->board()->runIds().value(0);
            QTRY_VERIFY_WITH_TIMEOUT(first.orchestrator()->runs()->value(id).pid > 0, 10000);
            first.close(/*leaveRunning=*/true);
        }
        QTest::qWait(2000);
        Session second;
        QStringList errors;
        QVERIFY2(second.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        const RunInfo r = second.orchestrator()->runs()->value(second.orchestrator()->board()->runIds().value(0));
        QCOMPARE(r.state, RunState::Failed);
        QVERIFY2(r.message.contains(QStringLiteral("while Trainyard was away")), qPrintable(r.message));
    }

    // `trainyard run` is SIGKILLed while the script trains; the script
    // (its own session) trains on; a new session reattaches, it reconnects,
    // and every step is on the board once.
    void reattachAfterTheOrchestratorIsKilled()
    {
        const QString root = m_tmp.filePath(QStringLiteral("killed"));
        const QJsonObject json = experimentJson(
            QStringLiteral("killed"), root,
            {lane(QStringLiteral("cpu"), 1,
                  {reportRun(QStringLiteral("survivor"), {QStringLiteral("150"), QStringLiteral("40")})})});
        const QString file = m_tmp.filePath(QStringLiteral("killed.json"));
        QVERIFY(writeFile(file, QJsonDocument(json).toJson()));

        QProcess app;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TRAINYARD_WORKER"), fakeWorker());
        app.setProcessEnvironment(env);
        app.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        app.start(QStringLiteral(TRAINYARD_BIN), {QStringLiteral("run"), QStringLiteral("--trust"), file});
        QVERIFY(app.waitForStarted());
        const QString runDir = root + QStringLiteral("/survivor");
        QTRY_VERIFY_WITH_TIMEOUT(metricsLines(runDir, QStringLiteral("metric")).size() >= 10, 20000);
        app.kill();
        QVERIFY(app.waitForFinished());

        // The user trusts it now (trainyard run had --trust).
        const auto trusted = Experiment::load(file, nullptr);
        QVERIFY(trusted && TrustList().trust(trusted->contentHash, file));
        Session session;
        QStringList errors;
        QVERIFY2(session.load(file, &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        session.orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
        Orchestrator *orch = session.orchestrator();
        const RunId id = orch->board()->runIds().value(0);
        QVERIFY2(orch->runs()->value(id).reattached, qPrintable(orch->runs()->value(id).message));
        QCOMPARE(orch->runs()->value(id).state, RunState::Running);
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(id).connected || isTerminal(orch->runs()->value(id).state), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(id).state), 30000);
        const RunInfo r = orch->runs()->value(id);
        QVERIFY2(r.state == RunState::Finished, qPrintable(r.message));
        QCOMPARE(r.step, 150);
        const MetricSeries *loss = session.metrics()->series(id, QStringLiteral("loss"));
        QVERIFY(loss);
        QCOMPARE(int(loss->size()), 150);
        for (std::size_t i = 0; i < loss->size(); ++i)
            QCOMPARE(loss->step(i), std::int64_t(i + 1));
    }
};

QTEST_GUILESS_MAIN(TestProgramRun)
#include "tst_programrun.moc"
