// GPU lanes through the Dispatcher with the fake worker and GPUs that
// DeviceInventory::setFakeGpus stands in for: a pool spreads its runs,
// packs them by memory, waits on a GPU busy with another user's process
// and starts when it frees, gives a run of two GPUs both of them (and a
// rendezvous port), and fails a run that can never fit.

#include "orchestration/devices/deviceinventory.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/gpuaccount.h"
#include "orchestration/dispatch/gpumemorybook.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/dispatch/startplanner.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/sweepspec.h"
#include "orchestration/placement/gpuothers.h"
#include "orchestration/placement/runresources.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"
#include "testutil.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace trainyard;
using namespace trainyard::test;

namespace {

constexpr qint64 GiB = 1024LL * 1024 * 1024;

QList<DeviceInfo> gpus(int count)
{
    QList<DeviceInfo> list;
    for (int i = 0; i < count; ++i) {
        DeviceInfo d;
        d.id = QStringLiteral("cuda:%1").arg(i);
        d.name = QStringLiteral("Test GPU");
        d.isGpu = true;
        d.index = i;
        d.memoryTotal = 80 * GiB;
        d.memoryUsed = 0;
        list << d;
    }
    return list;
}

QJsonObject withResources(QJsonObject spec, const QJsonObject &resources)
{
    spec.insert(QStringLiteral("resources"), resources);
    return spec;
}

} // namespace

class TestGpuPools : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_counter = 0;

    std::unique_ptr<Session> open(const QJsonArray &lanes, const QList<DeviceInfo> &fake)
    {
        auto session = std::make_unique<Session>();
        session->devices()->setPollInterval(0); // the test says what the GPUs hold
        session->devices()->setFakeGpus(fake);
        const QString root = m_dir.filePath(QStringLiteral("exp%1").arg(++m_counter));
        QStringList errors;
        if (!session->open(experiment(experimentJson(QStringLiteral("t"), root, lanes)), QString(), &errors)) {
            qWarning("%s", qPrintable(errors.join(QLatin1Char('\n'))));
        }
        session->orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
        session->orchestrator()->supervisor()->setStopTimeout(2000);
        return session;
    }

    static RunInfo run(Session *s, const QString &name)
    {
        RunRegistry *runs = s->orchestrator()->runs();
        return runs->value(runs->findByName(name));
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        QVERIFY(m_dir.isValid());
    }

    void poolSpreadsItsRunsOverItsGpus()
    {
        QJsonArray runs;
        for (int i = 0; i < 5; ++i) {
            runs << fakeSpec(QStringLiteral("p%1").arg(i), 400, 20);
        }
        auto s = open({lane(QStringLiteral("cuda:*"), 1, runs)}, gpus(4));
        s->orchestrator()->dispatcher()->startAll();
        QStringList devices;
        for (int i = 0; i < 4; ++i) {
            QTRY_VERIFY(isActive(run(s.get(), QStringLiteral("p%1").arg(i)).state));
            devices << run(s.get(), QStringLiteral("p%1").arg(i)).device.toString();
        }
        devices.sort();
        QCOMPARE(devices.join(QLatin1Char(' ')), QStringLiteral("cuda:0 cuda:1 cuda:2 cuda:3"));
        const RunInfo fifth = run(s.get(), QStringLiteral("p4"));
        QCOMPARE(fifth.state, RunState::Queued);
        QCOMPARE(fifth.message, QStringLiteral("waits: every GPU of the lane has its 1 run"));
        // When one ends, the fifth takes its GPU.
        const QString freed = run(s.get(), QStringLiteral("p0")).device.toString();
        QVERIFY(s->orchestrator()->runActions()->stopRun(run(s.get(), QStringLiteral("p0")).id));
        QTRY_VERIFY_WITH_TIMEOUT(isActive(run(s.get(), QStringLiteral("p4")).state), 10000);
        QCOMPARE(run(s.get(), QStringLiteral("p4")).device.toString(), freed);
        QVERIFY(run(s.get(), QStringLiteral("p4")).message.isEmpty());
        s->orchestrator()->dispatcher()->killAll();
    }

    void poolPacksByMemory()
    {
        const QJsonObject need{{QStringLiteral("gpu_memory"), QStringLiteral("30GiB")}};
        QJsonArray runs;
        for (int i = 0; i < 3; ++i) {
            runs << withResources(fakeSpec(QStringLiteral("m%1").arg(i), 400, 20), need);
        }
        auto s = open({lane(QStringLiteral("cuda:*"), 4, runs)}, gpus(1));
        s->orchestrator()->dispatcher()->startAll();
        QTRY_VERIFY(isActive(run(s.get(), QStringLiteral("m1")).state));
        QVERIFY(isActive(run(s.get(), QStringLiteral("m0")).state));
        QCOMPARE(run(s.get(), QStringLiteral("m0")).device.toString(), QStringLiteral("cuda:0"));
        // Two of 30 GiB are promised; 20 GiB are left for the third.
        const RunInfo third = run(s.get(), QStringLiteral("m2"));
        QCOMPARE(third.state, RunState::Queued);
        QCOMPARE(third.message, QStringLiteral("waits: needs 30.0 GiB; most free: cuda:0 with 20.0 GiB"));
        s->orchestrator()->dispatcher()->killAll();
    }

    void busyGpuMakesRunsWaitUntilItFrees()
    {
        QList<DeviceInfo> fake = gpus(1);
        GpuProcess bob;
        bob.pid = 4242;
        bob.memoryBytes = 2 * GiB;
        bob.name = QStringLiteral("python3");
        bob.owner = GpuProcess::Owner::OtherUser;
        bob.user = QStringLiteral("bob");
        fake[0].processes << bob;
        fake[0].memoryUsed = 2 * GiB;
        auto s = open({lane(QStringLiteral("cuda:0"), 1, {fakeSpec(QStringLiteral("g"), 5)})}, fake);
        const QString problems = s->orchestrator()->laneDevices()->preflight().join(QLatin1Char('\n'));
        QVERIFY2(problems.contains(QStringLiteral("busy with another user's process: pid 4242 (python3)")),
                 qPrintable(problems));
        s->orchestrator()->dispatcher()->startAll();
        QTRY_COMPARE(run(s.get(), QStringLiteral("g")).message,
                     QStringLiteral("waits: cuda:0 busy — user bob, python3, 2.0 GiB"));
        QCOMPARE(run(s.get(), QStringLiteral("g")).state, RunState::Queued);
        s->devices()->setFakeGpus(gpus(1)); // bob's process ended
        QTRY_COMPARE_WITH_TIMEOUT(run(s.get(), QStringLiteral("g")).state, RunState::Finished, 10000);
    }

    // Who makes a GPU busy: others' processes over 1 GiB together; a pid
    // this machine cannot resolve only where no run of ours is.
    void whoMakesAGpuBusy()
    {
        DeviceInfo gpu = gpus(1).first();
        GpuProcess unknown;
        unknown.pid = 77;
        unknown.memoryBytes = 10 * GiB;
        unknown.name = QStringLiteral("python");
        gpu.processes << unknown;
        QCOMPARE(othersOnGpu(gpu, false), QStringLiteral("pid 77, python, 10.0 GiB"));
        QCOMPARE(othersOnGpu(gpu, true), QString()); // perhaps our own run, seen from a container
        GpuProcess mine;
        mine.pid = 88;
        mine.memoryBytes = 12 * GiB;
        mine.owner = GpuProcess::Owner::Mine;
        mine.name = QStringLiteral("jupyter");
        gpu.processes << mine;
        QCOMPARE(othersOnGpu(gpu, true), QStringLiteral("your pid 88, jupyter, 12.0 GiB"));
        DeviceInfo small = gpus(1).first();
        GpuProcess xorg;
        xorg.pid = 99;
        xorg.memoryBytes = 300LL * 1024 * 1024;
        xorg.owner = GpuProcess::Owner::OtherUser;
        small.processes << xorg;
        QCOMPARE(othersOnGpu(small, false), QString()); // below the threshold
        GpuProcess run;
        run.pid = 100;
        run.memoryBytes = 40 * GiB;
        run.owner = GpuProcess::Owner::Run;
        small.processes << run;
        QCOMPARE(othersOnGpu(small, false), QString()); // a run's memory is never someone else's
    }

    void shareStartsBesideAnotherUser()
    {
        QList<DeviceInfo> fake = gpus(1);
        GpuProcess bob;
        bob.pid = 4242;
        bob.memoryBytes = 20 * GiB;
        bob.name = QStringLiteral("python3");
        bob.owner = GpuProcess::Owner::OtherUser;
        bob.user = QStringLiteral("bob");
        fake[0].processes << bob;
        fake[0].memoryUsed = 20 * GiB;
        QJsonObject l = lane(QStringLiteral("cuda:0"), 1, {fakeSpec(QStringLiteral("s"), 5)});
        l.insert(QStringLiteral("busy"), QStringLiteral("share"));
        auto s = open({l}, fake);
        s->orchestrator()->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(run(s.get(), QStringLiteral("s")).state, RunState::Finished, 10000);
    }

    void twoGpuProgramSeesBothGpusAndAPort()
    {
        const QString out = m_dir.filePath(QStringLiteral("env.txt"));
        const QJsonObject program{
            {QStringLiteral("name"), QStringLiteral("ddp")},
            {QStringLiteral("program"),
             QJsonObject{
                 {QStringLiteral("argv"),
                  QJsonArray{
                      QStringLiteral("sh"), QStringLiteral("-c"),
                      QStringLiteral("echo \"$CUDA_VISIBLE_DEVICES $MASTER_ADDR $MASTER_PORT\" > %1").arg(out)}}}},
            {QStringLiteral("resources"), QJsonObject{{QStringLiteral("gpus"), 2}}}};
        QList<DeviceInfo> fake = gpus(4);
        fake[0].memoryUsed = 10 * GiB; // the emptiest GPUs come first
        auto s = open({lane(QStringLiteral("cuda:0-3"), 1, {program})}, fake);
        s->orchestrator()->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(run(s.get(), QStringLiteral("ddp")).state), 10000);
        QCOMPARE(run(s.get(), QStringLiteral("ddp")).device.toString(), QStringLiteral("cuda:1,2"));
        const QStringList words = QString::fromUtf8(readFile(out)).trimmed().split(QLatin1Char(' '));
        QCOMPARE(words.size(), 3);
        QCOMPARE(words.at(0), QStringLiteral("1,2"));
        QCOMPARE(words.at(1), QStringLiteral("127.0.0.1"));
        QVERIFY(words.at(2).toInt() > 0);
    }

    void runThatCanNeverFitFails()
    {
        auto s = open({lane(QStringLiteral("cuda:*"), 1,
                            {withResources(fakeSpec(QStringLiteral("big")),
                                           {{QStringLiteral("gpu_memory"), QStringLiteral("100GiB")}})})},
                      gpus(2));
        s->orchestrator()->dispatcher()->startAll();
        QTRY_COMPARE(run(s.get(), QStringLiteral("big")).state, RunState::Failed);
        const QString message = run(s.get(), QStringLiteral("big")).message;
        QVERIFY2(message.startsWith(
                     QStringLiteral("not started: needs 100.0 GiB on a GPU; the lane's largest has 80.0 GiB")),
                 qPrintable(message));
    }

    // A program that dies of CUDA out-of-memory once: failed with that line,
    // or, with "on_oom": "retry", back in the queue with more memory asked.
    void outOfMemoryFailsOrRetries()
    {
        const QString counter = m_dir.filePath(QStringLiteral("oom-tries"));
        const auto program = [&](const QString &name, const QString &onOom) {
            const QString script =
                QStringLiteral("n=$(cat %1 2>/dev/null || echo 0); echo $((n+1)) > %1; "
                               "if [ \"$n\" = 0 ]; then echo 'torch.OutOfMemoryError: CUDA out of memory. "
                               "Tried to allocate 2.00 GiB' >&2; exit 1; fi")
                    .arg(counter);
            return QJsonObject{
                {QStringLiteral("name"), name},
                {QStringLiteral("program"),
                 QJsonObject{{QStringLiteral("argv"), QJsonArray{QStringLiteral("sh"), QStringLiteral("-c"), script}}}},
                {QStringLiteral("resources"), QJsonObject{{QStringLiteral("on_oom"), onOom}}}};
        };
        {
            QFile::remove(counter);
            auto s =
                open({lane(QStringLiteral("cuda:*"), 1, {program(QStringLiteral("once"), QStringLiteral("fail"))})},
                     gpus(1));
            s->orchestrator()->dispatcher()->startAll();
            QTRY_COMPARE_WITH_TIMEOUT(run(s.get(), QStringLiteral("once")).state, RunState::Failed, 10000);
            const QString message = run(s.get(), QStringLiteral("once")).message;
            QVERIFY2(message.startsWith(QStringLiteral("out of memory (")), qPrintable(message));
            QVERIFY2(message.endsWith(QStringLiteral(
                         "worker.log: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")),
                     qPrintable(message));
        }
        {
            QFile::remove(counter);
            auto s =
                open({lane(QStringLiteral("cuda:*"), 1, {program(QStringLiteral("again"), QStringLiteral("retry"))})},
                     gpus(1));
            QSignalSpy ended(s->orchestrator()->dispatcher(), &Dispatcher::runEnded);
            s->orchestrator()->dispatcher()->startAll();
            QTRY_COMPARE_WITH_TIMEOUT(run(s.get(), QStringLiteral("again")).state, RunState::Finished, 10000);
            QCOMPARE(ended.count(), 1); // the out-of-memory end was not the run's end
            QCOMPARE(readFile(counter).trimmed(), QByteArray("2"));
            // The first try's folder is kept as an attempt.
            QVERIFY(QFileInfo::exists(s->store()->runDir(QStringLiteral("again.attempt-1"))));
        }
    }

    // A run without "gpu_memory" is placed with what runs of its
    // configuration used before (their peak, plus the margin).
    void memoryIsLearnedFromEarlierRuns()
    {
        const QString root = m_dir.filePath(QStringLiteral("learned"));
        const auto spec = [](const QString &name, int seed) {
            QJsonObject s = fakeSpec(name, 3000, 20);
            s.insert(QStringLiteral("train"), QJsonObject{{QStringLiteral("seed"), seed}});
            return s;
        };
        QStringList errors;
        {
            Session first;
            first.devices()->setPollInterval(0);
            first.devices()->setFakeGpus(gpus(1));
            QVERIFY(first.open(
                experiment(experimentJson(QStringLiteral("t"), root,
                                          {lane(QStringLiteral("cuda:*"), 1, {spec(QStringLiteral("a"), 1)})})),
                QString(), &errors));
            first.orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
            first.orchestrator()->dispatcher()->startAll();
            QTRY_VERIFY(run(&first, QStringLiteral("a")).pid > 0);
            QList<DeviceInfo> busy = gpus(1);
            GpuProcess worker;
            worker.pid = run(&first, QStringLiteral("a")).pid;
            worker.memoryBytes = 30 * GiB;
            busy[0].processes << worker;
            busy[0].memoryUsed = 30 * GiB;
            first.devices()->setFakeGpus(busy); // seen holding 30 GiB: its peak
            QVERIFY(first.orchestrator()->runActions()->stopRun(run(&first, QStringLiteral("a")).id));
            QTRY_COMPARE_WITH_TIMEOUT(run(&first, QStringLiteral("a")).state, RunState::Stopped, 10000);
        }
        QVERIFY(QFileInfo::exists(root + QStringLiteral("/.trainyard-gpu-memory.json")));
        Session second;
        second.devices()->setPollInterval(0);
        second.devices()->setFakeGpus(gpus(1));
        QVERIFY(second.open(experiment(experimentJson(QStringLiteral("t"), root,
                                                      {lane(QStringLiteral("cuda:*"), 4,
                                                            {spec(QStringLiteral("b"), 2), spec(QStringLiteral("c"), 3),
                                                             spec(QStringLiteral("d"), 4)})})),
                            QString(), &errors));
        second.orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
        second.orchestrator()->dispatcher()->startAll();
        QTRY_VERIFY(isActive(run(&second, QStringLiteral("c")).state));
        QVERIFY(isActive(run(&second, QStringLiteral("b")).state));
        // 33.25 GiB each (30 GiB, 10 % and 256 MiB more): two fit 80 GiB, not three.
        const RunInfo d = run(&second, QStringLiteral("d"));
        QCOMPARE(d.state, RunState::Queued);
        QVERIFY2(d.message.startsWith(QStringLiteral("waits: needs 33.")), qPrintable(d.message));
        second.orchestrator()->dispatcher()->killAll();
    }

    void memoryBookKeysAndFile()
    {
        QJsonObject a = fakeSpec(QStringLiteral("a"));
        QJsonObject b = fakeSpec(QStringLiteral("b"));
        b.insert(QStringLiteral("train"), QJsonObject{{QStringLiteral("seed"), 99}, {QStringLiteral("lr"), 0.5}});
        QCOMPARE(GpuMemoryBook::key(a), GpuMemoryBook::key(b)); // name, seed and lr do not change memory
        QJsonObject c = a;
        c.insert(QStringLiteral("train"), QJsonObject{{QStringLiteral("batch_size"), 1024}});
        QVERIFY(GpuMemoryBook::key(a) != GpuMemoryBook::key(c));
        QCOMPARE(GpuMemoryBook::withMargin(10 * GiB), 11 * GiB + 256LL * 1024 * 1024);
        QCOMPARE(GpuMemoryBook::withMargin(-1), -1);

        const QString path = m_dir.filePath(QStringLiteral("book.json"));
        GpuMemoryBook book;
        book.load(path);
        QCOMPARE(book.peak(QStringLiteral("k")), -1);
        QVERIFY(book.record(QStringLiteral("k"), 5 * GiB));
        QVERIFY(book.record(QStringLiteral("k"), 3 * GiB)); // the largest is kept
        GpuMemoryBook again;
        again.load(path);
        QCOMPARE(again.peak(QStringLiteral("k")), 5 * GiB);
        // A link in its place is not followed; a broken file reads as empty.
        const QString link = m_dir.filePath(QStringLiteral("book-link.json"));
        QVERIFY(QFile::link(path, link));
        QString error;
        GpuMemoryBook linked;
        linked.load(link, &error);
        QCOMPARE(linked.peak(QStringLiteral("k")), -1);
        QVERIFY2(error.contains(QStringLiteral("not a regular file")), qPrintable(error));
        const QByteArray target = readFile(path);
        QVERIFY(linked.record(QStringLiteral("other"), 9 * GiB));
        QCOMPARE(readFile(path), target); // never written through the link
        QVERIFY(writeFile(path, "{not json"));
        GpuMemoryBook broken;
        broken.load(path, &error);
        QCOMPARE(broken.peak(QStringLiteral("k")), -1);
        QVERIFY(error.contains(QStringLiteral("not a JSON object")));
        QVERIFY(broken.record(QStringLiteral("k"), 2 * GiB));
        QCOMPARE(readFile(path), QByteArray("{not json"));   // left alone
        QCOMPARE(broken.peak(QStringLiteral("k")), 2 * GiB); // learned for this session
    }

    // Runs of a pool left training when the app closed are found again on
    // their GPUs, and count there: the queue's next run waits for a slot.
    void poolRunsReattachOnTheirGpus()
    {
        const QString root = m_dir.filePath(QStringLiteral("reattach"));
        QJsonArray runs;
        for (int i = 0; i < 3; ++i) {
            runs << fakeSpec(QStringLiteral("r%1").arg(i), 3000, 20);
        }
        const Experiment ex =
            experiment(experimentJson(QStringLiteral("t"), root, {lane(QStringLiteral("cuda:*"), 1, runs)}));
        QStringList errors;
        QString devices[2];
        {
            Session first;
            first.devices()->setPollInterval(0);
            first.devices()->setFakeGpus(gpus(2));
            QVERIFY2(first.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
            first.orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
            first.orchestrator()->dispatcher()->startAll();
            QTRY_VERIFY(run(&first, QStringLiteral("r0")).connected && run(&first, QStringLiteral("r1")).connected);
            devices[0] = run(&first, QStringLiteral("r0")).device.toString();
            devices[1] = run(&first, QStringLiteral("r1")).device.toString();
            QCOMPARE(run(&first, QStringLiteral("r2")).state, RunState::Queued);
            first.close(/*leaveRunning=*/true);
        }
        Session second;
        second.devices()->setPollInterval(0);
        second.devices()->setFakeGpus(gpus(2));
        QVERIFY2(second.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        second.orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
        for (int i = 0; i < 2; ++i) {
            const RunInfo r = run(&second, QStringLiteral("r%1").arg(i));
            QVERIFY2(r.reattached, qPrintable(r.name));
            QCOMPARE(r.device.toString(), devices[i]);
        }
        second.orchestrator()->dispatcher()->startAll();
        QTRY_COMPARE(run(&second, QStringLiteral("r2")).message,
                     QStringLiteral("waits: every GPU of the lane has its 1 run"));
        QCOMPARE(run(&second, QStringLiteral("r2")).state, RunState::Queued);
        // One of them stopped: the third starts on the GPU it freed.
        QVERIFY(second.orchestrator()->runActions()->stopRun(run(&second, QStringLiteral("r0")).id));
        QTRY_VERIFY_WITH_TIMEOUT(isActive(run(&second, QStringLiteral("r2")).state), 15000);
        QCOMPARE(run(&second, QStringLiteral("r2")).device.toString(), devices[0]);
        second.orchestrator()->dispatcher()->killAll();
    }

    // A sweep fills a pool with its slots on each GPU, not one trial a lane.
    void sweepSpreadsItsTrialsOverAPool()
    {
        SweepSpec sweep;
        sweep.name = QStringLiteral("sw");
        sweep.base = fakeSpec(QStringLiteral("base"), 3000, 20);
        sweep.base.remove(QStringLiteral("name"));
        SweepParameter seeds;
        seeds.key = QStringLiteral("train.seed");
        seeds.kind = SweepParameter::Kind::Values;
        seeds.values = {1, 2, 3, 4};
        sweep.space << seeds;
        sweep.objective = QStringLiteral("valid/mrr");
        Experiment ex = experiment(experimentJson(QStringLiteral("t"), m_dir.filePath(QStringLiteral("sweep")),
                                                  {lane(QStringLiteral("cuda:*"), 1, {})}));
        ex.sweeps << sweep;
        Session session;
        session.devices()->setPollInterval(0);
        session.devices()->setFakeGpus(gpus(3));
        QStringList errors;
        QVERIFY2(session.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        session.orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
        session.orchestrator()->dispatcher()->startAll();
        RunRegistry *runs = session.orchestrator()->runs();
        QStringList devices;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                devices.clear();
                for (RunId id : runs->ids()) {
                    if (isActive(runs->value(id).state)) {
                        devices << runs->value(id).device.toString();
                    }
                }
                return devices.size() == 3;
            }(),
            10000);
        devices.sort();
        QCOMPARE(devices.join(QLatin1Char(' ')), QStringLiteral("cuda:0 cuda:1 cuda:2"));
        session.orchestrator()->dispatcher()->killAll();
    }

    void resourcesAreChecked()
    {
        QStringList errors;
        const QJsonObject bad = experimentJson(
            QStringLiteral("t"), m_dir.path(),
            {lane(QStringLiteral("cuda:*"), 1,
                  {withResources(fakeSpec(QStringLiteral("a")), {{QStringLiteral("gpus"), 2}}),
                   withResources(fakeSpec(QStringLiteral("b")), {{QStringLiteral("gpu_memory"), QStringLiteral("lots")},
                                                                 {QStringLiteral("on_oom"), QStringLiteral("pray")},
                                                                 {QStringLiteral("cpus"), 4}})})});
        QVERIFY(!Experiment::fromJson(bad, &errors));
        const QString all = errors.join(QLatin1Char('\n'));
        QVERIFY2(all.contains(QStringLiteral("lanes[0].runs[0].resources.gpus: the built-in models train on one GPU, "
                                             "got 2")),
                 qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("lanes[0].runs[1].resources.gpu_memory: expected a number of bytes or a "
                                             "size such as \"30GiB\"")),
                 qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("lanes[0].runs[1].resources.on_oom: expected \"fail\" or \"retry\", got "
                                             "\"pray\"")),
                 qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("lanes[0].runs[1].resources: unknown key \"cpus\"")), qPrintable(all));
        QCOMPARE(RunResources::of(withResources(QJsonObject(), {{QStringLiteral("gpu_memory"), 1048576}})).memoryBytes,
                 1048576);
    }

    void slurmGresCountsTheGpus()
    {
        QCOMPARE(RunResources::gresFor(QString(), 2), QStringLiteral("gpu:2"));
        QCOMPARE(RunResources::gresFor(QStringLiteral("gpu"), 3), QStringLiteral("gpu:3"));
        QCOMPARE(RunResources::gresFor(QStringLiteral("gpu:1"), 2), QStringLiteral("gpu:2"));
        QCOMPARE(RunResources::gresFor(QStringLiteral("gpu:a100"), 2), QStringLiteral("gpu:a100:2"));
        QCOMPARE(RunResources::gresFor(QStringLiteral("gpu:a100:1"), 4), QStringLiteral("gpu:a100:4"));
    }

    void slurmLaneAsksForTheRunsGpus()
    {
        QJsonObject json = experimentJson(
            QStringLiteral("t"), m_dir.filePath(QStringLiteral("slurm")),
            {lane(
                QStringLiteral("slurm:hpc/debug"), 1,
                {withResources(QJsonObject{{QStringLiteral("name"), QStringLiteral("ddp")},
                                           {QStringLiteral("program"),
                                            QJsonObject{{QStringLiteral("argv"), QJsonArray{QStringLiteral("true")}}}}},
                               {{QStringLiteral("gpus"), 2}}),
                 fakeSpec(QStringLiteral("one"))})});
        json.insert(QStringLiteral("clusters"),
                    QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("hpc")}}});
        QStringList errors;
        const auto ex = Experiment::fromJson(json, &errors);
        QVERIFY2(ex, qPrintable(errors.join(QLatin1Char('\n'))));
        Session session;
        QVERIFY2(session.open(*ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        RunRegistry *runs = session.orchestrator()->runs();
        const StartPlanner *plans = session.orchestrator()->startPlanner();
        QCOMPARE(plans->startOptions(runs->findByName(QStringLiteral("ddp"))).gres, QStringLiteral("gpu:2"));
        // A run that names no count keeps the lane's request (empty: the cluster's default).
        QCOMPARE(plans->startOptions(runs->findByName(QStringLiteral("one"))).gres, QString());
    }

    void busyPolicyIsChecked()
    {
        QStringList errors;
        QJsonObject cpu = lane(QStringLiteral("cpu"), 1, {});
        cpu.insert(QStringLiteral("busy"), QStringLiteral("wait"));
        QJsonObject gpu = lane(QStringLiteral("cuda:*"), 1, {});
        gpu.insert(QStringLiteral("busy"), QStringLiteral("maybe"));
        QVERIFY(!Experiment::fromJson(experimentJson(QStringLiteral("t"), m_dir.path(), {cpu, gpu}), &errors));
        const QString all = errors.join(QLatin1Char('\n'));
        QVERIFY2(all.contains(QStringLiteral("lanes[0].busy: only for a lane of GPUs")), qPrintable(all));
        QVERIFY2(
            all.contains(QStringLiteral("lanes[1].busy: expected \"wait\", \"share\" or \"ignore\", got \"maybe\"")),
            qPrintable(all));
        // Kept through a save.
        QJsonObject share = lane(QStringLiteral("cuda:0,2"), 2, {});
        share.insert(QStringLiteral("busy"), QStringLiteral("share"));
        const auto ex = Experiment::fromJson(experimentJson(QStringLiteral("t"), m_dir.path(), {share}), &errors);
        QVERIFY(ex);
        QCOMPARE(ex->toJson().value(QStringLiteral("lanes")).toArray().first().toObject().value(QStringLiteral("busy")),
                 QJsonValue(QStringLiteral("share")));
    }
};

QTEST_GUILESS_MAIN(TestGpuPools)
#include "tst_gpupools.moc"
