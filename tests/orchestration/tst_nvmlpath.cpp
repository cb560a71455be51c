// GPUs without a GPU, through the app's real NVML path: DeviceInventory's
// own dlopen("libnvidia-ml.so.1") finds the fake NVML (tests/helpers/
// fakenvml.cpp), whose folder ctest puts on LD_LIBRARY_PATH; its GPUs are
// the test's state file (TRAINYARD_FAKE_NVML). Processes hold memory by
// registering in it (trainyard-fake-gpu-alloc, the fake worker on its
// CUDA_VISIBLE_DEVICES) and free it by dying. Registered twice: with the
// full library and with one that lacks the _v3/_v2 process calls
// (TRAINYARD_FAKE_NVML_VARIANT=v1), so the app's fallback runs too.

#include "orchestration/devices/deviceinventory.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "tests/helpers/buildprograms.h"
#include "testutil.h"

#include <QDir>
#include <QProcess>
#include <QSaveFile>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <dlfcn.h>
#include <signal.h>

#include <memory>
#include <vector>

using namespace trainyard;

namespace {

constexpr qint64 kGiB = qint64(1) << 30;

const GpuProcess *findProcess(const DeviceInfo &gpu, qint64 pid)
{
    for (const GpuProcess &p : gpu.processes) {
        if (p.pid == pid) {
            return &p;
        }
    }
    return nullptr;
}

// A pid that no longer exists: a shell's, after it was reaped.
qint64 deadPid()
{
    QProcess sh;
    sh.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), QStringLiteral("echo $$")});
    sh.waitForFinished();
    return sh.readAllStandardOutput().trimmed().toLongLong();
}

} // namespace

class TestNvmlPath : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_state;
    qint64 m_dead = 0;

    bool writeState(const QByteArray &text)
    {
        // Renamed over the old file: the library never reads half of it.
        QSaveFile f(m_state);
        return f.open(QIODevice::WriteOnly) && f.write(text) == text.size() && f.commit();
    }

    // Four GPUs; the test itself holds 2 GiB of GPU 0, a dead process 999 bytes.
    QByteArray fourGpus() const
    {
        return QStringLiteral("# four GPUs\n"
                              "gpu 0 85899345920 \"NVIDIA H100 80GB HBM3\" 37 41 350000\n"
                              "gpu 1 25769803776 \"NVIDIA GeForce RTX 4090\" 5\n"
                              "gpu 2 17179869184 \"Tesla V100-SXM2-16GB\"\n"
                              "gpu 3 17179869184 \"Tesla V100-SXM2-16GB\" - 33\n"
                              "\n"
                              "proc %1 0 2147483648\n"
                              "proc %2 0 999\n")
            .arg(QCoreApplication::applicationPid())
            .arg(m_dead)
            .toUtf8();
    }

    static QString gpuAlloc() { return buildProgram("TRAINYARD_FAKE_GPU_ALLOC"); }

private Q_SLOTS:
    void initTestCase()
    {
        if (!qEnvironmentVariable("LD_LIBRARY_PATH").contains(QStringLiteral("fakenvml"))) {
            QSKIP("run through ctest: its LD_LIBRARY_PATH names the fake NVML's folder");
        }
        QVERIFY(m_dir.isValid());
        m_state = m_dir.filePath(QStringLiteral("nvml-state"));
        qputenv("TRAINYARD_FAKE_NVML", QFile::encodeName(m_state));
        m_dead = deadPid();
        QVERIFY(m_dead > 0);
    }

    void init() { QVERIFY(writeState(fourGpus())); }

    void inventoryReadsTheStateFile()
    {
        DeviceInventory inventory;
        QVERIFY2(inventory.nvmlAvailable(), qPrintable(inventory.nvmlError()));
        QCOMPARE(inventory.gpuCount(), 4);
        const DeviceInfo h100 = inventory.device(QStringLiteral("cuda:0"));
        QVERIFY(h100.isGpu);
        QCOMPARE(h100.index, 0);
        QCOMPARE(h100.name, QStringLiteral("NVIDIA H100 80GB HBM3"));
        QCOMPARE(h100.memoryTotal, 80 * kGiB);
        QCOMPARE(h100.memoryUsed, 2 * kGiB); // the dead process holds nothing
        QCOMPARE(h100.utilization, 37);
        QCOMPARE(h100.temperature, 41);
        QCOMPARE(h100.powerWatts, 350.0);
        QCOMPARE(h100.processes.size(), qsizetype(1));
        QCOMPARE(h100.processes.first().pid, QCoreApplication::applicationPid());
        QCOMPARE(h100.processes.first().memoryBytes, 2 * kGiB);
        QVERIFY(!h100.processes.first().name.isEmpty()); // from /proc/PID/comm
        QVERIFY(h100.busyWithOthers());

        const DeviceInfo rtx = inventory.device(QStringLiteral("cuda:1"));
        QCOMPARE(rtx.name, QStringLiteral("NVIDIA GeForce RTX 4090"));
        QCOMPARE(rtx.memoryTotal, 24 * kGiB);
        QCOMPARE(rtx.memoryUsed, qint64(0));
        QCOMPARE(rtx.utilization, 5);
        QCOMPARE(rtx.temperature, -1); // not supported: unknown
        QCOMPARE(rtx.powerWatts, -1.0);
        QVERIFY(rtx.processes.isEmpty());
        const DeviceInfo v100 = inventory.device(QStringLiteral("cuda:3"));
        QCOMPARE(v100.utilization, -1);
        QCOMPARE(v100.temperature, 33);

        // This user's process that is no run's: "mine", and it makes the GPU
        // busy (a run's own processes never do: tst_processtree).
        QCOMPARE(h100.processes.first().owner, GpuProcess::Owner::Mine);
    }

    void killedProcessFreesItsMemory()
    {
        DeviceInventory inventory;
        inventory.setPollInterval(50);
        QProcess holder;
        holder.start(gpuAlloc(), {QStringLiteral("2"), QStringLiteral("3000000000")});
        QVERIFY2(holder.waitForStarted(), qPrintable(holder.errorString()));
        const qint64 pid = holder.processId();
        QTRY_VERIFY_WITH_TIMEOUT(findProcess(inventory.device(QStringLiteral("cuda:2")), pid), 5000);
        DeviceInfo v100 = inventory.device(QStringLiteral("cuda:2"));
        QCOMPARE(findProcess(v100, pid)->memoryBytes, qint64(3000000000));
        QCOMPARE(findProcess(v100, pid)->owner, GpuProcess::Owner::Mine);
        QCOMPARE(v100.memoryUsed, qint64(3000000000));
        QVERIFY(v100.busyWithOthers());

        holder.kill();
        QVERIFY(holder.waitForFinished()); // reaped: its pid is gone
        QTRY_COMPARE_WITH_TIMEOUT(inventory.device(QStringLiteral("cuda:2")).memoryUsed, qint64(0), 5000);
        QVERIFY(inventory.device(QStringLiteral("cuda:2")).processes.isEmpty());
    }

    // Processes registering at the same moment: every line is whole.
    void concurrentRegistrationsAllCount()
    {
        DeviceInventory inventory;
        inventory.setPollInterval(50);
        std::vector<std::unique_ptr<QProcess>> holders;
        for (int i = 0; i < 8; ++i) {
            holders.push_back(std::make_unique<QProcess>());
            holders.back()->start(gpuAlloc(), {QStringLiteral("1,3"), QString::number(kGiB + i)});
        }
        qint64 sum = 0;
        for (int i = 0; i < 8; ++i) {
            sum += kGiB + i;
        }
        QTRY_COMPARE_WITH_TIMEOUT(inventory.device(QStringLiteral("cuda:1")).processes.size(), qsizetype(8), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(inventory.device(QStringLiteral("cuda:3")).memoryUsed, sum, 5000);
        QCOMPARE(inventory.device(QStringLiteral("cuda:1")).memoryUsed, sum);
        for (auto &p : holders) {
            p->kill();
            p->waitForFinished();
        }
        QTRY_COMPARE_WITH_TIMEOUT(inventory.device(QStringLiteral("cuda:1")).memoryUsed, qint64(0), 5000);
    }

    void editedStateIsSeenWhilePolling()
    {
        DeviceInventory inventory;
        inventory.setPollInterval(50);
        QCOMPARE(inventory.gpuCount(), 4);
        QVERIFY(writeState(fourGpus() + "gpu 4 42949672960 \"NVIDIA A100-PCIE-40GB\" 99 70\n"));
        QTRY_COMPARE_WITH_TIMEOUT(inventory.gpuCount(), 5, 5000);
        QCOMPARE(inventory.device(QStringLiteral("cuda:4")).name, QStringLiteral("NVIDIA A100-PCIE-40GB"));
        QCOMPARE(inventory.device(QStringLiteral("cuda:4")).utilization, 99);

        // GPU 3 gone from the middle: NVML answers "GPU is lost" for it,
        // and the others keep their indices.
        QByteArray without3 = fourGpus() + "gpu 4 42949672960 \"NVIDIA A100-PCIE-40GB\" 12 70\n";
        without3.replace("gpu 3 17179869184 \"Tesla V100-SXM2-16GB\" - 33\n", "");
        QVERIFY(writeState(without3));
        QTRY_COMPARE_WITH_TIMEOUT(inventory.gpuCount(), 4, 5000);
        QVERIFY(!inventory.hasDevice(QStringLiteral("cuda:3")));
        QCOMPARE(inventory.device(QStringLiteral("cuda:4")).utilization, 12);

        // The state file gone (the driver away): no GPUs, and back with it.
        QVERIFY(QFile::remove(m_state));
        QTRY_COMPARE_WITH_TIMEOUT(inventory.gpuCount(), 0, 5000);
        QVERIFY(writeState(fourGpus()));
        QTRY_COMPARE_WITH_TIMEOUT(inventory.gpuCount(), 4, 5000);
    }

    void fakeWorkerHoldsMemoryOnItsVisibleGpus()
    {
        if (test::fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set (run through ctest)");
        }
        const QString runDir = m_dir.filePath(QStringLiteral("held"));
        QVERIFY(QDir().mkpath(runDir));
        const QString spec = m_dir.filePath(QStringLiteral("held.json"));
        QVERIFY(test::writeFile(spec, QJsonDocument(test::fakeSpec(QStringLiteral("held"), 100000, 20)).toJson()));

        DeviceInventory inventory;
        inventory.setPollInterval(50);
        QProcess worker;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("CUDA_VISIBLE_DEVICES"), QStringLiteral("1,3"));
        env.insert(QStringLiteral("TRAINYARD_FAKE_GPU_BYTES"), QStringLiteral("123456789"));
        worker.setProcessEnvironment(env);
        worker.start(test::fakeWorker(), {QStringLiteral("--spec"), spec, QStringLiteral("--run-dir"), runDir,
                                          QStringLiteral("--device"), QStringLiteral("cuda:0")});
        QVERIFY2(worker.waitForStarted(), qPrintable(worker.errorString()));
        const qint64 pid = worker.processId();
        QTRY_VERIFY_WITH_TIMEOUT(findProcess(inventory.device(QStringLiteral("cuda:3")), pid), 10000);
        for (int gpu : {1, 3}) {
            const DeviceInfo d = inventory.device(QStringLiteral("cuda:%1").arg(gpu));
            QVERIFY2(findProcess(d, pid), qPrintable(d.id));
            QCOMPARE(findProcess(d, pid)->memoryBytes, qint64(123456789));
            QCOMPARE(d.memoryUsed, qint64(123456789));
        }
        QVERIFY(!findProcess(inventory.device(QStringLiteral("cuda:0")), pid));
        QVERIFY(!findProcess(inventory.device(QStringLiteral("cuda:2")), pid));

        worker.terminate(); // the fake worker checkpoints and exits 4
        QVERIFY(worker.waitForFinished(10000));
        QTRY_COMPARE_WITH_TIMEOUT(inventory.device(QStringLiteral("cuda:1")).memoryUsed, qint64(0), 5000);
        QCOMPARE(inventory.device(QStringLiteral("cuda:3")).memoryUsed, qint64(0));
    }

    // The whole way: a lane on cuda:1 is there (the fake GPU), its worker is
    // started with CUDA_VISIBLE_DEVICES=1 and the session's inventory lists
    // it on that GPU as ours; closing the session frees the memory.
    void gpuLaneRunsOnAFakeGpu()
    {
        if (test::fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set (run through ctest)");
        }
        const QString root = m_dir.filePath(QStringLiteral("lane-runs"));
        const Experiment ex = test::experiment(test::experimentJson(
            QStringLiteral("nvml"), root,
            QJsonArray{test::lane(QStringLiteral("cuda:1"), 1,
                                  QJsonArray{test::fakeSpec(QStringLiteral("on-gpu"), 100000, 20)})}));
        Session session;
        QStringList errors;
        QVERIFY2(session.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        Supervisor *supervisor = session.orchestrator()->supervisor();
        supervisor->setWorkerProgram(test::fakeWorker());
        session.devices()->setPollInterval(50);
        session.orchestrator()->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(supervisor->workerPids().size(), 1, 10000);
        const qint64 pid = *supervisor->workerPids().cbegin();
        QTRY_VERIFY_WITH_TIMEOUT(findProcess(session.devices()->device(QStringLiteral("cuda:1")), pid), 10000);
        const GpuProcess held = *findProcess(session.devices()->device(QStringLiteral("cuda:1")), pid);
        QCOMPARE(held.owner, GpuProcess::Owner::Run);
        QCOMPARE(held.memoryBytes, kGiB); // TRAINYARD_FAKE_GPU_BYTES unset: 1 GiB
        QVERIFY(!findProcess(session.devices()->device(QStringLiteral("cuda:0")), pid));

        QSignalSpy closed(&session, &Session::closed);
        session.close(false);
        QTRY_VERIFY_WITH_TIMEOUT(closed.count() > 0, 30000);
        QTRY_COMPARE_WITH_TIMEOUT(session.devices()->device(QStringLiteral("cuda:1")).memoryUsed, qint64(0), 5000);
    }

    // The app (`trainyard run`) killed with SIGKILL while runs of a pool
    // train: reopened, each run is reattached on the GPUs it had, and the
    // queued one starts only on a GPU that frees.
    void poolRunsReattachAfterTheAppIsKilled()
    {
        if (test::fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set (run through ctest)");
        }
        if (qgetenv("TRAINYARD_FAKE_NVML_VARIANT") == "v1") {
            QSKIP("reattachment does not depend on the library's variant: run once, with the full one");
        }
        const QString file = m_dir.filePath(QStringLiteral("pool-kill.json"));
        const QString root = m_dir.filePath(QStringLiteral("pool-kill"));
        QJsonArray runs;
        for (int i = 0; i < 3; ++i) {
            runs << test::fakeSpec(QStringLiteral("k%1").arg(i), 100000, 20);
        }
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QJsonDocument(test::experimentJson(QStringLiteral("poolkill"), root,
                                                       QJsonArray{test::lane(QStringLiteral("cuda:1-2"), 1, runs)}))
                        .toJson());
        }
        QProcess app;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TRAINYARD_WORKER"), test::fakeWorker());
        app.setProcessEnvironment(env);
        app.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        app.start(buildProgram("TRAINYARD_BIN"), {QStringLiteral("run"), file});
        QVERIFY(app.waitForStarted());
        RunStore store(root);
        // Whatever fails below, nothing of this test trains on.
        const auto cleanup = qScopeGuard([&] {
            app.kill();
            app.waitForFinished(5000);
            for (const RunStore::LiveWorker &w : store.readState()) {
                if (w.pid > 0 && RunStore::processStartTicks(w.pid) == w.startTicks) {
                    ::kill(pid_t(w.pid), SIGKILL);
                }
            }
        });
        // GPU 0 is busy with the test's own 2 GiB: the pool is GPUs 1 and 2.
        QTRY_COMPARE_WITH_TIMEOUT(store.readState().size(), 2, 20000);
        const QHash<QString, RunStore::LiveWorker> live = store.readState();
        ::kill(pid_t(app.processId()), SIGKILL);
        QVERIFY(app.waitForFinished(5000));

        Session second;
        second.devices()->setPollInterval(50);
        QStringList errors;
        QVERIFY2(second.load(file, &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        Orchestrator *orch = second.orchestrator();
        orch->supervisor()->setWorkerProgram(test::fakeWorker());
        QStringList gpus;
        QString queued;
        for (const QString &name : {QStringLiteral("k0"), QStringLiteral("k1"), QStringLiteral("k2")}) {
            const RunInfo r = orch->runs()->value(orch->runs()->findByName(name));
            if (!live.contains(name)) {
                QCOMPARE(r.state, RunState::Queued);
                queued = name;
                continue;
            }
            QVERIFY2(r.reattached && r.state == RunState::Running, qPrintable(name));
            QCOMPARE(r.device, live.value(name).device);
            gpus << r.device.toString();
        }
        gpus.sort();
        QCOMPARE(gpus, QStringList({QStringLiteral("cuda:1"), QStringLiteral("cuda:2")}));
        const RunId third = orch->runs()->findByName(queued);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(third).message,
                                  QStringLiteral("waits: every GPU of the lane has its 1 run"), 10000);
        // One stopped: the third starts on the GPU it freed.
        const QString first = live.cbegin().key();
        QVERIFY(orch->runActions()->stopRun(orch->runs()->findByName(first)));
        QTRY_VERIFY_WITH_TIMEOUT(isActive(orch->runs()->value(third).state), 20000);
        QCOMPARE(orch->runs()->value(third).device, live.value(first).device);
        QSignalSpy closed(&second, &Session::closed);
        second.close(false);
        QTRY_VERIFY_WITH_TIMEOUT(closed.count() > 0, 30000);
    }

    // The library itself, called as NVML is: uninitialized, the count asked
    // with no buffer, buffers too small, bad arguments, a bad state file.
    void libraryAnswersAsNvml()
    {
        void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        QVERIFY2(lib, dlerror());
        auto symbol = [lib](const char *name) { return dlsym(lib, name); };
        using Init = int (*)();
        using Count = int (*)(unsigned *);
        using Handle = int (*)(unsigned, void **);
        using Name = int (*)(void *, char *, unsigned);
        using Temperature = int (*)(void *, int, unsigned *);
        using Utilization = int (*)(void *, unsigned *);
        struct V1
        {
            unsigned pid;
            unsigned long long bytes;
        };
        struct V3
        {
            unsigned pid;
            unsigned long long bytes;
            unsigned gpuInstance, computeInstance;
        };
        using ProcessesV1 = int (*)(void *, unsigned *, V1 *);
        using ProcessesV3 = int (*)(void *, unsigned *, V3 *);
        const auto init = reinterpret_cast<Init>(symbol("nvmlInit_v2"));
        const auto shutdown = reinterpret_cast<Init>(symbol("nvmlShutdown"));
        const auto count = reinterpret_cast<Count>(symbol("nvmlDeviceGetCount_v2"));
        const auto handle = reinterpret_cast<Handle>(symbol("nvmlDeviceGetHandleByIndex_v2"));
        const auto name = reinterpret_cast<Name>(symbol("nvmlDeviceGetName"));
        const auto temperature = reinterpret_cast<Temperature>(symbol("nvmlDeviceGetTemperature"));
        const auto utilization = reinterpret_cast<Utilization>(symbol("nvmlDeviceGetUtilizationRates"));
        const auto v1 = reinterpret_cast<ProcessesV1>(symbol("nvmlDeviceGetComputeRunningProcesses"));
        const auto v3 = reinterpret_cast<ProcessesV3>(symbol("nvmlDeviceGetComputeRunningProcesses_v3"));
        QVERIFY(init && shutdown && count && handle && name && temperature && utilization && v1);
        const bool v1Only = qgetenv("TRAINYARD_FAKE_NVML_VARIANT") == "v1";
        QCOMPARE(!v3, v1Only);
        QCOMPARE(!symbol("nvmlDeviceGetComputeRunningProcesses_v2"), v1Only);

        unsigned n = 0;
        QCOMPARE(count(&n), 1); // NVML_ERROR_UNINITIALIZED: no inventory holds it now
        QCOMPARE(init(), 0);
        QCOMPARE(count(&n), 0);
        QCOMPARE(n, 4u);
        QCOMPARE(count(nullptr), 2); // NVML_ERROR_INVALID_ARGUMENT
        void *dev = nullptr;
        QCOMPARE(handle(4, &dev), 2);
        QCOMPARE(handle(0, &dev), 0);
        char text[96] = {};
        QCOMPARE(name(dev, text, 4), 7); // NVML_ERROR_INSUFFICIENT_SIZE
        QCOMPARE(name(dev, text, sizeof text), 0);
        QCOMPARE(QByteArray(text), QByteArray("NVIDIA H100 80GB HBM3"));
        unsigned value = 0;
        QCOMPARE(temperature(dev, 1, &value), 2);                           // only NVML_TEMPERATURE_GPU
        QCOMPARE(name(reinterpret_cast<void *>(&n), text, sizeof text), 2); // not a handle

        // The process list: the count first (no buffer), then the list.
        unsigned procs = 0;
        QCOMPARE(v1(dev, &procs, nullptr), 7);
        QCOMPARE(procs, 1u);
        V1 list1[1] = {};
        QCOMPARE(v1(dev, &procs, list1), 0);
        QCOMPARE(qint64(list1[0].pid), QCoreApplication::applicationPid());
        QCOMPARE(list1[0].bytes, 2ull * 1024 * 1024 * 1024);
        if (v3) {
            procs = 0;
            QCOMPARE(v3(dev, &procs, nullptr), 7);
            V3 list3[4] = {};
            procs = 4;
            QCOMPARE(v3(dev, &procs, list3), 0);
            QCOMPARE(procs, 1u);
            QCOMPARE(qint64(list3[0].pid), QCoreApplication::applicationPid());
            QCOMPARE(list3[0].bytes, 2ull * 1024 * 1024 * 1024);
            QCOMPARE(list3[0].gpuInstance, ~0u); // no MIG
        }
        void *v100 = nullptr;
        QCOMPARE(handle(2, &v100), 0);
        QCOMPARE(utilization(v100, &value), 3); // NVML_ERROR_NOT_SUPPORTED
        procs = 0;
        QCOMPARE(v1(v100, &procs, nullptr), 0); // nothing on it: success, none
        QCOMPARE(procs, 0u);

        // GPU 0 gone from the file: its handle is "lost"; a line that
        // cannot be read: unknown; no file: no driver.
        QVERIFY(writeState(fourGpus().replace("gpu 0 ", "# gpu 0 ")));
        QCOMPARE(name(dev, text, sizeof text), 15); // NVML_ERROR_GPU_IS_LOST
        QCOMPARE(handle(0, &dev), 15);
        QVERIFY(writeState("gpu zero 1 \"x\"\n"));
        QCOMPARE(count(&n), 999); // NVML_ERROR_UNKNOWN
        QVERIFY(QFile::remove(m_state));
        QCOMPARE(count(&n), 9); // NVML_ERROR_DRIVER_NOT_LOADED
        QCOMPARE(init(), 9);
        QCOMPARE(shutdown(), 0);
        QCOMPARE(shutdown(), 1);
        dlclose(lib);
    }

    // A library but no driver (no state file): the app says why and lists the CPU.
    void withoutTheStateFile()
    {
        qunsetenv("TRAINYARD_FAKE_NVML");
        DeviceInventory inventory;
        qputenv("TRAINYARD_FAKE_NVML", QFile::encodeName(m_state));
        QVERIFY(!inventory.nvmlAvailable());
        QCOMPARE(inventory.nvmlError(), QStringLiteral("nvmlInit failed with code 9"));
        QCOMPARE(inventory.gpuCount(), 0);
        QVERIFY(inventory.hasDevice(QStringLiteral("cpu")));
    }
};

QTEST_GUILESS_MAIN(TestNvmlPath)
#include "tst_nvmlpath.moc"
