// Runs on a host reached over ssh (docs/remote.md), on a real sshd in a
// mount namespace of its own whose runs root this process cannot see
// (TestRemoteHost): training with live curves, the local mirror, the GPUs
// of the lane headers, pause/resume/stop, and each fault: the master
// connection killed mid-run, the host unreachable at start, the app killed
// and reopened, the remote worker killed, the remote disk full.

#include "metrics/metricstore.h"
#include "orchestration/board/board.h"
#include "orchestration/devices/deviceinventory.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/dispatch/startplanner.h"
#include "orchestration/experiment/trustlist.h"
#include "orchestration/ingest/ingestion.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/remote/remotelauncher.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/launcherrouter.h"
#include "protocol/metricrecord.h"
#include "testremotehost.h"
#include "tests/helpers/buildprograms.h"
#include "testutil.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

#include <csignal>

using namespace trainyard;
using namespace trainyard::test;

namespace {

#define REQUIRE_HOST()                                                                                                 \
    do {                                                                                                               \
        if (!m_host.running())                                                                                         \
            QSKIP(qPrintable(m_host.skipReason()));                                                                    \
    } while (false)

// A lane that starts beside the other user's process on the host's GPU 1
// (the fixture's), which would otherwise make its runs wait.
QJsonObject sharing(QJsonObject lane)
{
    lane.insert(QStringLiteral("busy"), QStringLiteral("share"));
    return lane;
}

} // namespace

class TestRemoteHost_ : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_runtime; // XDG_RUNTIME_DIR: the masters' control sockets
    QTemporaryDir m_tmp;
    TestRemoteHost m_host;

    QJsonObject hostJson(const QString &name = QStringLiteral("lab"), const QString &config = QString()) const
    {
        return QJsonObject{{QStringLiteral("name"), name},
                           {QStringLiteral("host"), QStringLiteral("127.0.0.1")},
                           {QStringLiteral("ssh_config"), config.isEmpty() ? m_host.sshConfig() : config},
                           {QStringLiteral("runs_root"), m_host.runsRoot()},
                           {QStringLiteral("worker"), fakeWorker()},
                           {QStringLiteral("poll_seconds"), 1}};
    }

    Experiment hostExperiment(const QString &name, const QJsonArray &lanes, const QJsonArray &hosts = {}) const
    {
        QJsonObject json = experimentJson(name, m_tmp.filePath(name), lanes);
        json.insert(QStringLiteral("hosts"), hosts.isEmpty() ? QJsonArray{hostJson()} : hosts);
        return experiment(json);
    }

    std::unique_ptr<Session> open(const Experiment &ex)
    {
        auto session = std::make_unique<Session>();
        QStringList errors;
        if (!session->open(ex, QString(), &errors)) {
            qWarning("%s", qPrintable(errors.join(QLatin1Char('\n'))));
        }
        session->orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
        return session;
    }

    // Each step of `metric` once, in order, from 1 to `steps`.
    static QString everyStepOnce(const MetricStore &store, RunId id, int steps)
    {
        const MetricSeries *loss = store.series(id, QStringLiteral("loss"));
        if (!loss) {
            return QStringLiteral("no loss series");
        }
        if (int(loss->size()) != steps) {
            return QStringLiteral("%1 points, expected %2").arg(loss->size()).arg(steps);
        }
        for (int i = 0; i < steps; ++i) {
            if (loss->step(std::size_t(i)) != i + 1) {
                return QStringLiteral("point %1 has step %2").arg(i).arg(loss->step(std::size_t(i)));
            }
        }
        return {};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_runtime.isValid());
        QFile::setPermissions(m_runtime.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        qputenv("XDG_RUNTIME_DIR", m_runtime.path().toUtf8());
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set (run through ctest)");
        }
        QString error;
        QVERIFY2(m_host.start(m_tmp.filePath(QStringLiteral("host")), &error, QStringLiteral("16m")),
                 qPrintable(error));
    }

    void cleanupTestCase() { m_host.stop(); }

    // A lane on the host's GPU 0 and a pool of all its GPUs: every metric
    // line arrives once, the run folders exist there and not here, the
    // local mirror holds the host's files byte for byte, the headers have
    // the host's GPUs. GPU 1 is busy with another user's process, so the
    // pool's run waits for GPU 0 to free (one run a GPU) and runs there.
    void trainsOnHost()
    {
        REQUIRE_HOST();
        auto session = open(hostExperiment(
            QStringLiteral("train"), {lane(QStringLiteral("ssh:lab/cuda:0"), 1, {fakeSpec(QStringLiteral("a"), 40)}),
                                      lane(QStringLiteral("ssh:lab/cuda:*"), 1, {fakeSpec(QStringLiteral("b"), 30)})}));
        Orchestrator *orch = session->orchestrator();
        // The headers' GPUs, from the fake nvidia-smi over the connection.
        QTRY_VERIFY_WITH_TIMEOUT(!session->devices()->device(QStringLiteral("ssh:lab/cuda:1")).id.isEmpty(), 20000);
        const DeviceInfo gpu1 = session->devices()->device(QStringLiteral("ssh:lab/cuda:1"));
        QCOMPARE(gpu1.name, QStringLiteral("NVIDIA H100 80GB HBM3"));
        QCOMPARE(gpu1.memoryTotal, qint64(81559) * 1024 * 1024);
        QCOMPARE(gpu1.processes.size(), 1);
        QVERIFY(gpu1.busyWithOthers());
        QCOMPARE(session->devices()->device(QStringLiteral("ssh:lab/cuda:0")).utilization, 37);

        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 60000);
        const RunId a = orch->runs()->findByName(QStringLiteral("a"));
        const RunId b = orch->runs()->findByName(QStringLiteral("b"));
        QCOMPARE(orch->runs()->value(a).state, RunState::Finished);
        QCOMPARE(orch->runs()->value(b).state, RunState::Finished);
        QCOMPARE(orch->runs()->value(a).host, QStringLiteral("lab"));
        QCOMPARE(orch->runs()->value(b).device.toString(), QStringLiteral("ssh:lab/cuda:0"));
        QVERIFY(orch->runs()->value(b).started >= orch->runs()->value(a).ended);
        QVERIFY2(everyStepOnce(*session->metrics(), a, 40).isEmpty(),
                 qPrintable(everyStepOnce(*session->metrics(), a, 40)));
        QVERIFY2(everyStepOnce(*session->metrics(), b, 30).isEmpty(),
                 qPrintable(everyStepOnce(*session->metrics(), b, 30)));

        // There, and only there.
        const QString remoteA = m_host.runsRoot() + QStringLiteral("/a");
        QVERIFY2(!QFileInfo::exists(remoteA), "the host's run folder must not be visible here");
        const QByteArray remoteMetrics = m_host.run(QStringLiteral("cat '%1/metrics.jsonl'").arg(remoteA));
        QVERIFY(!remoteMetrics.isEmpty());
        const QString localA = m_tmp.filePath(QStringLiteral("train/a"));
        QCOMPARE(readFile(localA + QStringLiteral("/metrics.jsonl")), remoteMetrics);
        QCOMPARE(readFile(localA + QStringLiteral("/worker.log")),
                 m_host.run(QStringLiteral("cat '%1/worker.log'").arg(remoteA)));
        QVERIFY(QFileInfo::exists(localA + QStringLiteral("/status.json")));
        // Its checkpoints stay there; the mirror lists them.
        QVERIFY(QDir(localA + QStringLiteral("/checkpoints")).isEmpty());
        QVERIFY(!m_host.run(QStringLiteral("ls '%1/checkpoints'").arg(remoteA)).isEmpty());
        QVERIFY(session->store()->hasCheckpoint(QStringLiteral("a")));
        // The worker connected to the host's end of the forward.
        const QStringList command = orch->runs()->value(a).command;
        QVERIFY2(command.value(command.indexOf(QStringLiteral("--connect")) + 1)
                     .startsWith(QStringLiteral("unix:") + m_host.runsRoot() + QStringLiteral("/.trainyard/")),
                 qPrintable(command.join(QLatin1Char(' '))));
    }

    // Live through the forward: the worker said hello on the socket, pause
    // holds it, resume goes on, stop checkpoints (exit 4, the checkpoint
    // stays there), and Start resumes from it: one curve, every step once.
    void pauseResumeStopOnHost()
    {
        REQUIRE_HOST();
        auto session =
            open(hostExperiment(QStringLiteral("control"),
                                {lane(QStringLiteral("ssh:lab/cuda:0"), 1, {fakeSpec(QStringLiteral("c"), 400, 20)})}));
        Orchestrator *orch = session->orchestrator();
        const RunId c = orch->runs()->findByName(QStringLiteral("c"));
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(c).connected && orch->runs()->value(c).step > 10, 30000);
        QVERIFY(orch->supervisor()->pause(c));
        QTRY_COMPARE(orch->runs()->value(c).state, RunState::Paused);
        // Held once two lines (heartbeats, 500 ms apart) came after its last step: lines in flight landed.
        qint64 held = -1;
        qint64 linesAtStep = 0;
        const auto settled = [&] {
            const qint64 step = orch->runs()->value(c).step;
            const qint64 lines = orch->ingestion()->done(c).lines;
            if (step != held) {
                held = step;
                linesAtStep = lines;
            }
            return lines >= linesAtStep + 2;
        };
        QTRY_VERIFY_WITH_TIMEOUT(settled(), 10000);
        const qint64 lines = orch->ingestion()->done(c).lines;
        QTRY_VERIFY_WITH_TIMEOUT(orch->ingestion()->done(c).lines >= lines + 2, 10000); // two more: 50 steps' time
        QCOMPARE(orch->runs()->value(c).step, held);
        QVERIFY(orch->supervisor()->resume(c));
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(c).step > held + 10, 10000);
        QVERIFY(orch->runActions()->stopRun(c));
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(c).state, RunState::Stopped, 20000);
        QCOMPARE(orch->runs()->value(c).exitCode, 4);
        const qint64 stoppedAt = orch->runs()->value(c).step;
        QVERIFY(stoppedAt < 400);
        QVERIFY(orch->startPlanner()->resumesOnRetry(c)); // its checkpoint, listed by the mirror
        QVERIFY(orch->runActions()->startRun(c));
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(c).state, RunState::Finished, 40000);
        QVERIFY2(everyStepOnce(*session->metrics(), c, 400).isEmpty(),
                 qPrintable(everyStepOnce(*session->metrics(), c, 400)));
        QVERIFY(readFile(m_tmp.filePath(QStringLiteral("control/c/metrics.jsonl"))).contains("resumed from step"));
    }

    // Three sessions on one runs root, one after another, while the master
    // the first opened persists (ControlPersist) with its forward on: each
    // new session's run still gets live control (hello, pause, resume),
    // not a forward that the master already holds but whose socket file
    // there was taken away.
    void laterRunsKeepLiveControl()
    {
        REQUIRE_HOST();
        qint64 master = 0;
        for (int i = 1; i <= 3; ++i) {
            const QString name = QStringLiteral("again%1").arg(i);
            QJsonObject json = experimentJson(QStringLiteral("again"), m_tmp.filePath(QStringLiteral("again")),
                                              {lane(QStringLiteral("ssh:lab/cuda:0"), 1, {fakeSpec(name, 2000, 20)})});
            json.insert(QStringLiteral("hosts"), QJsonArray{hostJson()});
            auto session = open(experiment(json));
            Orchestrator *orch = session->orchestrator();
            const RunId id = orch->runs()->findByName(name);
            orch->dispatcher()->startAll();
            // Connected, and started (the launch answered: its host is
            // known); a worker that ended before that answer is a start
            // that failed.
            QTRY_VERIFY2_WITH_TIMEOUT(orch->runs()->value(id).connected && !orch->runs()->value(id).host.isEmpty(),
                                      qPrintable(name), 15000);
            QCOMPARE(orch->runs()->value(id).state, RunState::Running);
            if (i == 1) {
                master = m_host.masterPid();
            }
            QCOMPARE(m_host.masterPid(), master); // the same master, its forward already on
            QVERIFY(orch->supervisor()->pause(id));
            QTRY_COMPARE(orch->runs()->value(id).state, RunState::Paused);
            QVERIFY(orch->supervisor()->resume(id));
            QTRY_COMPARE(orch->runs()->value(id).state, RunState::Running);
            QVERIFY(orch->runActions()->stopRun(id));
            QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).state, RunState::Stopped, 20000);
        }
    }

    // Files on the host that are not what stat says, mid-run: worker.log
    // replaced by a link (its own length longer than its target), and a
    // metrics.jsonl that gives fewer bytes than stat promised (it shrank
    // between stat and the read: a stat first on the host's PATH that adds
    // 100 bytes stands in for the race). The poll's framing holds, the run
    // is never taken as ended while it trains, the link's target is never
    // read, and it finishes with every step once.
    void hostileFilesOnHost()
    {
        REQUIRE_HOST();
        const QString shim = m_host.dir() + QStringLiteral("/bin/stat");
        const auto removeShim = qScopeGuard([&] { QFile::remove(shim); });
        auto session =
            open(hostExperiment(QStringLiteral("hostile"),
                                {lane(QStringLiteral("ssh:lab/cuda:0"), 1, {fakeSpec(QStringLiteral("t"), 150, 20)})}));
        Orchestrator *orch = session->orchestrator();
        const RunId t = orch->runs()->findByName(QStringLiteral("t"));
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(t).step > 10 && !orch->runs()->value(t).host.isEmpty(), 30000);
        const QString remote = m_host.runsRoot() + QStringLiteral("/t");
        int status = -1;
        m_host.run(QStringLiteral("printf 'SECRET\\n' >'%1/secret' && ln -sfn '%1%2secret' '%3/worker.log'")
                       .arg(m_host.runsRoot(), QString(200, QLatin1Char('/')), remote),
                   &status);
        QCOMPARE(status, 0);
        QVERIFY(writeFile(shim, QByteArrayLiteral("#!/bin/sh\nfor f; do :; done\n"
                                                  "case $f in */t/metrics.jsonl) echo $(($(/usr/bin/stat -c %s -- "
                                                  "\"$f\") + 100)); exit 0 ;; esac\nexec /usr/bin/stat \"$@\"\n")));
        QFile::setPermissions(shim, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadOther
                                        | QFile::ExeOther);
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(t).state, RunState::Finished, 30000);
        QVERIFY2(everyStepOnce(*session->metrics(), t, 150).isEmpty(),
                 qPrintable(everyStepOnce(*session->metrics(), t, 150)));
        const QString local = m_tmp.filePath(QStringLiteral("hostile/t"));
        QCOMPARE(readFile(local + QStringLiteral("/metrics.jsonl")),
                 m_host.run(QStringLiteral("cat '%1/metrics.jsonl'").arg(remote)));
        QVERIFY(!readFile(local + QStringLiteral("/worker.log")).contains("SECRET"));
    }

    // The master connection killed mid-run: the worker trains on there, a
    // new master is opened, the mirror is brought up to date before the
    // forward goes back, the worker reconnects: no point lost or doubled.
    void masterKilledMidRun()
    {
        REQUIRE_HOST();
        auto session =
            open(hostExperiment(QStringLiteral("drop"),
                                {lane(QStringLiteral("ssh:lab/cuda:0"), 1, {fakeSpec(QStringLiteral("d"), 300, 20)})}));
        Orchestrator *orch = session->orchestrator();
        const RunId d = orch->runs()->findByName(QStringLiteral("d"));
        int hellos = 0;
        connect(orch->ingestion(), &Ingestion::helloReceived, this, [&](RunId id) { hellos += id == d ? 1 : 0; });
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(d).connected && orch->runs()->value(d).step > 30, 30000);
        const qint64 master = m_host.masterPid();
        QVERIFY(master > 0);
        QCOMPARE(::kill(pid_t(master), SIGKILL), 0);
        QTRY_VERIFY_WITH_TIMEOUT(!orch->runs()->value(d).connected, 10000);
        // A new master, the forward back on it, the worker connected again.
        QTRY_VERIFY_WITH_TIMEOUT(hellos >= 2 && orch->runs()->value(d).connected, 30000);
        QVERIFY(m_host.masterPid() != master);
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(d).state, RunState::Finished, 40000);
        QVERIFY2(everyStepOnce(*session->metrics(), d, 300).isEmpty(),
                 qPrintable(everyStepOnce(*session->metrics(), d, 300)));
        QCOMPARE(readFile(m_tmp.filePath(QStringLiteral("drop/d/metrics.jsonl"))),
                 m_host.run(QStringLiteral("cat '%1/d/metrics.jsonl'").arg(m_host.runsRoot())));
    }

    // The worker killed there: failed, saying so, its log mirrored here.
    void workerKilledOnHost()
    {
        REQUIRE_HOST();
        auto session = open(hostExperiment(
            QStringLiteral("killed"),
            {sharing(lane(QStringLiteral("ssh:lab/cuda:1"), 1, {fakeSpec(QStringLiteral("k"), 2000, 20)}))}));
        Orchestrator *orch = session->orchestrator();
        const RunId k = orch->runs()->findByName(QStringLiteral("k"));
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(k).step > 10, 30000);
        int status = -1;
        m_host.run(QStringLiteral("kill -9 \"$(cat '%1/k/.trainyard-pid')\"").arg(m_host.runsRoot()), &status);
        QCOMPARE(status, 0);
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(k).state, RunState::Failed, 20000);
        const QString message = orch->runs()->value(k).message;
        QVERIFY2(message.contains(QStringLiteral("SIGKILL")), qPrintable(message));
        const QByteArray log = readFile(m_tmp.filePath(QStringLiteral("killed/k/worker.log")));
        QVERIFY(log.contains("fake-worker: k starting"));
        QCOMPARE(log, m_host.run(QStringLiteral("cat '%1/k/worker.log'").arg(m_host.runsRoot())));
    }

    // The host unreachable when the runs should start: they stay queued, the
    // lane and a Start by hand say why; once it answers they train.
    void unreachableAtStart()
    {
        REQUIRE_HOST();
        const QString config = m_tmp.filePath(QStringLiteral("unreachable_config"));
        const QByteArray good = readFile(m_host.sshConfig());
        QByteArray bad = good;
        bad.replace(QByteArray("Port "), QByteArray("Port 1 #"));
        QVERIFY(writeFile(config, bad));
        auto session = open(
            hostExperiment(QStringLiteral("away"),
                           {lane(QStringLiteral("ssh:far/cuda:0"), 1,
                                 {fakeSpec(QStringLiteral("w1"), 20, 10), fakeSpec(QStringLiteral("w2"), 20, 10)})},
                           {hostJson(QStringLiteral("far"), config)}));
        Orchestrator *orch = session->orchestrator();
        const RunId w1 = orch->runs()->findByName(QStringLiteral("w1"));
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(orch->laneDevices()->lane(0).waitReason.contains(QStringLiteral("cannot be reached")),
                                 20000);
        const QString why = orch->laneDevices()->lane(0).waitReason;
        QVERIFY2(why.contains(QStringLiteral("host far")) && why.contains(QStringLiteral("Connection refused")),
                 qPrintable(why));
        QSignalSpy asked(session->devices(), &DeviceInventory::remoteDevicesChanged);
        QTRY_VERIFY_WITH_TIMEOUT(asked.count() >= 1, 20000); // the host's next poll, still away
        QVERIFY(orch->laneDevices()->lane(0).waitReason.contains(QStringLiteral("cannot be reached")));
        QCOMPARE(orch->runs()->value(w1).state, RunState::Queued);
        QCOMPARE(idle.count(), 0); // waiting, not done
        QString error;
        QVERIFY(!orch->runActions()->startRun(w1, &error));
        QCOMPARE(error, why);
        QVERIFY(orch->laneDevices()
                    ->preflight()
                    .join(QLatin1Char('\n'))
                    .contains(QStringLiteral("lanes on host far wait")));
        // It answers: the queue goes on by itself.
        QVERIFY(writeFile(config, good));
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 60000);
        QCOMPARE(orch->runs()->value(w1).state, RunState::Finished);
        QCOMPARE(orch->runs()->value(orch->runs()->findByName(QStringLiteral("w2"))).state, RunState::Finished);
        QVERIFY(orch->laneDevices()->lane(0).waitReason.isEmpty());
    }

    // `trainyard run` killed (SIGKILL) while two runs train on the host,
    // the experiment opened again: both reattached through the state file
    // (verified there), what they wrote meanwhile read, every step once.
    void appKilledAndReopened()
    {
        REQUIRE_HOST();
        const QString file = m_tmp.filePath(QStringLiteral("reopen.json"));
        QJsonObject json = experimentJson(
            QStringLiteral("reopen"), m_tmp.filePath(QStringLiteral("reopen")),
            {lane(QStringLiteral("ssh:lab/cuda:0"), 1, {fakeSpec(QStringLiteral("r1"), 300, 50)}),
             sharing(lane(QStringLiteral("ssh:lab/cuda:1"), 1, {fakeSpec(QStringLiteral("r2"), 250, 50)}))});
        json.insert(QStringLiteral("hosts"), QJsonArray{hostJson()});
        QVERIFY(writeFile(file, QJsonDocument(json).toJson()));
        QProcess app;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TRAINYARD_WORKER"), fakeWorker()); // the fake's specs pass its check
        app.setProcessEnvironment(env);
        app.start(buildProgram("TRAINYARD_BIN"), {QStringLiteral("run"), QStringLiteral("--trust"), file});
        QVERIFY(app.waitForStarted());
        const QString mirror1 = m_tmp.filePath(QStringLiteral("reopen/r1/metrics.jsonl"));
        const QString mirror2 = m_tmp.filePath(QStringLiteral("reopen/r2/metrics.jsonl"));
        QTRY_VERIFY2_WITH_TIMEOUT(countLines(mirror1, "metric") > 20 && countLines(mirror2, "metric") > 20,
                                  app.readAllStandardError().constData(), 30000);
        app.kill(); // the app dies; its runs train on there
        QVERIFY(app.waitForFinished());
        QTest::qWait(1000); // the outage itself: the runs write on while no app reads
        // 50 ms a step leaves both runs about ten seconds to train on after
        // the kill: the reopening below (three ssh round trips) must find them
        // running to reattach (at 20 ms r2 had finished on a loaded machine).
        for (const char *run : {"r1", "r2"}) {
            QVERIFY(m_host
                        .run(QStringLiteral("test -e '%1/%2/.trainyard-exit' || echo running")
                                 .arg(m_host.runsRoot(), QLatin1String(run)))
                        .contains("running"));
        }

        // Its host's keys are commands: refused until trusted, naming each.
        // (`run --trust` remembered this version: forgotten first.)
        int removed = 0;
        QVERIFY(TrustList().revoke(file, &removed));
        QCOMPARE(removed, 1);
        {
            Session untrusted;
            QStringList refusal;
            QVERIFY(!untrusted.load(file, &refusal));
            QVERIFY2(refusal.join(QLatin1Char(' ')).contains(QStringLiteral("(host lab, every command there) ssh -F ")),
                     qPrintable(refusal.join(QLatin1Char(' '))));
        }
        // The user allows this file's commands (ssh, the host's worker) in the app.
        QVERIFY(TrustList().trust(*Experiment::load(file, nullptr)));
        Session session;
        QStringList errors;
        QVERIFY2(session.load(file, &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
        Orchestrator *orch = session.orchestrator();
        const RunId r1 = orch->runs()->findByName(QStringLiteral("r1"));
        const RunId r2 = orch->runs()->findByName(QStringLiteral("r2"));
        QVERIFY(orch->runs()->value(r1).reattached);
        QVERIFY(orch->runs()->value(r2).reattached);
        QCOMPARE(orch->runs()->value(r1).state, RunState::Running);
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(r1).connected, 20000); // the worker found the socket again
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(r1).state, RunState::Finished, 40000);
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(r2).state, RunState::Finished, 40000);
        QVERIFY2(everyStepOnce(*session.metrics(), r1, 300).isEmpty(),
                 qPrintable(everyStepOnce(*session.metrics(), r1, 300)));
        QVERIFY2(everyStepOnce(*session.metrics(), r2, 250).isEmpty(),
                 qPrintable(everyStepOnce(*session.metrics(), r2, 250)));
        QCOMPARE(readFile(mirror1), m_host.run(QStringLiteral("cat '%1/r1/metrics.jsonl'").arg(m_host.runsRoot())));
        QCOMPARE(countLines(mirror1, "metric"), 300);
    }

    // A state file whose pid is not the run's (another process there): the
    // run is lost and nothing is signalled.
    void forgedStateNeverSignals()
    {
        REQUIRE_HOST();
        const QString root = m_tmp.filePath(QStringLiteral("forged"));
        const Experiment ex =
            hostExperiment(QStringLiteral("forged"),
                           {lane(QStringLiteral("ssh:lab/cuda:0"), 1, {fakeSpec(QStringLiteral("g"), 2000, 20)})});
        {
            auto session = open(ex);
            Orchestrator *orch = session->orchestrator();
            const RunId g = orch->runs()->findByName(QStringLiteral("g"));
            orch->dispatcher()->startAll();
            QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(g).step > 5, 30000);
            session->close(true); // leave it running
        }
        // The state file names a sleeping process of the host instead, with
        // its real start time: only the token and executable can tell.
        const QByteArray sleeper = m_host.run(QStringLiteral(
            "setsid sleep 300 </dev/null >/dev/null 2>&1 & p=$!; sleep 0.2; s=$(cat /proc/$p/stat); s=${s##*) }; "
            "set -- $s; echo $p ${20}"));
        const QList<QByteArray> words = sleeper.trimmed().split(' ');
        QCOMPARE(words.size(), 2);
        const QString statePath = root + QStringLiteral("/.trainyard-state.json");
        QJsonObject state = readJsonFile(statePath);
        QJsonObject workers = state.value(QStringLiteral("runs")).toObject();
        QJsonObject g = workers.value(QStringLiteral("g")).toObject();
        QJsonObject handle = g.value(QStringLiteral("launcher")).toObject();
        const qint64 realPid = handle.value(QStringLiteral("pid")).toInteger();
        handle.insert(QStringLiteral("pid"), words.at(0).toLongLong());
        handle.insert(QStringLiteral("start_ticks"), words.at(1).toLongLong());
        g.insert(QStringLiteral("launcher"), handle);
        workers.insert(QStringLiteral("g"), g);
        state.insert(QStringLiteral("runs"), workers);
        QVERIFY(writeFile(statePath, QJsonDocument(state).toJson()));
        QFile::setPermissions(statePath, QFile::ReadOwner | QFile::WriteOwner);

        auto session = open(ex);
        const RunId id = session->orchestrator()->runs()->findByName(QStringLiteral("g"));
        QCOMPARE(session->orchestrator()->runs()->value(id).state, RunState::Lost);
        const QString message = session->orchestrator()->runs()->value(id).message;
        QVERIFY2(message.contains(QStringLiteral("nothing was signalled")), qPrintable(message));
        // The sleeper lives; so does the real worker (nobody signalled it).
        int status = -1;
        m_host.run(QStringLiteral("kill -0 %1 && kill -0 %2").arg(QString::fromLatin1(words.at(0))).arg(realPid),
                   &status);
        QCOMPARE(status, 0);
        m_host.run(QStringLiteral("kill %1 %2").arg(QString::fromLatin1(words.at(0))).arg(realPid));
    }

    // A state file whose claims are true of other processes: run f1's pid
    // and start time are run f2's worker (the same program, the user's,
    // with a token and a --run-dir, but f2's), and f2's waiting sh is pid 1
    // (the other user's process on GPU 1). f1 is lost, nothing signalled;
    // f2's worker is proved its own, but pid 1 is never taken for its
    // waiting sh: GPU 1 stays busy with another user's process, and the
    // waiting sh the host proves (its worker's parent) replaces the claim.
    void forgedStateOfAnotherRunsWorker()
    {
        REQUIRE_HOST();
        const QString root = m_tmp.filePath(QStringLiteral("forged2"));
        const Experiment ex = hostExperiment(
            QStringLiteral("forged2"),
            {lane(QStringLiteral("ssh:lab/cuda:0"), 1, {fakeSpec(QStringLiteral("f1"), 2000, 20)}),
             sharing(lane(QStringLiteral("ssh:lab/cuda:1"), 1, {fakeSpec(QStringLiteral("f2"), 2000, 20)}))});
        {
            auto session = open(ex);
            Orchestrator *orch = session->orchestrator();
            const RunId f1 = orch->runs()->findByName(QStringLiteral("f1"));
            const RunId f2 = orch->runs()->findByName(QStringLiteral("f2"));
            orch->dispatcher()->startAll();
            QTRY_VERIFY_WITH_TIMEOUT(!orch->runs()->value(f1).host.isEmpty() && !orch->runs()->value(f2).host.isEmpty()
                                         && orch->runs()->value(f1).step > 5 && orch->runs()->value(f2).step > 5,
                                     30000);
            session->close(true); // leave them running
        }
        const QString statePath = root + QStringLiteral("/.trainyard-state.json");
        QJsonObject state = readJsonFile(statePath);
        QJsonObject runs = state.value(QStringLiteral("runs")).toObject();
        QJsonObject r1 = runs.value(QStringLiteral("f1")).toObject();
        QJsonObject r2 = runs.value(QStringLiteral("f2")).toObject();
        QJsonObject h1 = r1.value(QStringLiteral("launcher")).toObject();
        QJsonObject h2 = r2.value(QStringLiteral("launcher")).toObject();
        const qint64 worker1 = h1.value(QStringLiteral("pid")).toInteger();
        const qint64 worker2 = h2.value(QStringLiteral("pid")).toInteger();
        const qint64 wrapper2 = h2.value(QStringLiteral("wrapper")).toInteger();
        QVERIFY(worker1 > 0 && worker2 > 0 && wrapper2 > 1);
        h1.insert(QStringLiteral("pid"), worker2);
        h1.insert(QStringLiteral("start_ticks"), h2.value(QStringLiteral("start_ticks")));
        h2.insert(QStringLiteral("wrapper"), 1);
        r1.insert(QStringLiteral("launcher"), h1);
        r2.insert(QStringLiteral("launcher"), h2);
        runs.insert(QStringLiteral("f1"), r1);
        runs.insert(QStringLiteral("f2"), r2);
        state.insert(QStringLiteral("runs"), runs);
        QVERIFY(writeFile(statePath, QJsonDocument(state).toJson()));
        QFile::setPermissions(statePath, QFile::ReadOwner | QFile::WriteOwner);
        const auto cleanup = qScopeGuard([&] { m_host.run(QStringLiteral("kill %1 %2").arg(worker1).arg(worker2)); });

        auto session = open(ex);
        // The host's polls after the attach (opening attached the runs).
        QSignalSpy polled(session->devices(), &DeviceInventory::remoteDevicesChanged);
        Orchestrator *orch = session->orchestrator();
        const RunId f1 = orch->runs()->findByName(QStringLiteral("f1"));
        const RunId f2 = orch->runs()->findByName(QStringLiteral("f2"));
        QCOMPARE(orch->runs()->value(f1).state, RunState::Lost);
        const QString message = orch->runs()->value(f1).message;
        QVERIFY2(message.contains(QStringLiteral("nothing was signalled")), qPrintable(message));
        QVERIFY(orch->runs()->value(f2).reattached);
        QCOMPARE(orch->runs()->value(f2).state, RunState::Running);
        // The host's next poll: pid 1 on GPU 1 is another user's, not f2's.
        QTRY_VERIFY_WITH_TIMEOUT(polled.count() >= 1, 10000);
        QCOMPARE(session->devices()->device(QStringLiteral("ssh:lab/cuda:1")).processes.size(), 1);
        QVERIFY(session->devices()->device(QStringLiteral("ssh:lab/cuda:1")).busyWithOthers());
        // The waiting sh saved now is the one the host proved.
        QTRY_COMPARE(readJsonFile(statePath)
                         .value(QStringLiteral("runs"))
                         .toObject()
                         .value(QStringLiteral("f2"))
                         .toObject()
                         .value(QStringLiteral("launcher"))
                         .toObject()
                         .value(QStringLiteral("wrapper"))
                         .toInteger(),
                     wrapper2);
        // Both workers live: nobody signalled f2's worker for f1.
        int status = -1;
        m_host.run(QStringLiteral("kill -0 %1 && kill -0 %2").arg(worker1).arg(worker2), &status);
        QCOMPARE(status, 0);
    }

    // `trainyard check` asks each host its lanes name, over ssh, once the
    // file is trusted: reached, its worker runs, its runs_root writable,
    // its GPUs cover the lanes.
    void checkAsksTheHost()
    {
        REQUIRE_HOST();
        const QString file = m_tmp.filePath(QStringLiteral("check.json"));
        QByteArray away = readFile(m_host.sshConfig());
        away.replace(QByteArray("Port "), QByteArray("Port 1 #"));
        QVERIFY(writeFile(m_tmp.filePath(QStringLiteral("away_config")), away));
        QJsonObject bad = hostJson(QStringLiteral("bad"));
        bad.insert(QStringLiteral("worker"), QStringLiteral("/nonexistent/trainyard-worker"));
        bad.insert(QStringLiteral("runs_root"), QStringLiteral("/proc/self/no-runs-here"));
        QJsonObject json =
            experimentJson(QStringLiteral("check"), m_tmp.filePath(QStringLiteral("check")),
                           {lane(QStringLiteral("ssh:lab/cuda:1"), 1, {fakeSpec(QStringLiteral("fine"))}),
                            lane(QStringLiteral("ssh:lab/cuda:5"), 1, {fakeSpec(QStringLiteral("nogpu"))}),
                            lane(QStringLiteral("ssh:bad/cpu"), 1, {fakeSpec(QStringLiteral("noworker"))}),
                            lane(QStringLiteral("ssh:away/cuda:0"), 1, {fakeSpec(QStringLiteral("unreached"))})});
        json.insert(QStringLiteral("hosts"),
                    QJsonArray{hostJson(), bad,
                               hostJson(QStringLiteral("away"), m_tmp.filePath(QStringLiteral("away_config")))});
        QVERIFY(writeFile(file, QJsonDocument(json).toJson()));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TRAINYARD_WORKER"), fakeWorker());
        const QString bin = buildProgram("TRAINYARD_BIN");

        const ProcessOutcome untrusted = runProcess(bin, {QStringLiteral("check"), file}, env, 60000);
        QVERIFY2(untrusted.out.contains(QStringLiteral("host lab was not asked: its keys are commands")),
                 qPrintable(untrusted.all()));

        QVERIFY(TrustList().trust(*Experiment::load(file, nullptr)));
        const ProcessOutcome checked = runProcess(bin, {QStringLiteral("check"), file}, env, 120000);
        QCOMPARE(checked.exitCode, 2);
        const QString all = checked.all();
        QVERIFY2(all.contains(QStringLiteral("lanes[1].device: ssh:lab/cuda:5 is not on host lab, where nvidia-smi "
                                             "lists 2 GPUs")),
                 qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("hosts[1].worker: /nonexistent/trainyard-worker is not an executable "
                                             "file on host bad")),
                 qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("hosts[1].runs_root: /proc/self/no-runs-here cannot be made or written "
                                             "on host bad")),
                 qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("hosts[2]: host away (127.0.0.1) cannot be reached")), qPrintable(all));
        QVERIFY2(!all.contains(QStringLiteral("lanes[0]")) && !all.contains(QStringLiteral("hosts[0]")),
                 qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("4 problems found")), qPrintable(all));
    }

    // The host's disk fills while a run trains: the worker's metrics.jsonl
    // there (and its byte copy here) stops short, perhaps in a torn line,
    // while its points still come over the socket. Those are kept beside
    // the mirror (metrics.received.jsonl, marked so, the torn line named),
    // read by the one reader after metrics.jsonl: every step once; the
    // status's step is in a file; the run says the disk is full; no
    // 0-byte .trainyard-exit.tmp is left there.
    void diskFillsDuringARun()
    {
        REQUIRE_HOST();
        const auto empty = qScopeGuard([&] { m_host.run(QStringLiteral("rm -f '%1/filler'").arg(m_host.runsRoot())); });
        auto session =
            open(hostExperiment(QStringLiteral("fills"),
                                {lane(QStringLiteral("ssh:lab/cuda:0"), 1, {fakeSpec(QStringLiteral("u"), 300, 10)})}));
        Orchestrator *orch = session->orchestrator();
        const RunId u = orch->runs()->findByName(QStringLiteral("u"));
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(u).step > 50 && !orch->runs()->value(u).host.isEmpty(), 30000);
        m_host.run(QStringLiteral("head -c 100000000 /dev/zero >'%1/filler' 2>/dev/null; true").arg(m_host.runsRoot()));
        QTRY_VERIFY_WITH_TIMEOUT(!isActive(orch->runs()->value(u).state), 30000);
        const RunInfo info = orch->runs()->value(u);
        QVERIFY2(info.message.contains(QStringLiteral("the disk of host lab is full")), qPrintable(info.message));
        QCOMPARE(info.step, qint64(300));

        const QString remote = m_host.runsRoot() + QStringLiteral("/u");
        const QString local = m_tmp.filePath(QStringLiteral("fills/u"));
        const QByteArray hostFile = m_host.run(QStringLiteral("cat '%1/metrics.jsonl'").arg(remote));
        QVERIFY(!hostFile.contains("\"step\":300,"));                           // the disk did fill under it
        QCOMPARE(readFile(local + QStringLiteral("/metrics.jsonl")), hostFile); // still a byte copy
        const QByteArray received = readFile(local + QStringLiteral("/metrics.received.jsonl"));
        QVERIFY2(received.startsWith("{\"level\":\"warning\""), received.left(300).constData());
        QVERIFY(received.contains("reached Trainyard over the socket but are in no file of the run"));
        QVERIFY(hostFile.endsWith('\n') || received.contains("torn line"));
        // The one reader (history, plots, export): every step once, in order.
        QList<qint64> steps;
        session->store()->readMetrics(QStringLiteral("u"), 0, [&](const MetricRecord &record) {
            if (record.kind == protocol::MessageType::Metric) {
                steps << record.step;
            }
        });
        QCOMPARE(steps.size(), 300);
        for (int i = 0; i < steps.size(); ++i) {
            QCOMPARE(steps.at(i), qint64(i + 1));
        }
        QCOMPARE(readJsonFile(local + QStringLiteral("/status.json")).value(QStringLiteral("step")).toInteger(), 300);
        QVERIFY(m_host.run(QStringLiteral("ls -a '%1'").arg(remote)).contains(".trainyard-exit.tmp") == false);
    }

    // The host's disk full: the start fails with the host's words.
    void diskFullOnHost()
    {
        REQUIRE_HOST();
        const auto empty = qScopeGuard([&] { m_host.run(QStringLiteral("rm -f '%1/filler'").arg(m_host.runsRoot())); });
        m_host.run(QStringLiteral("head -c 100000000 /dev/zero >'%1/filler' 2>/dev/null; true").arg(m_host.runsRoot()));
        QVERIFY(m_host.run(QStringLiteral("df -Pk '%1' | awk 'NR == 2 { print $4 }'").arg(m_host.runsRoot())).trimmed()
                == "0");
        auto session =
            open(hostExperiment(QStringLiteral("full"),
                                {lane(QStringLiteral("ssh:lab/cuda:0"), 1, {fakeSpec(QStringLiteral("f"), 50, 10)})}));
        Orchestrator *orch = session->orchestrator();
        const RunId f = orch->runs()->findByName(QStringLiteral("f"));
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(f).state, RunState::Failed, 30000);
        const QString message = orch->runs()->value(f).message;
        QVERIFY2(message.contains(QStringLiteral("host lab")) && message.contains(QStringLiteral("No space left")),
                 qPrintable(message));
    }

    // Trust covers the ssh_config a trusted file names: a LocalCommand
    // added to it afterwards never runs without asking again; `trainyard
    // run` says which file changed. Trusted again, it runs (the marker
    // shows ssh really would have run it).
    void changedSshConfigIsNotTrusted()
    {
        REQUIRE_HOST();
        const QString config = m_tmp.filePath(QStringLiteral("lab/ssh_config"));
        const QString marker = m_tmp.filePath(QStringLiteral("lab/MARKER"));
        QVERIFY(QDir().mkpath(m_tmp.filePath(QStringLiteral("lab"))));
        QVERIFY(writeFile(config, readFile(m_host.sshConfig())));
        const QString file = m_tmp.filePath(QStringLiteral("localcommand.json"));
        QJsonObject json =
            experimentJson(QStringLiteral("localcommand"), m_tmp.filePath(QStringLiteral("localcommand")),
                           {lane(QStringLiteral("ssh:lab/cuda:0"), 1, {fakeSpec(QStringLiteral("l"), 20, 20)})});
        json.insert(QStringLiteral("hosts"), QJsonArray{hostJson(QStringLiteral("lab"), config)});
        QVERIFY(writeFile(file, QJsonDocument(json).toJson()));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TRAINYARD_WORKER"), fakeWorker());
        const QString bin = buildProgram("TRAINYARD_BIN");
        ProcessOutcome o = runProcess(bin, {QStringLiteral("trust"), file}, env, 30000);
        QVERIFY2(o.exitCode == 0, qPrintable(o.all()));

        QFile append(config);
        QVERIFY(append.open(QIODevice::Append));
        append.write("\nPermitLocalCommand yes\nLocalCommand touch " + marker.toUtf8() + "\n");
        append.close();
        m_host.ssh({QStringLiteral("-O"), QStringLiteral("exit")}); // no earlier master to reuse
        o = runProcess(bin, {QStringLiteral("run"), file}, env, 60000);
        QVERIFY2(!QFileInfo::exists(marker), qPrintable(o.all()));
        QCOMPARE(o.exitCode, 2);
        QVERIFY2(o.err.contains(QStringLiteral("%1 (host lab's ssh_config) changed since you trusted").arg(config)),
                 qPrintable(o.err));

        o = runProcess(bin, {QStringLiteral("trust"), file}, env, 30000);
        QVERIFY2(o.exitCode == 0 && o.out.contains(config), qPrintable(o.all()));
        o = runProcess(bin, {QStringLiteral("run"), file}, env, 60000);
        QVERIFY2(o.exitCode == 0, qPrintable(o.all()));
        QVERIFY(QFileInfo::exists(marker));
        m_host.ssh({QStringLiteral("-O"), QStringLiteral("exit")});
    }
};

QTEST_GUILESS_MAIN(TestRemoteHost_)
#include "tst_remotehost.moc"
