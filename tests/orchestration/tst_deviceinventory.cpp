// DeviceInventory: the CPU is always there; NVML is optional; processes on a
// GPU are split into ours and others'.

#include "orchestration/devices/deviceinventory.h"

#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTest>

using namespace trainyard;

class TestDeviceInventory : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void cpuIsAlwaysADevice()
    {
        DeviceInventory inventory;
        QVERIFY(inventory.hasDevice(QStringLiteral("cpu")));
        const DeviceInfo cpu = inventory.device(QStringLiteral("cpu"));
        QVERIFY(!cpu.isGpu);
        QVERIFY(cpu.cpuThreads >= 1);
        QCOMPARE(inventory.devices().first().id, QStringLiteral("cpu"));
        QVERIFY(inventory.device(QStringLiteral("cuda:99")).id.isEmpty());
    }

    // CPU lane headers showed "—" for util and mem. On Linux they
    // come from /proc: memory at once, utilization from the second poll on.
    void cpuLoadComesFromProc()
    {
        if (!QFile::exists(QStringLiteral("/proc/stat"))) {
            QSKIP("no /proc on this system: the CPU's figures stay unknown");
        }
        DeviceInventory inventory;
        const DeviceInfo first = inventory.device(QStringLiteral("cpu"));
        QVERIFY(first.memoryTotal > 0);
        QVERIFY(first.memoryUsed > 0 && first.memoryUsed <= first.memoryTotal);
        QElapsedTimer spin;
        spin.start();
        volatile double sink = 0;
        while (spin.elapsed() < 50) { // some CPU time between the polls
            sink = sink + 1.0;
        }
        inventory.refresh();
        const int util = inventory.device(QStringLiteral("cpu")).utilization;
        QVERIFY2(util >= 0 && util <= 100, qPrintable(QString::number(util)));
    }

    void nvmlIsOptional()
    {
        DeviceInventory inventory;
        if (!inventory.nvmlAvailable()) {
            QVERIFY(inventory.nvmlError().contains(QStringLiteral("NVML")));
            QCOMPARE(inventory.gpuCount(), 0);
            return;
        }
        // With a driver, every GPU has a name and memory figures.
        for (const DeviceInfo &d : inventory.devices()) {
            if (!d.isGpu) {
                continue;
            }
            QVERIFY(!d.name.isEmpty());
            QVERIFY(d.memoryTotal > 0);
            QVERIFY(d.id.startsWith(QStringLiteral("cuda:")));
        }
    }

    // busyWithOthers: a process that is Mine or OtherUser; a run's own and
    // an Unknown pid (another pid namespace's) leave it free. A fake
    // process keeps the owner it was given; one without is classified.
    void busyOnlyWithMineOrOtherUsers()
    {
        DeviceInventory inventory;
        inventory.setRunRoots([] { return QList<RunProcessRoot>{}; });
        DeviceInfo gpu;
        gpu.id = QStringLiteral("cuda:0");
        gpu.isGpu = true;
        GpuProcess run;
        run.pid = 100;
        run.owner = GpuProcess::Owner::Run;
        run.runPid = 100;
        gpu.processes << run;
        GpuProcess ghost; // no such pid here
        ghost.pid = 0x3fffffff;
        gpu.processes << ghost;
        QSignalSpy changed(&inventory, &DeviceInventory::devicesChanged);
        inventory.setFakeGpus({gpu});
        QCOMPARE(changed.count(), 1);
        const DeviceInfo seen = inventory.device(QStringLiteral("cuda:0"));
        QCOMPARE(seen.processes.at(0).owner, GpuProcess::Owner::Run);
        QCOMPARE(seen.processes.at(1).owner, GpuProcess::Owner::Unknown);
        QVERIFY(!seen.busyWithOthers());
        GpuProcess notebook;
        notebook.pid = QCoreApplication::applicationPid(); // this user's, in no run
        gpu.processes << notebook;
        inventory.setFakeGpus({gpu});
        QCOMPARE(inventory.device(QStringLiteral("cuda:0")).processes.at(2).owner, GpuProcess::Owner::Mine);
        QVERIFY(inventory.device(QStringLiteral("cuda:0")).busyWithOthers());
        QCOMPARE(inventory.gpuCount(), 1);
    }

    void pollsOnATimer()
    {
        DeviceInventory inventory;
        QSignalSpy changed(&inventory, &DeviceInventory::devicesChanged);
        inventory.setPollInterval(20);
        QTRY_VERIFY(changed.count() >= 2);
        inventory.setPollInterval(0);
    }
};

QTEST_GUILESS_MAIN(TestDeviceInventory)
#include "tst_deviceinventory.moc"
