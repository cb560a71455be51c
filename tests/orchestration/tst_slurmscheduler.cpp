// The whole orchestrator on a real one-node Slurm cluster (testcluster.h):
// an experiment whose lanes are "slurm:test/debug", the real trainyard-worker
// on tiny generated data, metrics followed from each run's metrics.jsonl
// (no socket: a batch job's only channel). Two fake GPUs, so the worker
// trains on the CPU with --cpu-fallback. Skipped, saying why, where the
// cluster or the worker is missing.

#include "metrics/metricstore.h"
#include "orchestration/board/board.h"
#include "orchestration/check/experimentcheck.h"
#include "orchestration/devices/deviceinventory.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"
#include "testcluster.h"
#include "tests/helpers/buildprograms.h"
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QScopeGuard>
#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <memory>

using namespace trainyard;
using namespace trainyard::test;

namespace {

// Trains for `seconds` of wall time (train.max_seconds), reporting every 20 steps.
QJsonObject tinyRun(const QString &name, int seconds)
{
    QJsonObject spec = tinyKg(name);
    // The most epochs there can be: its time budget, not its epochs, ends it
    // (100,000 of them took 50 s on a fast CPU).
    spec.insert(QStringLiteral("train"), QJsonObject{{QStringLiteral("epochs"), 1000000},
                                                     {QStringLiteral("batch_size"), 16},
                                                     {QStringLiteral("max_seconds"), seconds}});
    spec.insert(QStringLiteral("eval"), QJsonObject{{QStringLiteral("every_epochs"), 0}});
    spec.insert(QStringLiteral("checkpoint"), QJsonObject{{QStringLiteral("every_steps"), 0}});
    spec.insert(QStringLiteral("report"), QJsonObject{{QStringLiteral("every_steps"), 20}});
    return spec;
}

// Every metric line reached the board once, in step order, with no gap
// between two reports (a requeue or a reattach loses none).
QString curveProblem(Session *session, RunId id)
{
    const RunInfo r = session->orchestrator()->runs()->value(id);
    const MetricSeries *loss = session->metrics()->series(id, QStringLiteral("loss"));
    if (!loss || loss->size() == 0) {
        return r.name + QStringLiteral(": no loss curve");
    }
    const int lines = countLines(r.runDir + QStringLiteral("/metrics.jsonl"), "metric");
    if (int(loss->size()) != lines) {
        return QStringLiteral("%1: %2 loss points, %3 metric lines in the file")
            .arg(r.name)
            .arg(loss->size())
            .arg(lines);
    }
    // Strictly rising steps with every 20th step there (a stop or the end
    // adds the step it happened at): none lost, none twice.
    std::int64_t next = 20;
    for (std::size_t i = 0; i < loss->size(); ++i) {
        const std::int64_t step = loss->step(i);
        if ((i > 0 && step <= loss->step(i - 1)) || step > next) {
            return QStringLiteral("%1: point %2 of %3 is step %4 (step %5 missing?)")
                .arg(r.name)
                .arg(i)
                .arg(loss->size())
                .arg(step)
                .arg(next);
        }
        if (step == next) {
            next += 20;
        }
    }
    if (loss->step(loss->size() - 1) != r.step) {
        return QStringLiteral("%1: the curve ends at step %2, the run at %3")
            .arg(r.name)
            .arg(loss->step(loss->size() - 1))
            .arg(r.step);
    }
    return QString();
}

} // namespace

#define REQUIRE_CLUSTER()                                                                                              \
    do {                                                                                                               \
        if (!m_skip.isEmpty())                                                                                         \
            QSKIP(qPrintable(m_skip));                                                                                 \
    } while (false)

class TestSlurmScheduler : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    TestCluster m_cluster;
    QString m_worker;
    QString m_skip;

    // An experiment with the cluster "test" (polled every second) and `lanes`.
    Experiment clusterExperiment(const QString &name, const QJsonArray &lanes,
                                 const QJsonObject &sbatch = QJsonObject()) const
    {
        QJsonObject json = experimentJson(name, m_tmp.filePath(name), lanes);
        QJsonObject cluster{{QStringLiteral("name"), QStringLiteral("test")},
                            {QStringLiteral("poll_seconds"), 1},
                            {QStringLiteral("worker"), m_worker}};
        if (!sbatch.isEmpty()) {
            cluster.insert(QStringLiteral("sbatch"), sbatch);
        }
        json.insert(QStringLiteral("clusters"), QJsonArray{cluster});
        return experiment(json);
    }

    std::unique_ptr<Session> open(const Experiment &ex) const
    {
        auto session = std::make_unique<Session>();
        QStringList errors;
        if (!session->open(ex, QString(), &errors)) {
            qWarning("%s", qPrintable(errors.join(QLatin1Char('\n'))));
        }
        session->orchestrator()->supervisor()->setWorkerProgram(m_worker);
        session->orchestrator()->laneDevices()->setCpuFallback(true); // fake GPUs: the node trains on its CPU
        return session;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        m_worker = qEnvironmentVariable("TRAINYARD_WORKER");
        if (m_worker.isEmpty() || !QFileInfo(m_worker).isExecutable()) {
            m_skip = QStringLiteral("TRAINYARD_WORKER is not set or not executable");
            return;
        }
        QString error;
        QVERIFY2(m_cluster.start(m_tmp.filePath(QStringLiteral("cluster")), &error), qPrintable(error));
        if (!m_cluster.running()) {
            m_skip = QStringLiteral("no test cluster: %1").arg(m_cluster.skipReason());
        }
    }

    void cleanupTestCase()
    {
        QString error;
        QVERIFY2(m_cluster.stop(&error), qPrintable(error));
    }

    // Three lanes of one run each on two GPUs: two jobs run with distinct
    // GPUs, the third waits for Resources and runs after them; the curves
    // arrive from the files, the command line has no socket.
    void threeRunsOnTwoGpus()
    {
        REQUIRE_CLUSTER();
        auto session = open(clusterExperiment(
            QStringLiteral("three"), {lane(QStringLiteral("slurm:test/debug"), 1, {tinyRun(QStringLiteral("a"), 5)}),
                                      lane(QStringLiteral("slurm:test/debug"), 1, {tinyRun(QStringLiteral("b"), 5)}),
                                      lane(QStringLiteral("slurm:test"), 1, {tinyRun(QStringLiteral("c"), 5)})}));
        Orchestrator *orch = session->orchestrator();
        QStringList messages;
        connect(orch->runs(), &RunRegistry::changed, this,
                [&](RunId id) { messages << orch->runs()->value(id).message; });
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 120000);
        QCOMPARE(orch->dispatcher()->finishedCount(), 3);
        QVERIFY2(messages.contains(QStringLiteral("pending: Resources")), qPrintable(messages.join(QLatin1Char('|'))));
        QStringList gpus;
        for (RunId id : orch->board()->runIds()) {
            const RunInfo r = orch->runs()->value(id);
            QVERIFY2(r.state == RunState::Finished, qPrintable(r.name + QStringLiteral(": ") + r.message));
            QVERIFY(!r.jobId.isEmpty());
            QVERIFY2(!r.command.contains(QStringLiteral("--connect")), qPrintable(r.command.join(QLatin1Char(' '))));
            QVERIFY(r.command.contains(QStringLiteral("--cpu-fallback")));
            const QString problem = curveProblem(session.get(), id);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
            QVERIFY(readJsonFile(r.runDir + QStringLiteral("/status.json")).value(QStringLiteral("state")).toString()
                    == QStringLiteral("finished"));
        }
    }

    // A program run (tests/programs/report.py through the trainyard module)
    // as a batch job: its variables come with the job, its curve from its
    // metrics.jsonl on the shared filesystem.
    void programRunFinishesWithItsCurve()
    {
        REQUIRE_CLUSTER();
        const QString script =
            qEnvironmentVariable("TRAINYARD_SOURCE_DIR") + QStringLiteral("/tests/programs/report.py");
        const QJsonObject run{
            {QStringLiteral("name"), QStringLiteral("script")},
            {QStringLiteral("program"),
             QJsonObject{{QStringLiteral("argv"),
                          QJsonArray{QStringLiteral("python3"), script, QStringLiteral("30"), QStringLiteral("30")}}}}};
        auto session =
            open(clusterExperiment(QStringLiteral("program"), {lane(QStringLiteral("slurm:test/debug"), 1, {run})}));
        Orchestrator *orch = session->orchestrator();
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 120000);
        const RunId id = orch->board()->runIds().value(0);
        const RunInfo r = orch->runs()->value(id);
        QVERIFY2(r.state == RunState::Finished, qPrintable(r.message));
        QVERIFY(!r.jobId.isEmpty());
        QCOMPARE(r.command.value(0), QStringLiteral("python3"));
        QCOMPARE(r.step, 30);
        const MetricSeries *loss = session->metrics()->series(id, QStringLiteral("loss"));
        QVERIFY(loss);
        QCOMPARE(int(loss->size()), 30);
        QCOMPARE(countLines(r.runDir + QStringLiteral("/metrics.jsonl"), "metric"), 30);
    }

    // A program run (sh -c "python3 child.py") stopped from Trainyard: the
    // job's TERM ends it, and Slurm may record that as JobLaunchFailure
    // with ExitCode 0:15. A stop that was asked for and ends on signal 15
    // is stopped on request, not a launch that failed.
    void stoppedProgramRunIsStoppedNotALaunchFailure()
    {
        REQUIRE_CLUSTER();
        const QString folder = m_tmp.filePath(QStringLiteral("child"));
        QVERIFY(QDir().mkpath(folder));
        {
            QFile child(folder + QStringLiteral("/child.py"));
            QVERIFY(child.open(QIODevice::WriteOnly));
            child.write("import time\nprint('child up', flush=True)\nwhile True:\n    time.sleep(0.1)\n");
        }
        const QJsonObject run{
            {QStringLiteral("name"), QStringLiteral("child")},
            {QStringLiteral("program"),
             QJsonObject{{QStringLiteral("argv"),
                          QJsonArray{QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("python3 child.py")}},
                         {QStringLiteral("cwd"), folder}}}};
        auto session =
            open(clusterExperiment(QStringLiteral("stopchild"), {lane(QStringLiteral("slurm:test/debug"), 1, {run})}));
        Orchestrator *orch = session->orchestrator();
        const RunId id = orch->runs()->findByName(QStringLiteral("child"));
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(
            orch->runs()->value(id).state == RunState::Running
                && readFile(orch->runs()->value(id).runDir + QStringLiteral("/worker.log")).contains("child up"),
            60000);
        QString error;
        QVERIFY2(orch->runActions()->stopRun(id, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(id).state), 60000);
        const RunInfo r = orch->runs()->value(id);
        QVERIFY2(r.state == RunState::Stopped, qPrintable(runStateName(r.state) + QStringLiteral(": ") + r.message));
        QVERIFY2(r.message.startsWith(QStringLiteral("stopped on request (signal 15")), qPrintable(r.message));
    }

    // Slurm's warning before the time limit (what --signal=B:USR2@N sends,
    // sent here at once with scancel): the worker checkpoints and exits 5,
    // the run is resubmitted with --resume and its curve goes on without a
    // seam to the end.
    void timeLimitWarningRequeuesTheRun()
    {
        REQUIRE_CLUSTER();
        auto session = open(
            clusterExperiment(QStringLiteral("requeue"),
                              {lane(QStringLiteral("slurm:test/debug"), 1, {tinyRun(QStringLiteral("long"), 10)})}));
        Orchestrator *orch = session->orchestrator();
        const RunId id = orch->runs()->findByName(QStringLiteral("long"));
        QStringList messages;
        connect(orch->runs(), &RunRegistry::changed, this, [&](RunId run) {
            if (run == id) {
                messages << orch->runs()->value(id).message;
            }
        });
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(
            orch->runs()->value(id).state == RunState::Running && orch->runs()->value(id).step >= 100, 60000);
        const QString firstJob = orch->runs()->value(id).jobId;
        TestCluster::run(
            {QStringLiteral("scancel"), QStringLiteral("--batch"), QStringLiteral("--signal=USR2"), firstJob});
        QTRY_VERIFY_WITH_TIMEOUT(!orch->runs()->value(id).jobId.isEmpty() && orch->runs()->value(id).jobId != firstJob,
                                 60000);
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).state, RunState::Finished, 120000);
        QVERIFY2(messages.join(QLatin1Char('|')).contains(QStringLiteral("requeued")),
                 qPrintable(messages.join(QLatin1Char('|'))));
        const QString log = QString::fromUtf8(readFile(orch->runs()->value(id).runDir + QStringLiteral("/worker.log")));
        QVERIFY2(log.contains(QStringLiteral("SIGUSR2")), qPrintable(log.right(2000)));
        const QString metrics =
            QString::fromUtf8(readFile(orch->runs()->value(id).runDir + QStringLiteral("/metrics.jsonl")));
        QVERIFY(metrics.contains(QStringLiteral("resumed from step")));
        const QString problem = curveProblem(session.get(), id);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // The real thing: jobs of one minute (--time=1) warned 50 s before their
    // limit (Slurm sends USR2 at its next check, 10-40 s into the job, later
    // on a loaded machine). The run's budget of 65 s is longer than one job
    // can last, so it needs more than one job however late the warning
    // comes: each checkpoints on the warning (or on the limit's TERM when
    // the warning comes too late), is resubmitted and resumes, and the run
    // finishes with one unbroken curve.
    void oneMinuteJobsCarryALongerRun()
    {
        REQUIRE_CLUSTER();
        auto session = open(clusterExperiment(
            QStringLiteral("timelimit"),
            {lane(QStringLiteral("slurm:test/debug"), 1, {tinyRun(QStringLiteral("t"), 65)})},
            QJsonObject{{QStringLiteral("time"), QStringLiteral("1")}, {QStringLiteral("warn_seconds"), 50}}));
        Orchestrator *orch = session->orchestrator();
        const RunId id = orch->runs()->findByName(QStringLiteral("t"));
        QSet<QString> jobs;
        connect(orch->runs(), &RunRegistry::changed, this, [&](RunId run) {
            if (run == id && !orch->runs()->value(id).jobId.isEmpty()) {
                jobs.insert(orch->runs()->value(id).jobId);
            }
        });
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(id).state), 240000);
        const RunInfo r = orch->runs()->value(id);
        QVERIFY2(r.state == RunState::Finished, qPrintable(r.message));
        QVERIFY2(jobs.size() >= 2, qPrintable(QStringList(jobs.values()).join(QLatin1Char(' '))));
        // Each later job resumed from the checkpoint of the one before: the
        // warning's (SIGUSR2), or on a loaded machine, where slurmctld's
        // warning can come after its time-limit TERM, the TERM's. That the
        // warning itself reaches the worker is timeLimitWarningRequeuesTheRun's.
        const QString metrics = QString::fromUtf8(readFile(r.runDir + QStringLiteral("/metrics.jsonl")));
        QVERIFY(metrics.contains(QStringLiteral("resumed from step")));
        const QString problem = curveProblem(session.get(), id);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // The app is killed (SIGKILL of `trainyard run`) while two jobs run and
    // one waits; a new session reattaches every job from the state file,
    // and no metric line is lost. Then slurmctld restarts under the running
    // jobs: nothing is lost either.
    void killedAppReattachesEveryJob()
    {
        REQUIRE_CLUSTER();
        const QString name = QStringLiteral("reattach");
        const QJsonObject json =
            clusterExperiment(name, {lane(QStringLiteral("slurm:test/debug"), 3,
                                          {tinyRun(QStringLiteral("r1"), 15), tinyRun(QStringLiteral("r2"), 15),
                                           tinyRun(QStringLiteral("r3"), 15)})})
                .toJson();
        const QString file = m_tmp.filePath(QStringLiteral("reattach.json"));
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QJsonDocument(json).toJson());
        }
        const Experiment ex = experiment(json);
        QProcess orchestrator;
        orchestrator.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        orchestrator.setStandardOutputFile(QProcess::nullDevice());
        orchestrator.start(buildProgram("TRAINYARD_BIN"),
                           {QStringLiteral("run"), file, QStringLiteral("--cpu-fallback"),
                            QStringLiteral("--trust")}); // the file names its cluster's worker
        QVERIFY(orchestrator.waitForStarted());
        // Two GPUs for three jobs: two train, one waits (whichever Slurm
        // picked), when the orchestrator dies.
        RunStore store(m_tmp.filePath(name));
        const auto training = [&] {
            int n = 0;
            for (const QString &run : {QStringLiteral("r1"), QStringLiteral("r2"), QStringLiteral("r3")}) {
                n += countLines(store.runDir(run) + QStringLiteral("/metrics.jsonl"), "metric") > 0 ? 1 : 0;
            }
            return n;
        };
        QTRY_VERIFY_WITH_TIMEOUT(training() == 2 && store.readState().size() == 3, 60000);
        ::kill(pid_t(orchestrator.processId()), SIGKILL);
        QVERIFY(orchestrator.waitForFinished(5000));
        QCOMPARE(orchestrator.exitStatus(), QProcess::CrashExit);
        const QString queue = TestCluster::run({QStringLiteral("squeue"), QStringLiteral("--noheader"),
                                                QStringLiteral("--format=%T"), QStringLiteral("--name=r1,r2,r3")});
        QVERIFY2(queue.contains(QStringLiteral("RUNNING")) && queue.contains(QStringLiteral("PENDING")),
                 qPrintable(queue));

        auto second = open(ex);
        Orchestrator *orch = second->orchestrator();
        for (RunId id : orch->board()->runIds()) {
            const RunInfo r = orch->runs()->value(id);
            QVERIFY2(r.reattached && isActive(r.state), qPrintable(r.name + QStringLiteral(": ") + runStateName(r.state)
                                                                   + QStringLiteral(" ") + r.message));
        }
        // slurmctld goes away for three seconds and comes back with its state.
        const QString pidFile = m_cluster.dir() + QStringLiteral("/run/slurmctld.pid");
        const qint64 ctld = QString::fromUtf8(readFile(pidFile)).trimmed().toLongLong();
        QVERIFY(ctld > 0);
        ::kill(pid_t(ctld), SIGTERM);
        QTest::qWait(3000); // the outage itself: polls fail for its length, no event ends it
        QProcess restart;
        restart.start(QStringLiteral("slurmctld"), {});
        QVERIFY(restart.waitForFinished(20000));
        QCOMPARE(restart.exitCode(), 0);

        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll(); // the queue is empty: it only waits for the reattached runs
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 120000);
        for (RunId id : orch->board()->runIds()) {
            const RunInfo r = orch->runs()->value(id);
            QVERIFY2(r.state == RunState::Finished, qPrintable(r.name + QStringLiteral(": ") + r.message));
            const QString problem = curveProblem(second.get(), id);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }
    }

    // The same path with the Slurm commands over ssh to 127.0.0.1 (a private
    // sshd, a key made here, the host key known as a user who accepted it
    // once): two runs finish with their curves. A host whose key is not
    // known is never accepted: the run fails saying so.
    void theWholePathOverSsh()
    {
        REQUIRE_CLUSTER();
        const QString sshDir = m_tmp.filePath(QStringLiteral("sshd"));
        QProcess start;
        start.start(QStringLiteral("bash"),
                    {qEnvironmentVariable("TRAINYARD_SOURCE_DIR") + QStringLiteral("/tests/slurm/start-sshd.sh"),
                     sshDir, m_cluster.dir() + QStringLiteral("/slurm.conf")});
        QVERIFY(start.waitForFinished(30000));
        if (start.exitCode() == 77) {
            QSKIP(qPrintable(QString::fromUtf8(start.readAllStandardError()).trimmed()));
        }
        QVERIFY2(start.exitCode() == 0, start.readAllStandardError().constData());
        const auto stopSshd = qScopeGuard([&] {
            // The master connection Trainyard opened would outlive sshd's
            // listener (ControlPersist): closed first, the way ssh does it.
            const QString runtime = QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation);
            QProcess::execute(QStringLiteral("ssh"),
                              {QStringLiteral("-F"), sshDir + QStringLiteral("/ssh_config"), QStringLiteral("-o"),
                               QStringLiteral("ControlPath=%1/trainyard-ssh-%C").arg(runtime), QStringLiteral("-O"),
                               QStringLiteral("exit"), QStringLiteral("127.0.0.1")});
            const qint64 pid = QString::fromUtf8(readFile(sshDir + QStringLiteral("/sshd.pid"))).trimmed().toLongLong();
            if (pid > 0) {
                ::kill(pid_t(pid), SIGTERM);
            }
        });
        const auto sshExperiment = [&](const QString &name, const QString &config, const QJsonArray &runs,
                                       const QString &device = QStringLiteral("slurm:far/debug")) {
            const QString root = m_tmp.filePath(name);
            QJsonObject json = experimentJson(name, root, {lane(device, 3, runs)});
            json.insert(QStringLiteral("clusters"),
                        QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("far")},
                                               {QStringLiteral("reach"), QStringLiteral("ssh")},
                                               {QStringLiteral("host"), QStringLiteral("127.0.0.1")},
                                               {QStringLiteral("ssh_config"), sshDir + QLatin1Char('/') + config},
                                               {QStringLiteral("runs_root"), root},
                                               {QStringLiteral("worker"), m_worker},
                                               {QStringLiteral("poll_seconds"), 1}}});
            return experiment(json);
        };

        // First, before any ssh master connection exists (a master, once
        // open, carries later commands without a new host-key check).
        auto stranger = open(sshExperiment(QStringLiteral("unknown-host"), QStringLiteral("ssh_config.unknown-host"),
                                           {tinyRun(QStringLiteral("u"), 2)}));
        const RunId u = stranger->orchestrator()->runs()->findByName(QStringLiteral("u"));
        stranger->orchestrator()->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(stranger->orchestrator()->runs()->value(u).state, RunState::Failed, 60000);
        QVERIFY2(
            stranger->orchestrator()->runs()->value(u).message.contains(QStringLiteral("Host key verification failed")),
            qPrintable(stranger->orchestrator()->runs()->value(u).message));

        // Three runs on the two GPUs (one waits for Resources), one of them
        // warned of its time limit (requeued, resumed), one cancelled from
        // outside; all through ssh.
        auto session = open(sshExperiment(QStringLiteral("over-ssh"), QStringLiteral("ssh_config"),
                                          {tinyRun(QStringLiteral("s1"), 8), tinyRun(QStringLiteral("s2"), 8),
                                           tinyRun(QStringLiteral("s3"), 3), tinyRun(QStringLiteral("gone"), 30)}));
        Orchestrator *orch = session->orchestrator();
        QVERIFY2(orch->laneDevices()->preflight().isEmpty(),
                 qPrintable(orch->laneDevices()->preflight().join(QLatin1Char('\n'))));
        QStringList reasons;
        connect(orch->runs(), &RunRegistry::changed, this,
                [&](RunId id) { reasons << orch->runs()->value(id).queueReason; });
        const RunId s1 = orch->runs()->findByName(QStringLiteral("s1"));
        const RunId gone = orch->runs()->findByName(QStringLiteral("gone"));
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(s1).state == RunState::Running && orch->runs()->value(s1).step > 0,
                                 60000);
        QString error;
        QVERIFY(!orch->supervisor()->pause(s1, &error));
        QVERIFY2(error.contains(QStringLiteral("cannot pause")), qPrintable(error));
        const QString firstJob = orch->runs()->value(s1).jobId;
        TestCluster::run(
            {QStringLiteral("scancel"), QStringLiteral("--batch"), QStringLiteral("--signal=USR2"), firstJob});
        QTRY_VERIFY_WITH_TIMEOUT(
            orch->runs()->value(gone).state == RunState::Running && orch->runs()->value(gone).step > 0, 120000);
        TestCluster::run({QStringLiteral("scancel"), orch->runs()->value(gone).jobId});
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 180000);
        QVERIFY2(reasons.contains(QStringLiteral("Resources")), qPrintable(reasons.join(QLatin1Char('|'))));
        QVERIFY(orch->runs()->value(s1).jobId != firstJob);
        // Checkpointed and wrote done "stopped" on Slurm's SIGTERM: stopped, saying why.
        QCOMPARE(orch->runs()->value(gone).state, RunState::Stopped);
        QVERIFY2(orch->runs()->value(gone).message.contains(QStringLiteral("CANCELLED")),
                 qPrintable(orch->runs()->value(gone).message));
        for (RunId id : orch->board()->runIds()) {
            if (id == gone) {
                continue;
            }
            const RunInfo r = orch->runs()->value(id);
            QVERIFY2(r.state == RunState::Finished, qPrintable(r.name + QStringLiteral(": ") + r.message));
            const QString problem = curveProblem(session.get(), id);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }

        // sbatch's refusal comes back through ssh too.
        auto bad = open(sshExperiment(QStringLiteral("ssh-bad"), QStringLiteral("ssh_config"),
                                      {tinyRun(QStringLiteral("b"), 2)}, QStringLiteral("slurm:far/nosuch")));
        const RunId b = bad->orchestrator()->runs()->findByName(QStringLiteral("b"));
        bad->orchestrator()->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(bad->orchestrator()->runs()->value(b).state, RunState::Failed, 60000);
        QVERIFY2(bad->orchestrator()->runs()->value(b).message.contains(QStringLiteral("invalid partition")),
                 qPrintable(bad->orchestrator()->runs()->value(b).message));
    }

    // Somebody cancels the job from outside (scancel in a shell, an admin):
    // the worker checkpoints on Slurm's SIGTERM and writes done "stopped",
    // which wins over the signal: the run is stopped,
    // resumable, and says it was cancelled outside Trainyard.
    void scancelFromOutsideStopsTheRunWithItsReason()
    {
        REQUIRE_CLUSTER();
        auto session =
            open(clusterExperiment(QStringLiteral("outside"),
                                   {lane(QStringLiteral("slurm:test/debug"), 1, {tinyRun(QStringLiteral("c"), 30)})}));
        Orchestrator *orch = session->orchestrator();
        const RunId id = orch->runs()->findByName(QStringLiteral("c"));
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(id).state == RunState::Running && orch->runs()->value(id).step > 0,
                                 60000);
        TestCluster::run({QStringLiteral("scancel"), orch->runs()->value(id).jobId});
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(id).state), 60000);
        const RunInfo r = orch->runs()->value(id);
        QVERIFY2(r.state == RunState::Stopped, qPrintable(r.message));
        QVERIFY2(r.message.startsWith(QStringLiteral("reported stopped in its done line")), qPrintable(r.message));
        QVERIFY2(r.message.contains(QStringLiteral("CANCELLED")), qPrintable(r.message));
        QVERIFY(session->store()->hasCheckpoint(r.name));
    }

    // The cluster's worker is a script that exits 0
    // without a metric or done line (not trainyard-worker at all). Slurm
    // says COMPLETED, exit 0; the run failed, "never reported".
    void aWorkerJobThatNeverReportedFailed()
    {
        REQUIRE_CLUSTER();
        const QString fake = m_tmp.filePath(QStringLiteral("not-a-worker.sh"));
        QVERIFY(writeFile(fake, "#!/bin/sh\necho \"not trainyard-worker, $# arguments\"\nexit 0\n"));
        QVERIFY(QFile::setPermissions(fake, QFile::permissions(fake) | QFileDevice::ExeOwner | QFileDevice::ExeGroup
                                                | QFileDevice::ExeOther));
        QJsonObject json =
            experimentJson(QStringLiteral("mute"), m_tmp.filePath(QStringLiteral("mute")),
                           {lane(QStringLiteral("slurm:test/debug"), 1, {tinyRun(QStringLiteral("m"), 5)})});
        json.insert(QStringLiteral("clusters"), QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("test")},
                                                                       {QStringLiteral("poll_seconds"), 1},
                                                                       {QStringLiteral("worker"), fake}}});
        auto session = open(experiment(json));
        Orchestrator *orch = session->orchestrator();
        const RunId id = orch->runs()->findByName(QStringLiteral("m"));
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(id).state), 60000);
        const RunInfo r = orch->runs()->value(id);
        QVERIFY2(r.state == RunState::Failed, qPrintable(r.message));
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.message.startsWith(QStringLiteral("exited 0 but never reported a step or a done line")),
                 qPrintable(r.message));
        QVERIFY2(r.message.contains(QStringLiteral("not trainyard-worker,")), qPrintable(r.message)); // worker.log
    }

    // sbatch refuses a job for a partition the cluster lacks: the run fails
    // with Slurm's own words.
    void badPartitionFailsWithSlurmsMessage()
    {
        REQUIRE_CLUSTER();
        auto session = open(clusterExperiment(
            QStringLiteral("bad"), {lane(QStringLiteral("slurm:test/nosuch"), 1, {tinyRun(QStringLiteral("x"), 2)})}));
        Orchestrator *orch = session->orchestrator();
        const RunId id = orch->runs()->findByName(QStringLiteral("x"));
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).state, RunState::Failed, 30000);
        QVERIFY2(orch->runs()->value(id).message.contains(QStringLiteral("invalid partition")),
                 qPrintable(orch->runs()->value(id).message));
    }

    // A one-minute job with no warning (warn_seconds 0)
    // reaches its time limit: Slurm's TIMEOUT, its TERM makes the worker
    // checkpoint, and the run is resubmitted with --resume (not "stopped
    // (exit 4)"), resumes and finishes with one unbroken curve. slurmctld
    // looks at time limits every 30 s, so the TERM comes 60 to 90 s into
    // the job (and KillWait later, KILL): a budget of 100 s outlasts it
    // however late (65 s once finished in its first job on a loaded machine).
    void timeLimitWithoutWarningResubmitsFromTheCheckpoint()
    {
        REQUIRE_CLUSTER();
        auto session = open(clusterExperiment(
            QStringLiteral("timeout"),
            {lane(QStringLiteral("slurm:test/debug"), 1, {tinyRun(QStringLiteral("t"), 100)})},
            QJsonObject{{QStringLiteral("time"), QStringLiteral("1")}, {QStringLiteral("warn_seconds"), 0}}));
        Orchestrator *orch = session->orchestrator();
        const RunId id = orch->runs()->findByName(QStringLiteral("t"));
        QSet<QString> jobs;
        QStringList messages;
        connect(orch->runs(), &RunRegistry::changed, this, [&](RunId run) {
            if (run != id) {
                return;
            }
            if (!orch->runs()->value(id).jobId.isEmpty()) {
                jobs.insert(orch->runs()->value(id).jobId);
            }
            messages << orch->runs()->value(id).message;
        });
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(id).state), 240000);
        const RunInfo r = orch->runs()->value(id);
        QVERIFY2(r.state == RunState::Finished, qPrintable(r.message));
        QVERIFY2(jobs.size() >= 2, qPrintable(QStringList(jobs.values()).join(QLatin1Char(' '))));
        QVERIFY2(messages.join(QLatin1Char('|')).contains(QStringLiteral("requeued after job")),
                 qPrintable(messages.join(QLatin1Char('|'))));
        QVERIFY(readFile(r.runDir + QStringLiteral("/metrics.jsonl")).contains("resumed from step"));
        const QString problem = curveProblem(session.get(), id);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // Case 16: a job held in the queue (--hold) when the app closes, leaving
    // it; its run folder is removed meanwhile. Reopened, the job still
    // waits: "pending", never "requeued". Released, Slurm cannot launch it
    // (no folder for its output: "signal 53" in Slurm's words): the run
    // fails saying so, and its end is kept in a folder made again.
    void aHeldJobReattachedPendingThenUnlaunchable()
    {
        REQUIRE_CLUSTER();
        const Experiment ex = clusterExperiment(
            QStringLiteral("held"), {lane(QStringLiteral("slurm:test/debug"), 1, {tinyRun(QStringLiteral("h"), 5)})},
            QJsonObject{{QStringLiteral("extra_args"), QJsonArray{QStringLiteral("--hold")}}});
        QString runDir;
        QString job;
        {
            auto first = open(ex);
            Orchestrator *orch = first->orchestrator();
            const RunId id = orch->runs()->findByName(QStringLiteral("h"));
            orch->dispatcher()->startAll();
            QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).queueReason, QStringLiteral("JobHeldUser"), 30000);
            runDir = orch->runs()->value(id).runDir;
            job = orch->runs()->value(id).jobId;
            QSignalSpy closed(first.get(), &Session::closed);
            first->close(/*leaveRunning=*/true);
            QTRY_COMPARE(closed.count(), 1);
        }
        QVERIFY(QDir(runDir).removeRecursively());
        auto second = open(ex);
        Orchestrator *orch = second->orchestrator();
        const RunId id = orch->runs()->findByName(QStringLiteral("h"));
        QVERIFY2(orch->runs()->value(id).reattached, qPrintable(orch->runs()->value(id).message));
        QStringList messages;
        connect(orch->runs(), &RunRegistry::changed, this, [&](RunId run) {
            if (run == id) {
                messages << orch->runs()->value(id).message;
            }
        });
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).message, QStringLiteral("pending: JobHeldUser"), 30000);
        QVERIFY(isPendingInQueue(orch->runs()->value(id)));
        TestCluster::run({QStringLiteral("scontrol"), QStringLiteral("release"), job});
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(id).state), 60000);
        const RunInfo r = orch->runs()->value(id);
        QCOMPARE(r.state, RunState::Failed);
        QVERIFY2(r.message.contains(QStringLiteral("Slurm could not launch job %1").arg(job))
                     && !r.message.contains(QStringLiteral("signal 53")),
                 qPrintable(r.message));
        QVERIFY2(r.message.contains(QStringLiteral("was gone; made again")), qPrintable(r.message));
        QVERIFY(QFileInfo::exists(runDir + QStringLiteral("/status.json")));
        QVERIFY2(!messages.join(QLatin1Char('|')).contains(QStringLiteral("requeued")),
                 qPrintable(messages.join(QLatin1Char('|'))));
    }

    // `trainyard check` asks the cluster, not this machine (which has no
    // GPU here): a good lane has no problem at all, a partition the cluster
    // lacks, a job sbatch --test-only refuses, a worker path that is not
    // there and a cluster that does not answer are each one problem; nothing
    // is queued.
    void checkAsksTheCluster()
    {
        REQUIRE_CLUSTER();
        QJsonObject json =
            experimentJson(QStringLiteral("check"), m_tmp.filePath(QStringLiteral("check")),
                           {lane(QStringLiteral("slurm:test/debug"), 1, {tinyRun(QStringLiteral("good"), 2)}),
                            lane(QStringLiteral("slurm:test/nosuch"), 1, {tinyRun(QStringLiteral("nopart"), 2)}),
                            QJsonObject{{QStringLiteral("device"), QStringLiteral("slurm:test/debug")},
                                        {QStringLiteral("gres"), QStringLiteral("gpu:9")},
                                        {QStringLiteral("runs"), QJsonArray{tinyRun(QStringLiteral("toomany"), 2)}}},
                            lane(QStringLiteral("slurm:noworker/debug"), 1, {tinyRun(QStringLiteral("noworker"), 2)}),
                            lane(QStringLiteral("slurm:far/debug"), 1, {tinyRun(QStringLiteral("far"), 2)})});
        const QString missing = m_tmp.filePath(QStringLiteral("no-such/trainyard-worker"));
        json.insert(
            QStringLiteral("clusters"),
            QJsonArray{
                QJsonObject{{QStringLiteral("name"), QStringLiteral("test")}, {QStringLiteral("worker"), m_worker}},
                QJsonObject{{QStringLiteral("name"), QStringLiteral("noworker")}, {QStringLiteral("worker"), missing}},
                // Nothing listens on port 1: ssh fails at once.
                QJsonObject{{QStringLiteral("name"), QStringLiteral("far")},
                            {QStringLiteral("reach"), QStringLiteral("ssh")},
                            {QStringLiteral("host"), QStringLiteral("127.0.0.1")},
                            {QStringLiteral("port"), 1},
                            {QStringLiteral("runs_root"), m_tmp.filePath(QStringLiteral("check"))},
                            {QStringLiteral("worker"), m_worker}}});
        const Experiment ex = experiment(json);
        DeviceInventory devices;
        devices.refresh();
        ExperimentCheck check(m_worker, &devices);
        check.setTimeout(20);
        // Untrusted, a cluster whose keys are commands is not asked at all.
        QStringList notes;
        QCOMPARE(check.clusterProblems(ex, &notes), QStringList());
        QVERIFY2(notes.size() == 3 && notes.first().contains(QStringLiteral("not trusted")),
                 qPrintable(notes.join(QLatin1Char('\n'))));
        check.setTrusted(true);
        const QString before = TestCluster::run({QStringLiteral("squeue"), QStringLiteral("--noheader")});
        const QStringList problems = check.deviceProblems(ex) + check.clusterProblems(ex);
        const QString all = problems.join(QLatin1Char('\n'));
        QCOMPARE(TestCluster::run({QStringLiteral("squeue"), QStringLiteral("--noheader")}), before);
        QVERIFY2(!all.contains(QStringLiteral("GPU")) && !all.contains(QStringLiteral("lanes[0]")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral(
                     "lanes[1].device (slurm:test/nosuch): partition nosuch does not exist on cluster test (its "
                     "partitions: debug)")),
                 qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("lanes[2].device (slurm:test/debug): sbatch --test-only refused the job")),
                 qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("clusters[1].worker: %1 is not an executable file").arg(missing)),
                 qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("clusters[2]: cluster far did not answer")), qPrintable(all));
        QCOMPARE(problems.size(), 4);
    }
};

QTEST_GUILESS_MAIN(TestSlurmScheduler)
#include "tst_slurmscheduler.moc"
