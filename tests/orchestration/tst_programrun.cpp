// Program runs: a real Python script (Debian's python3, no torch) reporting
// through the trainyard module (python/trainyard), launched on a lane as a
// worker would be: live metrics on the board and in metrics.jsonl, stop
// reaching should_stop(), a crash failing alone with its traceback, the
// stall watchdog only for a program that stops heart-beating, reattach
// after the orchestrator was killed, and a program's parameters (its
// "config": run.config, {name} in argv, config.json and params.json).

#include "metrics/metricstore.h"
#include "orchestration/board/board.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/experiment/programconfig.h"
#include "orchestration/experiment/trustlist.h"
#include "orchestration/ingest/ingestion.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runconfigfile.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/stallwatch.h"
#include "orchestration/supervision/supervisor.h"
#include "orchestration/sweep/sweeprunner.h"
#include "tests/helpers/buildprograms.h"
#include "testutil.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
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
    for (const QString &a : args) {
        argv.append(a);
    }
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
        if (!session->open(experiment(experimentJson(name, m_tmp.filePath(name), lanes)), QString(), &errors)) {
            qWarning("%s", qPrintable(errors.join(QLatin1Char('\n'))));
        }
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
        if (fakeWorker().isEmpty() || sourceDir().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER or TRAINYARD_SOURCE_DIR is not set");
        }
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty()) {
            QSKIP("python3 is not installed");
        }
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
        QVERIFY(orch->runActions()->stopRun(id));
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
        QVERIFY(orch->runActions()->stopRun(id));
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).state, RunState::Stopped, 20000);
        QVERIFY(orch->runActions()->startRun(id));
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(id).state), 30000);
        const RunInfo r = orch->runs()->value(id);
        QVERIFY2(r.state == RunState::Finished, qPrintable(r.message));
        QVERIFY(readFile(r.runDir + QStringLiteral("/worker.log")).contains("resuming after step 10"));
        const MetricSeries *loss = session->metrics()->series(id, QStringLiteral("loss"));
        QVERIFY(loss);
        QCOMPARE(int(loss->size()), 60);
        for (std::size_t i = 0; i < loss->size(); ++i) {
            QCOMPARE(loss->step(i), std::int64_t(i + 1));
        }
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
        QVERIFY(orch->runActions()->stopRun(id));
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
        // The loop says where it paused; steps in flight land up to there.
        const QString metrics = orch->runs()->value(id).runDir + QStringLiteral("/metrics.jsonl");
        const QRegularExpression pausedAt(QStringLiteral("paused at step (\\d+)"));
        QTRY_VERIFY_WITH_TIMEOUT(pausedAt.match(QString::fromUtf8(readFile(metrics))).hasMatch(), 10000);
        const qint64 held = pausedAt.match(QString::fromUtf8(readFile(metrics))).captured(1).toLongLong();
        QTRY_COMPARE(orch->runs()->value(id).step, held);
        // Two heartbeats (1 s apart) later, still there: 50 steps' time.
        const qint64 lines = orch->ingestion()->done(id).lines;
        QTRY_VERIFY_WITH_TIMEOUT(orch->ingestion()->done(id).lines >= lines + 2, 10000);
        QCOMPARE(orch->runs()->value(id).step, held);
        QCOMPARE(orch->runs()->value(id).state, RunState::Paused);
        QVERIFY(orch->runActions()->resumeRun(id));
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(id).step > held + 3, 10000);
        QVERIFY(orch->runActions()->stopRun(id));
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
    // a chained exception's message holds every part, as Python
    // prints it; a long traceback is cut at its top, saying so.
    void chainedTracebackWholeLongOneCut()
    {
        auto session = open({lane(QStringLiteral("cpu"), 2,
                                  {reportRun(QStringLiteral("chained"),
                                             {QStringLiteral("10"), QStringLiteral("10"), QStringLiteral("--crash-at"),
                                              QStringLiteral("2"), QStringLiteral("--chained")}),
                                   reportRun(QStringLiteral("deep"),
                                             {QStringLiteral("10"), QStringLiteral("10"), QStringLiteral("--crash-at"),
                                              QStringLiteral("2"), QStringLiteral("--deep"), QStringLiteral("30")})})},
                            QStringLiteral("tracebacks"));
        Orchestrator *orch = session->orchestrator();
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 30000);
        const RunInfo chained = orch->runs()->value(orch->board()->runIds().value(0));
        const RunInfo deep = orch->runs()->value(orch->board()->runIds().value(1));
        QCOMPARE(chained.state, RunState::Failed);
        const QString m = chained.message;
        const qsizetype cause = m.indexOf(QStringLiteral("KeyError: 'lr'"));
        const qsizetype sentence =
            m.indexOf(QStringLiteral("The above exception was the direct cause of the following exception:"));
        const qsizetype last = m.lastIndexOf(QStringLiteral("RuntimeError: no learning rate in the config"));
        QVERIFY2(cause >= 0 && cause < sentence && sentence < last, qPrintable(m));
        QCOMPARE(m.count(QStringLiteral("Traceback (most recent call last):")), 2);
        QVERIFY2(!m.contains(QStringLiteral("cut, see worker.log")), qPrintable(m));

        QCOMPARE(deep.state, RunState::Failed);
        const QString tail = deep.message.mid(deep.message.indexOf(QStringLiteral("worker.log:\n")) + 12);
        const QStringList lines = tail.split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 40);
        QVERIFY2(lines.first().startsWith(QStringLiteral("\u2026 ")), qPrintable(lines.first()));
        QVERIFY2(lines.first().endsWith(QStringLiteral(" lines cut, see worker.log")), qPrintable(lines.first()));
        QVERIFY2(lines.last().startsWith(QStringLiteral("ZeroDivisionError")), qPrintable(lines.last()));
    }

    // log() without a loss and W&B's form reach the store as
    // curves; run.summary reaches the run's record, live and from the file.
    void logFormsAndSummaryReachTheStore()
    {
        auto session =
            openOne(QStringLiteral("forms"), {QStringLiteral("5"), QStringLiteral("10"), QStringLiteral("--forms")});
        Orchestrator *orch = session->orchestrator();
        const RunId id = orch->board()->runIds().value(0);
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 30000);
        const RunInfo r = orch->runs()->value(id);
        QVERIFY2(r.state == RunState::Finished, qPrintable(r.message));
        const MetricSeries *acc = session->metrics()->series(id, QStringLiteral("acc"));
        QVERIFY(acc);
        QCOMPARE(int(acc->size()), 3);
        QCOMPARE(acc->step(0), std::int64_t(6));
        QCOMPARE(acc->step(2), std::int64_t(8));
        QCOMPARE(acc->lastValue(), 0.97);
        const MetricSeries *loss = session->metrics()->series(id, QStringLiteral("loss"));
        QVERIFY(loss);
        QCOMPARE(int(loss->size()), 6); // 5 steps, then step 7's
        QCOMPARE(loss->lastValue(), 0.25);
        const QMap<QString, double> expected{
            {QStringLiteral("best_acc"), 0.97}, {QStringLiteral("final_loss"), 0.25}, {QStringLiteral("best_step"), 8}};
        QCOMPARE(r.summary, expected);
        RunRecord past;
        QVERIFY(RunStore(session->runsRoot()).readRun(QStringLiteral("forms"), &past));
        QCOMPARE(past.info.summary, expected);
        QCOMPARE(past.info.step, qint64(8));
    }

    // a script run outside Trainyard (no TRAINYARD_ variable)
    // leaves a run folder RunStore reads like any other: metrics.jsonl and
    // status.json in ./trainyard-runs/NAME-…
    void aScriptOutsideTrainyardLeavesARunFolder()
    {
        const QString cwd = m_tmp.filePath(QStringLiteral("outside"));
        QVERIFY(QDir().mkpath(cwd));
        QProcess python;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const QString &name : env.keys()) {
            if (name.startsWith(QLatin1String("TRAINYARD_"))) {
                env.remove(name);
            }
        }
        env.insert(QStringLiteral("PYTHONPATH"), sourceDir() + QStringLiteral("/python"));
        python.setProcessEnvironment(env);
        python.setWorkingDirectory(cwd);
        python.start(QStringLiteral("python3"),
                     {script(), QStringLiteral("4"), QStringLiteral("1"), QStringLiteral("--forms")});
        QVERIFY(python.waitForFinished(30000));
        QCOMPARE(python.exitCode(), 0);
        const QList<RunRecord> runs = RunStore(cwd + QStringLiteral("/trainyard-runs")).readHistory();
        QCOMPARE(runs.size(), 1);
        const RunRecord &run = runs.first();
        QVERIFY(run.info.name.startsWith(QStringLiteral("report-")));
        QVERIFY(run.hasStatus);
        QCOMPARE(run.info.state, RunState::Finished);
        QCOMPARE(run.info.exitCode, 0);
        QCOMPARE(run.info.step, qint64(7));
        QCOMPARE(run.info.command.value(1), script());
        QVERIFY(run.info.started.isValid() && run.info.ended >= run.info.started);
        QCOMPARE(run.info.summary.value(QStringLiteral("best_acc")), 0.97);
        QVERIFY(run.evals.contains(QStringLiteral("valid/accuracy")));
    }

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
        // Five heartbeats, 1 s apart: twice the stall timeout without a metric line; then the watchdog looks.
        const qint64 lines = orch->ingestion()->done(id).lines;
        QTRY_VERIFY_WITH_TIMEOUT(orch->ingestion()->done(id).lines >= lines + 5, 15000);
        QSignalSpy looked(orch->supervisor()->findChild<StallWatch *>(), &StallWatch::checked);
        QTRY_VERIFY(looked.count() >= 1);
        QVERIFY(!stalled);
        QCOMPARE(orch->runs()->value(id).state, RunState::Running);
        const qint64 pid = orch->runs()->value(id).pid;
        QVERIFY(pid > 0);
        ::kill(pid_t(pid), SIGSTOP);
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).state, RunState::Stalled, 6000);
        ::kill(pid_t(pid), SIGCONT);
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).state, RunState::Running, 6000);
        QVERIFY(orch->runActions()->stopRun(id));
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
        qint64 pid = 0;
        {
            Session first;
            QStringList errors;
            QVERIFY2(first.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
            first.orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
            first.orchestrator()->dispatcher()->startAll();
            const RunId id = first.orchestrator()->board()->runIds().value(0);
            QTRY_VERIFY_WITH_TIMEOUT(first.orchestrator()->runs()->value(id).pid > 0, 10000);
            pid = first.orchestrator()->runs()->value(id).pid;
            first.close(/*leaveRunning=*/true);
        }
        QTRY_VERIFY_WITH_TIMEOUT(RunStore::processStartTicks(pid) <= 0, 10000); // it ended while we were away
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
        app.start(buildProgram("TRAINYARD_BIN"), {QStringLiteral("run"), QStringLiteral("--trust"), file});
        QVERIFY(app.waitForStarted());
        const QString runDir = root + QStringLiteral("/survivor");
        QTRY_VERIFY_WITH_TIMEOUT(metricsLines(runDir, QStringLiteral("metric")).size() >= 10, 20000);
        app.kill();
        QVERIFY(app.waitForFinished());

        // The user trusts it now (trainyard run had --trust).
        const auto trusted = Experiment::load(file, nullptr);
        QVERIFY(trusted && TrustList().trust(*trusted));
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
        for (std::size_t i = 0; i < loss->size(); ++i) {
            QCOMPARE(loss->step(i), std::int64_t(i + 1));
        }
    }

    // The window's Save and Save as (Session::save): a path written
    // relative keeps its text where it still names the same folder, and a
    // copy saved in another folder names the same folders, absolute.
    void saveAsKeepsWhatItsPathsName()
    {
        const QString folder = m_tmp.filePath(QStringLiteral("paths/a"));
        QVERIFY(QDir().mkpath(folder) && QDir().mkpath(m_tmp.filePath(QStringLiteral("paths/b"))));
        const QString file = folder + QStringLiteral("/e.json");
        QVERIFY(writeFile(file, R"({"name":"paths","runs_root":"runs","lanes":[{"device":"cpu","runs":[
            {"name":"p","program":{"argv":["python3","t.py"],"cwd":"."}}]}]})"));
        const auto trusted = Experiment::load(file, nullptr);
        QVERIFY(trusted && TrustList().trust(*trusted));
        Session session;
        QStringList errors;
        QVERIFY2(session.load(file, &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(session.runsRoot(), folder + QStringLiteral("/runs"));
        const auto saved = [](const QString &path) {
            QFile f(path);
            const QJsonObject top =
                f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
            return QStringList{
                top.value(QStringLiteral("runs_root")).toString(),
                top.value(QStringLiteral(
                    "lanes"))[0][QStringLiteral("runs")][0][QStringLiteral("program")][QStringLiteral("cwd")]
                    .toString()};
        };
        QString error;
        QVERIFY2(session.save(file, &error), qPrintable(error));
        QCOMPARE(saved(file), (QStringList{QStringLiteral("runs"), QStringLiteral(".")}));
        const QString copy = m_tmp.filePath(QStringLiteral("paths/b/e.json"));
        QVERIFY2(session.save(copy, &error), qPrintable(error));
        QCOMPARE(saved(copy), (QStringList{folder + QStringLiteral("/runs"), folder}));
    }

    // a program run's config reaches the script twice, as
    // run.config (TRAINYARD_CONFIG, over the script's init(config=)
    // defaults) and as {name} in its argv; the script reports valid/agree
    // 1 only when both say the same. What it used is in params.json.
    void configReachesRunConfigAndArgv()
    {
        const QString seen = m_tmp.filePath(QStringLiteral("seen.json"));
        const QJsonObject config{
            {QStringLiteral("lr"), 0.01}, {QStringLiteral("dim"), 64}, {QStringLiteral("opt"), QStringLiteral("sgd")}};
        const QJsonObject spec{
            {QStringLiteral("name"), QStringLiteral("configured")},
            {QStringLiteral("program"),
             QJsonObject{
                 {QStringLiteral("argv"),
                  QJsonArray{QStringLiteral("python3"), sourceDir() + QStringLiteral("/tests/programs/configured.py"),
                             QStringLiteral("--lr={lr}"), QStringLiteral("--dim"), QStringLiteral("{dim}"),
                             QStringLiteral("--opt"), QStringLiteral("{opt}"), QStringLiteral("--seen-to"), seen,
                             QStringLiteral("{{opt}}-{}")}}}},
            {QStringLiteral("config"), config}};
        auto session = open({lane(QStringLiteral("cpu"), 1, {spec})}, QStringLiteral("configured"));
        Orchestrator *orch = session->orchestrator();
        const RunId id = orch->board()->runIds().value(0);
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 30000);
        const RunInfo r = orch->runs()->value(id);
        QVERIFY2(r.state == RunState::Finished,
                 qPrintable(r.message + QLatin1Char('\n')
                            + QString::fromUtf8(readFile(r.runDir + QStringLiteral("/worker.log")))));
        // The metric that proves it: run.config and argv agreed.
        const MetricSeries *agree = session->metrics()->series(id, QStringLiteral("valid/agree"));
        QVERIFY(agree && agree->size() == 1);
        QCOMPARE(agree->lastValue(), 1.0);
        const MetricSeries *lr = session->metrics()->series(id, QStringLiteral("lr"));
        QVERIFY(lr && lr->size() == 3);
        QCOMPARE(lr->lastValue(), 0.01);
        // The command as it ran (and as status.json records it).
        QCOMPARE(r.command.mid(2), (QStringList{QStringLiteral("--lr=0.01"), QStringLiteral("--dim"),
                                                QStringLiteral("64"), QStringLiteral("--opt"), QStringLiteral("sgd"),
                                                QStringLiteral("--seen-to"), seen, QStringLiteral("{opt}-{}")}));
        const QJsonObject got = readJsonFile(seen);
        QCOMPARE(got.value(QStringLiteral("config")).toObject(),
                 (QJsonObject{{QStringLiteral("lr"), 0.01},
                              {QStringLiteral("dim"), 64},
                              {QStringLiteral("opt"), QStringLiteral("sgd")},
                              {QStringLiteral("layers"), 3}}));
        QCOMPARE(got.value(QStringLiteral("args")).toObject().value(QStringLiteral("extra")).toArray(),
                 (QJsonArray{QStringLiteral("{opt}-{}")}));
        QCOMPARE(readJsonFile(runconfigfile::configPath(r.runDir)), config);
        QCOMPARE(runconfigfile::readParams(r.runDir).value(QStringLiteral("layers")).toInt(), 3);
        QCOMPARE(runconfigfile::readParams(r.runDir).value(QStringLiteral("opt")).toString(), QStringLiteral("sgd"));
    }

    // a sweep of a program. Each trial's values reach its script
    // as run.config and through {name} in argv: the script reports
    // valid/agree 1 only when both say the trial's values.
    void aProgramSweepGivesEachTrialItsValues()
    {
        const QJsonObject base{
            {QStringLiteral("program"),
             QJsonObject{
                 {QStringLiteral("argv"),
                  QJsonArray{QStringLiteral("python3"), sourceDir() + QStringLiteral("/tests/programs/configured.py"),
                             QStringLiteral("--lr={lr}"), QStringLiteral("--dim"), QStringLiteral("{dim}"),
                             QStringLiteral("--opt"), QStringLiteral("{opt}")}}}},
            {QStringLiteral("config"), QJsonObject{{QStringLiteral("lr"), 0.5},
                                                   {QStringLiteral("dim"), 8},
                                                   {QStringLiteral("opt"), QStringLiteral("adam")}}}};
        QJsonObject file = experimentJson(QStringLiteral("psweep"), m_tmp.filePath(QStringLiteral("psweep")),
                                          {lane(QStringLiteral("cpu"), 2, {})});
        file.insert(
            QStringLiteral("sweeps"),
            QJsonArray{QJsonObject{
                {QStringLiteral("name"), QStringLiteral("ps")},
                {QStringLiteral("base"), base},
                {QStringLiteral("space"),
                 QJsonObject{
                     {QStringLiteral("config.lr"), QJsonObject{{QStringLiteral("values"), QJsonArray{0.1, 0.02}}}},
                     {QStringLiteral("config.dim"), QJsonObject{{QStringLiteral("values"), QJsonArray{4, 16}}}}}},
                {QStringLiteral("method"), QStringLiteral("grid")},
                {QStringLiteral("objective"), QJsonObject{{QStringLiteral("metric"), QStringLiteral("valid/agree")},
                                                          {QStringLiteral("mode"), QStringLiteral("max")}}}}});
        QStringList errors;
        const std::optional<Experiment> ex = Experiment::fromJson(file, &errors);
        QVERIFY2(ex, qPrintable(errors.join(QLatin1Char('\n'))));
        auto session = std::make_unique<Session>();
        QVERIFY2(session->open(*ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        Orchestrator *orch = session->orchestrator();
        orch->supervisor()->setWorkerProgram(fakeWorker());
        orch->dispatcher()->startAll();
        QVERIFY2(
            QTest::qWaitFor(
                [&] { return orch->sweeps()->isDone(QStringLiteral("ps")) && orch->dispatcher()->activeCount() == 0; },
                60000),
            qPrintable(orch->sweeps()->progressLine(QStringLiteral("ps"))));
        const QList<TrialInfo> trials = orch->sweeps()->trials(QStringLiteral("ps"));
        QCOMPARE(trials.size(), 4);
        QSet<QString> seen;
        for (const TrialInfo &t : trials) {
            const RunInfo r = orch->runs()->value(t.run);
            QVERIFY2(r.state == RunState::Finished,
                     qPrintable(r.message + QString::fromUtf8(readFile(r.runDir + QStringLiteral("/worker.log")))));
            QCOMPARE(t.objective, 1.0); // the script saw the same values in run.config and its argv
            const double lr = t.values.value(QStringLiteral("config.lr")).toDouble();
            const int dim = t.values.value(QStringLiteral("config.dim")).toInt();
            QCOMPARE(r.command.mid(2, 3), (QStringList{QStringLiteral("--lr=") + QString::number(lr),
                                                       QStringLiteral("--dim"), QString::number(dim)}));
            const QJsonObject params = runconfigfile::readParams(r.runDir);
            QCOMPARE(params.value(QStringLiteral("lr")).toDouble(), lr);
            QCOMPARE(params.value(QStringLiteral("dim")).toInt(), dim);
            QCOMPARE(params.value(QStringLiteral("opt")).toString(), QStringLiteral("adam")); // the base's, kept
            seen.insert(QStringLiteral("%1/%2").arg(lr).arg(dim));
        }
        QCOMPARE(seen.size(), 4); // every point of the grid, once
    }

    // What a program's option parser gets is never an option by
    // substitution; unknown names and bad values are refused with the path.
    void refusedConfigs_data()
    {
        QTest::addColumn<QByteArray>("run");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown name")
            << QByteArray(R"({"program":{"argv":["python3","t.py","--lr","{lr}","{dim}"]},"config":{"lr":0.1}})")
            << QStringLiteral("lanes[0].runs[0].program.argv[4]: {dim} names no key of config (it has lr)");
        QTest::newRow("program from a value")
            << QByteArray(R"({"program":{"argv":["{prog}","t.py"]},"config":{"prog":"python3"}})")
            << QStringLiteral("lanes[0].runs[0].program.argv[0]: {prog}: the program itself cannot be a parameter "
                              "(a value would choose what runs)");
        QTest::newRow("no config")
            << QByteArray(R"({"program":{"argv":["python3","t.py","{lr}"]}})")
            << QStringLiteral("lanes[0].runs[0].program.argv[2]: {lr} names no key of config (the run has none; "
                              "write {{lr}} for the text itself)");
        QTest::newRow("negative number")
            << QByteArray(R"({"program":{"argv":["python3","t.py","--lr","{lr}"]},"config":{"lr":-0.5}})")
            << QStringLiteral("lanes[0].runs[0].program.argv[3]: {lr} gives \"-0.5\", which its program would read "
                              "as an option; a value must not start an argument with '-' (for a negative number "
                              "write the option and the value as one element, e.g. \"--lr={lr}\")");
        QTest::newRow("option by string")
            << QByteArray(R"({"program":{"argv":["python3","t.py","{x}"]},"config":{"x":"-rf"}})")
            << QStringLiteral("lanes[0].runs[0].program.argv[2]: {x} gives \"-rf\", which its program would read "
                              "as an option; a value must not start an argument with '-' (for a negative number "
                              "write the option and the value as one element, e.g. \"--lr={lr}\")");
        QTest::newRow("value type")
            << QByteArray(R"({"program":{"argv":["python3","t.py"]},"config":{"dims":[1,2]}})")
            << QStringLiteral("lanes[0].runs[0].config.dims: expected a number, a string or a boolean, got an array");
        QTest::newRow("null value")
            << QByteArray(R"({"program":{"argv":["python3","t.py"]},"config":{"lr":null}})")
            << QStringLiteral("lanes[0].runs[0].config.lr: expected a number, a string or a boolean, got null");
        QTest::newRow("name")
            << QByteArray(R"({"program":{"argv":["python3","t.py"]},"config":{"learning-rate":1}})")
            << QStringLiteral("lanes[0].runs[0].config.learning-rate: not a parameter name (1–64 letters, digits "
                              "and _)");
        QTest::newRow("not an object")
            << QByteArray(R"({"program":{"argv":["python3","t.py"]},"config":"lr=1"})")
            << QStringLiteral("lanes[0].runs[0].config: expected an object of parameter names and numbers, "
                              "strings or booleans, got \"lr=1\"");
        QTest::newRow("a worker run has none") << QByteArray(R"({"model":{"type":"transe"},"config":{"lr":1}})")
                                               << QStringLiteral("lanes[0].runs[0]: unknown key \"config\"");
    }
    void refusedConfigs()
    {
        QFETCH(QByteArray, run);
        QFETCH(QString, message);
        const QByteArray json = R"({"name":"e","lanes":[{"device":"cpu","runs":[)" + run + "]}]}";
        QStringList errors;
        QVERIFY(!Experiment::fromJson(QJsonDocument::fromJson(json).object(), &errors));
        QVERIFY2(!errors.isEmpty() && errors.first().startsWith(message), qPrintable(errors.join(QLatin1Char('\n'))));
    }

    // Braces that are no placeholder stay; the trust prompt shows the
    // command with the values in place, so other values are another command.
    void substitutionAndTheTrustedCommand()
    {
        QStringList out;
        QString why;
        QVERIFY(
            programconfig::substitute({QStringLiteral("x"), QStringLiteral("{}"), QStringLiteral("{1: 2}"),
                                       QStringLiteral("{{a}}"), QStringLiteral("{a}{b}"), QStringLiteral("--n={b}")},
                                      QJsonObject{{QStringLiteral("a"), true}, {QStringLiteral("b"), -3}}, &out, &why));
        QCOMPARE(out, (QStringList{QStringLiteral("x"), QStringLiteral("{}"), QStringLiteral("{1: 2}"),
                                   QStringLiteral("{a}"), QStringLiteral("true-3"), QStringLiteral("--n=-3")}));
        const auto commands = [](double lr) {
            const QJsonObject spec{
                {QStringLiteral("program"),
                 QJsonObject{{QStringLiteral("argv"), QJsonArray{QStringLiteral("python3"), QStringLiteral("t.py"),
                                                                 QStringLiteral("--lr={lr}")}}}},
                {QStringLiteral("config"), QJsonObject{{QStringLiteral("lr"), lr}}}};
            return experiment(experimentJson(QStringLiteral("t"), QStringLiteral("/tmp/r"),
                                             {lane(QStringLiteral("cpu"), 1, {spec})}))
                .commandLines();
        };
        QCOMPARE(commands(0.001), QStringList{QStringLiteral("python3 t.py --lr=0.001")});
        QCOMPARE(commands(0.1), QStringList{QStringLiteral("python3 t.py --lr=0.1")});
    }

    // config.json is Trainyard's and history: written at a start, left as it
    // is when the values are the same (a resume), and never written over
    // with other values or through a link.
    void configFileIsNeverWrittenOver()
    {
        const QString root = m_tmp.filePath(QStringLiteral("configfile"));
        const RunStore store(root);
        QString error;
        QVERIFY(store.ensureRoot(&error));
        const auto spec = [](double lr) {
            return QJsonObject{{QStringLiteral("name"), QStringLiteral("p")},
                               {QStringLiteral("program"),
                                QJsonObject{{QStringLiteral("argv"), QJsonArray{QStringLiteral("python3")}}}},
                               {QStringLiteral("config"), QJsonObject{{QStringLiteral("lr"), lr}}}};
        };
        QVERIFY2(store.prepareRunDir(QStringLiteral("p"), spec(0.1), &error), qPrintable(error));
        const QString dir = store.runDir(QStringLiteral("p"));
        const QString path = runconfigfile::configPath(dir);
        QCOMPARE(readJsonFile(path), (QJsonObject{{QStringLiteral("lr"), 0.1}}));
        QVERIFY(writeFile(dir + QStringLiteral("/metrics.jsonl"), "{}\n")); // results, and a checkpoint say
        QVERIFY2(store.prepareRunDir(QStringLiteral("p"), spec(0.1), &error), qPrintable(error)); // a resume
        QVERIFY(!store.prepareRunDir(QStringLiteral("p"), spec(0.2), &error));
        QVERIFY2(error.startsWith(path
                                  + QStringLiteral(" holds other values than the run's config ({\"lr\":0.1}, "
                                                   "not {\"lr\":0.2})")),
                 qPrintable(error));
        QCOMPARE(readJsonFile(path), (QJsonObject{{QStringLiteral("lr"), 0.1}}));
        QCOMPARE(readJsonFile(dir + QStringLiteral("/spec.json")), spec(0.1)); // the refused start wrote nothing

        const QString target = m_tmp.filePath(QStringLiteral("target.json"));
        QVERIFY(writeFile(target, R"({"lr": 0.3})"));
        QVERIFY(QFile::remove(path) && QFile::link(target, path));
        QVERIFY(!store.prepareRunDir(QStringLiteral("p"), spec(0.3), &error));
        QVERIFY2(error.contains(QStringLiteral("is not a regular file")), qPrintable(error));
        QCOMPARE(readFile(target), QByteArray(R"({"lr": 0.3})"));
        QVERIFY(QFileInfo(path).isSymLink());

        // A spec without config leaves a config.json of the program's own alone.
        QVERIFY(QFile::remove(path) && writeFile(path, "mine"));
        QJsonObject plain = spec(0.1);
        plain.remove(QStringLiteral("config"));
        QVERIFY2(store.prepareRunDir(QStringLiteral("p"), plain, &error), qPrintable(error));
        QCOMPARE(readFile(path), QByteArray("mine"));
    }
};

QTEST_GUILESS_MAIN(TestProgramRun)
#include "tst_programrun.moc"
