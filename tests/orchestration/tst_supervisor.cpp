// The Supervisor against a FakeLauncher: no process is started; the test
// plays the launcher (started, pending, running, requeued, exited, failed)
// and, where a socket is needed, the worker (a QLocalSocket saying hello).
// Covers what a batch-queue launcher will do that a local process never
// does: a job id instead of a pid, hours pending, requeues, a handle in the
// state file.

#include "fakelauncher.h"
#include "metrics/metricstore.h"
#include "orchestration/ingest/ingestion.h"
#include "orchestration/ingest/metricsserver.h"
#include "orchestration/records/runrecord.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/supervision/exitoutcome.h"
#include "orchestration/supervision/stallwatch.h"
#include "orchestration/supervision/stopescalation.h"
#include "orchestration/supervision/supervisor.h"
#include "protocol/exitcode.h"
#include "protocol/protocol.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalSocket>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <csignal>
#include <memory>

using namespace trainyard;
using namespace trainyard::test;
using protocol::ExitCode;

namespace {

QJsonObject readJson(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject{};
}

QString latin1(std::string_view text)
{
    return QString::fromLatin1(text.data(), qsizetype(text.size()));
}

// One supervisor with everything it talks to, on a runs root of its own
// (or a shared one, to play a restarted orchestrator).
struct Rig
{
    explicit Rig(const QString &root, const QString &socket)
        : store(root)
    {
        QString error;
        if (!server.listen(socket, &error)) {
            qWarning("%s", qPrintable(error));
        }
        server.setHandler([this](RunId id, const MetricRecord &m) { ingestion.handleRecord(id, m); });
        supervisor = std::make_unique<Supervisor>(&runs, &store, &server, &ingestion, &launcher);
        supervisor->setWorkerProgram(QStringLiteral("/nonexistent/trainyard-worker"));
    }

    // A worker's message in JSON (a test's), decoded as the server does, then heard.
    void hear(RunId id, const nlohmann::json &message)
    {
        MetricRecord record;
        if (MetricRecord::fromJson(message, &record)) {
            ingestion.handleRecord(id, record);
        }
    }

    RunId addRun(const QString &name)
    {
        RunInfo info;
        info.name = name;
        info.group = name;
        info.spec =
            QJsonObject{{QStringLiteral("name"), name},
                        {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("fake")}}}};
        info.runDir = store.runDir(name);
        return runs.add(info);
    }

    bool start(RunId id, bool resume = false)
    {
        QString error;
        const bool ok =
            supervisor->start(id, StartOptions{Device::parse(QStringLiteral("cpu")), 1, resume, {}, false}, &error);
        if (!ok) {
            qWarning("%s", qPrintable(error));
        }
        return ok;
    }

    RunInfo run(RunId id) const { return runs.value(id); }

    // A worker's side of the socket: connects and says hello.
    std::unique_ptr<QLocalSocket> connectWorker(RunId id)
    {
        auto socket = std::make_unique<QLocalSocket>();
        socket->connectToServer(server.socketPath());
        if (!socket->waitForConnected(2000)) {
            return nullptr;
        }
        const RunInfo r = run(id);
        socket->write(QByteArray::fromStdString(
            protocol::encode(protocol::hello(r.name.toStdString(), server.token(id).toStdString(), 4242, "cpu", 0.0))));
        socket->flush();
        return socket;
    }

    RunStore store;
    MetricsServer server;
    MetricStore metrics;
    RunRegistry runs;
    Ingestion ingestion{&runs, &store, &metrics};
    FakeLauncher launcher;
    std::unique_ptr<Supervisor> supervisor; // last: goes first
};

} // namespace

class TestSupervisor : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_counter = 0;

    std::unique_ptr<Rig> rig()
    {
        ++m_counter;
        return std::make_unique<Rig>(m_dir.filePath(QStringLiteral("runs%1").arg(m_counter)),
                                     m_dir.filePath(QStringLiteral("sock/s%1.sock").arg(m_counter)));
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // start: Starting; Running on the worker's hello, or on the launcher's "running".
    void startGoesRunningOnHelloOrLauncher()
    {
        auto r = rig();
        const RunId a = r->addRun(QStringLiteral("a"));
        QVERIFY(r->start(a));
        QCOMPARE(r->run(a).state, RunState::Starting);
        QCOMPARE(r->launcher.starts.size(), 1);
        const LaunchSpec spec = r->launcher.starts.at(0).second;
        QCOMPARE(spec.program, QStringLiteral("/nonexistent/trainyard-worker"));
        QCOMPARE(spec.name, QStringLiteral("a"));
        QCOMPARE(spec.runDir, r->store.runDir(QStringLiteral("a")));
        QCOMPARE(spec.specPath, spec.runDir + QStringLiteral("/spec.json"));
        QVERIFY(QFile::exists(spec.specPath));
        QCOMPARE(spec.connect, QStringLiteral("unix:") + r->server.socketPath());
        QCOMPARE(spec.token, r->server.token(a));
        QCOMPARE(spec.device.toString(), QStringLiteral("cpu"));
        QCOMPARE(spec.threads, 1);
        QVERIFY(!spec.resume);

        r->launcher.reportStarted(a, 4242);
        QCOMPARE(r->run(a).pid, 4242);
        QCOMPARE(r->run(a).state, RunState::Starting); // no hello yet
        QCOMPARE(r->supervisor->workerPids(), QSet<qint64>{4242});
        r->hear(a, protocol::hello("a", spec.token.toStdString(), 4242, "cpu", 0.0));
        QCOMPARE(r->run(a).state, RunState::Running);
        QVERIFY(r->run(a).connected);

        const RunId b = r->addRun(QStringLiteral("b"));
        QVERIFY(r->start(b));
        r->launcher.reportStarted(b, 0, QStringLiteral("job-2"));
        r->launcher.reportRunning(b);
        QCOMPARE(r->run(b).state, RunState::Running);
        QVERIFY(!r->run(b).connected);
    }

    // The ETA of a run with train.max_seconds is the sooner end (it said
    // "ETA 37:28" for a run its budget ended at 6:40), as Ingestion keeps
    // it for every view; the progress the further of steps and time.
    void etaRespectsTheTimeBudget()
    {
        auto r = rig();
        const RunId id = r->addRun(QStringLiteral("budget"));
        r->runs.update(id, [](RunInfo &run) {
            run.spec.insert(QStringLiteral("train"), QJsonObject{{QStringLiteral("max_seconds"), 400}});
        });
        const auto line = [](std::int64_t step, double wall) {
            nlohmann::json m = protocol::metric(step, 0, 0.5, wall);
            m["total_steps"] = 10000;
            return m;
        };
        r->hear(id, line(10, 1));
        QCOMPARE(r->run(id).etaSeconds, 399.0); // the budget, before any rate
        r->hear(id, line(100, 31));             // 3 steps a second: 9,900 steps are 55 min
        r->hear(id, line(700, 231));
        const RunInfo run = r->run(id);
        QCOMPARE(run.stepsPerSecond, 3.0);
        QCOMPARE(run.etaSeconds, 169.0); // 400 - 231
        QCOMPARE(runProgress(run), 231.0 / 400);
    }

    // Live ingestion and a run read back from its folder take one
    // metrics.jsonl to the same state (applyRecord): four steps an epoch, the
    // plan, memory, evaluations, a checkpoint, a summary, and a resume that
    // reports steps again and stops before passing where the first start got
    // to: the step is the last metric line's, as in the curves, and the wall
    // the last line's.
    void liveAndHistoryAgreeOnOneFile()
    {
        auto r = rig();
        const RunId id = r->addRun(QStringLiteral("same"));
        const auto metric = [](std::int64_t step, double wall) {
            nlohmann::json m = protocol::metric(step, (step - 1) / 4, 1.0 / double(step), wall);
            m["total_steps"] = 12;
            m["mem_bytes"] = 1000.0 * double(step);
            return m;
        };
        const auto eval = [](std::int64_t step, double mrr, double wall) {
            nlohmann::json e = protocol::evalResult(step, "valid", wall);
            e["epoch"] = step / 4;
            e["mrr"] = mrr;
            return e;
        };
        std::string text = protocol::encode(protocol::log("info", "start", 0.01));
        for (int step = 1; step <= 10; ++step) {
            text += protocol::encode(metric(step, step));
            if (step == 4 || step == 8) {
                text += protocol::encode(eval(step, 0.05 * step, step + 0.2));
            }
            if (step == 8) {
                text += protocol::encode(protocol::checkpoint(8, "checkpoints/step-8.pt", 8.3));
            }
        }
        text += protocol::encode(protocol::heartbeat(10, 10.5));
        // Killed; resumed from step 8, its clock going on from the last line's.
        text += protocol::encode(protocol::log("info", "resumed from step 8", 10.6));
        text += protocol::encode(metric(9, 10.8));
        nlohmann::json summary = protocol::summary(11.0);
        summary["best"] = 0.4;
        text += protocol::encode(summary);
        text += protocol::encode(protocol::done("stopped", 4, 11.2));
        const QString dir = r->store.runDir(QStringLiteral("same"));
        QVERIFY(QDir().mkpath(dir));
        QFile file(dir + QStringLiteral("/metrics.jsonl"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(file.write(QByteArray::fromStdString(text)) == qint64(text.size()));
        file.close();

        r->ingestion.ingestMetricsFile(id); // live: a followed run's lines
        const RunInfo live = r->run(id);
        RunRecord history;
        QVERIFY(r->store.readMetrics(QStringLiteral("same"), 0, [&history](const MetricRecord &m) { history.add(m); })
                    .error.isEmpty());

        QCOMPARE(live.step, qint64(9));
        QCOMPARE(live.wall, 11.2);
        QCOMPARE(live.epoch, qint64(2));
        QCOMPARE(live.loss, 1.0 / 9);
        QCOMPARE(live.totalSteps, qint64(12));
        QCOMPARE(live.memBytes, 9000.0);
        QCOMPARE(live.checkpoint, QStringLiteral("checkpoints/step-8.pt"));
        QCOMPARE(live.summary.value(QStringLiteral("best")), 0.4);
        QCOMPARE(history.info.step, live.step);
        QCOMPARE(history.info.wall, live.wall);
        QCOMPARE(history.info.epoch, live.epoch);
        QCOMPARE(history.info.loss, live.loss);
        QCOMPARE(history.info.totalSteps, live.totalSteps);
        QCOMPARE(history.info.memBytes, live.memBytes);
        QCOMPARE(history.info.checkpoint, live.checkpoint);
        QCOMPARE(history.info.summary, live.summary);
        QCOMPARE(history.info.recipe, live.recipe);
        const RunRecord seen = RunRecord::live(live, r->metrics);
        QCOMPARE(seen.evals.keys(), QStringList{QStringLiteral("valid/mrr")});
        QCOMPARE(history.evals.keys(), seen.evals.keys());
        const RunRecord::Eval a = seen.evals.value(QStringLiteral("valid/mrr"));
        const RunRecord::Eval b = history.evals.value(QStringLiteral("valid/mrr"));
        QCOMPARE(a.last, b.last);
        QCOMPARE(a.lastStep, b.lastStep);
        QCOMPARE(a.best, b.best);
        QCOMPARE(a.bestStep, b.bestStep);
    }

    // A program that does not use the trainyard module never says hello:
    // once its process has run for the grace period it is Running, with a
    // note ("starting" for its whole run); a hello later takes
    // the note away. A process still waiting in a queue, or gone, is not.
    // A program writes metrics.jsonl first, then the socket; under load the
    // process can end with its lines still in the socket's buffer. Read
    // after the end, they would cut the curve back to their step.
    void socketLinesAfterTheEndLeaveTheCurveWhole()
    {
        auto r = rig();
        const RunId id = r->addRun(QStringLiteral("late"));
        QVERIFY(r->start(id));
        r->launcher.reportStarted(id, 4242);
        std::string text;
        for (int step = 1; step <= 5; ++step) {
            text += protocol::encode(protocol::metric(step, 0, 1.0 / step, step));
        }
        text += protocol::encode(protocol::done("finished", 0, 5.5));
        QFile file(r->store.runDir(QStringLiteral("late")) + QStringLiteral("/metrics.jsonl"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(file.write(QByteArray::fromStdString(text)) == qint64(text.size()));
        file.close();
        r->hear(id, protocol::metric(1, 0, 1.0, 1)); // the one line the socket delivered in time
        r->launcher.reportExit(id, 0, 0);
        QCOMPARE(r->run(id).state, RunState::Finished);
        const MetricSeries *loss = r->metrics.series(id, QStringLiteral("loss"));
        QVERIFY(loss);
        QCOMPARE(int(loss->size()), 5);
        r->hear(id, protocol::metric(2, 0, 0.5, 2)); // the rest of the buffer, read after the end
        QCOMPARE(int(loss->size()), 5);
        QCOMPARE(r->run(id).step, qint64(5));

        // The next attempt's lines count again.
        QVERIFY(r->start(id, true));
        r->hear(id, protocol::metric(6, 0, 1.0 / 6, 6));
        QCOMPARE(int(loss->size()), 6);
    }

    void aProgramWithoutTheModuleRunsAfterItsGrace()
    {
        auto r = rig();
        const auto addProgram = [&](const QString &name) {
            const RunId id = r->addRun(name);
            r->runs.update(id, [](RunInfo &run) {
                run.spec.remove(QStringLiteral("model"));
                run.spec.insert(
                    QStringLiteral("program"),
                    QJsonObject{{QStringLiteral("argv"), QJsonArray{QStringLiteral("sleep"), QStringLiteral("60")}}});
            });
            return id;
        };
        const RunId plain = addProgram(QStringLiteral("plain"));
        const RunId queued = addProgram(QStringLiteral("queued"));
        const RunId worker = r->addRun(QStringLiteral("worker"));
        for (RunId id : {plain, queued, worker}) {
            QVERIFY(r->start(id));
        }
        r->launcher.reportStarted(plain, 4242);
        r->launcher.reportStarted(queued, 0, QStringLiteral("job-7"));
        r->launcher.reportPending(queued, QStringLiteral("Resources"));
        r->launcher.reportStarted(worker, 4343);
        QSignalSpy looked(r->supervisor->findChild<StallWatch *>(), &StallWatch::checked);
        QTRY_VERIFY(looked.count() >= 2);                  // the watchdog looked since the start, twice
        QCOMPARE(r->run(plain).state, RunState::Starting); // its grace: a script's imports take a while
        QTRY_COMPARE_WITH_TIMEOUT(r->run(plain).state, RunState::Running, 5000);
        QCOMPARE(r->run(plain).message, QStringLiteral("no metrics (does not use the trainyard module)"));
        QVERIFY(!r->run(plain).connected);
        QString error;
        QVERIFY(!r->supervisor->pause(plain, &error));      // nothing to ask through
        QCOMPARE(r->run(queued).state, RunState::Starting); // pending in its queue
        QCOMPARE(r->run(worker).state, RunState::Starting); // a worker always says hello

        // It did use the module, only late: the note goes.
        auto socket = r->connectWorker(plain);
        QVERIFY(socket);
        QTRY_VERIFY(r->run(plain).connected);
        QCOMPARE(r->run(plain).state, RunState::Running);
        QCOMPARE(r->run(plain).message, QString());
    }

    // Every exit status of the one table (core/protocol/exitcode.h) -> state and message.
    void exitStatusesMapToStates_data()
    {
        QTest::addColumn<int>("code");
        QTest::addColumn<int>("state");
        QTest::newRow("finished") << protocol::toInt(ExitCode::Finished) << int(RunState::Finished);
        QTest::newRow("failed") << protocol::toInt(ExitCode::Failed) << int(RunState::Failed);
        QTest::newRow("bad input") << protocol::toInt(ExitCode::BadInput) << int(RunState::Failed);
        QTest::newRow("diverged") << protocol::toInt(ExitCode::Diverged) << int(RunState::Diverged);
        QTest::newRow("stopped") << protocol::toInt(ExitCode::Stopped) << int(RunState::Stopped);
        QTest::newRow("unknown") << 42 << int(RunState::Failed);
    }
    void exitStatusesMapToStates()
    {
        QFETCH(int, code);
        QFETCH(int, state);
        auto r = rig();
        const RunId id = r->addRun(QStringLiteral("x"));
        QVERIFY(r->start(id));
        r->launcher.reportStarted(id, 0, QStringLiteral("job-x"));
        QFile log(r->run(id).runDir + QStringLiteral("/worker.log"));
        QVERIFY(log.open(QIODevice::WriteOnly));
        log.write("trainyard-worker: the last words\n");
        log.close();
        r->hear(id, protocol::metric(1, 1, 0.5, 0.1)); // it reported (no done line)
        QSignalSpy ended(r->supervisor.get(), &Supervisor::runEnded);
        r->launcher.reportExit(id, code, 0);
        QCOMPARE(ended.count(), 1);
        const RunInfo run = r->run(id);
        QCOMPARE(int(run.state), state);
        QCOMPARE(run.exitCode, code);
        QCOMPARE(run.exitSignal, 0);
        const QString meaning = latin1(protocol::exitMeaning(code));
        QVERIFY2(run.message.startsWith(QStringLiteral("exit %1: %2").arg(code).arg(meaning)), qPrintable(run.message));
        const bool failure = run.state == RunState::Failed || run.state == RunState::Diverged;
        QCOMPARE(run.message.contains(QStringLiteral("worker.log: trainyard-worker: the last words")), failure);
        const QJsonObject status = readJson(run.runDir + QStringLiteral("/status.json"));
        QCOMPARE(status.value(QStringLiteral("state")).toString(), runStateName(run.state));
        if (protocol::isKnownExit(code)) {
            QCOMPARE(status.value(QStringLiteral("state")).toString(), latin1(protocol::exitStatusName(code)));
        }
        QCOMPARE(r->server.token(id), QString()); // unregistered
        QVERIFY(!r->supervisor->isSupervised(id));
    }

    void signalExitFails()
    {
        auto r = rig();
        const RunId id = r->addRun(QStringLiteral("seg"));
        QVERIFY(r->start(id));
        r->launcher.reportStarted(id, 0, QStringLiteral("job-s"));
        r->launcher.reportExit(id, -1, SIGSEGV);
        const RunInfo run = r->run(id);
        QCOMPARE(run.state, RunState::Failed);
        QCOMPARE(run.exitSignal, SIGSEGV);
        QCOMPARE(run.exitCode, -1);
        QVERIFY2(run.message.startsWith(QStringLiteral("killed by signal %1 (SIGSEGV").arg(SIGSEGV)),
                 qPrintable(run.message));
        QCOMPARE(readJson(run.runDir + QStringLiteral("/status.json")).value(QStringLiteral("signal")).toInt(),
                 SIGSEGV);
    }

    // A program run's exit status is its own: 0 finished, anything else
    // failed with its log's tail (a Python traceback whole); after a Stop,
    // 0, 4 or SIGTERM is stopped.
    void programOutcomes()
    {
        const QString dir = m_dir.filePath(QStringLiteral("program-outcome"));
        QVERIFY(QDir().mkpath(dir));
        QFile log(dir + QStringLiteral("/worker.log"));
        QVERIFY(log.open(QIODevice::WriteOnly));
        log.write("epoch 1\nTraceback (most recent call last):\n  File \"t.py\", line 3, in <module>\n    1 / 0\n"
                  "ZeroDivisionError: division by zero\n");
        log.close();
        ExitFacts f;
        f.program = true;
        f.runDir = dir;
        f.exitCode = 0;
        QCOMPARE(exitOutcome(f).state, RunState::Finished);
        f.exitCode = 4; // the worker's "stopped", but nobody asked
        QCOMPARE(exitOutcome(f).state, RunState::Failed);
        f.exitCode = 1;
        const ExitOutcome crash = exitOutcome(f);
        QCOMPARE(crash.state, RunState::Failed);
        QVERIFY2(crash.message.startsWith(QStringLiteral("exit 1 — worker.log:\nTraceback (most recent call last):")),
                 qPrintable(crash.message));
        QVERIFY(crash.message.endsWith(QStringLiteral("ZeroDivisionError: division by zero")));
        QVERIFY(!crash.message.contains(QStringLiteral("epoch 1")));
        f.stopAsked = true;
        for (int code : {0, 4, 128 + SIGTERM}) {
            f.exitCode = code;
            QCOMPARE(exitOutcome(f).state, RunState::Stopped);
        }
        f.exitCode = -1;
        f.signal = SIGTERM;
        QCOMPARE(exitOutcome(f).state, RunState::Stopped);
        f.killed = true; // the escalation's SIGKILL
        f.signal = SIGKILL;
        f.killMessage = QStringLiteral("did not stop within 30 s; killed");
        QCOMPARE(exitOutcome(f).state, RunState::Failed);
        // Attached after a restart: the module's done line tells.
        f = ExitFacts{};
        f.program = true;
        f.doneSeen = true;
        f.doneStatus = QStringLiteral("finished");
        f.doneExit = 0;
        QCOMPARE(exitOutcome(f).state, RunState::Finished);
    }

    // The done line's status wins over the exit status:
    // a program that checkpointed and wrote "stopped" after a SIGTERM from
    // outside is stopped, its message saying both; the kill escalation, a
    // Stop asked and a cancel while pending keep their own words.
    void doneLineWinsOverTheExitStatus()
    {
        ExitFacts f;
        f.program = true;
        f.runDir = m_dir.filePath(QStringLiteral("no-such-dir"));
        f.doneSeen = true;
        f.doneStatus = QStringLiteral("stopped");
        f.doneExit = 4;
        f.exitCode = 4; // sys.exit(run.finish()) after a kill, timeout or preemption
        ExitOutcome out = exitOutcome(f);
        QCOMPARE(out.state, RunState::Stopped);
        QCOMPARE(out.exitCode, 4);
        QCOMPARE(out.message, QStringLiteral("reported stopped in its done line; the program exited 4"));
        f.exitCode = -1;
        f.signal = SIGTERM; // a launcher (bash) that died of its SIGTERM
        out = exitOutcome(f);
        QCOMPARE(out.state, RunState::Stopped);
        QVERIFY2(out.message.startsWith(QStringLiteral("reported stopped in its done line; the program was killed by "
                                                       "signal 15 (SIGTERM")),
                 qPrintable(out.message));
        f.jobId = QStringLiteral("123"); // a batch job scancel'ed by someone else
        out = exitOutcome(f);
        QCOMPARE(out.state, RunState::Stopped);
        QVERIFY2(out.message.contains(QStringLiteral("job 123 was CANCELLED outside Trainyard")),
                 qPrintable(out.message));
        f.stopAsked = true; // Trainyard's own Stop
        QCOMPARE(exitOutcome(f).message, QStringLiteral("stopped on request (%1)").arg(signalName(SIGTERM)));
        f.killed = true; // the escalation's SIGKILL after the done line: the kill says more
        f.signal = SIGKILL;
        f.killMessage = QStringLiteral("did not stop within 30 s; killed");
        QCOMPARE(exitOutcome(f).state, RunState::Failed);
        QVERIFY(exitOutcome(f).message.startsWith(f.killMessage));
        // A worker: "finished" in the done line, but exit 1 on the way out.
        f = ExitFacts{};
        f.runDir = m_dir.filePath(QStringLiteral("no-such-dir"));
        f.doneSeen = true;
        f.doneStatus = QStringLiteral("finished");
        f.doneExit = 0;
        f.metricSeen = true;
        f.exitCode = 1;
        out = exitOutcome(f);
        QCOMPARE(out.state, RunState::Finished);
        QCOMPARE(out.message, QStringLiteral("reported finished in its done line; the worker exited 1 (%1)")
                                  .arg(latin1(protocol::exitMeaning(1))));
        f.doneStatus = QStringLiteral("diverged");
        f.doneExit = 3;
        f.exitCode = 3; // agreeing: the usual words
        QCOMPARE(exitOutcome(f).state, RunState::Diverged);
        QVERIFY(exitOutcome(f).message.startsWith(QStringLiteral("exit 3: ")));
        // Cancelled while pending stays cancelled.
        f.pending = f.cancelled = true;
        QCOMPARE(exitOutcome(f).state, RunState::Cancelled);
    }

    // Exit 0 with no metric and no done line: a worker
    // never does that, so it failed; a program only once it used the module.
    void exitZeroWithoutAReportIsNeverReported()
    {
        ExitFacts f;
        f.runDir = m_dir.filePath(QStringLiteral("no-such-dir"));
        f.exitCode = 0;
        ExitOutcome out = exitOutcome(f);
        QCOMPARE(out.state, RunState::Failed);
        QCOMPARE(out.message, QStringLiteral("exited 0 but never reported a step or a done line — not "
                                             "trainyard-worker? see worker.log"));
        f.lines = 3; // heartbeats and a log line are no step
        QCOMPARE(exitOutcome(f).state, RunState::Failed);
        f.metricSeen = true;
        QCOMPARE(exitOutcome(f).state, RunState::Finished);
        f = ExitFacts{};
        f.runDir = m_dir.filePath(QStringLiteral("no-such-dir"));
        f.program = true;
        f.exitCode = 0;
        QCOMPARE(exitOutcome(f).state, RunState::Finished); // a script without the module
        // It used the module, then left without its done line.
        f.lines = 2;
        out = exitOutcome(f);
        QCOMPARE(out.state, RunState::Failed);
        QVERIFY2(out.message.contains(QStringLiteral("without a step or a done line")), qPrintable(out.message));
        f.stopAsked = true; // stopped before its first step
        QCOMPARE(exitOutcome(f).state, RunState::Stopped);
    }

    // A program's loss NaN to the end: diverged, even
    // with a done line "finished"; NaN that came back is a gap, no more.
    void nonFiniteLossToTheEndDiverged()
    {
        ExitFacts f;
        f.program = true;
        f.runDir = m_dir.filePath(QStringLiteral("no-such-dir"));
        f.exitCode = 0;
        f.metricSeen = true;
        f.lines = 100;
        f.doneSeen = true;
        f.doneStatus = QStringLiteral("finished");
        f.doneExit = 0;
        QCOMPARE(exitOutcome(f).state, RunState::Finished);
        f.nonFiniteLossFrom = 50;
        const ExitOutcome out = exitOutcome(f);
        QCOMPARE(out.state, RunState::Diverged);
        QVERIFY2(
            out.message.startsWith(QStringLiteral("diverged: the loss was NaN or infinite from step 50 to the end")),
            qPrintable(out.message));
        f.exitCode = 1; // a crash stays a crash
        f.doneStatus = QStringLiteral("failed");
        QCOMPARE(exitOutcome(f).state, RunState::Failed);
    }

    // stop asked on the socket; no exit -> terminate after the timeout; still none -> kill.
    void stopEscalatesSocketTerminateKill()
    {
        auto r = rig();
        r->supervisor->setStopTimeout(150);
        const RunId id = r->addRun(QStringLiteral("hang"));
        QVERIFY(r->start(id));
        r->launcher.reportStarted(id, 0, QStringLiteral("job-h"));
        auto worker = r->connectWorker(id);
        QVERIFY(worker);
        QTRY_VERIFY(r->run(id).connected);
        QCOMPARE(r->run(id).state, RunState::Running);

        QString error;
        QVERIFY2(r->supervisor->stop(id, &error), qPrintable(error));
        QCOMPARE(r->run(id).state, RunState::Stopping);
        QCOMPARE(r->launcher.count(QStringLiteral("terminate"), id), 0); // asked on the socket first
        QByteArray received;
        QTRY_VERIFY((received += worker->readAll()).contains("\"type\":\"stop\""));
        QVERIFY(r->supervisor->stop(id)); // again: nothing new
        QTRY_COMPARE(r->launcher.count(QStringLiteral("kill"), id), 1);
        const int t = int(r->launcher.calls.indexOf(QStringLiteral("terminate %1").arg(id)));
        const int k = int(r->launcher.calls.indexOf(QStringLiteral("kill %1").arg(id)));
        QVERIFY(t >= 0 && t < k);
        QCOMPARE(r->launcher.count(QStringLiteral("terminate"), id), 1);
        QVERIFY(r->launcher.callTimes.at(k) - r->launcher.callTimes.at(t) >= 140);
        r->launcher.reportExit(id, -1, SIGKILL);
        const RunInfo run = r->run(id);
        QCOMPARE(run.state, RunState::Failed);
        QCOMPARE(run.exitSignal, SIGKILL);
        QVERIFY2(run.message.startsWith(QStringLiteral("did not stop within 0.3 s; killed (signal 9 (SIGKILL")),
                 qPrintable(run.message));
    }

    // Not connected: terminate at once; an exit in time ends the escalation.
    void stopWithoutSocketTerminatesAtOnce()
    {
        auto r = rig();
        r->supervisor->setStopTimeout(100);
        const RunId id = r->addRun(QStringLiteral("quiet"));
        QVERIFY(r->start(id));
        r->launcher.reportStarted(id, 0, QStringLiteral("job-q"));
        QVERIFY(r->supervisor->stop(id));
        QCOMPARE(r->launcher.count(QStringLiteral("terminate"), id), 1);
        r->launcher.reportExit(id, protocol::toInt(ExitCode::Stopped), 0);
        QCOMPARE(r->run(id).state, RunState::Stopped);
        // Its escalation is gone with the run: no step of it can come now.
        QTRY_VERIFY(r->supervisor->findChildren<StopEscalation *>().isEmpty());
        QCOMPARE(r->launcher.count(QStringLiteral("kill"), id), 0);
    }

    void killAllSaysSo()
    {
        auto r = rig();
        const RunId id = r->addRun(QStringLiteral("k"));
        QVERIFY(r->start(id));
        r->launcher.reportStarted(id, 0, QStringLiteral("job-k"));
        r->supervisor->killAll();
        QCOMPARE(r->launcher.count(QStringLiteral("kill"), id), 1);
        r->launcher.reportExit(id, -1, SIGKILL);
        QVERIFY2(r->run(id).message.startsWith(QStringLiteral("killed on request (signal 9")),
                 qPrintable(r->run(id).message));
    }

    // A Stop of ours that ends a batch job on SIGTERM (no
    // done line: the worker died before it could write one) is that stop,
    // not "CANCELLED outside Trainyard".
    void ourStopEndingOnSigtermIsNotAnOutsideCancel()
    {
        auto r = rig();
        r->supervisor->setStopTimeout(5000);
        const RunId id = r->addRun(QStringLiteral("ours"));
        QVERIFY(r->start(id));
        r->launcher.reportStarted(id, 0, QStringLiteral("4242"));
        r->launcher.reportRunning(id);
        QVERIFY(r->supervisor->stop(id));
        r->launcher.reportExit(id, -1, SIGTERM);
        QCOMPARE(r->run(id).state, RunState::Stopped);
        QVERIFY2(r->run(id).message.startsWith(QStringLiteral("stopped on request (signal 15")),
                 qPrintable(r->run(id).message));
        QVERIFY(!r->run(id).message.contains(QStringLiteral("CANCELLED")));
    }

    // Case 16: jobs waiting in the queue are pending, not running (the
    // status bar's counts); the queue's own reason for an end (a time limit
    // with nothing to resume) is the run's message, not a signal number.
    void pendingJobsAreCountedApartAndTheQueuesReasonIsTheMessage()
    {
        auto r = rig();
        const RunId a = r->addRun(QStringLiteral("waits"));
        const RunId b = r->addRun(QStringLiteral("runs"));
        QVERIFY(r->start(a));
        QVERIFY(r->start(b));
        r->launcher.reportStarted(a, 0, QStringLiteral("1"));
        r->launcher.reportStarted(b, 0, QStringLiteral("2"));
        r->launcher.reportPending(a, QStringLiteral("Resources"));
        r->launcher.reportPending(b, QStringLiteral("Priority"));
        r->launcher.reportRunning(b);
        QCOMPARE(r->runs.activeCount(), 2);
        QCOMPARE(r->runs.pendingCount(), 1);
        r->launcher.reportRunning(a);
        QCOMPARE(r->runs.pendingCount(), 0);
        Q_EMIT r->launcher.endedBecause(a, QStringLiteral("job 1 reached its time limit with no checkpoint"));
        r->launcher.reportExit(a, -1, SIGTERM);
        QCOMPARE(r->run(a).state, RunState::Failed);
        QVERIFY2(r->run(a).message.startsWith(QStringLiteral("job 1 reached its time limit with no checkpoint")),
                 qPrintable(r->run(a).message));
    }

    // Case 16: the run folder of a live run is removed (by hand, a cleanup
    // job) before it ends: the folder is made again and status.json keeps
    // the outcome, and the message says the folder was gone. A dangling link
    // in its place is never followed: the outcome stays in the session.
    void aRunWhoseFolderIsGoneStillRecordsItsEnd()
    {
        auto r = rig();
        const RunId id = r->addRun(QStringLiteral("gone"));
        const RunId linked = r->addRun(QStringLiteral("linked"));
        QVERIFY(r->start(id));
        QVERIFY(r->start(linked));
        r->launcher.reportStarted(id, 0, QStringLiteral("7"));
        r->launcher.reportStarted(linked, 0, QStringLiteral("8"));
        const QString dir = r->run(id).runDir;
        QVERIFY(QDir(dir).removeRecursively());
        r->launcher.reportExit(id, 1, 0);
        QCOMPARE(r->run(id).state, RunState::Failed);
        QVERIFY2(r->run(id).message.contains(QStringLiteral("its run folder %1 was gone").arg(dir)),
                 qPrintable(r->run(id).message));
        QFile status(dir + QStringLiteral("/status.json"));
        QVERIFY(status.open(QIODevice::ReadOnly));
        QCOMPARE(QJsonDocument::fromJson(status.readAll()).object().value(QStringLiteral("state")).toString(),
                 QStringLiteral("failed"));

        const QString linkDir = r->run(linked).runDir;
        const QString elsewhere = m_dir.filePath(QStringLiteral("not-a-run-folder"));
        QVERIFY(QDir(linkDir).removeRecursively());
        QVERIFY(QFile::link(elsewhere, linkDir));
        r->launcher.reportExit(linked, 1, 0);
        QCOMPARE(r->run(linked).state, RunState::Failed);
        QVERIFY(!QFileInfo::exists(elsewhere));
    }

    // A job pending for hours: never stalled; its reason shown; a stop cancels it.
    void pendingRunNeverStallsAndStopCancelsIt()
    {
        auto r = rig();
        r->supervisor->setStallTimeout(100);
        r->supervisor->setStopTimeout(5000);
        const RunId id = r->addRun(QStringLiteral("queued"));
        QVERIFY(r->start(id));
        r->launcher.reportStarted(id, 0, QStringLiteral("job-7"));
        r->launcher.reportPending(id, QStringLiteral("Resources"));
        QCOMPARE(r->run(id).state, RunState::Starting);
        QCOMPARE(r->run(id).message, QStringLiteral("pending: Resources"));
        QSignalSpy looked(r->supervisor->findChild<StallWatch *>(), &StallWatch::checked);
        QTRY_VERIFY(looked.count() >= 2); // two passes of the watchdog, past the stall timeout
        QCOMPARE(r->run(id).state, RunState::Starting);

        // It runs (no hello yet), then goes silent: now the watchdog applies.
        r->launcher.reportRunning(id);
        QCOMPARE(r->run(id).state, RunState::Running);
        QVERIFY(r->run(id).message.isEmpty());
        QTRY_COMPARE(r->run(id).state, RunState::Stalled);

        // Requeued (a node failure): pending again, the reason visible.
        r->launcher.reportPending(id, QStringLiteral("NodeFail"));
        QCOMPARE(r->run(id).state, RunState::Starting);
        QCOMPARE(r->run(id).message, QStringLiteral("requeued; pending: NodeFail"));
        looked.clear();
        QTRY_VERIFY(looked.count() >= 2);
        QCOMPARE(r->run(id).state, RunState::Starting);

        QSignalSpy ended(r->supervisor.get(), &Supervisor::runEnded);
        QVERIFY(r->supervisor->stop(id));
        QCOMPARE(r->run(id).state, RunState::Stopping);
        QCOMPARE(r->launcher.count(QStringLiteral("terminate"), id), 1); // cancels the job
        QVERIFY2(r->run(id).message.contains(QStringLiteral("NodeFail")), qPrintable(r->run(id).message));
        r->launcher.reportExit(id, -1, 0);
        QCOMPARE(ended.count(), 1);
        QCOMPARE(r->run(id).state, RunState::Cancelled);
        QVERIFY2(r->run(id).message.startsWith(QStringLiteral("cancelled before it started (was pending: NodeFail)")),
                 qPrintable(r->run(id).message));
        QCOMPARE(readJson(r->run(id).runDir + QStringLiteral("/status.json")).value(QStringLiteral("state")).toString(),
                 QStringLiteral("cancelled"));
    }

    void launchFailureFailsTheRun()
    {
        auto r = rig();
        const RunId id = r->addRun(QStringLiteral("nope"));
        QVERIFY(r->start(id));
        QSignalSpy ended(r->supervisor.get(), &Supervisor::runEnded);
        r->launcher.reportLaunchFailure(id, QStringLiteral("sbatch: error: invalid partition specified: gpu"));
        QCOMPARE(ended.count(), 1);
        QCOMPARE(r->run(id).state, RunState::Failed);
        QCOMPARE(r->run(id).message, QStringLiteral("sbatch: error: invalid partition specified: gpu"));
        QCOMPARE(r->launcher.count(QStringLiteral("release"), id), 0); // it forgot the run itself

        // A launcher that fails from inside start().
        const RunId now = r->addRun(QStringLiteral("now"));
        r->launcher.failInsideStart = QStringLiteral("cannot start /x: No such file or directory");
        QVERIFY(r->start(now));
        QCOMPARE(r->run(now).state, RunState::Failed);
        QCOMPARE(r->run(now).message, QStringLiteral("cannot start /x: No such file or directory"));
        QVERIFY(!r->supervisor->isSupervised(now));

        // No worker program: refused before the launcher hears of it.
        r->supervisor->setWorkerProgram(QString());
        QString error;
        QVERIFY(!r->supervisor->start(r->addRun(QStringLiteral("none")), StartOptions{}, &error));
        QVERIFY2(error.contains(QStringLiteral("trainyard-worker not found")), qPrintable(error));
    }

    // The launcher's handle goes to the state file; a new supervisor attaches through it.
    void reattachThroughThePersistedHandle()
    {
        const QString root = m_dir.filePath(QStringLiteral("shared-runs"));
        QString token;
        {
            Rig first(root, m_dir.filePath(QStringLiteral("sock/first.sock")));
            const RunId id = first.addRun(QStringLiteral("r"));
            QVERIFY(first.start(id));
            first.launcher.reportStarted(id, 0, QStringLiteral("job-9"));
            token = first.server.token(id);
            const QJsonObject saved = readJson(root + QStringLiteral("/.trainyard-state.json"))
                                          .value(QStringLiteral("runs"))
                                          .toObject()
                                          .value(QStringLiteral("r"))
                                          .toObject();
            QCOMPARE(saved.value(QStringLiteral("token")).toString(), token);
            QCOMPARE(saved.value(QStringLiteral("launcher")).toObject().value(QStringLiteral("job")).toString(),
                     QStringLiteral("job-9"));
            QVERIFY(saved.contains(QStringLiteral("pid"))); // readable as before the seam
            QCOMPARE(
                first.store.readState().value(QStringLiteral("r")).launcher.value(QStringLiteral("kind")).toString(),
                QStringLiteral("fake"));

            QSignalSpy finished(first.supervisor.get(), &Supervisor::shutdownFinished);
            first.supervisor->shutdown(/*leaveRunning=*/true);
            QCOMPARE(finished.count(), 1);
            QCOMPARE(first.launcher.count(QStringLiteral("detach"), id), 1);
        } // the first orchestrator is gone; its job is not

        Rig second(root, m_dir.filePath(QStringLiteral("sock/second.sock")));
        second.launcher.aliveJobs = {QStringLiteral("job-9")};
        const RunId id = second.addRun(QStringLiteral("r"));
        const RunId gone = second.addRun(QStringLiteral("never-started"));
        const StartOptions options{Device::parse(QStringLiteral("cpu")), 1, false, {}, false};
        second.supervisor->loadHistory([&options](RunId) { return options; });
        QCOMPARE(second.launcher.attaches.size(), 1);
        QCOMPARE(second.launcher.attaches.at(0).first, id);
        QCOMPARE(second.launcher.attaches.at(0).second.value(QStringLiteral("job")).toString(),
                 QStringLiteral("job-9"));
        // The whole spec start() would hand over (a batch launcher resubmits it), with the saved token.
        LaunchSpec expected = second.supervisor->launchSpec(id, options);
        expected.token = token;
        QCOMPARE(second.launcher.expectedAtAttach.at(0).second.commandLine(), expected.commandLine());
        QVERIFY(second.launcher.expectedAtAttach.at(0).second.environment() == expected.environment());
        QCOMPARE(second.launcher.expectedAtAttach.at(0).second.target.toString(), QStringLiteral("cpu"));
        RunInfo run = second.run(id);
        QCOMPARE(run.state, RunState::Running);
        QVERIFY(run.reattached);
        QCOMPARE(second.server.token(id), token); // it reconnects with its old token
        QCOMPARE(second.run(gone).state, RunState::Queued);

        // It ends; only its done line says how.
        QFile metrics(run.runDir + QStringLiteral("/metrics.jsonl"));
        QVERIFY(metrics.open(QIODevice::Append));
        metrics.write(QByteArray::fromStdString(protocol::encode(protocol::done("finished", 0, 1.0))));
        metrics.close();
        second.launcher.reportExit(id, -1, 0);
        run = second.run(id);
        QCOMPARE(run.state, RunState::Finished);
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.message, QStringLiteral("reported finished (exit 0)"));
    }

    // shutdown(false) returns at once (no nested event loop); a signal says when all ended.
    void asyncShutdownCompletesWithASignal()
    {
        auto r = rig();
        const RunId a = r->addRun(QStringLiteral("a"));
        const RunId b = r->addRun(QStringLiteral("b"));
        QVERIFY(r->start(a));
        QVERIFY(r->start(b));
        r->launcher.reportStarted(a, 0, QStringLiteral("job-a"));
        r->launcher.reportStarted(b, 0, QStringLiteral("job-b"));
        bool eventLoopRan = false;
        QTimer::singleShot(0, this, [&] { eventLoopRan = true; });
        QSignalSpy finished(r->supervisor.get(), &Supervisor::shutdownFinished);
        r->supervisor->shutdown(false);
        QVERIFY(!eventLoopRan); // returned without running the event loop
        QCOMPARE(finished.count(), 0);
        QCOMPARE(r->run(a).state, RunState::Stopping);
        QCOMPARE(r->run(b).state, RunState::Stopping);
        QVERIFY(r->supervisor->isShuttingDown());
        QString error;
        QVERIFY(!r->supervisor->start(r->addRun(QStringLiteral("late")), StartOptions{}, &error));

        r->launcher.reportExit(a, protocol::toInt(ExitCode::Stopped), 0);
        QCOMPARE(finished.count(), 0);
        r->launcher.reportExit(b, protocol::toInt(ExitCode::Stopped), 0);
        QCOMPARE(finished.count(), 1);
        QCOMPARE(r->run(a).state, RunState::Stopped);
        QCOMPARE(r->run(b).state, RunState::Stopped);
        QVERIFY(eventLoopRan || QTest::qWaitFor([&] { return eventLoopRan; }, 1000));

        // Nothing running: finished at once.
        auto idle = rig();
        QSignalSpy idleFinished(idle->supervisor.get(), &Supervisor::shutdownFinished);
        idle->supervisor->shutdown(false);
        QCOMPARE(idleFinished.count(), 1);
    }

    // A run that outlives the whole escalation is killed at the deadline.
    void shutdownDeadlineKillsWhatIsLeft()
    {
        auto r = rig();
        r->supervisor->setStopTimeout(50);
        const RunId id = r->addRun(QStringLiteral("stubborn"));
        QVERIFY(r->start(id));
        r->launcher.reportStarted(id, 0, QStringLiteral("job-st"));
        QSignalSpy finished(r->supervisor.get(), &Supervisor::shutdownFinished);
        r->supervisor->shutdown(false);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 6000);
        QCOMPARE(r->launcher.count(QStringLiteral("kill"), id), 1);    // the escalation
        QCOMPARE(r->launcher.count(QStringLiteral("release"), id), 1); // the deadline
        QCOMPARE(r->run(id).state, RunState::Failed);
        QCOMPARE(r->run(id).message, QStringLiteral("killed at shutdown"));
    }

    // The destructor kills what is left, synchronously, and says nothing.
    void destructorKillsSynchronously()
    {
        auto r = rig();
        const RunId id = r->addRun(QStringLiteral("left"));
        QVERIFY(r->start(id));
        r->launcher.reportStarted(id, 0, QStringLiteral("job-l"));
        bool signalled = false;
        connect(r->supervisor.get(), &Supervisor::runEnded, this, [&] { signalled = true; });
        r->supervisor.reset();
        QVERIFY(!signalled);
        QCOMPARE(r->launcher.count(QStringLiteral("release"), id), 1);
        QCOMPARE(r->run(id).state, RunState::Failed);
        QCOMPARE(r->run(id).message, QStringLiteral("killed at shutdown"));
        QCOMPARE(readJson(r->run(id).runDir + QStringLiteral("/status.json")).value(QStringLiteral("state")).toString(),
                 QStringLiteral("failed"));
    }
};

QTEST_GUILESS_MAIN(TestSupervisor)
#include "tst_supervisor.moc"
