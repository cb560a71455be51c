// The scripts Trainyard sends to a host (core/orchestration/remote/
// remotescripts.cpp) run here under /bin/sh exactly as the remote shell
// gets them (each word single-quoted, as SlurmProcessRunner quotes them
// for ssh): hostile folder names stay values, a fresh start keeps an
// earlier folder, the launch detaches and records the exit status, verify
// refuses another process and signals the run's only, the poll's framed
// answer is read back byte for byte, nvidia-smi's rows are parsed. No
// sshd needed: this runs everywhere.

#include "orchestration/remote/remotegpus.h"
#include "orchestration/remote/remotemirror.h"
#include "orchestration/remote/remoterun.h"
#include "orchestration/remote/remotescripts.h"
#include "orchestration/runstore/receivedmetrics.h"
#include "orchestration/slurm/slurmjob.h"
#include "tests/helpers/buildprograms.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSet>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace trainyard;
namespace rs = trainyard::remotescripts;

namespace {

struct Ran
{
    int exitCode = -1;
    QByteArray out, err;
};

// As the remote shell runs it: one command line, every word quoted.
Ran runHere(const rs::Command &command, const QByteArray &input = {}, const QString &cwd = {},
            const QProcessEnvironment &env = {})
{
    QStringList words{SlurmJob::shellQuote(command.program)};
    for (const QString &a : command.arguments) {
        words << SlurmJob::shellQuote(a);
    }
    QProcess p;
    if (!env.isEmpty()) {
        p.setProcessEnvironment(env);
    }
    if (!cwd.isEmpty()) {
        p.setWorkingDirectory(cwd);
    }
    p.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), words.join(QLatin1Char(' '))});
    p.write(input);
    p.closeWriteChannel();
    p.waitForFinished(20000);
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The TCP ports something listens on here (state 0A in /proc/net/tcp*).
QSet<int> listeningPorts()
{
    QSet<int> ports;
    for (const char *table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
        QFile file{QString::fromLatin1(table)};
        if (!file.open(QIODevice::ReadOnly)) {
            continue;
        }
        for (const QByteArray &line : file.readAll().split('\n')) {
            const QList<QByteArray> fields = line.simplified().split(' ');
            if (fields.size() > 3 && fields.at(3) == "0A") {
                ports.insert(fields.at(1).split(':').value(1).toInt(nullptr, 16));
            }
        }
    }
    return ports;
}

} // namespace

class TestRemoteScripts : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void hostileNamesStayValues()
    {
        QTemporaryDir tmp;
        const QString root = tmp.filePath(QStringLiteral("root $(touch pwned) `id`"));
        const QString dir = root + QStringLiteral("/-rf ' \"; touch pwned2");
        const Ran r = runHere(rs::prepare(root, dir, false), QByteArrayLiteral("{\"name\":\"x\"}"), tmp.path());
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out.trimmed(), QByteArray("prepared"));
        QCOMPARE(readFile(dir + QStringLiteral("/spec.json")), QByteArray("{\"name\":\"x\"}"));
        QVERIFY(!QFile::exists(tmp.filePath(QStringLiteral("pwned"))));
        QVERIFY(!QFile::exists(tmp.filePath(QStringLiteral("pwned2"))));
        QVERIFY(QFileInfo(root + QStringLiteral("/.trainyard")).isDir());
    }

    void freshStartKeepsTheEarlierFolder()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        QVERIFY(runHere(rs::prepare(tmp.path(), dir, false), "1").exitCode == 0);
        QFile result(dir + QStringLiteral("/metrics.jsonl"));
        QVERIFY(result.open(QIODevice::WriteOnly));
        result.write("{\"type\":\"metric\"}\n");
        result.close();
        const Ran again = runHere(rs::prepare(tmp.path(), dir, false), "2");
        QVERIFY2(again.out.contains("kept " + dir.toUtf8() + ".attempt-1"), again.out.constData());
        QCOMPARE(readFile(dir + QStringLiteral(".attempt-1/metrics.jsonl")), QByteArray("{\"type\":\"metric\"}\n"));
        QVERIFY(!QFile::exists(dir + QStringLiteral("/metrics.jsonl")));
        // A resume keeps it where it is.
        QVERIFY(runHere(rs::prepare(tmp.path(), dir, true), "3").out.contains("prepared"));
        QVERIFY(!QFile::exists(dir + QStringLiteral(".attempt-2")));
        // A link in the folder's place is refused, never followed.
        QVERIFY(QFile::link(tmp.path(), tmp.filePath(QStringLiteral("linked"))));
        const Ran link = runHere(rs::prepare(tmp.path(), tmp.filePath(QStringLiteral("linked")), false), "4");
        QVERIFY(link.exitCode != 0);
        QVERIFY(link.err.contains("is a link"));
    }

    // A worker that has ended before the launch looks (a short run, or one
    // stopped at once) still started: the poll tells its end, never a
    // failed launch.
    void aWorkerEndedAtOnceStillStarted()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("quick"));
        QVERIFY(runHere(rs::prepare(tmp.path(), dir, false), "{}").exitCode == 0);
        const QByteArray env = rs::environmentText({{QStringLiteral("TRAINYARD_TOKEN"), QStringLiteral("quick-token")},
                                                    {QStringLiteral("TRAINYARD_RUN_DIR"), dir}});
        const Ran launched = runHere(
            rs::launch(dir, dir, {QStringLiteral("/bin/sh"), QStringLiteral("-c"), QStringLiteral("exit 0")}), env);
        QCOMPARE(launched.exitCode, 0);
        const QList<QByteArray> words = launched.out.trimmed().split(' ');
        QCOMPARE(words.size(), 4);
        QCOMPARE(words.at(0), QByteArray("started"));
        QVERIFY(words.at(1).toLongLong() > 0);
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(dir + QStringLiteral("/.trainyard-exit")), 15000);
        QCOMPARE(readFile(dir + QStringLiteral("/.trainyard-exit")).trimmed(), QByteArray("0"));
    }

    // A run of several GPUs on a host gets a rendezvous port that is free
    // there, not merely on the app's machine.
    void rendezvousPortIsFreeOnTheHost()
    {
        QTcpServer taken; // the port the app probed, in use "on the host"
        QVERIFY(taken.listen(QHostAddress::LocalHost, 0));
        QTcpServer next; // and the one after it, where it can be had
        const bool nextTaken = next.listen(QHostAddress::LocalHost, quint16(taken.serverPort() + 1));
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("ddp"));
        QVERIFY(runHere(rs::prepare(tmp.path(), dir, false), "{}").exitCode == 0);
        const QByteArray env =
            rs::environmentText({{QStringLiteral("TRAINYARD_TOKEN"), QStringLiteral("port-token")},
                                 {QStringLiteral("TRAINYARD_RUN_DIR"), dir},
                                 {QStringLiteral("MASTER_PORT"), QString::number(taken.serverPort())}});
        const QString script = QStringLiteral("echo $MASTER_PORT > \"$TRAINYARD_RUN_DIR/port\"");
        QCOMPARE(runHere(rs::launch(dir, dir, {QStringLiteral("/bin/sh"), QStringLiteral("-c"), script}), env).exitCode,
                 0);
        QTRY_VERIFY(QFile::exists(dir + QStringLiteral("/.trainyard-exit")));
        const int port = readFile(dir + QStringLiteral("/port")).trimmed().toInt();
        QVERIFY2(port > taken.serverPort(), qPrintable(QString::number(port)));
        QVERIFY2(!nextTaken || port > next.serverPort(), qPrintable(QString::number(port)));
        // Nothing listens on it. (Binding it to check could fail for no fault
        // of the script: another test's connection may use it as its own
        // local port meanwhile, which makes no listener.)
        QVERIFY2(!listeningPorts().contains(port), qPrintable(QString::number(port)));
    }

    // Detached, its exit status recorded; verify knows it by start time,
    // token and folder, and refuses a process without the token.
    // On a host too a run ends with its whole tree: the worker exits and
    // leaves a child in its session and one that made its own (found by
    // its token); the exit status is written only once both are gone.
    void theRunsTreeEndsWithIt()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("r"));
        QVERIFY(runHere(rs::prepare(tmp.path(), dir, false), "{}").exitCode == 0);
        const QByteArray env = rs::environmentText({{QStringLiteral("TRAINYARD_TOKEN"), QStringLiteral("tree-token")},
                                                    {QStringLiteral("TRAINYARD_RUN_DIR"), dir}});
        // A child that ignores SIGTERM in the session, and a setsid one.
        const QString script =
            QStringLiteral("trap '' TERM; sleep 300 & echo $! > \"$TRAINYARD_RUN_DIR/kept.pid\"; "
                           "setsid sleep 301 & echo $! > \"$TRAINYARD_RUN_DIR/own.pid\"; sleep 1; exit 3");
        const Ran launched =
            runHere(rs::launch(dir, dir, {QStringLiteral("/bin/sh"), QStringLiteral("-c"), script}), env);
        QCOMPARE(launched.exitCode, 0);
        QTRY_VERIFY(QFile::exists(dir + QStringLiteral("/own.pid"))
                    && QFile::exists(dir + QStringLiteral("/kept.pid")));
        const qint64 kept = readFile(dir + QStringLiteral("/kept.pid")).trimmed().toLongLong();
        const qint64 own = readFile(dir + QStringLiteral("/own.pid")).trimmed().toLongLong();
        QVERIFY(kept > 0 && own > 0);
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(dir + QStringLiteral("/.trainyard-exit")), 15000);
        QCOMPARE(readFile(dir + QStringLiteral("/.trainyard-exit")).trimmed(), QByteArray("3"));
        // Gone (or a zombie waiting for init) once the exit status is there.
        for (qint64 pid : {kept, own}) {
            const QByteArray stat = readFile(QStringLiteral("/proc/%1/stat").arg(pid));
            QVERIFY2(stat.isEmpty() || stat.mid(stat.lastIndexOf(')') + 2, 1) == "Z", stat.constData());
        }
    }

    void launchVerifyAndPoll()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("r"));
        QVERIFY(runHere(rs::prepare(tmp.path(), dir, false), "{}").exitCode == 0);
        const QByteArray env = rs::environmentText({{QStringLiteral("TRAINYARD_TOKEN"), QStringLiteral("tok'en")},
                                                    {QStringLiteral("TRAINYARD_RUN_DIR"), dir},
                                                    {QStringLiteral("BAD NAME"), QStringLiteral("x")}});
        QVERIFY(!env.contains("BAD NAME"));
        // A "program run": sh printing a line to metrics.jsonl, then sleeping.
        const QString script =
            QStringLiteral("echo '{\"type\":\"metric\",\"step\":1}' >> \"$TRAINYARD_RUN_DIR/metrics.jsonl\"; "
                           "echo hello; exec sleep 30");
        const Ran launched =
            runHere(rs::launch(dir, dir, {QStringLiteral("/bin/sh"), QStringLiteral("-c"), script}), env);
        QCOMPARE(launched.exitCode, 0);
        const QList<QByteArray> w = launched.out.trimmed().split(' ');
        QCOMPARE(w.value(0), QByteArray("started"));
        const qint64 pid = w.value(1).toLongLong();
        const qint64 ticks = w.value(2).toLongLong();
        const qint64 wrapper = w.value(3).toLongLong();
        QVERIFY(pid > 0 && ticks > 0 && wrapper > 0);
        QTRY_VERIFY(readFile(dir + QStringLiteral("/worker.log")).contains("hello"));

        // Not its token, not its start time: never signalled.
        QVERIFY(runHere(rs::verify(pid, ticks, dir, QString(), QStringLiteral("KILL")), "other\n")
                    .out.startsWith("notours pid"));
        QVERIFY(runHere(rs::verify(pid, ticks + 1, dir, QString(), QStringLiteral("KILL")), "tok'en\n")
                    .out.startsWith("gone pid"));
        // As a worker it is not this run's (its executable is sh).
        QVERIFY(runHere(rs::verify(pid, ticks, dir, QStringLiteral("/bin/false"), QString()), "tok'en\n")
                    .out.startsWith("notours"));
        QCOMPARE(::kill(pid_t(pid), 0), 0);
        // Ours, and its waiting sh proved (its parent, the launch's sh of dir).
        QCOMPARE(runHere(rs::verify(pid, ticks, dir, QString(), QString()), "tok'en\n").out.trimmed(),
                 "ours " + QByteArray::number(wrapper));
        // A waiting sh claimed for another folder's run is none of this one's.
        rs::PollRun other{tmp.filePath(QStringLiteral("other")), 0, 0, wrapper, 0, 0, false};
        QCOMPARE(rs::parsePoll(runHere(rs::poll(false, 1 << 20, {other})).out, 1).runs.first().state,
                 rs::RunReport::State::Gone);
        other.dir = dir; // the same pid for its own run: ending (its worker gone, its sh not yet)
        QCOMPARE(rs::parsePoll(runHere(rs::poll(false, 1 << 20, {other})).out, 1).runs.first().state,
                 rs::RunReport::State::Ending);

        // The poll: alive, the file's bytes from offset 0, framed.
        rs::PollRun run{dir, pid, ticks, wrapper, 0, 0, true};
        rs::PollReport report = rs::parsePoll(runHere(rs::poll(false, 1 << 20, {run})).out, 1);
        QVERIFY(report.complete);
        QCOMPARE(report.runs.first().state, rs::RunReport::State::Alive);
        QCOMPARE(report.runs.first().metrics, QByteArray("{\"type\":\"metric\",\"step\":1}\n"));
        QCOMPARE(report.runs.first().metricsSize, qint64(report.runs.first().metrics.size()));
        // From an offset, at most maxBytes a poll.
        run.metricsOffset = 8;
        report = rs::parsePoll(runHere(rs::poll(false, 8, {run})).out, 1);
        QCOMPARE(report.runs.first().metrics, QByteArray("\"metric\""));

        // Signalled only once verified; the waiting sh records 128+9.
        QCOMPARE(runHere(rs::verify(pid, ticks, dir, QString(), QStringLiteral("KILL")), "tok'en\n").out.trimmed(),
                 "signalled " + QByteArray::number(wrapper));
        QTRY_VERIFY(QFile::exists(dir + QStringLiteral("/.trainyard-exit")));
        report = rs::parsePoll(runHere(rs::poll(false, 1 << 20, {run})).out, 1);
        QCOMPARE(report.runs.first().state, rs::RunReport::State::Exited);
        QCOMPARE(report.runs.first().status, 128 + SIGKILL);
        QVERIFY(report.runs.first().freeKiB > 0);
    }

    void pollReadsNoLinkNorFifo_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("kind");
        for (const char *file : {"metrics.jsonl", "worker.log", ".trainyard-exit", "checkpoints", "checkpoints/c.pt"}) {
            for (const char *kind : {"link", "fifo"}) {
                QTest::addRow("%s is a %s", file, kind) << QString::fromLatin1(file) << QString::fromLatin1(kind);
            }
        }
    }
    // A file of a run folder on the host that is a link to another run's,
    // or a FIFO: the poll reads nothing of it and never waits on it.
    void pollReadsNoLinkNorFifo()
    {
        QFETCH(QString, file);
        QFETCH(QString, kind);
        QTemporaryDir tmp;
        const QString victim = tmp.filePath(QStringLiteral("victim"));
        const QString other = tmp.filePath(QStringLiteral("other"));
        for (const QString &d : {victim, other}) {
            QVERIFY(QDir().mkpath(d + QStringLiteral("/checkpoints")));
            QFile f(d + QStringLiteral("/metrics.jsonl"));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(d == other ? "OTHER\n" : "");
        }
        for (const char *name : {"worker.log", ".trainyard-exit", "checkpoints/c.pt"}) {
            QFile f(other + QLatin1Char('/') + QLatin1String(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("77\n");
        }
        const QString path = victim + QLatin1Char('/') + file;
        QDir(path).removeRecursively();
        QFile::remove(path);
        if (kind == QLatin1String("link")) {
            QVERIFY(QFile::link(other + QLatin1Char('/') + file, path));
        } else {
            QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        }
        QElapsedTimer timer;
        timer.start();
        const rs::PollReport report =
            rs::parsePoll(runHere(rs::poll(false, 1 << 20, {rs::PollRun{victim, 0, 0, 0, 0, 0, true}})).out, 1);
        QVERIFY(timer.elapsed() < 10000);
        QVERIFY(report.complete);
        const rs::RunReport &r = report.runs.first();
        QVERIFY2(r.state != rs::RunReport::State::Exited && r.status != 77, qPrintable(QString::number(r.status)));
        QVERIFY2(!r.metrics.contains("OTHER") && !r.log.contains("77"), r.metrics + r.log);
        if (file == QLatin1String("metrics.jsonl") || file == QLatin1String("worker.log")) {
            QCOMPARE(file == QLatin1String("worker.log") ? r.logSize : r.metricsSize, qint64(-2)); // refused, said
        }
        QVERIFY2(r.checkpoints.isEmpty(), qPrintable(r.checkpoints.join(QLatin1Char(','))));
    }

    void pollAnswerCutShortIsNotTrusted()
    {
        QCOMPARE(rs::parsePoll("R 0 alive -1\nM 0 100 100\nabc", 1).complete, false);
        QCOMPARE(rs::parsePoll("R 0 alive -1\nM 0 5 5\nabcE\n", 1).complete, false); // the end marker was bytes
        QCOMPARE(rs::parsePoll("R 0 alive -1\nM 0 3 3\nabcK 0 3\nL 0 0 0\nK 0 0\nE\n", 1).complete, true);
        QCOMPARE(rs::parsePoll("R 0 alive -1\nM 0 3 3\nabcL 0 0 0\nE\n", 1).complete, false); // no K after M
        QCOMPARE(rs::parsePoll("R 0 alive -1\nM 0 3 3\nabcK 0 4\nE\n", 1).complete, false);   // more than sent
        QCOMPARE(rs::parsePoll("R 7 alive -1\nE\n", 1).complete, false);                      // no such run
        QCOMPARE(rs::parsePoll("R 0 alive -1\nE\n", 2).complete, false); // run 1 not reported: not "gone"
        // Padded: 3 promised, 1 of them the file's.
        const rs::PollReport torn = rs::parsePoll(QByteArrayLiteral("R 0 alive -1\nM 0 9 3\na\0\0K 0 1\nE\n"), 1);
        QVERIFY(torn.complete);
        QCOMPARE(torn.runs.first().metrics, QByteArray("a"));
        QVERIFY(torn.runs.first().metricsTorn);
    }

    // Files there that are not what stat said: one that shrinks between
    // stat and the read (a stat that promises 100 bytes more stands in for
    // it) and a worker.log that is a link. The framing holds (every section
    // of the next run is read), the bytes are the file's own, a link's
    // target is never read.
    void pollFramingHoldsForHostileFiles()
    {
        QTemporaryDir tmp;
        const QString a = tmp.filePath(QStringLiteral("a"));
        const QString b = tmp.filePath(QStringLiteral("b"));
        QVERIFY(QDir().mkpath(a) && QDir().mkpath(b));
        QFile ma(a + QStringLiteral("/metrics.jsonl"));
        QVERIFY(ma.open(QIODevice::WriteOnly));
        ma.write("{\"step\":1}\n");
        ma.close();
        QFile mb(b + QStringLiteral("/metrics.jsonl"));
        QVERIFY(mb.open(QIODevice::WriteOnly));
        mb.write("{\"step\":7}\n");
        mb.close();
        // A link whose own length (its path, padded) is longer than its target.
        QFile secret(tmp.filePath(QStringLiteral("secret")));
        QVERIFY(secret.open(QIODevice::WriteOnly));
        secret.write("SECRET\n");
        secret.close();
        QVERIFY(QFile::link(tmp.path() + QString(200, QLatin1Char('/')) + QStringLiteral("secret"),
                            a + QStringLiteral("/worker.log")));
        QDir().mkpath(tmp.filePath(QStringLiteral("bin")));
        QFile shim(tmp.filePath(QStringLiteral("bin/stat")));
        QVERIFY(shim.open(QIODevice::WriteOnly));
        shim.write("#!/bin/sh\nfor f; do :; done\n"
                   "case $f in */a/metrics.jsonl) echo $(($(/usr/bin/stat -c %s -- \"$f\") + 100)); exit 0 ;; esac\n"
                   "exec /usr/bin/stat \"$@\"\n");
        shim.close();
        QFile::setPermissions(shim.fileName(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("PATH"),
                   tmp.filePath(QStringLiteral("bin")) + QLatin1Char(':') + env.value(QStringLiteral("PATH")));

        const rs::PollRun ra{a, 0, 0, 0, 0, 0, false};
        const rs::PollRun rb{b, 0, 0, 0, 0, 0, false};
        const Ran ran = runHere(rs::poll(false, 1 << 20, {ra, rb}), {}, {}, env);
        const rs::PollReport report = rs::parsePoll(ran.out, 2);
        QVERIFY2(report.complete, ran.out.constData());
        QCOMPARE(report.runs.at(0).metrics, QByteArray("{\"step\":1}\n"));
        QVERIFY(report.runs.at(0).metricsTorn);
        QCOMPARE(report.runs.at(0).logSize, qint64(-2)); // the link: not read
        QVERIFY(report.runs.at(0).log.isEmpty());
        QVERIFY(!ran.out.contains("SECRET"));
        QCOMPARE(report.runs.at(1).metrics, QByteArray("{\"step\":7}\n"));
        QVERIFY(!report.runs.at(1).metricsTorn);
        QCOMPARE(report.runs.at(1).state, rs::RunReport::State::Gone);

        // The mirror keeps what was read and is not told the file's size.
        RemoteRun run;
        run.spec.runDir = a;
        run.mirror = RemoteMirror(tmp.filePath(QStringLiteral("mirror")));
        QDir().mkpath(run.mirror.localDir());
        QString warning;
        QVERIFY(!run.mirrorReport(QStringLiteral("lab"), report.runs.at(0), &warning)); // not behind
        QCOMPARE(run.mirror.offset(RemoteMirror::File::Metrics), qint64(11));
        QVERIFY2(warning.contains(QStringLiteral("worker.log on host lab is a link")), qPrintable(warning));
    }

    // Temporaries are written with set -C after removing what is there: a
    // link planted in their place is never written through; a .trainyard
    // that is a link or not the user's is refused.
    void scriptsNeverWriteThroughALink()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("r"));
        QVERIFY(QDir().mkpath(dir));
        const QString victim = tmp.filePath(QStringLiteral("victim"));
        QFile v(victim);
        QVERIFY(v.open(QIODevice::WriteOnly));
        v.write("mine\n");
        v.close();
        QVERIFY(QFile::link(victim, dir + QStringLiteral("/spec.json.tmp")));
        QVERIFY(QFile::link(victim, dir + QStringLiteral("/config.json.tmp")));
        QCOMPARE(runHere(rs::prepare(tmp.path(), dir, true), "{\"a\":1}").exitCode, 0);
        QCOMPARE(runHere(rs::writeFile(dir, QStringLiteral("config.json")), "{\"b\":2}").exitCode, 0);
        QCOMPARE(readFile(victim), QByteArray("mine\n"));
        QCOMPARE(readFile(dir + QStringLiteral("/spec.json")), QByteArray("{\"a\":1}"));
        QCOMPARE(readFile(dir + QStringLiteral("/config.json")), QByteArray("{\"b\":2}"));

        // runs_root/.trainyard a link to another folder: not used.
        QTemporaryDir other;
        const QString root = tmp.filePath(QStringLiteral("root"));
        QVERIFY(QDir().mkpath(root));
        QVERIFY(QFile::link(other.path(), root + QStringLiteral("/.trainyard")));
        const Ran prepared = runHere(rs::prepare(root, root + QStringLiteral("/x"), false), "{}");
        QVERIFY(prepared.exitCode != 0);
        QVERIFY2(prepared.err.contains("is not a folder of this user's"), prepared.err.constData());
        const Ran socket = runHere(rs::readySocket(root, root + QStringLiteral("/.trainyard/s.sock")));
        QVERIFY(socket.exitCode != 0);
        const Ran check = runHere(rs::dataCheck(root, QStringLiteral("/bin/true")), "{}");
        QVERIFY(check.exitCode != 0);
        QVERIFY(QDir(other.path()).isEmpty());
    }

    void readySocketRemovesOnlyASocket()
    {
        QTemporaryDir tmp;
        const QString socket = tmp.filePath(QStringLiteral(".trainyard/x.sock"));
        QVERIFY(runHere(rs::readySocket(tmp.path(), socket)).out.contains("ready"));
        QCOMPARE(QFileInfo(tmp.filePath(QStringLiteral(".trainyard"))).permissions() & 0x0077, 0);
        QFile plain(socket);
        QVERIFY(plain.open(QIODevice::WriteOnly));
        plain.close();
        const Ran r = runHere(rs::readySocket(tmp.path(), socket));
        QVERIFY(r.exitCode != 0);
        QVERIFY(r.err.contains("is not a socket"));
        QVERIFY(QFile::exists(socket)); // left alone
    }

    // The poll asks ps about the GPU processes nvidia-smi lists: their user
    // (and session and group, which tell a run's child); a pid ps does not
    // know (another pid namespace's) has none.
    void pollNamesTheGpuProcessesUsers()
    {
        QTemporaryDir tmp;
        const QString smi = tmp.filePath(QStringLiteral("nvidia-smi"));
        const QByteArray me = QByteArray::number(QCoreApplication::applicationPid());
        QFile script(smi);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("#!/bin/sh\ncase \"$*\" in\n*--query-gpu=*) echo '0, GPU, 1, 2, 3, 4, GPU-a' ;;\n"
                     "*) printf 'GPU-a, "
                     + me + ", 5, self\\nGPU-a, 1073741823, 5, ghost\\n' ;;\nesac\n");
        script.close();
        QFile::setPermissions(smi, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        const QByteArray path = qgetenv("PATH");
        qputenv("PATH", tmp.path().toLocal8Bit() + ':' + path);
        const rs::PollReport report = rs::parsePoll(runHere(rs::poll(true, 1 << 20, {})).out, 0);
        qputenv("PATH", path);
        QVERIFY(report.complete);
        QCOMPARE(report.gpuStatus, 0);
        const QList<DeviceInfo> gpus =
            remotegpus::parse(QStringLiteral("lab"), report.gpuRows, report.appRows, {}, report.psRows);
        QCOMPARE(gpus.size(), 1);
        QCOMPARE(gpus.at(0).processes.size(), 2);
        QCOMPARE(gpus.at(0).processes.at(0).owner, GpuProcess::Owner::OtherUser); // a host's: no run of ours
        QCOMPARE(gpus.at(0).processes.at(0).user, QString::fromLocal8Bit(::getpwuid(::geteuid())->pw_name));
        QCOMPARE(gpus.at(0).processes.at(1).owner, GpuProcess::Owner::Unknown);
        // The same process as a run's (its pid the run's waiting sh's session): Run.
        const QList<DeviceInfo> asRun = remotegpus::parse(QStringLiteral("lab"), report.gpuRows, report.appRows,
                                                          {{::getsid(0), 4242}}, report.psRows);
        QCOMPARE(asRun.at(0).processes.at(0).owner, GpuProcess::Owner::Run);
        QCOMPARE(asRun.at(0).processes.at(0).runPid, qint64(4242));
    }

    void nvidiaSmiRows()
    {
        int skipped = 0;
        const QList<DeviceInfo> gpus = remotegpus::parse(
            QStringLiteral("lab"),
            "0, NVIDIA A100-SXM4-80GB, 93, 40000, 81920, 61, GPU-a\n"
            "1, Tesla V100, with a comma, [N/A], 5, 16384, [N/A], GPU-b\n"
            "garbage\n",
            "GPU-a, 1234, 39000, python\nGPU-a, 1240, 100, python\nGPU-b, 99, 100, /usr/bin/other app\n"
            "GPU-b, 77, 1, gone\nGPU-x, 5, 1, ghost\n",
            {{1234, 1234}, {1200, 1234}}, "1240 1200 1200 me\n  99   99   99 alice\n", &skipped);
        QCOMPARE(gpus.size(), 2);
        QCOMPARE(gpus.at(0).id, QStringLiteral("ssh:lab/cuda:0"));
        QCOMPARE(gpus.at(0).utilization, 93);
        QCOMPARE(gpus.at(0).memoryUsed, qint64(40000) * 1024 * 1024);
        QCOMPARE(gpus.at(0).temperature, 61);
        QVERIFY(!gpus.at(0).busyWithOthers()); // its processes are a run's
        // The worker itself, and a child in the session of its waiting sh (1200).
        QCOMPARE(gpus.at(0).processes.size(), 2);
        for (const GpuProcess &p : gpus.at(0).processes) {
            QCOMPARE(p.owner, GpuProcess::Owner::Run);
            QCOMPARE(p.runPid, qint64(1234));
        }
        QCOMPARE(gpus.at(1).name, QStringLiteral("Tesla V100, with a comma"));
        QCOMPARE(gpus.at(1).utilization, -1);
        QCOMPARE(gpus.at(1).temperature, -1);
        QVERIFY(gpus.at(1).busyWithOthers());
        QCOMPARE(gpus.at(1).processes.at(0).owner, GpuProcess::Owner::OtherUser);
        QCOMPARE(gpus.at(1).processes.at(0).user, QStringLiteral("alice"));
        QCOMPARE(gpus.at(1).processes.at(1).owner, GpuProcess::Owner::Unknown); // ps did not know it
        QCOMPARE(skipped, 2); // the garbage row, the process of no listed GPU
    }

    // The fake nvidia-smi reads the fake NVML's state file (the format of
    // tests/helpers/fakenvml.cpp): the poll's rows parse into the same GPUs
    // and processes the NVML path would list, a dead process left out.
    void fakeNvidiaSmiListsTheNvmlState()
    {
        QTemporaryDir tmp;
        QProcess sh;
        sh.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), QStringLiteral("echo $$")});
        QVERIFY(sh.waitForFinished());
        const qint64 dead = sh.readAllStandardOutput().trimmed().toLongLong();
        const qint64 self = QCoreApplication::applicationPid();
        const QString state = tmp.filePath(QStringLiteral("nvml-state"));
        QFile f(state);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QStringLiteral("gpu 0 85899345920 \"NVIDIA H100 80GB HBM3\" 37 41 350000\n"
                               "gpu 1 17179869184 \"Tesla V100, with a comma\"\n"
                               "proc %1 1 3221225472\n"
                               "proc %2 0 1048576\n")
                    .arg(self)
                    .arg(dead)
                    .toUtf8());
        f.close();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("PATH"), buildProgram("TRAINYARD_FAKE_NVIDIA_SMI_DIR") + QStringLiteral(":")
                                               + env.value(QStringLiteral("PATH")));
        env.insert(QStringLiteral("TRAINYARD_FAKE_NVML"), state);
        const rs::PollReport report = rs::parsePoll(runHere(rs::poll(true, 1 << 20, {}), {}, {}, env).out, 0);
        QVERIFY(report.complete);
        QCOMPARE(report.gpuStatus, 0);
        int skipped = -1;
        const QList<DeviceInfo> gpus =
            remotegpus::parse(QStringLiteral("lab"), report.gpuRows, report.appRows, {{self, self}}, {}, &skipped);
        QCOMPARE(skipped, 0);
        QCOMPARE(gpus.size(), qsizetype(2));
        QCOMPARE(gpus.at(0).id, QStringLiteral("ssh:lab/cuda:0"));
        QCOMPARE(gpus.at(0).name, QStringLiteral("NVIDIA H100 80GB HBM3"));
        QCOMPARE(gpus.at(0).memoryTotal, qint64(80) << 30);
        QCOMPARE(gpus.at(0).memoryUsed, qint64(0)); // the dead process holds nothing
        QCOMPARE(gpus.at(0).utilization, 37);
        QCOMPARE(gpus.at(0).temperature, 41);
        QVERIFY(gpus.at(0).processes.isEmpty());
        QCOMPARE(gpus.at(1).name, QStringLiteral("Tesla V100, with a comma"));
        QCOMPARE(gpus.at(1).utilization, -1); // [N/A]
        QCOMPARE(gpus.at(1).temperature, -1);
        QCOMPARE(gpus.at(1).memoryUsed, qint64(3) << 30);
        QCOMPARE(gpus.at(1).processes.size(), qsizetype(1));
        QCOMPARE(gpus.at(1).processes.first().pid, self);
        QCOMPARE(gpus.at(1).processes.first().memoryBytes, qint64(3) << 30);
        QCOMPARE(gpus.at(1).processes.first().owner, GpuProcess::Owner::Run);

        // Without the state file, as nvidia-smi without a driver: it fails.
        env.remove(QStringLiteral("TRAINYARD_FAKE_NVML"));
        const rs::PollReport none = rs::parsePoll(runHere(rs::poll(true, 1 << 20, {}), {}, {}, env).out, 0);
        QVERIFY(none.complete);
        QCOMPARE(none.gpuStatus, 9);
    }

    // Lines only the socket brought, kept beside a metrics.jsonl that ends
    // in a torn line: read after it by the one reader, with one offset.
    void receivedLinesAreReadAfterTheFile()
    {
        QTemporaryDir tmp;
        QFile main(tmp.filePath(QStringLiteral("metrics.jsonl")));
        QVERIFY(main.open(QIODevice::WriteOnly));
        main.write("{\"type\":\"metric\",\"step\":1,\"epoch\":1,\"loss\":1.5,\"wall\":0.5}\n"
                   "{\"type\":\"metric\",\"step\":2,\"epoch\":1,\"loss\":1.5,\"wall\":0.5}\n{\"type\":\"metric\",\"st");
        main.close();
        qint64 step = 0;
        bool done = true;
        ReceivedMetrics::lastInFile(tmp.path(), &step, &done);
        QCOMPARE(step, qint64(2));
        QVERIFY(!done);
        QString error;
        QVERIFY2(ReceivedMetrics::write(tmp.path(), 2,
                                        "{\"type\":\"metric\",\"step\":3,\"epoch\":1,\"loss\":1.5,\"wall\":0.5}\n"
                                        "{\"type\":\"done\",\"status\":\"finished\",\"exit_code\":0,\"wall\":0}\n",
                                        &error),
                 qPrintable(error));
        QVERIFY(readFile(tmp.filePath(ReceivedMetrics::fileName())).contains("in a torn line of 20 bytes"));
        QList<qint64> steps;
        int records = 0;
        const auto collect = [&](const MetricRecord &r) {
            ++records;
            if (r.kind == protocol::MessageType::Metric) {
                steps << r.step;
            }
        };
        MetricsLogReader::Result result = ReceivedMetrics::read(tmp.path(), 0, collect);
        QCOMPARE(steps, (QList<qint64>{1, 2, 3}));
        QCOMPARE(records, 5); // the marker and the done line too
        QCOMPARE(result.offset, ReceivedMetrics::bytes(tmp.path()));
        // From where it stopped: nothing again.
        steps.clear();
        result = ReceivedMetrics::read(tmp.path(), result.offset, collect);
        QVERIFY(steps.isEmpty());
        // Never written over; a resume sets it aside.
        QVERIFY(!ReceivedMetrics::write(tmp.path(), 2, "{}\n", &error));
        QVERIFY(ReceivedMetrics::setAside(tmp.path()));
        QVERIFY(QFile::exists(tmp.filePath(ReceivedMetrics::fileName() + QStringLiteral(".before-resume-1"))));
        steps.clear();
        ReceivedMetrics::read(tmp.path(), 0, collect);
        QCOMPARE(steps, (QList<qint64>{1, 2}));
    }

    void mirrorAppendsAndRefusesLinks()
    {
        QTemporaryDir tmp;
        RemoteMirror mirror(tmp.path());
        QString error;
        QVERIFY(mirror.apply(RemoteMirror::File::Metrics, 4, "abcd", &error));
        QVERIFY(mirror.apply(RemoteMirror::File::Metrics, 6, "ef", &error));
        QCOMPARE(readFile(tmp.filePath(QStringLiteral("metrics.jsonl"))), QByteArray("abcdef"));
        QCOMPARE(mirror.offset(RemoteMirror::File::Metrics), qint64(6));
        // The host's file is shorter (made again there): the copy here is
        // history, kept aside whole; the mirror starts over.
        QVERIFY(mirror.apply(RemoteMirror::File::Metrics, 2, {}, &error));
        QCOMPARE(mirror.offset(RemoteMirror::File::Metrics), qint64(0));
        QVERIFY(!QFile::exists(tmp.filePath(QStringLiteral("metrics.jsonl"))));
        QCOMPARE(readFile(tmp.filePath(QStringLiteral("metrics.jsonl.before-cut-1"))), QByteArray("abcdef"));
        QVERIFY(mirror.apply(RemoteMirror::File::Metrics, 2, "gh", &error));
        QCOMPARE(readFile(tmp.filePath(QStringLiteral("metrics.jsonl"))), QByteArray("gh"));
        QVERIFY(mirror.apply(RemoteMirror::File::Metrics, 1, {}, &error)); // again: a second copy aside
        QCOMPARE(readFile(tmp.filePath(QStringLiteral("metrics.jsonl.before-cut-2"))), QByteArray("gh"));
        QCOMPARE(readFile(tmp.filePath(QStringLiteral("metrics.jsonl.before-cut-1"))), QByteArray("abcdef"));
        // A link where worker.log goes: refused, its target untouched.
        QVERIFY(QFile::link(tmp.filePath(QStringLiteral("elsewhere")), tmp.filePath(QStringLiteral("worker.log"))));
        QVERIFY(!mirror.apply(RemoteMirror::File::Log, 3, "xyz", &error));
        QVERIFY2(error.contains(QStringLiteral("link")), qPrintable(error));
        QVERIFY(!QFile::exists(tmp.filePath(QStringLiteral("elsewhere"))));
    }
};

QTEST_GUILESS_MAIN(TestRemoteScripts)
#include "tst_remotescripts.moc"
