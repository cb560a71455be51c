// What a file on disk says is a claim to verify before acting on it: the
// state file (its owner, its mode, what kind of file it is, the job ids and
// pids it names) and every file of a run folder (metrics.jsonl, status.json,
// spec.json, notes.json, worker.log: no link followed, no FIFO or device
// waited on). The Slurm commands here are small scripts on PATH that log
// every call, so a test sees exactly what would have been signalled; the
// real cluster's case (a colleague's job under a reused id) is
// tst_slurmlauncher's reusedJobIdIsNeverAdoptedNorSignalled.

#include "metrics/runfile.h"
#include "orchestration/dependencies/runinputs.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/ingest/ingestion.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/remote/remoterunfolders.h"
#include "orchestration/runstore/runconfigfile.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/slurm/slurmending.h"
#include "orchestration/supervision/exitoutcome.h"
#include "orchestration/supervision/stallwatch.h"
#include "orchestration/supervision/supervisor.h"
#include "tests/orchestration/testutil.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace trainyard;
using namespace trainyard::test;

namespace {

const QString kJob = QStringLiteral("4242");
const QString kToken = QStringLiteral("0123456789abcdef0123");

// sbatch, squeue, scontrol and scancel as scripts that log each call to
// DIR/calls and describe one job (DIR/job, DIR/state, DIR/name, DIR/workdir)
// as the user's own; scancel ends it. First on PATH while it lives.
class FakeSlurm
{
public:
    explicit FakeSlurm(const QString &dir)
        : m_dir(dir)
        , m_path(qgetenv("PATH"))
    {
        QDir().mkpath(dir + QStringLiteral("/bin"));
        const QString log =
            QStringLiteral("#!/bin/sh\nD='%1'\necho \"$(basename \"$0\") $*\" >>\"$D/calls\"\n").arg(dir);
        script(QStringLiteral("sbatch"), log + QStringLiteral("cat >/dev/null\ncat \"$D/job\"\n"));
        script(QStringLiteral("squeue"),
               log
                   + QStringLiteral(
                       "s=$(cat \"$D/state\")\ncase $s in RUNNING|PENDING) echo \"$(cat \"$D/job\")|$s|None|vm\";; "
                       "esac\n"));
        script(QStringLiteral("scontrol"),
               log
                   + QStringLiteral("u=$(cat \"$D/user\" 2>/dev/null) || u=\"$(id -un)($(id -u))\"\n"
                                    "echo \"JobId=$(cat \"$D/job\") JobName=$(cat \"$D/name\") UserId=$u "
                                    "JobState=$(cat \"$D/state\") Reason=None ExitCode=0:0 NodeList=vm "
                                    "WorkDir=$(cat \"$D/workdir\") StdOut=/dev/null\"\n"));
        script(QStringLiteral("scancel"), log + QStringLiteral("echo CANCELLED >\"$D/state\"\n"));
        set(QStringLiteral("job"), kJob);
        set(QStringLiteral("state"), QStringLiteral("RUNNING"));
        qputenv("PATH", (dir + QStringLiteral("/bin:")).toUtf8() + m_path);
    }
    ~FakeSlurm() { qputenv("PATH", m_path); }

    void set(const QString &what, const QString &value) { writeFile(m_dir + QLatin1Char('/') + what, value.toUtf8()); }
    QStringList calls() const
    {
        return QString::fromUtf8(readFile(m_dir + QStringLiteral("/calls")))
            .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }
    // The calls that would signal or cancel a job.
    QStringList cancels() const { return calls().filter(QRegularExpression(QStringLiteral("^scancel "))); }

private:
    void script(const QString &name, const QString &text)
    {
        const QString path = m_dir + QStringLiteral("/bin/") + name;
        writeFile(path, text.toUtf8());
        QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    }
    QString m_dir;
    QByteArray m_path;
};

// Watches the event loop from a thread of its own: when it has not turned
// for 3 s (something on the main thread waits on a FIFO), says so and lets
// the waiting open go on by opening the FIFO's other end, writing `feed`.
class FifoWatch
{
public:
    FifoWatch(const QString &fifo, QByteArray feed = {})
        : m_fifo(QFile::encodeName(fifo))
        , m_feed(std::move(feed))
    {
        m_tick.start(20);
        QObject::connect(&m_tick, &QTimer::timeout, [this] { m_last = now(); });
        m_last = now();
        m_thread = std::thread([this] {
            while (!m_done) {
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                if (now() - m_last < 3000) {
                    continue;
                }
                m_stalled = true;
                const int fd = ::open(m_fifo.constData(), O_WRONLY | O_NONBLOCK);
                if (fd >= 0) {
                    if (::write(fd, m_feed.constData(), size_t(m_feed.size())) < 0) {
                        std::perror("write");
                    }
                    ::close(fd);
                    m_last = now();
                }
            }
        });
    }
    ~FifoWatch()
    {
        m_done = true;
        m_thread.join();
    }
    bool stalled() const { return m_stalled; }

private:
    static qint64 now()
    {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }
    QByteArray m_fifo;
    QByteArray m_feed;
    QTimer m_tick;
    std::atomic<qint64> m_last{0};
    std::atomic<bool> m_done{false};
    std::atomic<bool> m_stalled{false};
    std::thread m_thread;
};

QJsonObject slurmEntry(const QString &job)
{
    return QJsonObject{{QStringLiteral("pid"), 0},
                       {QStringLiteral("token"), kToken},
                       {QStringLiteral("device"), QStringLiteral("slurm:test/debug")},
                       {QStringLiteral("follow_file"), true},
                       {QStringLiteral("launcher"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("slurm")},
                                                                {QStringLiteral("job"), job},
                                                                {QStringLiteral("cluster"), QStringLiteral("test")}}}};
}

QByteArray stateJson(const QString &run, const QJsonObject &entry)
{
    return QJsonDocument(QJsonObject{{QStringLiteral("runs"), QJsonObject{{run, entry}}}}).toJson();
}

// An experiment of runs named `names` on the cluster "test" (reached here:
// the FakeSlurm scripts).
Experiment clusterExperiment(const QString &root, const QStringList &names)
{
    QJsonArray runs;
    for (const QString &name : names) {
        runs.append(fakeSpec(name));
    }
    QJsonObject json =
        experimentJson(QStringLiteral("claims"), root, {lane(QStringLiteral("slurm:test/debug"), 4, runs)});
    json.insert(QStringLiteral("clusters"),
                QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("test")},
                                       {QStringLiteral("poll_seconds"), 1},
                                       {QStringLiteral("worker"), QStringLiteral("/bin/true")}}});
    return experiment(json);
}

QByteArray metricLine(int step, double loss)
{
    return QStringLiteral("{\"type\":\"metric\",\"wall\":%1,\"step\":%2,\"epoch\":0,\"loss\":%3}\n")
        .arg(step * 0.1)
        .arg(step)
        .arg(loss)
        .toUtf8();
}

bool closeAndWait(Session *session)
{
    QSignalSpy closed(session, &Session::closed);
    session->close(false);
    return closed.count() > 0 || closed.wait(20000);
}

} // namespace

class TestClaims : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void stateFileClaimsAreVerified_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("expected"); // in the warning and the run's message; empty: adopted
        QTest::addColumn<QString>("job");      // the job id the state file names
        QTest::newRow("the user's own, 0600") << QStringLiteral("own") << QString() << kJob;
        QTest::newRow("another user's") << QStringLiteral("foreign") << QStringLiteral("owned by another user") << kJob;
        QTest::newRow("writable by others") << QStringLiteral("0666") << QStringLiteral("writable by others") << kJob;
        QTest::newRow("a link to the user's own file")
            << QStringLiteral("link") << QStringLiteral("a symbolic link") << kJob;
        QTest::newRow("a FIFO") << QStringLiteral("fifo") << QStringLiteral("a FIFO") << kJob;
        QTest::newRow("job id -uroot") << QStringLiteral("own") << QStringLiteral("\"-uroot\" is not a Slurm job id")
                                       << QStringLiteral("-uroot");
        // A space Slurm would skip, a command after the id: never trimmed, never shell text.
        QTest::newRow("job id space-1") << QStringLiteral("own") << QStringLiteral("\" 1\" is not a Slurm job id")
                                        << QStringLiteral(" 1");
        QTest::newRow("job id 1;touch") << QStringLiteral("own")
                                        << QStringLiteral("\"1;touch pwned\" is not a Slurm job id")
                                        << QStringLiteral("1;touch pwned");
        // The user's own file naming a job of another user's (a colleague's, its id reused).
        QTest::newRow("another user's job")
            << QStringLiteral("colleague") << QStringLiteral("it is user nobody's (uid 65534)") << kJob;
    }
    // Fault: a .trainyard-state.json that is another user's, writable by others, a link or a FIFO, or names the job id "-uroot", " 1", "1;touch pwned" or another user's job, then the experiment is opened, stopped and closed | User sees: a warning on open naming the file or the job and why it is refused; the run is lost, "not adopted" | Kept: nothing is signalled: no scancel, no scontrol of an id that is not digits (a job id goes after "--"), the window never waits on the FIFO; another user's file is never replaced
    void stateFileClaimsAreVerified()
    {
        QFETCH(QString, kind);
        QFETCH(QString, expected);
        QFETCH(QString, job);
        QTemporaryDir dir;
        FakeSlurm slurm(dir.filePath(QStringLiteral("slurm")));
        const QString root = dir.filePath(QStringLiteral("runs"));
        const Experiment ex = clusterExperiment(root, {QStringLiteral("r")});
        RunStore store(root);
        QVERIFY(QDir().mkpath(store.runDir(QStringLiteral("r"))));
        // It trained before: one line of metrics, no ending yet.
        QVERIFY(writeFile(store.runDir(QStringLiteral("r")) + QStringLiteral("/metrics.jsonl"), metricLine(1, 2.0)));
        slurm.set(QStringLiteral("name"), QStringLiteral("r"));
        slurm.set(QStringLiteral("workdir"), store.runDir(QStringLiteral("r")));

        const QString stateFile = root + QStringLiteral("/.trainyard-state.json");
        const QByteArray good = stateJson(QStringLiteral("r"), slurmEntry(job));
        const auto ownFile = [](const QString &path, const QByteArray &bytes) {
            return writeFile(path, bytes) && ::chmod(QFile::encodeName(path).constData(), 0600) == 0;
        };
        if (kind == QLatin1String("own")) {
            QVERIFY(ownFile(stateFile, good));
        } else if (kind == QLatin1String("colleague")) {
            QVERIFY(ownFile(stateFile, good));
            slurm.set(QStringLiteral("user"), QStringLiteral("nobody(65534)"));
        } else if (kind == QLatin1String("foreign")) {
            QVERIFY(ownFile(stateFile, good));
            if (::chown(QFile::encodeName(stateFile).constData(), 65534, 65534) != 0) {
                QSKIP("chown needs root");
            }
        } else if (kind == QLatin1String("0666")) {
            QVERIFY(ownFile(stateFile, good));
            QVERIFY(::chmod(QFile::encodeName(stateFile).constData(), 0666) == 0);
        } else if (kind == QLatin1String("link")) {
            QVERIFY(ownFile(dir.filePath(QStringLiteral("elsewhere.json")), good));
            QVERIFY(QFile::link(dir.filePath(QStringLiteral("elsewhere.json")), stateFile));
        } else if (kind == QLatin1String("fifo")) {
            QVERIFY(::mkfifo(QFile::encodeName(stateFile).constData(), 0600) == 0);
        }

        FifoWatch watch(stateFile, good);
        Session session;
        QStringList warnings;
        QVERIFY2(session.open(ex, QString(), &warnings), qPrintable(warnings.join(QLatin1Char('\n'))));
        Orchestrator *orch = session.orchestrator();
        const RunId id = orch->runs()->findByName(QStringLiteral("r"));
        QVERIFY(!QFileInfo::exists(QStringLiteral("pwned"))
                && !QFileInfo::exists(store.runDir(QStringLiteral("r")) + QStringLiteral("/pwned")));
        if (expected.isEmpty()) {
            // The control: the user's own file, a job that is the run's.
            QVERIFY2(orch->runs()->value(id).reattached && isActive(orch->runs()->value(id).state),
                     qPrintable(orch->runs()->value(id).message));
            QVERIFY(closeAndWait(&session));
            QVERIFY2(slurm.cancels().value(0).endsWith(QStringLiteral(" -- ") + kJob),
                     qPrintable(slurm.calls().join(QLatin1Char('\n'))));
            return;
        }
        QVERIFY2(warnings.join(QLatin1Char('\n')).contains(expected), qPrintable(warnings.join(QLatin1Char('\n'))));
        const RunInfo r = orch->runs()->value(id);
        QCOMPARE(r.state, RunState::Lost);
        QVERIFY2(r.message.contains(expected), qPrintable(r.message));
        QString error;
        QVERIFY(!orch->runActions()->stopRun(id, &error));
        QVERIFY(closeAndWait(&session));
        QVERIFY(!watch.stalled());
        if (kind == QLatin1String("foreign")) {
            // Another user's file is theirs: never replaced by this session's.
            QCOMPARE(readFile(stateFile), good);
            QCOMPARE(QFileInfo(stateFile).ownerId(), uint(65534));
        }
        const QStringList calls = slurm.calls();
        // Another user's job is only looked at (scontrol show), never signalled.
        QVERIFY2(
            calls
                .filter(QRegularExpression(kind == QLatin1String("colleague") ? QStringLiteral("^scancel ")
                                                                              : QStringLiteral("^(scancel|scontrol) ")))
                .isEmpty(),
            qPrintable(calls.join(QLatin1Char('\n'))));
        QCOMPARE(readJsonFile(store.runDir(QStringLiteral("r")) + QStringLiteral("/status.json"))
                     .value(QStringLiteral("state"))
                     .toString(),
                 QStringLiteral("lost"));
    }

    void unrelatedProcessIsNeverAdopted_data()
    {
        QTest::addColumn<QStringList>("process");
        QTest::addColumn<bool>("program"); // a program run, else a worker's
        QTest::addColumn<QString>("expected");
        QTest::newRow("sleep for a worker run")
            << QStringList{QStringLiteral("sleep"), QStringLiteral("1000")} << false << QStringLiteral("runs /");
        QTest::newRow("python3 for a program run") << QStringList{QStringLiteral("python3"), QStringLiteral("-c"),
                                                                  QStringLiteral("import time; time.sleep(1000)")}
                                                   << true << QStringLiteral("TRAINYARD_RUN_DIR");
    }
    // Fault: the state file names the pid (with its true start time) of an unrelated process of the user's (sleep; a python3 that is not the run's program), then the experiment is opened and closed with "stop them" | User sees: the run lost: "pid N runs /usr/bin/sleep, not this run's worker" (or "its TRAINYARD_RUN_DIR is not ...") | Kept: the process is never signalled and still runs
    void unrelatedProcessIsNeverAdopted()
    {
        QFETCH(QStringList, process);
        QFETCH(bool, program);
        QFETCH(QString, expected);
        if (QStandardPaths::findExecutable(process.first()).isEmpty()) {
            QSKIP(qPrintable(process.first() + QStringLiteral(" not found")));
        }
        QTemporaryDir dir;
        const QString root = dir.filePath(QStringLiteral("runs"));
        const QJsonObject spec =
            program ? QJsonObject{{QStringLiteral("name"), QStringLiteral("w")},
                                  {QStringLiteral("program"),
                                   QJsonObject{{QStringLiteral("argv"),
                                                QJsonArray{QStringLiteral("python3"), QStringLiteral("train.py")}}}}}
                    : fakeSpec(QStringLiteral("w"));
        const Experiment ex =
            experiment(experimentJson(QStringLiteral("pids"), root, {lane(QStringLiteral("cpu"), 1, {spec})}));
        QProcess bystander;
        bystander.start(process.first(), process.mid(1));
        QVERIFY(bystander.waitForStarted());
        const auto end = qScopeGuard([&] {
            bystander.kill();
            bystander.waitForFinished();
        });
        const qint64 pid = bystander.processId();
        QTRY_VERIFY(RunStore::processStartTicks(pid) > 0);
        const qint64 ticks = RunStore::processStartTicks(pid);
        RunStore store(root);
        const QString runDir = store.runDir(QStringLiteral("w"));
        QVERIFY(QDir().mkpath(runDir));
        // As convincing as a state file can be: the true start time, and the
        // command line of a worker of this very run.
        const QJsonObject entry{
            {QStringLiteral("pid"), pid},
            {QStringLiteral("token"), kToken},
            {QStringLiteral("device"), QStringLiteral("cpu")},
            {QStringLiteral("start_ticks"), ticks},
            {QStringLiteral("launcher"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("local")},
                                                     {QStringLiteral("pid"), pid},
                                                     {QStringLiteral("start_ticks"), ticks}}},
            {QStringLiteral("command"),
             program ? QJsonArray{QStringLiteral("python3"), QStringLiteral("train.py")}
                     : QJsonArray{fakeWorker().isEmpty() ? QStringLiteral("/usr/bin/trainyard-worker") : fakeWorker(),
                                  QStringLiteral("--run-dir"), runDir}}};
        const QString stateFile = root + QStringLiteral("/.trainyard-state.json");
        QVERIFY(writeFile(stateFile, stateJson(QStringLiteral("w"), entry)));
        QVERIFY(::chmod(QFile::encodeName(stateFile).constData(), 0600) == 0);

        {
            Session session;
            QStringList warnings;
            QVERIFY2(session.open(ex, QString(), &warnings), qPrintable(warnings.join(QLatin1Char('\n'))));
            const RunInfo r =
                session.orchestrator()->runs()->value(session.orchestrator()->runs()->findByName(QStringLiteral("w")));
            QCOMPARE(r.state, RunState::Lost);
            QVERIFY2(r.message.contains(QStringLiteral("pid %1").arg(pid)) && r.message.contains(expected),
                     qPrintable(r.message));
            QVERIFY2(warnings.join(QLatin1Char('\n')).contains(QStringLiteral("w lost")),
                     qPrintable(warnings.join(QLatin1Char('\n'))));
            QVERIFY(closeAndWait(&session));
        }
        QTest::qWait(300); // nothing signals a signal never sent: one sent at the close would have landed by now
        QCOMPARE(bystander.state(), QProcess::Running);
        QCOMPARE(RunStore::processStartTicks(pid), ticks);
    }

    void forgedStartTimeIsNeverAdopted_data()
    {
        QTest::addColumn<QString>("forged");
        QTest::newRow("one tick later") << QStringLiteral("later");
        QTest::newRow("zero") << QStringLiteral("zero");
        QTest::newRow("none") << QStringLiteral("none");
    }
    // Fault: the state file names the run's own live worker (its pid, token, executable and folder are right) with a forged start time (one tick later, zero, none), then the experiment is opened and closed with "stop them" | User sees: the run not reattached (not running) | Kept: the worker is never signalled: it still runs with its start time
    void forgedStartTimeIsNeverAdopted()
    {
        QFETCH(QString, forged);
        QTemporaryDir dir;
        const Experiment ex =
            experiment(experimentJson(QStringLiteral("forged"), dir.filePath(QStringLiteral("runs")),
                                      {lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("w"), 3000, 10)})}));
        QStringList errors;
        qint64 pid = 0;
        {
            Session first;
            QVERIFY2(first.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
            first.orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
            first.orchestrator()->dispatcher()->startAll();
            const RunId id = first.orchestrator()->runs()->findByName(QStringLiteral("w"));
            QTRY_VERIFY_WITH_TIMEOUT(first.orchestrator()->runs()->value(id).step >= 3, 10000);
            pid = first.orchestrator()->runs()->value(id).pid;
            first.close(/*leaveRunning=*/true);
        }
        const auto end = qScopeGuard([pid] { ::kill(pid_t(pid), SIGKILL); });
        const qint64 ticks = RunStore::processStartTicks(pid);
        QVERIFY(ticks > 0);
        const QString stateFile = dir.filePath(QStringLiteral("runs/.trainyard-state.json"));
        QJsonObject state = readJsonFile(stateFile);
        QJsonObject runs = state.value(QStringLiteral("runs")).toObject();
        QJsonObject entry = runs.value(QStringLiteral("w")).toObject();
        QJsonObject handle = entry.value(QStringLiteral("launcher")).toObject();
        QCOMPARE(handle.value(QStringLiteral("pid")).toInteger(), pid);
        for (QJsonObject *o : {&entry, &handle}) {
            if (forged == QLatin1String("none")) {
                o->remove(QStringLiteral("start_ticks"));
            } else {
                o->insert(QStringLiteral("start_ticks"), forged == QLatin1String("zero") ? 0 : ticks + 1);
            }
        }
        entry.insert(QStringLiteral("launcher"), handle);
        runs.insert(QStringLiteral("w"), entry);
        state.insert(QStringLiteral("runs"), runs);
        QVERIFY(writeFile(stateFile, QJsonDocument(state).toJson()));
        QVERIFY(::chmod(QFile::encodeName(stateFile).constData(), 0600) == 0);

        {
            Session second;
            QVERIFY2(second.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
            second.orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
            const RunInfo r =
                second.orchestrator()->runs()->value(second.orchestrator()->runs()->findByName(QStringLiteral("w")));
            QVERIFY2(!r.reattached && r.state != RunState::Running, qPrintable(r.message));
            QVERIFY(closeAndWait(&second)); // "stop them": there is none of its own
        }
        QTest::qWait(300); // nothing signals a signal never sent: one sent at the close would have landed by now
        QCOMPARE(RunStore::processStartTicks(pid), ticks); // never signalled: still the same process
    }

    void hostileMetricsFileOfAFollowedRun_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("expected");
        QTest::newRow("a FIFO") << QStringLiteral("fifo") << QStringLiteral("is not a regular file (a FIFO)");
        QTest::newRow("a link to another run's") << QStringLiteral("link") << QStringLiteral("(a symbolic link)");
        QTest::newRow("a folder") << QStringLiteral("folder") << QStringLiteral("is not a regular file (a folder)");
    }
    // Fault: the metrics.jsonl of a cluster run that Trainyard follows is replaced by a FIFO, a link to another run's metrics.jsonl or a folder while it runs | User sees: the run says "ROOT/NAME/metrics.jsonl is not a regular file (a FIFO); Trainyard does not follow links in run folders", no stall warning | Kept: the window's event loop keeps turning (never 3 s without a tick); nothing of the other run shows or reaches status.json
    void hostileMetricsFileOfAFollowedRun()
    {
        QFETCH(QString, kind);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        FakeSlurm slurm(dir.filePath(QStringLiteral("slurm")));
        const QString root = dir.filePath(QStringLiteral("runs"));
        RunStore store(root);
        const QString otherDir = store.runDir(QStringLiteral("other"));
        QVERIFY(QDir().mkpath(otherDir));
        QVERIFY(writeFile(otherDir + QStringLiteral("/metrics.jsonl"), metricLine(77, 0.123)));
        const Experiment ex = clusterExperiment(root, {QStringLiteral("f")});
        const QString metrics = store.runDir(QStringLiteral("f")) + QStringLiteral("/metrics.jsonl");
        slurm.set(QStringLiteral("name"), QStringLiteral("f"));
        slurm.set(QStringLiteral("workdir"), store.runDir(QStringLiteral("f")));

        Session session;
        QStringList warnings;
        QVERIFY2(session.open(ex, QString(), &warnings), qPrintable(warnings.join(QLatin1Char('\n'))));
        Orchestrator *orch = session.orchestrator();
        // Silence longer than this stalls a run whose file is its channel;
        // the file is read every second.
        orch->supervisor()->setStallTimeout(1500);
        orch->laneDevices()->setCpuFallback(true);
        const RunId id = orch->runs()->findByName(QStringLiteral("f"));
        {
            FifoWatch watch(metrics, metricLine(77, 0.123));
            orch->dispatcher()->startAll(); // the run's folder is made now; its job starts soon after
            QFile::remove(metrics);
            if (kind == QLatin1String("fifo")) {
                QVERIFY(::mkfifo(QFile::encodeName(metrics).constData(), 0600) == 0);
            } else if (kind == QLatin1String("link")) {
                QVERIFY(QFile::link(otherDir + QStringLiteral("/metrics.jsonl"), metrics));
            } else {
                QVERIFY(QDir().mkdir(metrics));
            }
            QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).state, RunState::Running, 10000);
            QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(id).message.contains(expected), 5000);
            // Four more reads of the file, a second apart (twice the stall timeout), then a look of the watchdog.
            QSignalSpy reads(orch->ingestion(), &Ingestion::followed);
            QTRY_VERIFY_WITH_TIMEOUT(reads.count() >= 4, 10000);
            QSignalSpy looked(orch->supervisor()->findChild<StallWatch *>(), &StallWatch::checked);
            QTRY_VERIFY(looked.count() >= 1);
            QVERIFY(!watch.stalled());
            const RunInfo r = orch->runs()->value(id);
            QCOMPARE(r.state, RunState::Running);
            QVERIFY2(r.message.contains(expected), qPrintable(r.message));
            QVERIFY(r.step < 77);
            QVERIFY(std::isnan(r.loss));
            // The job ends; what the run's folder keeps is its own.
            slurm.set(QStringLiteral("state"), QStringLiteral("COMPLETED"));
            QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(id).state), 10000);
            QVERIFY(!watch.stalled());
        }
        const QJsonObject status = readJsonFile(store.runDir(QStringLiteral("f")) + QStringLiteral("/status.json"));
        QVERIFY(!status.isEmpty());
        QVERIFY(!status.contains(QStringLiteral("loss")));
        QVERIFY(status.value(QStringLiteral("step")).toInt() < 77);
        QVERIFY2(status.value(QStringLiteral("message")).toString().contains(expected),
                 qPrintable(status.value(QStringLiteral("message")).toString()));
        QVERIFY(closeAndWait(&session));
    }

    void writesNeverGoThroughALink_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("status.json") << QStringLiteral("status.json");
        QTest::newRow("the state file") << QStringLiteral(".trainyard-state.json");
    }
    // Fault: status.json of a run, or the runs root's state file, is a link to another run's file when Trainyard writes it (a run ends, a run starts) | User sees: the run's own status (a warning in the log that the link was removed) | Kept: the file the link pointed at is untouched; the link is replaced by a regular file, never followed
    void writesNeverGoThroughALink()
    {
        QFETCH(QString, file);
        QTemporaryDir dir;
        const QString root = dir.filePath(QStringLiteral("runs"));
        RunStore store(root);
        QVERIFY(QDir().mkpath(store.runDir(QStringLiteral("mine"))));
        QVERIFY(QDir().mkpath(store.runDir(QStringLiteral("other"))));
        const QString target = store.runDir(QStringLiteral("other")) + QStringLiteral("/status.json");
        const QByteArray others = "{\"state\":\"finished\",\"message\":\"the other run's own\"}";
        QVERIFY(writeFile(target, others));
        const bool state = file.startsWith(QLatin1Char('.'));
        const QString path = (state ? root : store.runDir(QStringLiteral("mine"))) + QLatin1Char('/') + file;
        QVERIFY(QFile::link(target, path));
        RunInfo run;
        run.name = QStringLiteral("mine");
        run.state = RunState::Failed;
        run.message = QStringLiteral("mine");
        QVERIFY(state ? store.writeState({}, QStringLiteral("/nonexistent.sock")) : store.writeStatus(run));
        QCOMPARE(readFile(target), others);
        QVERIFY(!QFileInfo(path).isSymLink());
        QVERIFY(QFileInfo(path).isFile());
    }

    // Fault: a run's folder in the runs root is a link to another run's finished folder, and the experiment is opened and its runs root read (history, the run's status, spec, notes, metrics and checkpoints) | User sees: the run queued, as one that never ran; reading its metrics says "… is a symbolic link; Trainyard does not follow links in run folders" | Kept: nothing of the other run is shown as this run's; the other run's folder untouched
    void aLinkedRunFolderIsNotTheRun()
    {
        QTemporaryDir dir;
        const QString root = dir.filePath(QStringLiteral("runs"));
        RunStore store(root);
        const QString other = store.runDir(QStringLiteral("other"));
        QVERIFY(QDir().mkpath(other + QStringLiteral("/checkpoints")));
        QByteArray lines;
        for (int step = 1; step <= 7; ++step) {
            lines += metricLine(step, 0.777);
        }
        QVERIFY(writeFile(other + QStringLiteral("/metrics.jsonl"), lines));
        QVERIFY(writeFile(other + QStringLiteral("/checkpoints/c.pt"), "CKP"));
        QVERIFY(
            writeFile(other + QStringLiteral("/spec.json"), QJsonDocument(fakeSpec(QStringLiteral("other"))).toJson()));
        QVERIFY(writeFile(other + QStringLiteral("/status.json"), "{\"state\":\"finished\",\"message\":\"OTHER\"}"));
        QVERIFY(writeFile(other + QStringLiteral("/notes.json"), "{\"tags\":[],\"note\":\"OTHER-NOTE\"}"));
        QVERIFY(QFile::link(other, store.runDir(QStringLiteral("victim"))));

        RunInfo status;
        QVERIFY(!store.readStatus(QStringLiteral("victim"), &status));
        QVERIFY(store.readSpec(QStringLiteral("victim")).isEmpty());
        QVERIFY(store.readNotes(QStringLiteral("victim")).note.isEmpty());
        QVERIFY(!store.hasCheckpoint(QStringLiteral("victim")));
        int records = 0;
        const RunStore::ReadResult read =
            store.readMetrics(QStringLiteral("victim"), 0, [&](const MetricRecord &) { ++records; });
        QCOMPARE(records, 0);
        QVERIFY2(read.error.contains(QStringLiteral("is a symbolic link")), qPrintable(read.error));

        const Experiment ex = experiment(experimentJson(
            QStringLiteral("linked"), root,
            {lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("victim")), fakeSpec(QStringLiteral("other"))})}));
        Session session;
        QStringList warnings;
        QVERIFY2(session.open(ex, QString(), &warnings), qPrintable(warnings.join(QLatin1Char('\n'))));
        const RunInfo r =
            session.orchestrator()->runs()->value(session.orchestrator()->runs()->findByName(QStringLiteral("victim")));
        QVERIFY2(r.state == RunState::Queued && r.step <= 0 && !r.message.contains(QStringLiteral("OTHER")),
                 qPrintable(runStateName(r.state) + QLatin1Char(' ') + r.message));
        QVERIFY(closeAndWait(&session));
        QCOMPARE(readFile(other + QStringLiteral("/metrics.jsonl")), lines);
    }

    void hostileMirrorFilesAreNeverSent_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("kind");
        for (const char *file : {"spec.json", "config.json"}) {
            for (const char *kind : {"fifo", "link"}) {
                QTest::addRow("%s is a %s", file, kind) << QString::fromLatin1(file) << QString::fromLatin1(kind);
            }
        }
    }
    // Fault: the spec.json or config.json of a cluster run's folder here (the mirror of its folder there, no shared filesystem) is a FIFO or a link to another run's when its folder there is made | User sees: the start fails: "cluster c: the run folder … could not be made ready there: …/spec.json is not a regular file (a FIFO)" | Kept: the window never waits on the FIFO; another run's file is never sent
    void hostileMirrorFilesAreNeverSent()
    {
        QFETCH(QString, file);
        QFETCH(QString, kind);
        QTemporaryDir dir;
        const QString mirror = dir.filePath(QStringLiteral("victim"));
        const QString other = dir.filePath(QStringLiteral("other"));
        QVERIFY(QDir().mkpath(mirror) && QDir().mkpath(other));
        for (const QString &name : {QStringLiteral("spec.json"), QStringLiteral("config.json")}) {
            QVERIFY(writeFile(other + QLatin1Char('/') + name, "{\"other\": true}"));
            QVERIFY(writeFile(mirror + QLatin1Char('/') + name, "{}"));
        }
        const QString path = mirror + QLatin1Char('/') + file;
        QVERIFY(QFile::remove(path));
        if (kind == QLatin1String("fifo")) {
            QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        } else {
            QVERIFY(QFile::link(other + QLatin1Char('/') + file, path));
        }
        RemoteHostConfig config;
        config.name = QStringLiteral("c");
        config.target.host = QStringLiteral("127.0.0.1");
        config.target.port = 1; // nothing listens: were anything sent, ssh would fail
        config.runsRoot = QStringLiteral("/srv/runs");
        RemoteRunFolders folders(config);
        LaunchSpec spec;
        spec.runDir = QStringLiteral("/srv/runs/victim");
        spec.mirrorDir = mirror;
        spec.configPath = spec.runDir + QStringLiteral("/config.json");
        FifoWatch watch(path, "{}");
        QString error;
        bool done = false;
        QObject context;
        folders.make(spec, &context, [&](const QString &e) {
            error = e;
            done = true;
        });
        QTRY_VERIFY_WITH_TIMEOUT(done, 20000);
        QVERIFY(!watch.stalled());
        QVERIFY2(error.contains(path)
                     && error.contains(kind == QLatin1String("fifo") ? QStringLiteral("(a FIFO)")
                                                                     : QStringLiteral("symbolic link")),
                 qPrintable(error));
    }

    void hostileRunFolderFiles_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("victim"); // the folder's name: a run's or a kept attempt's
        for (const char *victim : {"victim", "victim.attempt-1"}) {
            for (const char *file : {"metrics.jsonl", "status.json", "spec.json", "notes.json", "worker.log",
                                     "params.json", "remote-checkpoints.json", "checkpoints"}) {
                for (const char *kind : {"fifo", "link", "folder", "device", "link to /dev/zero"}) {
                    QTest::addRow("%s/%s is a %s", victim, file, kind)
                        << QString::fromLatin1(file) << QString::fromLatin1(kind) << QString::fromLatin1(victim);
                }
            }
        }
    }
    // Fault: one file of a finished run's folder or of a kept NAME.attempt-N (metrics.jsonl, status.json, spec.json, notes.json, worker.log, params.json, a host run's remote-checkpoints.json, the checkpoints/ folder) is a FIFO, a link to another run's, a folder, a device or a link to /dev/zero, and the runs root is read (history, `trainyard export`, the log tail of a failure, whether it has a checkpoint, a Slurm job's checkpoint stamp, a dependent's checkpoint input) | User sees: the run as its own files say, the refused file logged as "... is not a regular file (...)" | Kept: no read blocks or runs forever, nothing of the other run is shown or handed on as this run's
    void hostileRunFolderFiles()
    {
        QFETCH(QString, file);
        QFETCH(QString, kind);
        QFETCH(QString, victim);
        QTemporaryDir dir;
        const QString root = dir.filePath(QStringLiteral("runs"));
        RunStore store(root);
        // Two finished runs; the other one's files say "other" everywhere.
        for (const QString &name : {victim, QStringLiteral("other")}) {
            const bool other = name == QLatin1String("other");
            const QString d = store.runDir(name);
            QVERIFY(QDir().mkpath(d + QStringLiteral("/checkpoints")));
            QVERIFY(writeFile(d + QStringLiteral("/params.json"), other ? "{\"lr\": 0.777}" : "{\"lr\": 0.1}"));
            QVERIFY(writeFile(d + QLatin1Char('/') + RunStore::remoteCheckpointsFileName(),
                              other ? "{\"files\": [{\"name\": \"c.pt\", \"size\": 3, \"mtime\": 5}]}"
                                    : "{\"files\": []}"));
            if (other) {
                QVERIFY(writeFile(d + QStringLiteral("/checkpoints/c.pt"), "CKP"));
            }
            QByteArray lines;
            for (int step = 1; step <= (other ? 77 : 5); ++step) {
                lines += metricLine(step, other ? 0.123 : 1.0);
            }
            QVERIFY(writeFile(d + QStringLiteral("/metrics.jsonl"), lines));
            QVERIFY(writeFile(d + QStringLiteral("/spec.json"), QJsonDocument(fakeSpec(name)).toJson()));
            QVERIFY(writeFile(d + QStringLiteral("/status.json"),
                              QStringLiteral("{\"state\":\"%1\",\"message\":\"%2\"}")
                                  .arg(other ? QStringLiteral("failed") : QStringLiteral("finished"), name)
                                  .toUtf8()));
            QVERIFY(writeFile(d + QStringLiteral("/notes.json"),
                              QStringLiteral("{\"tags\":[],\"note\":\"%1-NOTE\"}").arg(name).toUtf8()));
            QVERIFY(writeFile(d + QStringLiteral("/worker.log"), (name + QStringLiteral("-LOG\n")).toUtf8()));
        }
        const QString victimDir = store.runDir(victim);
        const QString path = victimDir + QLatin1Char('/') + file;
        QVERIFY(QFile::remove(path) || QDir().rmdir(path));
        const QByteArray native = QFile::encodeName(path);
        if (kind == QLatin1String("fifo")) {
            QVERIFY(::mkfifo(native.constData(), 0600) == 0);
        } else if (kind == QLatin1String("link")) {
            QVERIFY(QFile::link(store.runDir(QStringLiteral("other")) + QLatin1Char('/') + file, path));
        } else if (kind == QLatin1String("folder")) {
            QVERIFY(QDir().mkdir(path));
        } else if (kind == QLatin1String("device") && ::mknod(native.constData(), S_IFCHR | 0600, makedev(1, 5)) != 0) {
            QSKIP("mknod needs root");
        } else if (kind == QLatin1String("link to /dev/zero")) {
            QVERIFY(QFile::link(QStringLiteral("/dev/zero"), path));
        }

        // In a child, so that a read that blocks or never ends is a failure
        // here, not a test that hangs: 0 all well, 2 something of the other
        // run was read as the victim's, killed after 10 s: it hung.
        const pid_t child = ::fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            int code = 0;
            const QList<RunRecord> runs = store.readHistory();
            bool listed = false;
            for (const RunRecord &run : runs) {
                if (run.info.runDir != victimDir) {
                    continue;
                }
                listed = true;
                if (run.info.step >= 77 || run.info.message == QLatin1String("other")
                    || run.info.name == QLatin1String("other") || run.notes.note.contains(QLatin1String("other"))) {
                    code = 2;
                }
            }
            QFile metricsFile;
            QString refusal;
            if (file == QLatin1String("metrics.jsonl")
                && (openRegularFile(path, &metricsFile, &refusal) || refusal.isEmpty())) {
                code = 3;
            }
            if (!listed) {
                code = 4;
            }
            if (logTail(victimDir, 5).contains(QLatin1String("other"))) {
                code = 2;
            }
            // Another run's checkpoints are never this one's.
            RunInfo claimed;
            claimed.runDir = victimDir;
            claimed.checkpoint = victimDir + QStringLiteral("/checkpoints/c.pt");
            if (store.hasCheckpoint(victim) || !SlurmEnding::checkpointStamp(victimDir).isEmpty()
                || !RunInputs::checkpointOf(claimed).isEmpty()) {
                code = 2;
            }
            if (runconfigfile::readParams(victimDir).value(QStringLiteral("lr")).toDouble() == 0.777) {
                code = 2;
            }
            ::_exit(code);
        }
        int status = 0;
        pid_t done = 0;
        for (int i = 0; i < 200 && (done = ::waitpid(child, &status, WNOHANG)) == 0; ++i) {
            QTest::qSleep(50);
        }
        if (done == 0) {
            ::kill(child, SIGKILL);
            ::waitpid(child, &status, 0);
            QFAIL("reading the runs root did not return within 10 s");
        }
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
    }
};

QTEST_GUILESS_MAIN(TestClaims)
#include "tst_claims.moc"
