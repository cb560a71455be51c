// `trainyard run` end to end, as a user runs it: a real process, the fake
// worker as trainyard-worker, no display.

#include "tests/helpers/buildprograms.h"
#include "testutil.h"

#include "orchestration/ingest/metricsserver.h"
#include "orchestration/session/controlserver.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QLocalSocket>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <unistd.h>

using namespace trainyard;
using namespace trainyard::test;

class TestHeadless : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_counter = 0;

    QString writeExperiment(const QJsonArray &lanes, QString *runsRoot = nullptr)
    {
        const QString name = QStringLiteral("h%1").arg(++m_counter);
        const QString root = m_dir.filePath(name + QStringLiteral("-runs"));
        if (runsRoot) {
            *runsRoot = root;
        }
        const QString path = m_dir.filePath(name + QStringLiteral(".json"));
        writeFile(path, QJsonDocument(experimentJson(name, root, lanes)).toJson());
        return path;
    }

    // A started `trainyard ARGS` with the fake worker.
    std::unique_ptr<QProcess> start(const QStringList &args)
    {
        auto p = std::make_unique<QProcess>();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TRAINYARD_WORKER"), fakeWorker());
        p->setProcessEnvironment(env);
        p->start(buildProgram("TRAINYARD_BIN"), args);
        return p;
    }

    static int finish(QProcess *p, QByteArray *out = nullptr, QByteArray *err = nullptr, int ms = 60000)
    {
        const bool ok = p->waitForFinished(ms);
        if (out) {
            *out += p->readAllStandardOutput();
        }
        if (err) {
            *err += p->readAllStandardError();
        }
        return ok && p->exitStatus() == QProcess::NormalExit ? p->exitCode() : -1;
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
    }

    void versionAndHelp()
    {
        auto p = start({QStringLiteral("--version")});
        QByteArray out;
        QCOMPARE(finish(p.get(), &out), 0);
        QVERIFY(out.startsWith("trainyard 0."));
        p = start({QStringLiteral("--help")});
        out.clear();
        QCOMPARE(finish(p.get(), &out), 0);
        QVERIFY(out.contains("trainyard run FILE.json"));
        QVERIFY(out.contains("--cpu-fallback"));
        p = start({QStringLiteral("run")});
        QByteArray err;
        QCOMPARE(finish(p.get(), nullptr, &err), 2);
        QVERIFY(err.contains("needs an experiment file or --demo"));
    }

    // Each command parses its own command line: help and version anywhere,
    // a bad option or argument is a usage error (2) naming it.
    void commandLinesPerCommand_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("text"); // on stdout for 0, on stderr otherwise
        auto row = [](const char *tag, const QStringList &args, int status, const QByteArray &text) {
            QTest::newRow(tag) << args << status << text;
        };
        row("run help", {QStringLiteral("run"), QStringLiteral("--help")}, 0, "--stall-timeout S");
        row("run version", {QStringLiteral("run"), QStringLiteral("-v")}, 0, "trainyard 0.");
        row("probe help", {QStringLiteral("probe-slots"), QStringLiteral("-h")}, 0, "--levels 1,2,4");
        row("help lists commands", {QStringLiteral("--help")}, 0, "trainyard probe-slots --device DEV");
        row("run unknown option", {QStringLiteral("run"), QStringLiteral("--cpu-fallbak")}, 2,
            "trainyard: run: unknown option 'cpu-fallbak' (see trainyard run --help)");
        row("run missing value", {QStringLiteral("run"), QStringLiteral("x.json"), QStringLiteral("--threads")}, 2,
            "trainyard: run: missing value after '--threads'");
        row("run bad number", {QStringLiteral("run"), QStringLiteral("x.json"), QStringLiteral("--threads=0")}, 2,
            "trainyard: --threads: expected an integer \xe2\x89\xa5 1");
        row("run two files", {QStringLiteral("run"), QStringLiteral("a.json"), QStringLiteral("b.json")}, 2,
            "more than one experiment file given");
        row("run file and demo", {QStringLiteral("run"), QStringLiteral("a.json"), QStringLiteral("--demo")}, 2,
            "needs an experiment file or --demo");
        row("probe steps", {QStringLiteral("probe-slots"), QStringLiteral("--steps"), QStringLiteral("5")}, 2,
            "--steps: expected an integer \xe2\x89\xa5 10, got \"5\"");
        row("probe needs device", {QStringLiteral("probe-slots"), QStringLiteral("--spec"), QStringLiteral("r.json")},
            2, "probe-slots needs --device DEV and --spec RUN.json");
        row("probe levels", {QStringLiteral("probe-slots"), QStringLiteral("--levels"), QStringLiteral("1,x")}, 2,
            "--levels: \"x\" is not an integer");
        row("app two files", {QStringLiteral("a.json"), QStringLiteral("b.json")}, 2,
            "expected at most one experiment file");
        row("app unknown option", {QStringLiteral("--bogus")}, 2,
            "trainyard: unknown option 'bogus' (see trainyard --help)");
    }

    void commandLinesPerCommand()
    {
        QFETCH(QStringList, args);
        QFETCH(int, status);
        QFETCH(QByteArray, text);
        auto p = start(args);
        QByteArray out, err;
        QCOMPARE(finish(p.get(), &out, &err), status);
        QVERIFY2((status == 0 ? out : err).contains(text), (status == 0 ? out : err).constData());
    }

    // The worker's catalogue checks every run spec before anything starts;
    // the fake worker has none, so its runs get structural checks, with a warning.
    void runSpecsAreCheckedAgainstTheCatalogue()
    {
        const QJsonObject model{{QStringLiteral("type"), QStringLiteral("transe")}, {QStringLiteral("dimm"), 8}};
        QString root;
        const QString bad = writeExperiment(
            {lane(QStringLiteral("cpu"), 1,
                  {QJsonObject{{QStringLiteral("name"), QStringLiteral("t")}, {QStringLiteral("model"), model}}})},
            &root);
        const QString realWorker = qEnvironmentVariable("TRAINYARD_WORKER");
        if (!realWorker.isEmpty() && QFileInfo(realWorker).isExecutable()) {
            QProcess p;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("TRAINYARD_WORKER"), realWorker);
            p.setProcessEnvironment(env);
            p.start(buildProgram("TRAINYARD_BIN"), {QStringLiteral("run"), bad});
            QByteArray err;
            QCOMPARE(finish(&p, nullptr, &err), 2);
            QVERIFY2(err.contains("lanes[0].runs[0].model.dimm: unknown key (expected one of type, recipe, dim, "),
                     err.constData());
            QVERIFY(!QFileInfo::exists(root + QStringLiteral("/t"))); // nothing started
        }
        const QString fine = writeExperiment({lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("f"), 5)})});
        auto p = start({QStringLiteral("run"), fine});
        QByteArray out, err;
        QCOMPARE(finish(p.get(), &out, &err), 0);
        QVERIFY2(err.contains("trainyard: warning: ") && err.contains("--list-models")
                     && err.contains("run specs get structural checks only"),
                 err.constData());
        QVERIFY(out.contains("1 of 1 finished"));
    }

    void twoCpuLanesWithRepeatsRunToTheEnd()
    {
        QString root;
        const QString file =
            writeExperiment({lane(QStringLiteral("cpu"), 2, {withRepeat(fakeSpec(QStringLiteral("a"), 30, 5), 3)}),
                             lane(QStringLiteral("cpu"), 1, {withRepeat(fakeSpec(QStringLiteral("b"), 20, 5), 2)})},
                            &root);
        auto p = start({QStringLiteral("run"), file});
        QByteArray out, err;
        QCOMPARE(finish(p.get(), &out, &err), 0);
        QVERIFY2(out.contains("5 of 5 finished"), out.constData());
        QVERIFY(!out.contains("\x1b[")); // not a terminal: plain lines
        const QStringList names{QStringLiteral("a-1"), QStringLiteral("a-2"), QStringLiteral("a-3"),
                                QStringLiteral("b-1"), QStringLiteral("b-2")};
        for (int i = 0; i < names.size(); ++i) {
            const QString dir = root + QLatin1Char('/') + names.at(i);
            const QJsonObject status = readJsonFile(dir + QStringLiteral("/status.json"));
            QCOMPARE(status.value(QStringLiteral("state")).toString(), QStringLiteral("finished"));
            QCOMPARE(status.value(QStringLiteral("exit_code")).toInt(), 0);
            const QJsonObject spec = readJsonFile(dir + QStringLiteral("/spec.json"));
            QCOMPARE(spec.value(QStringLiteral("name")).toString(), names.at(i));
            QVERIFY(!spec.contains(QStringLiteral("repeat")));
            QCOMPARE(spec.value(QStringLiteral("train")).toObject().value(QStringLiteral("seed")).toInt(),
                     7 + (i < 3 ? i : i - 3));
            QCOMPARE(countLines(dir + QStringLiteral("/metrics.jsonl"), "metric"), i < 3 ? 30 : 20);
            QVERIFY(QFile::exists(dir + QStringLiteral("/worker.log")));
            QVERIFY(QFileInfo(dir + QStringLiteral("/checkpoints")).isDir());
        }
    }

    void brokenExperimentNamesTheField()
    {
        const QString path = m_dir.filePath(QStringLiteral("broken.json"));
        writeFile(path, R"({"name":"b","lanes":[{"device":"cpu"},{"device":"cpu","slots":-3}]})");
        auto p = start({QStringLiteral("run"), path});
        QByteArray err;
        QCOMPARE(finish(p.get(), nullptr, &err), 2);
        QVERIFY2(err.contains("lanes[1].slots: expected an integer \xe2\x89\xa5 1, got -3"), err.constData());
        p = start({QStringLiteral("run"), m_dir.filePath(QStringLiteral("nothing.json"))});
        err.clear();
        QCOMPARE(finish(p.get(), nullptr, &err), 2);
        QVERIFY(err.contains("cannot open"));
    }

    void aFailedRunMeansExitOne()
    {
        const QString file =
            writeExperiment({lane(QStringLiteral("cpu"), 2,
                                  {fakeSpec(QStringLiteral("good"), 10),
                                   fakeSpec(QStringLiteral("bad"), 10, 5, QStringLiteral("crash"), 3)})});
        auto p = start({QStringLiteral("run"), file});
        QByteArray out;
        QCOMPARE(finish(p.get(), &out), 1);
        QVERIFY2(out.contains("1 of 2 finished"), out.constData());
        QVERIFY(out.contains("bad: failed"));
    }

    void missingGpuNeedsCpuFallback()
    {
        const QString file = writeExperiment({lane(QStringLiteral("cuda:9"), 1, {fakeSpec(QStringLiteral("g"), 10)})});
        auto p = start({QStringLiteral("run"), file});
        QByteArray out, err;
        QCOMPARE(finish(p.get(), &out, &err), 2);
        QVERIFY2(err.contains("--cpu-fallback"), err.constData());
        p = start({QStringLiteral("run"), file, QStringLiteral("--cpu-fallback")});
        out.clear();
        QCOMPARE(finish(p.get(), &out), 0);
        QVERIFY(out.contains("1 of 1 finished"));
    }

    // Through the real NVML path (the fake libnvidia-ml.so.1): GPU 0 held by
    // another process of this user makes the pool's run wait, and `trainyard
    // run` says why; once that memory is gone the run starts and finishes.
    void aBusyGpuMakesTheRunWaitThenStart()
    {
        const QString state = m_dir.filePath(QStringLiteral("nvml-state.txt"));
        const QByteArray gpu = "gpu 0 85899345920 \"NVIDIA H100 80GB HBM3\" 10 40\n";
        QVERIFY(writeFile(
            state, gpu + QStringLiteral("proc %1 0 2147483648\n").arg(QCoreApplication::applicationPid()).toUtf8()));
        const QString file = writeExperiment({lane(QStringLiteral("cuda:*"), 1, {fakeSpec(QStringLiteral("g"), 20)})});
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TRAINYARD_WORKER"), fakeWorker());
        env.insert(QStringLiteral("TRAINYARD_FAKE_NVML"), state);
        env.insert(QStringLiteral("LD_LIBRARY_PATH"), buildProgram("TRAINYARD_FAKE_NVML_DIR") + QStringLiteral(":")
                                                          + env.value(QStringLiteral("LD_LIBRARY_PATH")));
        p.setProcessEnvironment(env);
        p.start(buildProgram("TRAINYARD_BIN"), {QStringLiteral("run"), file});
        QByteArray out;
        QTRY_VERIFY2_WITH_TIMEOUT((out += p.readAllStandardOutput()).contains("g: waits: cuda:0 busy — your pid "),
                                  out.constData(), 20000);
        QVERIFY(writeFile(state, gpu)); // that process let go of the GPU
        QByteArray err;
        QCOMPARE(finish(&p, &out, &err), 0);
        QVERIFY2(out.contains("g: starting on cuda:0") && out.contains("g: finished"), out.constData());
    }

    void ctrlCStopsEveryRunGracefully()
    {
        QString root;
        const QString file = writeExperiment(
            {lane(QStringLiteral("cpu"), 2,
                  {fakeSpec(QStringLiteral("s1"), 2000, 10), fakeSpec(QStringLiteral("s2"), 2000, 10)})},
            &root);
        auto p = start({QStringLiteral("run"), file});
        QByteArray out;
        QTRY_VERIFY_WITH_TIMEOUT(
            (out += p->readAllStandardOutput()).contains("s2: running") && out.contains("s1: running"), 10000);
        ::kill(static_cast<pid_t>(p->processId()), SIGINT);
        QCOMPARE(finish(p.get(), &out), 1);
        QVERIFY2(out.contains("stopping every run gracefully"), out.constData());
        QVERIFY(out.contains("0 of 2 finished"));
        for (const char *name : {"s1", "s2"}) {
            const QJsonObject status =
                readJsonFile(root + QLatin1Char('/') + QLatin1String(name) + QStringLiteral("/status.json"));
            QCOMPARE(status.value(QStringLiteral("state")).toString(), QStringLiteral("stopped"));
            QCOMPARE(status.value(QStringLiteral("exit_code")).toInt(), 4);
        }
    }

    // Without XDG_RUNTIME_DIR the sockets go to TMPDIR/trainyard-UID, made
    // 0700, with no warning from Qt; a folder there that is not private and
    // the user's is made private (its own) or refused (a link), saying so.
    void noRuntimeDirNeedsNoWarning()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString file = writeExperiment({lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("x"), 5)})});
        const auto runIn = [&](QByteArray *out, QByteArray *err) {
            QProcess p;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("TRAINYARD_WORKER"), fakeWorker());
            env.remove(QStringLiteral("XDG_RUNTIME_DIR"));
            env.insert(QStringLiteral("TMPDIR"), tmp.path());
            p.setProcessEnvironment(env);
            p.start(buildProgram("TRAINYARD_BIN"), {QStringLiteral("run"), file});
            return finish(&p, out, err);
        };
        const QString runtime = tmp.filePath(QStringLiteral("trainyard-%1").arg(::getuid()));
        QByteArray out, err;
        QCOMPARE(runIn(&out, &err), 0);
        QVERIFY2(!err.contains("XDG_RUNTIME_DIR") && !err.contains("QStandardPaths"), err.constData());
        QCOMPARE(QFileInfo(runtime).permissions() & 0x0077, QFileDevice::Permissions()); // group, other: nothing
        QVERIFY(QFileInfo(runtime + QStringLiteral("/trainyard")).isDir());

        QVERIFY(QFile::setPermissions(runtime, QFileDevice::Permissions(0x7755))); // rwxr-xr-x
        QCOMPARE(runIn(&out, &err), 0);
        QCOMPARE(QFileInfo(runtime).permissions() & 0x0077, QFileDevice::Permissions());

        QVERIFY(QDir(runtime).removeRecursively());
        QVERIFY(QFile::link(tmp.path(), runtime));
        err.clear();
        QCOMPARE(runIn(&out, &err), 2);
        QVERIFY2(err.contains(runtime.toUtf8() + ": a symbolic link, not a folder"), err.constData());
        QVERIFY2(err.contains("set XDG_RUNTIME_DIR"), err.constData());
    }

    // `trainyard pause|resume|stop FILE RUN` while `trainyard run` holds the
    // experiment: that orchestrator acts on the one run (the other trains
    // on), a request whose token is not the live run's acts on nothing, and
    // with nothing holding the experiment the command says so.
    void oneRunIsControlledFromTheCommandLine()
    {
        QString root;
        const QString file =
            writeExperiment({lane(QStringLiteral("cpu"), 2,
                                  {fakeSpec(QStringLiteral("c1"), 4000, 5), fakeSpec(QStringLiteral("c2"), 4000, 5)})},
                            &root);
        auto p = start({QStringLiteral("run"), file});
        QByteArray out;
        QTRY_VERIFY_WITH_TIMEOUT(
            (out += p->readAllStandardOutput()).contains("c1: running") && out.contains("c2: running"), 10000);
        const QString c1Metrics = root + QStringLiteral("/c1/metrics.jsonl");
        const QString c2Metrics = root + QStringLiteral("/c2/metrics.jsonl");

        auto control = [&](const QStringList &args, QByteArray *said = nullptr) {
            auto c = start(args);
            QByteArray cout, cerr;
            const int status = finish(c.get(), &cout, &cerr, 20000);
            if (said) {
                *said = cout + cerr;
            }
            return status;
        };
        QByteArray said;
        QCOMPARE(control({QStringLiteral("pause"), file, QStringLiteral("c1")}, &said), 0);
        QVERIFY2(said.contains("c1 paused"), said.constData());
        // Two heartbeats after the pause (500 ms apart): its loop has seen it, steps in flight landed.
        const int beats = countLines(c1Metrics, "heartbeat");
        QTRY_VERIFY_WITH_TIMEOUT(countLines(c1Metrics, "heartbeat") >= beats + 2, 5000);
        const int pausedAt = countLines(c1Metrics, "metric");
        const int otherAt = countLines(c2Metrics, "metric");
        // c1's loop went round again while c2, at the same pace, took 20 steps.
        QTRY_VERIFY_WITH_TIMEOUT(
            countLines(c1Metrics, "heartbeat") >= beats + 3 && countLines(c2Metrics, "metric") >= otherAt + 20, 5000);
        QCOMPARE(countLines(c1Metrics, "metric"), pausedAt);
        QVERIFY(countLines(c2Metrics, "metric") > otherAt); // the other run trains on

        QCOMPARE(control({QStringLiteral("resume"), file, QStringLiteral("c1")}, &said), 0);
        QTRY_VERIFY_WITH_TIMEOUT(countLines(c1Metrics, "metric") > pausedAt, 5000);

        QCOMPARE(control({QStringLiteral("stop"), file, QStringLiteral("nope")}, &said), 2);
        QVERIFY2(said.contains("no run named \"nope\" (its runs: c1, c2)"), said.constData());

        // A token that is not the live run's (the state file edited, still
        // the user's 0600 file): the orchestrator acts on nothing.
        const QString stateFile = root + QStringLiteral("/.trainyard-state.json");
        const QByteArray state = readFile(stateFile);
        QJsonObject forged = QJsonDocument::fromJson(state).object();
        QJsonObject runs = forged.value(QStringLiteral("runs")).toObject();
        QJsonObject c2 = runs.value(QStringLiteral("c2")).toObject();
        c2.insert(QStringLiteral("token"), QString(64, QLatin1Char('0')));
        runs.insert(QStringLiteral("c2"), c2);
        forged.insert(QStringLiteral("runs"), runs);
        QVERIFY(writeFile(stateFile, QJsonDocument(forged).toJson()));
        QVERIFY(QFile::setPermissions(stateFile, QFileDevice::ReadOwner | QFileDevice::WriteOwner));
        QCOMPARE(control({QStringLiteral("stop"), file, QStringLiteral("c2")}, &said), 1);
        QVERIFY2(said.contains("c2 is not live in"), said.constData());
        // One others could write is not believed at all.
        QVERIFY(QFile::setPermissions(stateFile, QFileDevice::Permissions(0x6666)));
        QCOMPARE(control({QStringLiteral("stop"), file, QStringLiteral("c2")}, &said), 1);
        QVERIFY2(said.contains("nothing was asked"), said.constData());
        QVERIFY(writeFile(stateFile, state));
        QVERIFY(QFile::setPermissions(stateFile, QFileDevice::ReadOwner | QFileDevice::WriteOwner));

        // A request that is not one is answered, and changes nothing.
        {
            QLocalSocket socket;
            socket.connectToServer(ControlServer::socketPathFor(MetricsServer::defaultSocketPath(root)));
            QVERIFY(socket.waitForConnected(5000));
            socket.write("{\"run\": \"c2\", \"action\": \"stop\"}\n");
            QTRY_VERIFY_WITH_TIMEOUT(socket.canReadLine() || (socket.waitForReadyRead(100) && socket.canReadLine()),
                                     5000);
            QVERIFY(socket.readLine().contains("\"ok\":false"));
        }

        QCOMPARE(control({QStringLiteral("stop"), file, QStringLiteral("c1")}, &said), 0);
        QVERIFY2(said.contains("stopping c1"), said.constData());
        QTRY_COMPARE_WITH_TIMEOUT(
            readJsonFile(root + QStringLiteral("/c1/status.json")).value(QStringLiteral("state")).toString(),
            QStringLiteral("stopped"), 10000);
        QCOMPARE(readJsonFile(root + QStringLiteral("/c1/status.json")).value(QStringLiteral("exit_code")).toInt(), 4);
        QVERIFY(!QFileInfo::exists(root + QStringLiteral("/c2/status.json"))); // still training
        QCOMPARE(control({QStringLiteral("stop"), file, QStringLiteral("c1")}, &said), 1);
        QVERIFY2(said.contains("run \"c1\" is not running (its status.json says stopped)"), said.constData());

        // Nothing holds the experiment: c2 trains on, nobody to ask.
        p->kill();
        p->waitForFinished(5000);
        QCOMPARE(control({QStringLiteral("pause"), file, QStringLiteral("c2")}, &said), 1);
        QVERIFY2(said.contains("no Trainyard holds this experiment now"), said.constData());
        QVERIFY2(said.contains("reattaches"), said.constData());
        // Run again: it reattaches to c2 and starts c1 from its checkpoint;
        // both stopped by one command, the reattached one too.
        auto again = start({QStringLiteral("run"), file});
        QByteArray out2;
        QTRY_VERIFY_WITH_TIMEOUT((out2 += again->readAllStandardOutput()).contains("c1: running"), 10000);
        QCOMPARE(control({QStringLiteral("stop"), file, QStringLiteral("c1"), QStringLiteral("c2")}, &said), 0);
        QVERIFY2(said.contains("stopping c1") && said.contains("stopping c2"), said.constData());
        QCOMPARE(finish(again.get(), &out2), 1);
        QVERIFY2(out2.contains("0 of 2 finished"), out2.constData());
        QCOMPARE(readJsonFile(root + QStringLiteral("/c2/status.json")).value(QStringLiteral("state")).toString(),
                 QStringLiteral("stopped"));
    }

    // Rerunning a file whose runs all ended starts nothing, and says so
    // instead of printing the old failures as news; --retry-failed is named.
    void aRerunThatStartsNothingSaysSo()
    {
        const QString file = writeExperiment({lane(
            QStringLiteral("cpu"), 2,
            {fakeSpec(QStringLiteral("ok"), 10), fakeSpec(QStringLiteral("ko"), 10, 5, QStringLiteral("fail"), 3)})});
        auto p = start({QStringLiteral("run"), file});
        QByteArray out;
        QCOMPARE(finish(p.get(), &out), 1);
        QVERIFY2(!out.contains("nothing was started"), out.constData());
        p = start({QStringLiteral("run"), file});
        out.clear();
        QCOMPARE(finish(p.get(), &out), 1);
        QVERIFY2(out.contains("nothing was started: every run of") && out.contains("had ended already"),
                 out.constData());
        QVERIFY2(out.contains("`trainyard run --retry-failed " + file.toUtf8() + "` retries the 1 that failed"),
                 out.constData());
        p = start({QStringLiteral("run"), QStringLiteral("--retry-failed"), file});
        out.clear();
        QCOMPARE(finish(p.get(), &out), 1); // it fails again, but it was started
        QVERIFY2(!out.contains("nothing was started"), out.constData());
        QVERIFY2(out.contains("ko: running"), out.constData());
    }

    void killedOrchestratorLosesNoLineOnRerun()
    {
        QString root;
        const QString file =
            writeExperiment({lane(QStringLiteral("cpu"), 2,
                                  {fakeSpec(QStringLiteral("k1"), 300, 8), fakeSpec(QStringLiteral("k2"), 300, 8)})},
                            &root);
        auto p = start({QStringLiteral("run"), file});
        QByteArray out;
        QTRY_VERIFY_WITH_TIMEOUT(
            (out += p->readAllStandardOutput()).contains("k2: running") && out.contains("k1: running"), 10000);
        p->kill(); // the orchestrator dies; its workers train on
        p->waitForFinished(5000);

        auto again = start({QStringLiteral("run"), file});
        QByteArray out2;
        QCOMPARE(finish(again.get(), &out2), 0);
        QVERIFY2(out2.contains("2 of 2 finished"), out2.constData());
        for (const char *name : {"k1", "k2"}) {
            const QString dir = root + QLatin1Char('/') + QLatin1String(name);
            QCOMPARE(countLines(dir + QStringLiteral("/metrics.jsonl"), "metric"), 300);
            QCOMPARE(readJsonFile(dir + QStringLiteral("/status.json")).value(QStringLiteral("state")).toString(),
                     QStringLiteral("finished"));
        }
    }
};

QTEST_GUILESS_MAIN(TestHeadless)
#include "tst_headless.moc"
