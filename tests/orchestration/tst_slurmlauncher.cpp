// SlurmLauncher against a real one-node Slurm cluster (tests/slurm/
// start-cluster.sh: munged, slurmctld and slurmd on 127.0.0.1 with two fake
// GPUs), started once for the whole test and stopped at its end. The jobs
// run trainyard-fake-worker through a small wrapper that first prints what
// the job's environment says (its GPU, whether the token arrived), so the
// tests see what Slurm gave the worker. Skipped, saying why, where the
// cluster cannot run (not root, Slurm or munge not installed).

#include "metrics/metricstore.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/ingest/ingestion.h"
#include "orchestration/ingest/metricsserver.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/launcherrouter.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/slurm/slurmcommand.h"
#include "orchestration/slurm/slurmending.h"
#include "orchestration/slurm/slurmjob.h"
#include "orchestration/slurm/slurmlauncher.h"
#include "orchestration/slurm/slurmsubmission.h"
#include "orchestration/supervision/supervisor.h"
#include "testcluster.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <csignal>
#include <functional>
#include <memory>
#include <sys/stat.h>

using namespace trainyard;

namespace {

constexpr int kPollMs = 250;
const QString kToken = QStringLiteral("0123456789abcdef-token-of-the-test");

QString readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// Every event of a launcher, as text: "started 1 JOB", "pending 1 Resources",
// "running 1", "exited 1 0 0", "failed 1 MESSAGE".
struct Events
{
    explicit Events(Launcher *launcher)
    {
        QObject::connect(launcher, &Launcher::started, launcher,
                         [this, launcher](RunId run, qint64, const QString &job) {
                             jobs.insert(run, job);
                             handles.insert(run, launcher->handle(run));
                             log << QStringLiteral("started %1 %2").arg(run).arg(job);
                         });
        QObject::connect(launcher, &Launcher::pending, launcher, [this](RunId run, const QString &reason) {
            log << QStringLiteral("pending %1 %2").arg(run).arg(reason);
        });
        QObject::connect(launcher, &Launcher::running, launcher,
                         [this](RunId run) { log << QStringLiteral("running %1").arg(run); });
        QObject::connect(launcher, &Launcher::exited, launcher, [this](RunId run, int code, int signal) {
            ends.insert(run, qMakePair(code, signal));
            log << QStringLiteral("exited %1 %2 %3").arg(run).arg(code).arg(signal);
        });
        QObject::connect(launcher, &Launcher::failedToLaunch, launcher, [this](RunId run, const QString &message) {
            failures.insert(run, message);
            log << QStringLiteral("failed %1 %2").arg(run).arg(message);
        });
    }
    QStringList of(RunId run) const
    {
        QStringList mine;
        const QRegularExpression re(QStringLiteral("^\\w+ %1( |$)").arg(run));
        for (const QString &line : log) {
            if (re.match(line).hasMatch()) {
                mine << line.section(QLatin1Char(' '), 0, 0);
            }
        }
        mine.removeDuplicates();
        return mine;
    }
    bool has(const QString &line) const { return log.contains(line); }
    QStringList log;
    QHash<RunId, QString> jobs;
    QHash<RunId, QJsonObject> handles;
    QHash<RunId, QPair<int, int>> ends;
    QHash<RunId, QString> failures;
};

// Slurm's answers as a test scripts them: every call is recorded and answered
// from the event loop by `answer`.
class ScriptedRunner : public SlurmCommandRunner
{
public:
    std::function<SlurmCommandResult(const QString &, const QStringList &)> answer;
    QStringList *calls = nullptr; // "program arg arg ..."
    QByteArray sbatchScript;      // the last sbatch's standard input
    QProcessEnvironment sbatchEnvironment;

    void run(const QString &program, const QStringList &args, const QByteArray &input,
             const QProcessEnvironment &environment, QObject *context, Done done) override
    {
        *calls << (QStringList{program} + args).join(QLatin1Char(' '));
        if (program == QLatin1String("sbatch")) {
            sbatchScript = input;
            sbatchEnvironment = environment;
        }
        const SlurmCommandResult r = answer(program, args);
        QTimer::singleShot(0, context, [done, r] { done(r); });
    }
    SlurmCommandResult runNow(const QString &program, const QStringList &args, int) override
    {
        *calls << (QStringList{program} + args).join(QLatin1Char(' '));
        return answer(program, args);
    }
};

SlurmCommandResult answered(const QByteArray &out, int code = 0, const QByteArray &err = {})
{
    SlurmCommandResult r;
    r.exitCode = code;
    r.out = out;
    r.err = err;
    return r;
}

} // namespace

// A macro, not a function: QSKIP returns from the function it is in.
#define REQUIRE_CLUSTER()                                                                                              \
    do {                                                                                                               \
        if (!m_skip.isEmpty())                                                                                         \
            QSKIP(qPrintable(QStringLiteral("no test cluster: %1").arg(m_skip)));                                      \
    } while (false)

class TestSlurmLauncher : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void scriptQuotesEveryArgument();
    void readsSlurmsAnswers();
    void requeueAndControllerOutage();
    void stopsAndOnePollForAll();
    void jobRunsToTheEnd();
    void threeJobsOnTwoGpus();
    void scancelFromOutside();
    void killEndsAWorkerThatIgnoresTerm();
    void badPartitionIsRefused();
    void attachAfterRestart();
    void attachChecksTheJobIsTheRuns();
    void describeAsksThroughTheLaunchersReach();
    void howAJobEndsItsRun();
    void reusedJobIdIsNeverAdoptedNorSignalled();
    void supervisorThroughSlurm();

private:
    SlurmClusterConfig config() const;
    LaunchSpec prepare(const QString &name, int steps, int stepMs, const QString &behaviour = QString());
    QString slurm(const QStringList &command) const;

    QTemporaryDir m_tmp;
    test::TestCluster m_cluster;
    QString m_skip; // why the cluster tests cannot run here
    QString m_wrapper;
};

void TestSlurmLauncher::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    const QString fake = qEnvironmentVariable("TRAINYARD_FAKE_WORKER");
    const QString source = qEnvironmentVariable("TRAINYARD_SOURCE_DIR");
    if (fake.isEmpty() || source.isEmpty()) {
        m_skip = QStringLiteral("TRAINYARD_FAKE_WORKER and TRAINYARD_SOURCE_DIR are not set (run through ctest)");
        return;
    }
    // The wrapper shows what the job's environment holds, then is the worker.
    m_wrapper = m_tmp.filePath(QStringLiteral("worker.sh"));
    QFile w(m_wrapper);
    QVERIFY(w.open(QIODevice::WriteOnly));
    w.write(
        QStringLiteral("#!/bin/sh\n"
                       "echo \"wrapper: CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES token=${TRAINYARD_TOKEN:+set}\"\n"
                       "exec '%1' \"$@\"\n")
            .arg(fake)
            .toUtf8());
    w.close();
    QFile::setPermissions(m_wrapper, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);

    QString error;
    QVERIFY2(m_cluster.start(m_tmp.filePath(QStringLiteral("cluster")), &error), qPrintable(error));
    if (!m_cluster.running()) {
        m_skip = m_cluster.skipReason();
    }
}

void TestSlurmLauncher::cleanupTestCase()
{
    QString error;
    QVERIFY2(m_cluster.stop(&error), qPrintable(error));
}

SlurmClusterConfig TestSlurmLauncher::config() const
{
    SlurmClusterConfig c;
    c.name = QStringLiteral("trainyard-test");
    c.pollMs = kPollMs;
    c.commandTimeoutMs = 10000;
    c.warnSeconds = 60;
    return c;
}

LaunchSpec TestSlurmLauncher::prepare(const QString &name, int steps, int stepMs, const QString &behaviour)
{
    LaunchSpec spec;
    spec.program = m_wrapper.isEmpty() ? QStringLiteral("/nonexistent/trainyard-worker") : m_wrapper;
    spec.name = name;
    spec.runDir = m_tmp.filePath(QStringLiteral("runs/") + name);
    QDir().mkpath(spec.runDir);
    spec.specPath = spec.runDir + QStringLiteral("/spec.json");
    const QJsonObject json{{QStringLiteral("name"), name},
                           {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("fake")},
                                                                 {QStringLiteral("steps"), steps},
                                                                 {QStringLiteral("step_ms"), stepMs}}}};
    QJsonObject withBehaviour = json;
    if (!behaviour.isEmpty()) {
        QJsonObject model = json.value(QStringLiteral("model")).toObject();
        model.insert(QStringLiteral("behaviour"), behaviour);
        model.insert(QStringLiteral("at_step"), 3);
        withBehaviour.insert(QStringLiteral("model"), model);
    }
    QFile f(spec.specPath);
    if (f.open(QIODevice::WriteOnly)) {
        f.write(QJsonDocument(withBehaviour).toJson());
    }
    spec.token = kToken;
    spec.device = Device::parse(QStringLiteral("cuda:0"));
    return spec;
}

QString TestSlurmLauncher::slurm(const QStringList &command) const
{
    QProcess p;
    p.start(command.first(), command.mid(1));
    p.waitForFinished(10000);
    return QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
}

void TestSlurmLauncher::scriptQuotesEveryArgument()
{
    const QByteArray script = SlurmJob::script(QStringLiteral("/opt/my worker"),
                                               {QStringLiteral("--spec"), QStringLiteral("a'b $(rm -rf /) `x`")});
    QCOMPARE(script.split('\n').at(0), QByteArray("#!/bin/sh"));
    QVERIFY(script.contains("exec '/opt/my worker' '--spec' 'a'\\''b $(rm -rf /) `x`'\n"));
    // sh reads it back as exactly those words.
    QProcess sh;
    sh.start(QStringLiteral("sh"), {QStringLiteral("-c"), QStringLiteral("printf '%s\\n' 'a'\\''b $(rm -rf /) `x`'")});
    QVERIFY(sh.waitForFinished());
    QCOMPARE(sh.readAllStandardOutput(), QByteArray("a'b $(rm -rf /) `x`\n"));
}

void TestSlurmLauncher::readsSlurmsAnswers()
{
    const auto jobs = SlurmJob::parseSqueue("3|PENDING|Resources|\n1|RUNNING|None|vm\n2|COMPLETED|None|vm\n");
    QCOMPARE(jobs.size(), 3);
    QCOMPARE(jobs.value(QStringLiteral("3")).reason, QStringLiteral("Resources"));
    QCOMPARE(jobs.value(QStringLiteral("3")).phase(), SlurmJob::Phase::Pending);
    QCOMPARE(jobs.value(QStringLiteral("1")).phase(), SlurmJob::Phase::Running);
    QCOMPARE(jobs.value(QStringLiteral("1")).reason, QString());
    QCOMPARE(jobs.value(QStringLiteral("2")).phase(), SlurmJob::Phase::Ended);
    QCOMPARE(SlurmJob::phaseOf(QStringLiteral("COMPLETING")), SlurmJob::Phase::Running);
    QCOMPARE(SlurmJob::phaseOf(QStringLiteral("REQUEUED")), SlurmJob::Phase::Pending);
    QCOMPARE(SlurmJob::phaseOf(QStringLiteral("NODE_FAIL")), SlurmJob::Phase::Ended);

    const SlurmJob job = SlurmJob::parseScontrol(
        "JobId=7 JobName=r UserId=root(0) JobState=FAILED Reason=NonZeroExitCode Dependency=(null) ExitCode=3:0 "
        "NodeList=vm BatchHost=vm\n");
    QCOMPARE(job.id, QStringLiteral("7"));
    QCOMPARE(job.state, QStringLiteral("FAILED"));
    QCOMPARE(job.exitCode, 3);
    QCOMPARE(job.signal, 0);
    QCOMPARE(job.nodes, QStringLiteral("vm"));
    QVERIFY(SlurmJob::parseScontrol("").id.isEmpty());

    QCOMPARE(SlurmJob::parseSubmitted("42\n"), QStringLiteral("42"));
    QCOMPARE(SlurmJob::parseSubmitted("42;trainyard-test\n"), QStringLiteral("42"));
    QVERIFY(SlurmJob::parseSubmitted("sbatch: error\n").isEmpty());

    SlurmClusterConfig c;
    c.partition = QStringLiteral("gpu");
    c.time = QStringLiteral("1:00:00");
    c.extraArgs = {QStringLiteral("--constraint=a100")};
    LaunchSpec spec;
    spec.name = QStringLiteral("run-1");
    spec.runDir = QStringLiteral("/runs/run-1");
    spec.token = kToken;
    const QStringList args = SlurmSubmission(c).arguments(spec);
    QVERIFY(args.contains(QStringLiteral("--parsable")));
    QVERIFY(args.contains(QStringLiteral("--job-name=run-1")));
    QVERIFY(args.contains(QStringLiteral("--output=/runs/run-1/worker.log")));
    QVERIFY(args.contains(QStringLiteral("--open-mode=append")));
    QVERIFY(args.contains(QStringLiteral("--partition=gpu")));
    QVERIFY(args.contains(QStringLiteral("--time=1:00:00")));
    QVERIFY(args.contains(QStringLiteral("--gres=gpu:1")));
    QVERIFY(args.contains(QStringLiteral("--signal=B:USR2@300")));
    QCOMPARE(args.last(), QStringLiteral("--constraint=a100"));
    QVERIFY(!args.join(QLatin1Char(' ')).contains(kToken));

    // A lane of the experiment file: its partition wins, its gres is asked for.
    ExperimentCluster hpc;
    hpc.name = QStringLiteral("hpc");
    hpc.partition = QStringLiteral("cpu");
    hpc.account = QStringLiteral("lab");
    hpc.time = QStringLiteral("4:00:00");
    hpc.extraArgs = {QStringLiteral("--mem=8G")};
    const SlurmClusterConfig lane =
        SlurmClusterConfig::forLane(hpc, QStringLiteral("gpu"), QStringLiteral("gpu:a100:2"));
    QCOMPARE(lane.name, QStringLiteral("hpc"));
    QCOMPARE(lane.partition, QStringLiteral("gpu"));
    QCOMPARE(lane.account, QStringLiteral("lab"));
    QCOMPARE(lane.time, QStringLiteral("4:00:00"));
    QCOMPARE(lane.gres, QStringLiteral("gpu:a100:2"));
    QCOMPARE(lane.extraArgs, QStringList{QStringLiteral("--mem=8G")});
    const SlurmClusterConfig plain = SlurmClusterConfig::forLane(hpc, QString(), QString());
    QCOMPARE(plain.partition, QStringLiteral("cpu"));
    QCOMPARE(plain.gres, QStringLiteral("gpu:1"));
}

void TestSlurmLauncher::requeueAndControllerOutage()
{
    // Canned answers: what a real cluster does rarely and slowly (a requeue,
    // a controller that does not answer, a job it has forgotten).
    QStringList calls;
    QByteArray queue = "11|RUNNING|None|node1\n";
    int queueExit = 0;
    QByteArray queueErr;
    auto runner = std::make_unique<ScriptedRunner>();
    runner->calls = &calls;
    runner->answer = [&](const QString &program, const QStringList &) {
        if (program == QLatin1String("sbatch")) {
            return answered("11\n");
        }
        if (program == QLatin1String("squeue")) {
            return answered(queue, queueExit, queueErr);
        }
        if (program == QLatin1String("scontrol")) {
            return answered({}, 1, "slurm_load_jobs error: Invalid job id specified\n");
        }
        return answered({});
    };
    SlurmClusterConfig c = config();
    c.pollMs = 50;
    SlurmLauncher launcher(c, std::move(runner));
    Events events(&launcher);
    launcher.start(1, prepare(QStringLiteral("scripted"), 5, 10));
    QTRY_VERIFY(events.has(QStringLiteral("running 1")));

    // The controller is gone for a while: no event, the job is not given up.
    queueExit = 1;
    queue.clear();
    queueErr = "slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n";
    const int before = events.log.size();
    const int polls = launcher.pollCount();
    QTRY_VERIFY(launcher.pollCount() >= polls + 3);
    QCOMPARE(events.log.size(), before);
    QVERIFY(!launcher.handle(1).isEmpty());

    // Requeued: pending again (the Supervisor calls it "requeued"), then runs.
    queueExit = 0;
    queueErr.clear();
    queue = "11|PENDING|BeginTime|\n";
    QTRY_VERIFY(events.has(QStringLiteral("pending 1 BeginTime")));
    queue = "11|RUNNING|None|node2\n";
    QTRY_COMPARE(events.log.filter(QRegularExpression(QStringLiteral("^running 1"))).size(), 2);
    QTRY_COMPARE(events.log.last(), QStringLiteral("running 1"));

    // Forgotten by Slurm (no accounting, past MinJobAge): the done line tells.
    queueExit = 1;
    queueErr = "slurm_load_jobs error: Invalid job id specified\n";
    QTRY_VERIFY(events.ends.contains(1));
    QCOMPARE(events.ends.value(1), qMakePair(-1, 0));
    QVERIFY(launcher.handle(1).isEmpty());
}

void TestSlurmLauncher::stopsAndOnePollForAll()
{
    QStringList calls;
    QHash<QString, QString> states{{QStringLiteral("21"), QStringLiteral("PENDING|Priority")},
                                   {QStringLiteral("22"), QStringLiteral("RUNNING|None")},
                                   {QStringLiteral("23"), QStringLiteral("RUNNING|None")}};
    int submitted = 20;
    auto runner = std::make_unique<ScriptedRunner>();
    runner->calls = &calls;
    runner->answer = [&](const QString &program, const QStringList &) {
        if (program == QLatin1String("sbatch")) {
            return answered(QByteArray::number(++submitted) + '\n');
        }
        if (program == QLatin1String("squeue")) {
            QByteArray out;
            for (auto it = states.cbegin(); it != states.cend(); ++it) {
                out += (it.key() + QLatin1Char('|') + it.value() + QStringLiteral("|\n")).toUtf8();
            }
            return answered(out);
        }
        if (program == QLatin1String("scontrol")) {
            return answered("JobId=22 JobState=FAILED Reason=NonZeroExitCode ExitCode=4:0 NodeList=vm\n");
        }
        return answered({});
    };
    SlurmClusterConfig c = config();
    c.pollMs = 50;
    SlurmLauncher launcher(c, std::move(runner));
    Events events(&launcher);
    for (RunId run = 1; run <= 3; ++run) {
        launcher.start(run, prepare(QStringLiteral("stop-%1").arg(run), 5, 10));
    }
    QTRY_VERIFY(events.has(QStringLiteral("pending 1 Priority")) && events.has(QStringLiteral("running 2"))
                && events.has(QStringLiteral("running 3")));
    // One squeue asks about every job.
    const QStringList polls = calls.filter(QRegularExpression(QStringLiteral("^squeue ")));
    QVERIFY(!polls.isEmpty());
    const auto listed = QRegularExpression(QStringLiteral("--jobs=(\\S+)")).match(polls.last());
    QStringList asked = listed.captured(1).split(QLatin1Char(','));
    asked.sort();
    QCOMPARE(asked, (QStringList{QStringLiteral("21"), QStringLiteral("22"), QStringLiteral("23")}));

    // Pending: cancelled outright. Running: TERM for the worker to checkpoint;
    // kill: KILL now, not after the cluster's KillWait.
    launcher.terminate(1);
    launcher.terminate(2);
    launcher.kill(3);
    // The id after "--": never read as an option.
    QTRY_VERIFY(calls.contains(QStringLiteral("scancel -- 21")));
    QTRY_VERIFY(calls.contains(QStringLiteral("scancel --signal=TERM --full -- 22")));
    QTRY_VERIFY(calls.contains(QStringLiteral("scancel --signal=KILL --full -- 23")));
    states.remove(QStringLiteral("22"));
    QTRY_VERIFY(events.ends.contains(2));
    QCOMPARE(events.ends.value(2), qMakePair(4, 0)); // the worker's own "stopped"

    // release cancels what is still there, at once (no event loop).
    calls.clear();
    launcher.release(1);
    QCOMPARE(calls, QStringList{QStringLiteral("scancel -- 21")});
    QVERIFY(launcher.handle(1).isEmpty());
}

void TestSlurmLauncher::jobRunsToTheEnd()
{
    REQUIRE_CLUSTER();
    SlurmLauncher launcher(config());
    Events events(&launcher);
    const LaunchSpec spec = prepare(QStringLiteral("to-the-end"), 15, 100);
    launcher.start(1, spec);
    QTRY_VERIFY_WITH_TIMEOUT(events.ends.contains(1) || events.failures.contains(1), 30000);
    QVERIFY2(events.failures.isEmpty(), qPrintable(events.log.join(QLatin1Char('\n'))));
    QCOMPARE(events.ends.value(1), qMakePair(0, 0));
    QCOMPARE(events.of(1), (QStringList{QStringLiteral("started"), QStringLiteral("pending"), QStringLiteral("running"),
                                        QStringLiteral("exited")}));
    QVERIFY(events.has(QStringLiteral("pending 1 submitted")));
    const QJsonObject handle = events.handles.value(1);
    QCOMPARE(handle.value(QStringLiteral("kind")).toString(), QStringLiteral("slurm"));
    QCOMPARE(handle.value(QStringLiteral("job")).toString(), events.jobs.value(1));
    QCOMPARE(handle.value(QStringLiteral("cluster")).toString(), QStringLiteral("trainyard-test"));
    QVERIFY(launcher.handle(1).isEmpty()); // forgotten after exited

    const QString log = readAll(spec.runDir + QStringLiteral("/worker.log"));
    QVERIFY2(log.contains(QStringLiteral("token=set")), qPrintable(log)); // the token reached the job
    QVERIFY2(log.contains(QStringLiteral("CUDA_VISIBLE_DEVICES=0")), qPrintable(log));
    QVERIFY2(log.contains(QStringLiteral("fake-worker: finished (exit 0)")), qPrintable(log));
    QVERIFY(readAll(spec.runDir + QStringLiteral("/metrics.jsonl")).contains(QStringLiteral("\"done\"")));
    // The job as Slurm keeps it: the script execs the worker, and the token
    // is neither in the script nor on any command line.
    const QString script = slurm({QStringLiteral("scontrol"), QStringLiteral("write"), QStringLiteral("batch_script"),
                                  events.jobs.value(1), QStringLiteral("-")});
    QVERIFY2(script.contains(QStringLiteral("exec '%1' '--spec'").arg(m_wrapper)), qPrintable(script));
    QVERIFY(!script.contains(kToken));
    const QString job = slurm({QStringLiteral("scontrol"), QStringLiteral("show"), QStringLiteral("job"),
                               QStringLiteral("-o"), events.jobs.value(1)});
    QVERIFY2(job.contains(QStringLiteral("JobName=to-the-end")), qPrintable(job));
    QVERIFY(!job.contains(kToken));
    // The run details' "Job details": what scontrol says of the ended job,
    // asked by the launcher (which forgot the run) from the run's job id.
    RunInfo ended;
    ended.id = 1;
    ended.jobId = events.jobs.value(1);
    ended.device = Device::parse(QStringLiteral("slurm:trainyard-test/debug"));
    QString title;
    QString text;
    QObject context;
    QVERIFY(launcher.describe(ended, &context, [&](const QString &t, const QString &x) {
        title = t;
        text = x;
    }));
    QTRY_VERIFY_WITH_TIMEOUT(!text.isEmpty(), 15000);
    QCOMPARE(title, QStringLiteral("scontrol show job %1").arg(ended.jobId));
    QVERIFY2(text.contains(QStringLiteral("JobId=%1").arg(ended.jobId)), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("JobName=to-the-end")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("JobState=COMPLETED")), qPrintable(text));
    // The same through the router, by the run's device: the cluster's
    // launcher asks, made for the question.
    LauncherRouter router;
    ExperimentCluster cluster;
    cluster.name = QStringLiteral("trainyard-test");
    router.setClusters({cluster});
    text.clear();
    QVERIFY(router.describe(ended, &context, [&](const QString &, const QString &x) { text = x; }));
    QTRY_VERIFY_WITH_TIMEOUT(!text.isEmpty(), 15000);
    QVERIFY2(text.contains(QStringLiteral("JobName=to-the-end")), qPrintable(text));
    // One squeue per poll, whatever the number of jobs: a handful here.
    QVERIFY2(launcher.pollCount() < 40, qPrintable(QString::number(launcher.pollCount())));
}

void TestSlurmLauncher::threeJobsOnTwoGpus()
{
    REQUIRE_CLUSTER();
    SlurmLauncher launcher(config());
    Events events(&launcher);
    QList<LaunchSpec> specs;
    for (int i = 1; i <= 3; ++i) {
        specs << prepare(QStringLiteral("gpu-%1").arg(i), 25, 100);
        launcher.start(i, specs.last());
    }
    // Two run on the two GPUs; the third waits for one of them.
    QTRY_VERIFY_WITH_TIMEOUT(events.log.filter(QStringLiteral("pending ")).filter(QStringLiteral(" Resources")).size()
                                     == 1
                                 && events.log.filter(QRegularExpression(QStringLiteral("^running "))).size() == 2,
                             20000);
    QTRY_VERIFY_WITH_TIMEOUT(events.ends.size() + events.failures.size() == 3, 40000);
    QVERIFY2(events.failures.isEmpty(), qPrintable(events.log.join(QLatin1Char('\n'))));
    QStringList devices;
    RunId waited = 0;
    for (int i = 1; i <= 3; ++i) {
        QCOMPARE(events.ends.value(i), qMakePair(0, 0));
        QVERIFY(events.of(i).contains(QStringLiteral("running")));
        if (events.has(QStringLiteral("pending %1 Resources").arg(i))) {
            waited = i;
        }
        const QString log = readAll(specs.at(i - 1).runDir + QStringLiteral("/worker.log"));
        const auto m = QRegularExpression(QStringLiteral("CUDA_VISIBLE_DEVICES=(\\d)")).match(log);
        QVERIFY2(m.hasMatch(), qPrintable(log));
        if (i != waited) {
            devices << m.captured(1);
        }
    }
    QVERIFY(waited != 0);
    // The two that ran side by side had a GPU each.
    devices.sort();
    QCOMPARE(devices, (QStringList{QStringLiteral("0"), QStringLiteral("1")}));
    // The one that waited started when one of the others had ended (Slurm's
    // clock, to the second; the events of one poll come in any order).
    auto time = [this, &events](RunId run, const QString &key) {
        const QString job = slurm({QStringLiteral("scontrol"), QStringLiteral("show"), QStringLiteral("job"),
                                   QStringLiteral("-o"), events.jobs.value(run)});
        const auto m = QRegularExpression(QStringLiteral("\\b%1=(\\S+)").arg(key)).match(job);
        return QDateTime::fromString(m.captured(1), Qt::ISODate);
    };
    QDateTime firstEnd;
    for (int i = 1; i <= 3; ++i) {
        if (i != waited && (!firstEnd.isValid() || time(i, QStringLiteral("EndTime")) < firstEnd)) {
            firstEnd = time(i, QStringLiteral("EndTime"));
        }
    }
    const QDateTime waitedStart = time(waited, QStringLiteral("StartTime"));
    QVERIFY2(firstEnd.isValid() && waitedStart >= firstEnd,
             qPrintable(waitedStart.toString(Qt::ISODate) + QStringLiteral(" < ") + firstEnd.toString(Qt::ISODate)));
}

void TestSlurmLauncher::scancelFromOutside()
{
    REQUIRE_CLUSTER();
    SlurmLauncher launcher(config());
    Events events(&launcher);
    launcher.start(1, prepare(QStringLiteral("cancelled"), 100000, 50));
    QTRY_VERIFY_WITH_TIMEOUT(events.has(QStringLiteral("running 1")), 20000);
    slurm({QStringLiteral("scancel"), events.jobs.value(1)});
    // It ends (not hangs), as a signal nobody here sent.
    QTRY_VERIFY_WITH_TIMEOUT(events.ends.contains(1), 20000);
    QCOMPARE(events.ends.value(1), qMakePair(-1, int(SIGTERM)));
}

void TestSlurmLauncher::killEndsAWorkerThatIgnoresTerm()
{
    REQUIRE_CLUSTER();
    SlurmLauncher launcher(config());
    Events events(&launcher);
    const LaunchSpec spec = prepare(QStringLiteral("hangs"), 100000, 50, QStringLiteral("hang"));
    launcher.start(1, spec);
    QTRY_VERIFY_WITH_TIMEOUT(events.has(QStringLiteral("running 1")), 20000);
    // Slurm calls the job running before the worker has set SIGTERM aside; its
    // first metric line comes after that (under load a TERM sent earlier ended
    // it as signal 15 and failed this test).
    QTRY_VERIFY_WITH_TIMEOUT(
        readAll(spec.runDir + QStringLiteral("/metrics.jsonl")).contains(QStringLiteral("\"metric\"")), 20000);
    launcher.kill(1);
    QTRY_VERIFY_WITH_TIMEOUT(events.ends.contains(1), 30000);
    QCOMPARE(events.ends.value(1), qMakePair(-1, int(SIGKILL)));
}

void TestSlurmLauncher::badPartitionIsRefused()
{
    REQUIRE_CLUSTER();
    SlurmClusterConfig c = config();
    c.partition = QStringLiteral("no-such-partition");
    SlurmLauncher launcher(c);
    Events events(&launcher);
    launcher.start(1, prepare(QStringLiteral("refused"), 5, 10));
    QTRY_VERIFY_WITH_TIMEOUT(events.failures.contains(1) || events.ends.contains(1), 20000);
    const QString message = events.failures.value(1);
    // Slurm's own words.
    QVERIFY2(message.contains(QStringLiteral("invalid partition"), Qt::CaseInsensitive), qPrintable(message));
    QVERIFY(events.of(1) == QStringList{QStringLiteral("failed")});
    QVERIFY(launcher.handle(1).isEmpty());
}

void TestSlurmLauncher::attachAfterRestart()
{
    REQUIRE_CLUSTER();
    QJsonObject handle;
    QString job;
    const LaunchSpec spec = prepare(QStringLiteral("reattached"), 100000, 50);
    {
        SlurmLauncher first(config());
        Events events(&first);
        first.start(1, spec);
        QTRY_VERIFY_WITH_TIMEOUT(events.has(QStringLiteral("running 1")), 20000);
        handle = first.handle(1);
        job = events.jobs.value(1);
        first.detach(1); // closed with "leave runs running"
    }
    QCOMPARE(handle.value(QStringLiteral("job")).toString(), job);
    QVERIFY(slurm({QStringLiteral("squeue"), QStringLiteral("--noheader"), QStringLiteral("--jobs=") + job,
                   QStringLiteral("--format=%T")})
                .contains(QStringLiteral("RUNNING")));

    SlurmLauncher second(config());
    Events events(&second);
    QString why;
    QVERIFY2(second.attach(7, handle, spec, &why) == Launcher::AttachResult::Attached, qPrintable(why));
    QCOMPARE(second.handle(7), handle);
    QTRY_VERIFY_WITH_TIMEOUT(events.has(QStringLiteral("running 7")), 10000);
    // Asked to stop, it checkpoints and exits 4, the worker's own status.
    second.terminate(7);
    QTRY_VERIFY_WITH_TIMEOUT(events.ends.contains(7), 20000);
    QCOMPARE(events.ends.value(7), qMakePair(4, 0));

    // A job Slurm does not know, another cluster's, another launcher's.
    QJsonObject gone = handle;
    gone[QStringLiteral("job")] = QStringLiteral("987654");
    QCOMPARE(second.attach(8, gone, spec, &why), Launcher::AttachResult::Gone);
    QVERIFY2(why.contains(QStringLiteral("no longer known")), qPrintable(why));
    QJsonObject elsewhere = handle;
    elsewhere[QStringLiteral("cluster")] = QStringLiteral("another");
    QCOMPARE(second.attach(8, elsewhere, spec, &why), Launcher::AttachResult::Gone);
    QVERIFY2(why.contains(QStringLiteral("another")), qPrintable(why));
    QCOMPARE(second.attach(8, QJsonObject{{QStringLiteral("kind"), QStringLiteral("local")}}, spec, &why),
             Launcher::AttachResult::Gone);
}

// On scripted answers: a job id that is no number never reaches a Slurm
// command; a job is adopted only when scontrol says it is the user's, named
// as the run and working in its folder (a WorkDir with spaces read whole, a
// description naming a field twice not believed); over ssh the user is the
// login's, asked once with `id -u`. An attached job is requeued (exit 5,
// TIMEOUT with a checkpoint) exactly as one started here: the run's own
// script and options, its token, --resume.
void TestSlurmLauncher::attachChecksTheJobIsTheRuns()
{
    const SlurmJob spaced =
        SlurmJob::parseScontrol("JobId=9 JobName=r UserId=alice(1000) GroupId=alice(1000) JobState=RUNNING Reason=None "
                                "Command=(null) WorkDir=/runs/my runs/r StdErr=/x StdOut=/x Power= \n");
    QCOMPARE(spaced.workDir, QStringLiteral("/runs/my runs/r"));
    QCOMPARE(spaced.uid, 1000);
    QCOMPARE(spaced.userName, QStringLiteral("alice"));
    QCOMPARE(spaced.name, QStringLiteral("r"));
    QVERIFY(!spaced.ambiguous);
    QVERIFY(SlurmJob::parseScontrol("JobId=9 JobName=x UserId=me(0) JobName=r JobState=RUNNING\n").ambiguous);
    QVERIFY(SlurmJob::isJobId(QStringLiteral("123")));
    for (const char *bad : {"-uroot", "12 3", "12_3", "", "--me", "1;2"}) {
        QVERIFY2(!SlurmJob::isJobId(QString::fromLatin1(bad)), bad);
    }
    QVERIFY(SlurmJob::parseSubmitted("-uroot\n").isEmpty());

    QStringList calls;
    QByteArray described;
    QByteArray queue;
    int submitted = 9;
    auto runner = std::make_unique<ScriptedRunner>();
    ScriptedRunner *scripted = runner.get();
    runner->calls = &calls;
    runner->answer = [&](const QString &program, const QStringList &) {
        if (program == QLatin1String("id")) {
            return answered("1000\n");
        }
        if (program == QLatin1String("squeue")) {
            return answered(queue);
        }
        if (program == QLatin1String("sbatch")) {
            return answered(QByteArray::number(++submitted) + '\n');
        }
        return answered(described);
    };
    SlurmClusterConfig c = config();
    c.sshCommand = {QStringLiteral("ssh"), QStringLiteral("--"), QStringLiteral("login")};
    SlurmLauncher launcher(c, std::move(runner));
    Events events(&launcher);
    LaunchSpec spec;
    spec.name = QStringLiteral("r");
    spec.runDir = QStringLiteral("/runs/my runs/r");
    const auto handle = [&](const QString &job) {
        return QJsonObject{{QStringLiteral("kind"), QStringLiteral("slurm")},
                           {QStringLiteral("job"), job},
                           {QStringLiteral("cluster"), c.name}};
    };
    QString why;
    QCOMPARE(launcher.attach(1, handle(QStringLiteral("-uroot")), spec, &why), Launcher::AttachResult::NotOurs);
    QVERIFY2(why.contains(QStringLiteral("not a Slurm job id")), qPrintable(why));
    QVERIFY2(calls.isEmpty(), qPrintable(calls.join(QLatin1Char('\n'))));

    const auto describe = [&](const QByteArray &user, const QByteArray &name, const QByteArray &dir) {
        described = "JobId=9 JobName=" + name + " UserId=" + user + " JobState=RUNNING Reason=None WorkDir=" + dir
                    + " StdOut=/x\n";
    };
    describe("bob(1001)", "r", "/runs/my runs/r");
    QCOMPARE(launcher.attach(1, handle(QStringLiteral("9")), spec, &why), Launcher::AttachResult::NotOurs);
    QVERIFY2(why.contains(QStringLiteral("user bob's")), qPrintable(why));
    QCOMPARE(calls.value(0), QStringLiteral("scontrol show job -o -- 9"));
    describe("alice(1000)", "other", "/runs/my runs/r");
    QCOMPARE(launcher.attach(1, handle(QStringLiteral("9")), spec, &why), Launcher::AttachResult::NotOurs);
    QVERIFY2(why.contains(QStringLiteral("its name is \"other\"")), qPrintable(why));
    describe("alice(1000)", "r", "/runs/elsewhere");
    QCOMPARE(launcher.attach(1, handle(QStringLiteral("9")), spec, &why), Launcher::AttachResult::NotOurs);
    QVERIFY2(why.contains(QStringLiteral("working directory")), qPrintable(why));
    describe("alice(1000)", "r", "/runs/my runs/r");
    QVERIFY2(launcher.attach(1, handle(QStringLiteral("9")), spec, &why) == Launcher::AttachResult::Attached,
             qPrintable(why));
    QCOMPARE(calls.filter(QRegularExpression(QStringLiteral("^id "))).size(), 1); // asked once
    QVERIFY(calls.filter(QRegularExpression(QStringLiteral("^scancel "))).isEmpty());
    // Released: cancelled, the id after "--".
    calls.clear();
    launcher.release(1);
    QCOMPARE(calls, QStringList{QStringLiteral("scancel -- 9")});

    // The run as the Supervisor hands it over on reattach (launchSpec, the
    // saved token): resubmitted with it, as start() would have submitted it.
    LaunchSpec run = prepare(QStringLiteral("attached-requeue"), 5, 10);
    run.target = Device::parse(QStringLiteral("slurm:trainyard-test/long"));
    run.gres = QStringLiteral("gpu:2");
    run.cpuFallback = true;
    LaunchSpec again = run;
    launcher.prepare(again);
    again.resume = true;
    const QString sbatch =
        (QStringList{QStringLiteral("sbatch")} + SlurmSubmission(c).arguments(again)).join(QLatin1Char(' '));
    const QByteArray script = SlurmJob::script(again.program, again.arguments());
    const QByteArray dir = run.runDir.toUtf8();
    const auto describeRun = [&](const QByteArray &job, const QByteArray &state) {
        described = "JobId=" + job + " JobName=attached-requeue UserId=alice(1000) " + state
                    + " NodeList=node1 WorkDir=" + dir + " StdOut=/x\n";
    };
    const auto resubmittedAsStartedHere = [&](RunId id, const QString &ended, const QString &next) {
        QTRY_VERIFY2(events.has(QStringLiteral("started %1 %2").arg(id).arg(next)),
                     qPrintable(events.log.join(QLatin1Char('\n'))));
        QVERIFY(
            events.has(QStringLiteral("pending %1 requeued after job %2 reached its time limit").arg(id).arg(ended)));
        QCOMPARE(calls.filter(QRegularExpression(QStringLiteral("^sbatch "))).value(0), sbatch);
        QVERIFY2(sbatch.contains(QStringLiteral(" --partition=long ")), qPrintable(sbatch));
        QVERIFY(sbatch.contains(QStringLiteral(" --gres=gpu:2 ")));
        QCOMPARE(scripted->sbatchScript, script);
        QVERIFY2(script.contains("'--spec' '" + run.specPath.toUtf8() + "'"), script.constData());
        QVERIFY(script.contains("'--resume' '--cpu-fallback'"));
        QCOMPARE(scripted->sbatchEnvironment.value(QStringLiteral("TRAINYARD_TOKEN")), kToken);
        QVERIFY(!script.contains(kToken.toUtf8()));
        QVERIFY(!events.ends.contains(id));
    };

    // It checkpointed on USR2 and exited 5 (ExitCode::Requeue).
    describeRun("9", "JobState=RUNNING Reason=None");
    queue = "9|RUNNING|None|node1\n";
    QVERIFY2(launcher.attach(2, handle(QStringLiteral("9")), run, &why) == Launcher::AttachResult::Attached,
             qPrintable(why));
    QTRY_VERIFY(events.has(QStringLiteral("running 2")));
    calls.clear();
    describeRun("9", "JobState=FAILED Reason=NonZeroExitCode ExitCode=5:0");
    queue = "10|PENDING|Priority|\n";
    resubmittedAsStartedHere(2, QStringLiteral("9"), QStringLiteral("10"));
    if (QTest::currentTestFailed()) {
        return;
    }
    launcher.release(2);

    // Its time limit without a warning (TIMEOUT), a checkpoint in its folder.
    QVERIFY(QDir().mkpath(run.runDir + QStringLiteral("/checkpoints")));
    QFile checkpoint(run.runDir + QStringLiteral("/checkpoints/step-3.pt"));
    QVERIFY(checkpoint.open(QIODevice::WriteOnly));
    checkpoint.write("weights");
    checkpoint.close();
    describeRun("19", "JobState=RUNNING Reason=None");
    queue = "19|RUNNING|None|node1\n";
    QVERIFY2(launcher.attach(3, handle(QStringLiteral("19")), run, &why) == Launcher::AttachResult::Attached,
             qPrintable(why));
    QTRY_VERIFY(events.has(QStringLiteral("running 3")));
    calls.clear();
    describeRun("19", "JobState=TIMEOUT Reason=TimeLimit ExitCode=0:15");
    queue = "11|PENDING|Priority|\n";
    resubmittedAsStartedHere(3, QStringLiteral("19"), QStringLiteral("11"));
    if (QTest::currentTestFailed()) {
        return;
    }
    launcher.release(3);
}

// After a controller reset job ids start again: the id a state file saved
// names a colleague's job now (a user the test creates; the job even has
// the run's name), or another job of the user's own. Opening the experiment
// adopts neither: each run is lost with the reason, and Stop, close and
// Ctrl-C signal nothing: the jobs are still in the queue afterwards.
// describe() asks Slurm the way the launcher submits (its runner: ssh for
// an ssh cluster), about the newest job it holds for the run, else the
// run's own id; the answer or the command's failure comes back once, and
// never to a caller gone meanwhile. Nobody is asked without a job.
void TestSlurmLauncher::describeAsksThroughTheLaunchersReach()
{
    QStringList calls;
    SlurmCommandResult answer = answered("JobId=12 JobName=r\n   JobState=RUNNING\n");
    auto runner = std::make_unique<ScriptedRunner>();
    runner->calls = &calls;
    runner->answer = [&](const QString &program, const QStringList &) {
        if (program == QLatin1String("sbatch")) {
            return answered("12\n");
        }
        if (program == QLatin1String("squeue")) {
            return answered("12|PENDING|Priority|\n");
        }
        return answer;
    };
    SlurmClusterConfig c = config();
    c.sshCommand = {QStringLiteral("ssh"), QStringLiteral("--"), QStringLiteral("login")};
    SlurmLauncher launcher(c, std::move(runner));
    Events events(&launcher);
    QObject context;
    QStringList answers;
    const auto record = [&](const QString &title, const QString &text) { answers << title + QLatin1Char('|') + text; };

    RunInfo run;
    run.id = 1;
    run.device = Device::parse(QStringLiteral("slurm:trainyard-test/gpu"));
    QVERIFY(!launcher.describe(run, &context, record)); // no job yet
    run.jobId = QStringLiteral("-uroot");
    QVERIFY(!launcher.describe(run, &context, record)); // never an option
    QVERIFY(calls.isEmpty());

    // A job the launcher submitted for the run wins over a stale id.
    LaunchSpec spec;
    spec.program = QStringLiteral("/opt/worker");
    spec.name = QStringLiteral("r");
    spec.runDir = m_tmp.filePath(QStringLiteral("runs/described"));
    launcher.start(1, spec);
    QTRY_VERIFY(events.jobs.contains(1));
    run.jobId = QStringLiteral("11");
    calls.clear();
    QVERIFY(launcher.describe(run, &context, record));
    QTRY_COMPARE(answers.size(), 1);
    QCOMPARE(calls.filter(QStringLiteral("scontrol")), QStringList{QStringLiteral("scontrol show job -- 12")});
    QCOMPARE(answers.first(), QStringLiteral("scontrol show job 12|JobId=12 JobName=r\n   JobState=RUNNING\n"));

    // Slurm's refusal, in its words.
    answer = answered({}, 1, "slurm_load_jobs error: Invalid job id specified\n");
    RunInfo other = run;
    other.id = 2;
    QVERIFY(launcher.describe(other, &context, record));
    QTRY_COMPARE(answers.size(), 2);
    QCOMPARE(answers.last(), QStringLiteral("scontrol show job 11|slurm_load_jobs error: Invalid job id specified"));

    // A caller gone before the answer hears nothing.
    {
        QObject gone;
        QVERIFY(launcher.describe(other, &gone, record));
    }
    QTRY_COMPARE(calls.filter(QStringLiteral("scontrol")).size(), 3);
    // The runner answers on the next event-loop pass: one posted after it runs after it.
    bool answeredBy = false;
    QTimer::singleShot(0, &context, [&answeredBy] { answeredBy = true; });
    QTRY_VERIFY(answeredBy);
    QCOMPARE(answers.size(), 2);
    answer = answered({});
    launcher.release(1);

    // The router: a local run has nobody to ask; a run of a cluster the
    // experiment does not define neither.
    LauncherRouter router;
    RunInfo local;
    local.id = 5;
    local.device = Device::parse(QStringLiteral("cpu"));
    QVERIFY(!router.describe(local, &context, record));
    QVERIFY(!router.describe(other, &context, record));
}

// SlurmEnding alone, on canned scontrol lines: exit status, signal or
// neither; the requeue of a worker that checkpointed for the time limit;
// the words for what the queue caused; whether the job ran unseen.
void TestSlurmLauncher::howAJobEndsItsRun()
{
    const auto final = [](const QByteArray &fields) {
        return SlurmJob::parseScontrol("JobId=7 JobName=r UserId=me(1000) " + fields + "\n");
    };
    SlurmEnding::Seen seen;
    seen.id = QStringLiteral("7");
    seen.runDir = m_tmp.filePath(QStringLiteral("runs/ending"));
    seen.checkpointAtSubmit = QString();

    SlurmEnding end = SlurmEnding::of(final("JobState=COMPLETED Reason=None ExitCode=0:0 NodeList=n1"), seen);
    QVERIFY(!end.resubmit);
    QCOMPARE(qMakePair(end.exitCode, end.signal), qMakePair(0, 0));
    QVERIFY(end.ranFirst); // never seen running, but it ran on n1
    QVERIFY(end.why.isEmpty());
    seen.sawRunning = true;
    QVERIFY(!SlurmEnding::of(final("JobState=COMPLETED Reason=None ExitCode=0:0 NodeList=n1"), seen).ranFirst);

    // Exit 5 after the warning: the run goes on; after a stop it is an end.
    QVERIFY(SlurmEnding::of(final("JobState=FAILED Reason=NonZeroExitCode ExitCode=5:0 NodeList=n1"), seen).resubmit);
    seen.stopAsked = true;
    end = SlurmEnding::of(final("JobState=FAILED Reason=NonZeroExitCode ExitCode=5:0 NodeList=n1"), seen);
    QVERIFY(!end.resubmit);
    QCOMPARE(end.exitCode, 5);

    // Cancelled: by us before it ran, no status; from outside, SIGTERM.
    seen.sawRunning = false;
    end = SlurmEnding::of(final("JobState=CANCELLED Reason=None ExitCode=0:0 NodeList=n1"), seen);
    QCOMPARE(qMakePair(end.exitCode, end.signal), qMakePair(-1, 0));
    QVERIFY(!end.ranFirst);
    seen.stopAsked = false;
    seen.sawRunning = true;
    end = SlurmEnding::of(final("JobState=CANCELLED Reason=None ExitCode=0:0 NodeList=n1"), seen);
    QCOMPARE(qMakePair(end.exitCode, end.signal), qMakePair(-1, int(SIGTERM)));
    QCOMPARE(SlurmEnding::of(final("JobState=FAILED Reason=None ExitCode=0:9 NodeList=n1"), seen).signal, 9);

    // The time limit unwarned: resubmitted once the job wrote a checkpoint.
    seen.timeLimit = QStringLiteral("0:01:00");
    end = SlurmEnding::of(final("JobState=TIMEOUT Reason=TimeLimit ExitCode=0:15 NodeList=n1"), seen);
    QVERIFY(!end.resubmit);
    QVERIFY2(end.why.contains(QStringLiteral("(--time=0:01:00) with no checkpoint")), qPrintable(end.why));
    QVERIFY(QDir().mkpath(seen.runDir + QStringLiteral("/checkpoints")));
    QFile checkpoint(seen.runDir + QStringLiteral("/checkpoints/step-10.pt"));
    QVERIFY(checkpoint.open(QIODevice::WriteOnly));
    checkpoint.write("weights");
    checkpoint.close();
    QVERIFY(SlurmEnding::of(final("JobState=TIMEOUT Reason=TimeLimit ExitCode=0:15 NodeList=n1"), seen).resubmit);
    seen.checkpointAtSubmit = SlurmEnding::checkpointStamp(seen.runDir);
    QVERIFY(!seen.checkpointAtSubmit->isEmpty());
    end = SlurmEnding::of(final("JobState=TIMEOUT Reason=TimeLimit ExitCode=0:15 NodeList=n1"), seen);
    QVERIFY(!end.resubmit);
    QVERIFY2(end.why.contains(QStringLiteral("without writing a new checkpoint")), qPrintable(end.why));

    // A launch Slurm could not make, and a job Slurm has forgotten.
    seen.runDir = m_tmp.filePath(QStringLiteral("runs/never-made"));
    end = SlurmEnding::of(final("JobState=FAILED Reason=JobLaunchFailure ExitCode=0:53 NodeList=n2"), seen);
    QVERIFY2(end.why.contains(QStringLiteral("on n2: its run folder")), qPrintable(end.why));
    // Slurm can record a job our stop's TERM ended as JobLaunchFailure 0:15:
    // that is the stop; the same end nobody here asked for stays a failed launch.
    seen.stopAsked = true;
    end = SlurmEnding::of(final("JobState=FAILED Reason=JobLaunchFailure ExitCode=0:15 NodeList=n2"), seen);
    QVERIFY2(end.why.isEmpty(), qPrintable(end.why));
    QCOMPARE(qMakePair(end.exitCode, end.signal), qMakePair(-1, int(SIGTERM)));
    end = SlurmEnding::of(final("JobState=FAILED Reason=JobLaunchFailure ExitCode=0:53 NodeList=n2"), seen);
    QVERIFY(!end.why.isEmpty());
    seen.stopAsked = false;
    end = SlurmEnding::of(final("JobState=FAILED Reason=JobLaunchFailure ExitCode=0:15 NodeList=n2"), seen);
    QVERIFY(!end.why.isEmpty());
    end = SlurmEnding::of(SlurmJob(), seen);
    QCOMPARE(qMakePair(end.exitCode, end.signal), qMakePair(-1, 0));
    QVERIFY(end.why.isEmpty());
}

void TestSlurmLauncher::reusedJobIdIsNeverAdoptedNorSignalled()
{
    REQUIRE_CLUSTER();
    const QString foreignUser = QStringLiteral("trainyard-foreign");
    QProcess::execute(QStringLiteral("useradd"), {QStringLiteral("-M"), QStringLiteral("-r"), QStringLiteral("-s"),
                                                  QStringLiteral("/usr/sbin/nologin"), foreignUser});
    QVERIFY2(QProcess::execute(QStringLiteral("id"), {foreignUser}) == 0, "the foreign user could not be created");
    const auto submit = [this](const QStringList &who, const QString &name) {
        return SlurmJob::parseSubmitted(
            slurm(QStringList{QStringLiteral("sbatch"), QStringLiteral("--parsable")} + who
                  + QStringList{QStringLiteral("--job-name=") + name, QStringLiteral("--chdir=/tmp"),
                                QStringLiteral("--output=/dev/null"), QStringLiteral("--wrap"),
                                QStringLiteral("sleep 300")})
                .toUtf8());
    };
    // The colleague's job step reads its script from the node's spool: the
    // folders above it must let that user through (the test's are 0700).
    for (const QString &dir : {m_tmp.path(), m_cluster.dir(), m_cluster.dir() + QStringLiteral("/spool")}) {
        QVERIFY(::chmod(QFile::encodeName(dir).constData(), 0711) == 0);
    }
    // Root submits as the colleague (sbatch --uid); the user's own other job.
    const QString colleagues = submit({QStringLiteral("--uid=") + foreignUser}, QStringLiteral("mine"));
    const QString othersOfMine = submit({}, QStringLiteral("another-run"));
    QVERIFY(!colleagues.isEmpty() && !othersOfMine.isEmpty());
    const auto cancel = qScopeGuard([&] { slurm({QStringLiteral("scancel"), colleagues, othersOfMine}); });
    const auto queued = [this](const QString &job) {
        return slurm({QStringLiteral("squeue"), QStringLiteral("--noheader"), QStringLiteral("--jobs=") + job,
                      QStringLiteral("--format=%T")})
            .trimmed();
    };
    QTRY_VERIFY2_WITH_TIMEOUT(queued(colleagues) == QLatin1String("RUNNING"),
                              qPrintable(slurm({QStringLiteral("scontrol"), QStringLiteral("show"),
                                                QStringLiteral("job"), QStringLiteral("-o"), colleagues})),
                              20000);

    const QString root = m_tmp.filePath(QStringLiteral("reused-ids"));
    QVERIFY(QDir().mkpath(root));
    const auto runSpec = [](const QString &name) {
        return QJsonObject{{QStringLiteral("name"), name},
                           {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("fake")}}}};
    };
    const QJsonObject json{
        {QStringLiteral("name"), QStringLiteral("reused-ids")},
        {QStringLiteral("runs_root"), root},
        {QStringLiteral("clusters"), QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("test")},
                                                            {QStringLiteral("poll_seconds"), 1},
                                                            {QStringLiteral("worker"), m_wrapper}}}},
        {QStringLiteral("lanes"),
         QJsonArray{QJsonObject{
             {QStringLiteral("device"), QStringLiteral("slurm:test/debug")},
             {QStringLiteral("slots"), 2},
             {QStringLiteral("runs"), QJsonArray{runSpec(QStringLiteral("mine")), runSpec(QStringLiteral("ours")),
                                                 runSpec(QStringLiteral("forged")), runSpec(QStringLiteral("spaced")),
                                                 runSpec(QStringLiteral("chained"))}}}}}};
    QStringList errors;
    const auto ex = Experiment::fromJson(json, &errors);
    QVERIFY2(ex, qPrintable(errors.join(QLatin1Char('\n'))));
    // The state file as the earlier session wrote it, the user's own (0600).
    const auto entry = [](const QString &job) {
        return QJsonObject{
            {QStringLiteral("pid"), 0},
            {QStringLiteral("token"), QStringLiteral("0123456789abcdef")},
            {QStringLiteral("device"), QStringLiteral("slurm:test/debug")},
            {QStringLiteral("follow_file"), true},
            {QStringLiteral("launcher"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("slurm")},
                                                     {QStringLiteral("job"), job},
                                                     {QStringLiteral("cluster"), QStringLiteral("test")}}}};
    };
    const QString stateFile = root + QStringLiteral("/.trainyard-state.json");
    {
        QFile f(stateFile);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(
            QJsonDocument(QJsonObject{{QStringLiteral("runs"),
                                       // "-uroot" would be scancel's --user=root: every job of root's.
                                       QJsonObject{{QStringLiteral("mine"), entry(colleagues)},
                                                   {QStringLiteral("ours"), entry(othersOfMine)},
                                                   {QStringLiteral("forged"), entry(QStringLiteral("-uroot"))},
                                                   // Trimmed, or read by a shell, each would
                                                   // name the colleague's job: neither is an id.
                                                   {QStringLiteral("spaced"), entry(QLatin1Char(' ') + colleagues)},
                                                   {QStringLiteral("chained"),
                                                    entry(colleagues + QStringLiteral(";scancel ") + othersOfMine)}}}})
                .toJson());
    }
    QVERIFY(QFile::setPermissions(stateFile, QFileDevice::ReadOwner | QFileDevice::WriteOwner));

    {
        Session session;
        errors.clear();
        QVERIFY2(session.open(*ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        Orchestrator *orch = session.orchestrator();
        const RunInfo mine = orch->runs()->value(orch->runs()->findByName(QStringLiteral("mine")));
        const RunInfo ours = orch->runs()->value(orch->runs()->findByName(QStringLiteral("ours")));
        QCOMPARE(mine.state, RunState::Lost);
        QVERIFY2(mine.message.contains(foreignUser) && mine.message.contains(colleagues), qPrintable(mine.message));
        QCOMPARE(ours.state, RunState::Lost);
        QVERIFY2(ours.message.contains(QStringLiteral("another-run")), qPrintable(ours.message));
        const RunInfo forged = orch->runs()->value(orch->runs()->findByName(QStringLiteral("forged")));
        QCOMPARE(forged.state, RunState::Lost);
        QVERIFY2(forged.message.contains(QStringLiteral("\"-uroot\" is not a Slurm job id")),
                 qPrintable(forged.message));
        for (const QString &name : {QStringLiteral("spaced"), QStringLiteral("chained")}) {
            const RunInfo r = orch->runs()->value(orch->runs()->findByName(name));
            QCOMPARE(r.state, RunState::Lost);
            QVERIFY2(r.message.contains(QStringLiteral("is not a Slurm job id; nothing was signalled")),
                     qPrintable(r.message));
        }
        QVERIFY2(errors.join(QLatin1Char('\n')).contains(QStringLiteral("mine lost")),
                 qPrintable(errors.join(QLatin1Char('\n'))));
        // Stop is refused (nothing of ours runs), and so is every other way
        // to signal: close stops what runs, which is nothing.
        QString error;
        QVERIFY(!orch->runActions()->stopRun(mine.id, &error));
        QSignalSpy closed(&session, &Session::closed);
        session.close(false);
        QTRY_COMPARE(closed.count(), 1);
        QVERIFY(readAll(mine.runDir + QStringLiteral("/status.json")).contains(QStringLiteral("\"lost\"")));
    }
    QTest::qWait(1500); // nothing signals a scancel that never ran: one would have reached the controller by now
    QCOMPARE(queued(colleagues), QStringLiteral("RUNNING"));
    // Root's own job outlives the forged "-uroot" too: no scancel -uroot ran.
    QVERIFY2(!queued(othersOfMine).isEmpty(), "the user's other job was cancelled");
}

// The seam end to end: the Supervisor drives runs through SlurmLauncher on
// the test cluster, and the workers (on this machine, the cluster's node)
// say hello on the metrics socket as local ones do. Two runs take the two
// GPUs, a third waits ("pending: Resources") and is cancelled before it
// starts; the two are stopped over the socket and end Stopped (exit 4).
void TestSlurmLauncher::supervisorThroughSlurm()
{
    REQUIRE_CLUSTER();
    RunStore store(m_tmp.filePath(QStringLiteral("supervised")));
    MetricsServer server;
    MetricStore metrics;
    RunRegistry runs;
    Ingestion ingestion{&runs, &store, &metrics};
    SlurmClusterConfig c = config();
    c.connectBack = true; // a one-node cluster reaches the orchestrator's socket
    SlurmLauncher launcher(c);
    QString error;
    QVERIFY2(server.listen(m_tmp.filePath(QStringLiteral("sock/s.sock")), &error), qPrintable(error));
    std::unique_ptr<Supervisor> supervisor =
        std::make_unique<Supervisor>(&runs, &store, &server, &ingestion, &launcher);
    server.setHandler([&ingestion](RunId id, const MetricRecord &m) { ingestion.handleRecord(id, m); });
    supervisor->setWorkerProgram(m_wrapper);
    supervisor->setStopTimeout(10000);

    QList<RunId> ids;
    for (int i = 1; i <= 3; ++i) {
        RunInfo info;
        info.name = QStringLiteral("sup-%1").arg(i);
        info.group = info.name;
        info.spec = QJsonObject{{QStringLiteral("name"), info.name},
                                {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("fake")},
                                                                      {QStringLiteral("steps"), 100000},
                                                                      {QStringLiteral("step_ms"), 20}}}};
        info.runDir = store.runDir(info.name);
        ids << runs.add(info);
        QVERIFY2(supervisor->start(ids.last(),
                                   StartOptions{Device::parse(QStringLiteral("cuda:0")), 0, false, {}, false}, &error),
                 qPrintable(error));
    }
    auto state = [&runs](RunId id) { return runs.value(id).state; };
    // Two say hello through the socket and train; the third waits for a GPU
    // (which one Slurm makes wait depends on which sbatch answered first).
    QList<RunId> training;
    RunId waiting = 0;
    auto look = [&] {
        training.clear();
        waiting = 0;
        for (RunId id : std::as_const(ids)) {
            if (state(id) == RunState::Running) {
                training << id;
            } else if (state(id) == RunState::Starting
                       && runs.value(id).message == QLatin1String("pending: Resources")) {
                waiting = id;
            }
        }
        return training.size() == 2 && waiting != 0;
    };
    QTRY_VERIFY_WITH_TIMEOUT(look(), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(metrics.series(training.at(0), QStringLiteral("loss")) != nullptr, 10000);

    supervisor->stop(waiting);
    QTRY_COMPARE_WITH_TIMEOUT(state(waiting), RunState::Cancelled, 10000);
    QVERIFY2(runs.value(waiting).message.contains(QStringLiteral("cancelled before it started")),
             qPrintable(runs.value(waiting).message));

    supervisor->stop(training.at(0));
    supervisor->stop(training.at(1));
    QTRY_VERIFY_WITH_TIMEOUT(state(training.at(0)) == RunState::Stopped && state(training.at(1)) == RunState::Stopped,
                             20000);
    QVERIFY2(runs.value(training.at(0)).message.contains(QStringLiteral("exit 4")),
             qPrintable(runs.value(training.at(0)).message));
    supervisor.reset();
}

QTEST_GUILESS_MAIN(TestSlurmLauncher)
#include "tst_slurmlauncher.moc"
