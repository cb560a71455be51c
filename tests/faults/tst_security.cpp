// Input validation and local security of the orchestrator: run names and
// planted symbolic links cannot take a path out of the runs root; the
// metrics socket is private and demands a token in time; TCP listens on
// 127.0.0.1 only; tokens are random and never written to files; experiment
// files cannot name a program; hostile experiment files of every kind get a
// message and an exit status from 1 to 127 from `trainyard run`.
//
// Each test function's first comment line ("Fault: ... | User sees: ... |
// Kept: ...") feeds docs/reliability.md.

#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/ingest/metricsserver.h"
#include "orchestration/launch/workerprocess.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"
#include "protocol/protocol.h"
#include "tests/helpers/buildprograms.h"
#include "tests/orchestration/testutil.h"

#include <QDirIterator>
#include <QHostAddress>
#include <QLocalSocket>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace trainyard;
using namespace trainyard::test;

namespace {

mode_t modeOf(const QString &path)
{
    struct stat st
    {};
    if (::lstat(QFile::encodeName(path).constData(), &st) != 0) {
        return 0;
    }
    return st.st_mode & 07777;
}

// Every file under `dir`, relative, sorted.
QStringList tree(const QString &dir)
{
    QStringList out;
    QDirIterator it(dir, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        out << QDir(dir).relativeFilePath(it.next());
    }
    out.sort();
    return out;
}

// JSON written with ' for " (keeps the test data readable, and moc's
// tokenizer away from raw strings).
QByteArray j(const char *text)
{
    return QByteArray(text).replace('\'', '"');
}

QByteArray fileBytes(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestSecurity : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Fault: run names that try to leave the runs root ("..", "../x", "/etc", "a/b", "a\n", ".hidden", 101 characters, a name taken from model.type "../../x") | User sees: the experiment is refused with "lanes[0].runs[0].name: expected a name of 1–100 letters..." | Kept: nothing is created or deleted outside the runs root
    void runNamesCannotLeaveTheRunsRoot()
    {
        const QStringList bad{QString(),
                              QStringLiteral("."),
                              QStringLiteral(".."),
                              QStringLiteral("../x"),
                              QStringLiteral("/etc"),
                              QStringLiteral("a/b"),
                              QStringLiteral("a\\b"),
                              QStringLiteral("a\n"),
                              QStringLiteral("\na"),
                              QStringLiteral(".hidden"),
                              QString(101, QLatin1Char('a')),
                              QStringLiteral("a b"),
                              QStringLiteral("é"),
                              QStringLiteral("a\u0000b"),
                              QStringLiteral("~")};
        QTemporaryDir dir;
        RunStore store(dir.filePath(QStringLiteral("runs")));
        QVERIFY(store.ensureRoot(nullptr));
        for (const QString &name : bad) {
            QVERIFY2(!isSafeRunName(name), qPrintable(name));
            QVERIFY(store.runDir(name).isEmpty());
            QString error;
            QVERIFY(!store.prepareRunDir(name, QJsonObject(), &error));
            QVERIFY(!error.isEmpty());
            QVERIFY(!store.clearRunDir(name));
        }
        QVERIFY(QDir(dir.path()).exists());
        QCOMPARE(tree(dir.path()), QStringList{QStringLiteral("runs")});

        for (const QString &name : {QStringLiteral("../x"), QStringLiteral("a\n")}) {
            QJsonObject spec = fakeSpec(name);
            QStringList errors;
            QVERIFY(!Experiment::fromJson(
                experimentJson(QStringLiteral("e"), QString(), {lane(QStringLiteral("cpu"), 1, {spec})}), &errors));
            QVERIFY2(errors.join(QString()).contains(QStringLiteral("runs[0].name")),
                     qPrintable(errors.join(QString())));
        }
        // A name derived from the model type, or grown past 100 characters by "-N".
        QJsonObject fromType = fakeSpec(QStringLiteral("x"));
        fromType.remove(QStringLiteral("name"));
        fromType.insert(QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("../../x")}});
        QJsonObject longName = withRepeat(fakeSpec(QString(99, QLatin1Char('a'))), 12);
        for (const QJsonObject &spec : {fromType, longName}) {
            QStringList errors;
            QVERIFY(!Experiment::fromJson(
                experimentJson(QStringLiteral("e"), QString(), {lane(QStringLiteral("cpu"), 1, {spec})}), &errors));
            QVERIFY2(errors.join(QString()).contains(QStringLiteral("runs[0].name")),
                     qPrintable(errors.join(QString())));
        }
        // The experiment's own name picks the default runs root.
        QStringList errors;
        QVERIFY(!Experiment::fromJson(experimentJson(QStringLiteral("../up"), QString(), {}), &errors));
    }

    // Fault: symbolic links planted in the runs root (a run folder that links to another folder; metrics.jsonl / worker.log linking to a file elsewhere) | User sees: a fresh start replaces the planted link by a real folder; a resume from checkpoint fails with "... is a symbolic link; Trainyard does not follow links in run folders" | Kept: the link targets are neither written nor deleted
    void plantedSymlinksAreNotFollowed()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        QTemporaryDir dir;
        const QString outside = dir.filePath(QStringLiteral("outside"));
        QVERIFY(QDir().mkpath(outside));
        QVERIFY(writeFile(outside + QStringLiteral("/precious.txt"), "keep me\n"));
        const QString root = dir.filePath(QStringLiteral("runs"));
        // runs/linked -> outside (a whole run folder; a fresh start clears it)
        QVERIFY(QDir().mkpath(root));
        QVERIFY(QFile::link(outside, root + QStringLiteral("/linked")));
        // runs/files: an interrupted run with a checkpoint (so it resumes) whose
        // metrics.jsonl and worker.log link to outside/precious.txt
        QVERIFY(QDir().mkpath(root + QStringLiteral("/files/checkpoints")));
        QVERIFY(writeFile(root + QStringLiteral("/files/checkpoints/fake.ckpt"), "3 0.1\n"));
        QVERIFY(writeFile(root + QStringLiteral("/files/spec.json"),
                          QJsonDocument(fakeSpec(QStringLiteral("files"), 5, 1)).toJson())); // its own spec
        QVERIFY(QFile::link(outside + QStringLiteral("/precious.txt"), root + QStringLiteral("/files/worker.log")));
        QVERIFY(QFile::link(outside + QStringLiteral("/precious.txt"), root + QStringLiteral("/files/metrics.jsonl")));
        const QStringList outsideBefore = tree(outside);

        const Experiment ex = experiment(experimentJson(
            QStringLiteral("links"), root,
            {lane(QStringLiteral("cpu"), 2,
                  {fakeSpec(QStringLiteral("linked"), 5, 1), fakeSpec(QStringLiteral("files"), 5, 1)})}));
        QStringList errors;
        Session session;
        QVERIFY2(session.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        Orchestrator *orch = session.orchestrator();
        orch->supervisor()->setWorkerProgram(fakeWorker());
        const RunId linked = orch->runs()->findByName(QStringLiteral("linked"));
        const RunId files = orch->runs()->findByName(QStringLiteral("files"));
        QCOMPARE(orch->runs()->value(files).state, RunState::Stopped); // interrupted, has a checkpoint
        QVERIFY(orch->runActions()->retryRun(files, /*fromCheckpoint=*/true));
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 10000);

        QCOMPARE(tree(outside), outsideBefore);
        QCOMPARE(fileBytes(outside + QStringLiteral("/precious.txt")), QByteArray("keep me\n"));
        // Fresh start: the link itself was removed and a real folder made.
        QCOMPARE(orch->runs()->value(linked).state, RunState::Finished);
        QVERIFY(!QFileInfo(root + QStringLiteral("/linked")).isSymLink());
        QVERIFY(QFileInfo(root + QStringLiteral("/linked/metrics.jsonl")).isFile());
        // Resume: refused, nothing written through the links.
        const RunInfo r = orch->runs()->value(files);
        QCOMPARE(r.state, RunState::Failed);
        QVERIFY2(r.message.contains(QStringLiteral("symbolic link")), qPrintable(r.message));
        QVERIFY(QFileInfo(root + QStringLiteral("/files/metrics.jsonl")).isSymLink());
    }

    // Fault: other local users and the socket (folder permissions, socket permissions) | User sees: nothing; the socket folder is 0700 (an existing looser one is tightened) and the socket 0600 | Kept: only this user can connect
    void socketFolderAndSocketArePrivate()
    {
        QTemporaryDir dir;
        const QString folder = dir.filePath(QStringLiteral("sock"));
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(::chmod(QFile::encodeName(folder).constData(), 0777) == 0);
        MetricsServer server;
        QString error;
        QVERIFY2(server.listen(folder + QStringLiteral("/m.sock"), &error), qPrintable(error));
        QCOMPARE(modeOf(folder), mode_t(0700));
        QCOMPARE(modeOf(folder + QStringLiteral("/m.sock")), mode_t(0600));
        // The default location of a session's socket too.
        const QString path = MetricsServer::defaultSocketPath(dir.path());
        MetricsServer second;
        QVERIFY2(second.listen(path, &error), qPrintable(error));
        QCOMPARE(modeOf(QFileInfo(path).absolutePath()), mode_t(0700));
        QCOMPARE(modeOf(path), mode_t(0600));
    }

    // Fault: a connection that sends no hello, a wrong token, or another run's token under its own name | User sees: "connection dropped: no hello within 300 ms" / "wrong token"; nothing reaches the run | Kept: the run's curves untouched
    void connectionsWithoutTheRightTokenAreDropped()
    {
        QTemporaryDir dir;
        MetricsServer server;
        server.setHelloTimeout(300);
        QVERIFY(server.listen(dir.filePath(QStringLiteral("m.sock"))));
        int accepted = 0;
        server.setHandler([&](RunId, const MetricRecord &) { ++accepted; });
        const QString tokenA = server.registerRun(1, QStringLiteral("a"));
        server.registerRun(2, QStringLiteral("b"));
        QSignalSpy dropped(&server, &MetricsServer::connectionDropped);

        // Silent: dropped after the hello timeout.
        QLocalSocket silent;
        silent.connectToServer(server.socketPath());
        QVERIFY(silent.waitForConnected(2000));
        QTRY_COMPARE_WITH_TIMEOUT(silent.state(), QLocalSocket::UnconnectedState, 3000);

        auto helloWith = [&](const QString &run, const QString &token) {
            nlohmann::json hello = protocol::hello(run.toStdString(), token.toStdString(), 1234, "cpu", 0.0);
            QLocalSocket s;
            s.connectToServer(server.socketPath());
            if (!s.waitForConnected(2000)) {
                return false;
            }
            const std::string line = protocol::encode(hello) + protocol::encode(protocol::metric(1, 0, 0.5, 0.1));
            s.write(line.data(), qint64(line.size()));
            s.flush();
            return QTest::qWaitFor([&] { return s.state() == QLocalSocket::UnconnectedState; }, 3000);
        };
        QVERIFY(helloWith(QStringLiteral("a"), QString(64, QLatin1Char('0')))); // wrong token
        QVERIFY(helloWith(QStringLiteral("b"), tokenA));                        // a's token, b's name
        QVERIFY(helloWith(QStringLiteral("a"), tokenA.left(63)));               // almost
        QCOMPARE(accepted, 0);
        QVERIFY(dropped.count() >= 4);
        QCOMPARE(server.isConnected(1), false);
    }

    // Fault: a TCP listener (for workers on other hosts in a later version) | User sees: it binds 127.0.0.1 only, and a TCP connection without the run's token is dropped | Kept: runs untouched
    void tcpListensOnLoopbackAndNeedsTokens()
    {
        MetricsServer server;
        server.setHelloTimeout(300);
        QString error;
        QVERIFY2(server.listenTcp(0, &error), qPrintable(error));
        const QTcpServer *tcp = server.findChild<QTcpServer *>();
        QVERIFY(tcp);
        QCOMPARE(tcp->serverAddress(), QHostAddress(QHostAddress::LocalHost));
        int accepted = 0;
        server.setHandler([&](RunId, const MetricRecord &) { ++accepted; });
        server.registerRun(1, QStringLiteral("a"));
        QTcpSocket s;
        s.connectToHost(QHostAddress::LocalHost, server.tcpPort());
        QVERIFY(s.waitForConnected(2000));
        const std::string line = protocol::encode(protocol::hello("a", std::string(64, 'f'), 1, "cpu", 0.0));
        s.write(line.data(), qint64(line.size()));
        QTRY_COMPARE_WITH_TIMEOUT(s.state(), QAbstractSocket::UnconnectedState, 3000);
        QCOMPARE(accepted, 0);
    }

    // Fault: guessable or leaked tokens | User sees: nothing; each run gets 256 random bits (QRandomGenerator::system, the OS CSPRNG) as 64 hex digits | Kept: the token appears in no run file (metrics.jsonl, worker.log, status.json, spec.json) and not on the output of `trainyard run`
    void tokensAreRandomAndNeverWritten()
    {
        MetricsServer server;
        QSet<QString> tokens;
        const QRegularExpression hex(QRegularExpression::anchoredPattern(QStringLiteral("[0-9a-f]{64}")));
        for (int i = 0; i < 1000; ++i) {
            const QString t = server.registerRun(i + 1, QStringLiteral("r%1").arg(i));
            QVERIFY2(hex.match(t).hasMatch(), qPrintable(t));
            tokens.insert(t);
        }
        QCOMPARE(tokens.size(), 1000);

        const QString realWorker = qEnvironmentVariable("TRAINYARD_WORKER");
        if (realWorker.isEmpty() || !QFileInfo(realWorker).isExecutable()) {
            QSKIP("TRAINYARD_WORKER is not set: the file check needs the real worker");
        }
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("exp.json"));
        const QJsonObject spec{
            {QStringLiteral("name"), QStringLiteral("tok")},
            {QStringLiteral("model"),
             QJsonObject{{QStringLiteral("type"), QStringLiteral("transe")}, {QStringLiteral("dim"), 8}}},
            {QStringLiteral("data"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("synthetic-kg")},
                                                 {QStringLiteral("entities"), 30},
                                                 {QStringLiteral("relations"), 2},
                                                 {QStringLiteral("triples"), 200}}},
            {QStringLiteral("train"), QJsonObject{{QStringLiteral("epochs"), 2}, {QStringLiteral("batch_size"), 32}}},
            {QStringLiteral("checkpoint"), QJsonObject{{QStringLiteral("every_steps"), 3}}},
            {QStringLiteral("report"), QJsonObject{{QStringLiteral("every_steps"), 1}}}};
        QVERIFY(
            writeFile(file, QJsonDocument(experimentJson(QStringLiteral("tokens"), dir.filePath(QStringLiteral("runs")),
                                                         {lane(QStringLiteral("cpu"), 1, {spec})}))
                                .toJson()));
        QProcess run;
        run.setProcessChannelMode(QProcess::MergedChannels);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TRAINYARD_WORKER"), realWorker);
        run.setProcessEnvironment(env);
        run.start(buildProgram("TRAINYARD_BIN"), {QStringLiteral("run"), file});
        // The token of the live run, read from the (0600) state file while it trains.
        QString token;
        qint64 pid = 0;
        RunStore store(dir.filePath(QStringLiteral("runs")));
        QTRY_VERIFY_WITH_TIMEOUT(!(token = store.readState().value(QStringLiteral("tok")).token).isEmpty()
                                     || run.state() == QProcess::NotRunning,
                                 30000);
        pid = store.readState().value(QStringLiteral("tok")).pid;
        // What every local user can read of the live worker: its command line.
        const QByteArray cmdline = fileBytes(QStringLiteral("/proc/%1/cmdline").arg(pid));
        QVERIFY2(token.isEmpty() || !cmdline.contains(token.toLatin1()), cmdline.constData());
        QVERIFY(run.waitForFinished(60000));
        const QByteArray output = run.readAll();
        QCOMPARE(run.exitCode(), 0);
        QVERIFY2(!token.isEmpty(), "the run ended before its token could be read");
        QCOMPARE(modeOf(dir.filePath(QStringLiteral("runs/.trainyard-state.json"))), mode_t(0600));
        QVERIFY(!output.contains(token.toLatin1()));
        const QString runDir = store.runDir(QStringLiteral("tok"));
        for (const QString &name : {QStringLiteral("metrics.jsonl"), QStringLiteral("worker.log"),
                                    QStringLiteral("status.json"), QStringLiteral("spec.json")}) {
            const QByteArray bytes = fileBytes(runDir + QLatin1Char('/') + name);
            QVERIFY2(!bytes.isEmpty() || name == QStringLiteral("worker.log"), qPrintable(name));
            QVERIFY2(!bytes.contains(token.toLatin1()), qPrintable(name));
        }
    }

    // Fault: an experiment file that names a program ("worker", "program", "command" keys; shell text in paths) | User sees: "unknown key \"worker\" ..." at load | Kept: only trainyard-worker (TRAINYARD_WORKER or beside trainyard) is ever started, from an argument list, never a shell
    void experimentsCannotNamePrograms()
    {
        QStringList errors;
        QJsonObject top = experimentJson(QStringLiteral("p"), QString(),
                                         {lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("a"))})});
        top.insert(QStringLiteral("worker"), QStringLiteral("/bin/sh"));
        QVERIFY(!Experiment::fromJson(top, &errors));
        QVERIFY2(errors.join(QString()).contains(QStringLiteral("unknown key \"worker\"")),
                 qPrintable(errors.join(QString())));

        QJsonObject l = lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("a"))});
        l.insert(QStringLiteral("program"), QStringLiteral("/bin/sh"));
        QVERIFY(!Experiment::fromJson(experimentJson(QStringLiteral("p"), QString(), {l}), &errors));
        QVERIFY2(errors.join(QString()).contains(QStringLiteral("unknown key \"program\"")),
                 qPrintable(errors.join(QString())));

        QJsonObject spec = fakeSpec(QStringLiteral("a"));
        spec.insert(QStringLiteral("command"), QStringLiteral("touch /tmp/pwned"));
        QVERIFY(!Experiment::fromJson(
            experimentJson(QStringLiteral("p"), QString(), {lane(QStringLiteral("cpu"), 1, {spec})}), &errors));
        QVERIFY2(errors.join(QString()).contains(QStringLiteral("unknown key \"command\"")),
                 qPrintable(errors.join(QString())));

        // The launch itself: the worker program and an argument list.
        WorkerProcess::Launch launch;
        launch.program = QStringLiteral("/x/trainyard-worker");
        launch.specPath = QStringLiteral("/r/a; rm -rf ~/spec.json");
        launch.runDir = QStringLiteral("/r/$(touch x)");
        launch.device = Device::cpu();
        const QStringList args = launch.arguments();
        QVERIFY(args.contains(launch.specPath)); // one argument, never parsed by a shell
        QVERIFY(args.contains(launch.runDir));
    }

    // Fault: another local user reads a worker's command line (ps, /proc/PID/cmdline) | User sees: nothing: the token is not there | Kept: the token travels in the worker's environment (/proc/PID/environ is readable by its own user only)
    void tokenNotOnCommandLine()
    {
        WorkerProcess::Launch launch;
        launch.program = QStringLiteral("/x/trainyard-worker");
        launch.specPath = QStringLiteral("/r/spec.json");
        launch.runDir = QStringLiteral("/r");
        launch.device = Device::cpu();
        launch.token = QStringLiteral("secret-token-0123456789");
        for (const QString &arg : launch.arguments()) {
            QVERIFY2(!arg.contains(launch.token) && arg != QStringLiteral("--token"), qPrintable(arg));
        }
    }

    // Fault: hostile experiment files: empty, not JSON, 20 MB, nested 100000 deep, wrong types, NUL bytes, invalid UTF-8, weird Unicode, duplicate keys, repeat 10^9, 20000 runs, 5000 lanes, a runs root that cannot be created, names with "..", an untrusted cluster worker, ssh_config or sbatch option, ssh host or user "-o..." | User sees: `trainyard run` exits with a status from 1 to 127 and a message naming the file (and the JSON path), within seconds | Kept: no file is written outside the runs root; nothing is started
    void hostileExperimentFiles_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        const QByteArray run = j("{'name':'r','model':{'type':'fake'}}");
        auto lanes = [](const QByteArray &runs) {
            return j("{'name':'h','runs_root':'runs','lanes':[{'device':'cpu','runs':[") + runs + "]}]}";
        };
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("not-json") << QByteArray("name: x\n");
        QTest::newRow("array") << QByteArray("[1,2,3]");
        QTest::newRow("huge-20MB") << (QByteArray(j("{'name':'h','lanes':[],'pad':'")) + QByteArray(20 << 20, 'x')
                                       + "\"}");
        QTest::newRow("deep-100000") << (QByteArray(j("{'name':'h','lanes':")) + QByteArray(100000, '[')
                                         + QByteArray(100000, ']') + "}");
        QTest::newRow("wrong-types") << QByteArray(j("{'name':7,'runs_root':[],'lanes':{'device':1}}"));
        QTest::newRow("lane-wrong-types")
            << QByteArray(j("{'name':'h','lanes':[{'device':'gpu0','slots':'2','runs':{}}]}"));
        QTest::newRow("nul-bytes") << QByteArray("{\"name\":\"h\0\",\"lanes\":[]}", 24);
        QTest::newRow("nul-escaped") << lanes(j("{'name':'r\\u0000x','model':{'type':'fake'}}"));
        QTest::newRow("invalid-utf8") << QByteArray("{\"name\":\"h\xff\xfe\",\"lanes\":[]}");
        QTest::newRow("rtl-and-emoji-name")
            << lanes("{\"name\":\"r\xe2\x80\xae\xf0\x9f\x98\x80\",\"model\":{\"type\":\"fake\"}}");
        QTest::newRow("lone-surrogate") << lanes(j("{'name':'\\ud800','model':{'type':'fake'}}"));
        QTest::newRow("duplicate-keys") << QByteArray(j("{'name':'h','name':'../x','lanes':[],'lanes':[]}"));
        QTest::newRow("repeat-1e9") << lanes(j("{'name':'r','model':{'type':'fake'},'repeat':1000000000}"));
        QTest::newRow("repeat-negative") << lanes(j("{'name':'r','model':{'type':'fake'},'repeat':-1}"));
        QTest::newRow("repeat-float") << lanes(j("{'name':'r','model':{'type':'fake'},'repeat':2.5}"));
        QByteArray many;
        for (int i = 0; i < 20; ++i) {
            many += (i ? "," : "") + QByteArray(j("{'name':'r")) + QByteArray::number(i)
                    + j("','model':{'type':'fake'},'repeat':1000}");
        }
        QTest::newRow("20000-runs") << lanes(many);
        QByteArray lanes5000 = j("{'name':'h','runs_root':'runs','lanes':[");
        for (int i = 0; i < 5000; ++i) {
            lanes5000 += (i ? "," : "") + QByteArray(j("{'device':'cpu','slots':1000000,'runs':[")) + run + "]}";
        }
        QTest::newRow("5000-lanes-same-name") << (lanes5000 + "]}");
        QTest::newRow("slots-huge") << QByteArray(j("{'name':'h','lanes':[{'device':'cpu','slots':1e300,'runs':[]}]}"));
        QTest::newRow("runs-root-uncreatable")
            << QByteArray(j("{'name':'h','runs_root':'/proc/self/nope','lanes':[]}"));
        QTest::newRow("run-name-dotdot") << lanes(j("{'name':'..','model':{'type':'fake'}}"));
        QTest::newRow("run-name-from-type") << lanes(j("{'model':{'type':'../../escape'}}"));
        QTest::newRow("device-injection")
            << QByteArray(j("{'name':'h','lanes':[{'device':'cuda:0;touch x','runs':[]}]}"));
        QTest::newRow("bad-data-kind") << lanes(j("{'name':'r','model':{'type':'fake'},'data':{'kind':'/bin/sh'}}"));
        QTest::newRow("numbers-inf") << lanes(
            j("{'name':'r','model':{'type':'fake'},'train':{'epochs':1e999,'lr':-0}}"));
        // Keys that make something run (a cluster's worker, ssh_config,
        // sbatch options) and values that would reach ssh as options.
        auto cluster = [](const char *keys) {
            return j("{'name':'h','runs_root':'runs','clusters':[{'name':'c',") + j(keys)
                   + j("}],'lanes':[{'device':'slurm:c/debug','runs':[{'name':'r','model':{'type':'fake'}}]}]}");
        };
        QTest::newRow("cluster-worker-untrusted") << cluster("'worker':'/bin/sh'");
        QTest::newRow("ssh-config-proxycommand")
            << cluster("'reach':'ssh','host':'h','ssh_config':'/proc/self/cwd/evil_ssh_config','runs_root':'/r',"
                       "'worker':'/w'");
        QTest::newRow("extra-args-wrap-prefix") << cluster("'sbatch':{'extra_args':['--wr=touch pwned']}");
        QTest::newRow("extra-args-untrusted") << cluster("'sbatch':{'extra_args':['--comment=touch pwned']}");
        QTest::newRow("ssh-host-option") << cluster(
            "'reach':'ssh','host':'-oProxyCommand=touch pwned','runs_root':'/r','worker':'/w'");
        QTest::newRow("ssh-user-option") << cluster(
            "'reach':'ssh','host':'h','user':'-oProxyCommand=touch pwned','runs_root':'/r','worker':'/w'");
    }

    void hostileExperimentFiles()
    {
        QFETCH(QByteArray, bytes);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("hostile.json"));
        QVERIFY(writeFile(file, bytes));
        QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("rt"))));
        QVERIFY(::chmod(QFile::encodeName(dir.filePath(QStringLiteral("rt"))).constData(), 0700) == 0);
        QProcess run;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        // Confine the default runs root (AppDataLocation) and the socket to the temporary folder.
        env.insert(QStringLiteral("HOME"), dir.path());
        env.insert(QStringLiteral("XDG_DATA_HOME"), dir.filePath(QStringLiteral("data")));
        env.insert(QStringLiteral("XDG_RUNTIME_DIR"), dir.filePath(QStringLiteral("rt")));
        env.insert(QStringLiteral("TRAINYARD_WORKER"),
                   fakeWorker().isEmpty() ? QStringLiteral("/bin/false") : fakeWorker());
        run.setProcessEnvironment(env);
        run.setWorkingDirectory(dir.path()); // what a command of the file would write is seen below
        run.start(buildProgram("TRAINYARD_BIN"), {QStringLiteral("run"), file});
        QVERIFY(run.waitForFinished(30000));
        const QByteArray err = run.readAllStandardError();
        QCOMPARE(run.exitStatus(), QProcess::NormalExit);
        QVERIFY2(run.exitCode() >= 1 && run.exitCode() <= 127, qPrintable(QString::number(run.exitCode())));
        QVERIFY2(err.contains("trainyard: "), err.left(300).constData());
        QVERIFY2(err.size() < (1 << 20) || QByteArray(QTest::currentDataTag()) == "5000-lanes-same-name",
                 "a flood of messages");
        // Nothing outside the temporary folder's own places.
        for (const QString &path : tree(dir.path())) {
            QVERIFY2(path == QStringLiteral("hostile.json") || path.startsWith(QStringLiteral("runs"))
                         || path.startsWith(QStringLiteral("data")) || path.startsWith(QStringLiteral("rt")),
                     qPrintable(path));
            // No run folder was made: nothing was started.
            QVERIFY2(!path.contains(QStringLiteral("spec.json")), qPrintable(path));
        }
    }
};

QTEST_GUILESS_MAIN(TestSecurity)
#include "tst_security.moc"
