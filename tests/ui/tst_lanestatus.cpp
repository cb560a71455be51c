// What a lane's header says about its device (LaneStatus): a Slurm lane's
// pending and running jobs, the CPU threads each run gets, the slot advice for
// the first queued run's model, and the device's stats with their history.

#include "orchestration/devices/deviceinventory.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/slots/slotprobe.h"
#include "ui/board/devicehistory.h"
#include "ui/board/lanestatus.h"
#include "uitesthelpers.h"

#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace trainyard;

namespace {

RunInfo run(const QString &name, RunState state, const QString &jobId = {}, const QString &queueReason = {})
{
    RunInfo r;
    r.name = name;
    r.state = state;
    r.jobId = jobId;
    r.queueReason = queueReason;
    return r;
}

RunInfo queued(const QString &name, const QString &model)
{
    RunInfo r = run(name, RunState::Queued);
    r.spec = QJsonObject{{QStringLiteral("name"), name},
                         {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), model}}}};
    return r;
}

LaneInfo lane(const QString &device, const QList<RunId> &runs = {})
{
    LaneInfo l;
    l.device = Device::parse(device);
    l.effectiveDevice = l.device;
    l.runs = runs;
    return l;
}

} // namespace

class TestLaneStatus : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); } // the advice file goes to a test location

    void aSlurmLaneCountsItsJobs()
    {
        RunRegistry runs;
        const QList<RunId> ids{
            runs.add(
                run(QStringLiteral("waits"), RunState::Starting, QStringLiteral("11"), QStringLiteral("Priority"))),
            runs.add(run(QStringLiteral("runs"), RunState::Running, QStringLiteral("12"))),
            runs.add(run(QStringLiteral("local"), RunState::Running)), // no job: not the cluster's
            runs.add(run(QStringLiteral("done"), RunState::Finished, QStringLiteral("10"))),
            runs.add(run(QStringLiteral("next"), RunState::Queued)),
        };
        LaneStatus status;
        status.setSources(&runs, {}, nullptr, nullptr);
        QCOMPARE(status.deviceName(lane(QStringLiteral("slurm:hpc/gpu"), ids)),
                 QStringLiteral("Slurm · hpc · gpu · 1 pending · 1 running"));
        QCOMPARE(status.deviceName(lane(QStringLiteral("slurm:hpc"))),
                 QStringLiteral("Slurm · hpc · default partition · 0 pending · 0 running"));
        // Without an inventory a device is named by its id.
        QCOMPARE(status.deviceName(lane(QStringLiteral("cuda:1"))), QStringLiteral("cuda:1"));
    }

    void theCpuLaneSaysTheThreadsEachRunGets()
    {
        QTemporaryDir dir;
        Session session;
        QStringList errors;
        QVERIFY2(session.open(testing::twoLaneExperiment(dir.filePath(QStringLiteral("runs"))), QString(), &errors),
                 qPrintable(errors.join(QLatin1Char('\n'))));
        const LaneDevices *laneDevices = session.orchestrator()->laneDevices();
        LaneStatus status;
        status.setSources(
            session.orchestrator()->runs(), [laneDevices] { return laneDevices->threadsPerCpuRun(); },
            session.devices(), nullptr);
        const int threads = laneDevices->threadsPerCpuRun();
        QVERIFY(threads >= 1);
        QCOMPARE(status.deviceName(laneDevices->lane(0)),
                 threads == 1 ? QStringLiteral("CPU · 1 thread per run")
                              : QStringLiteral("CPU · %1 threads per run").arg(threads));
        session.close(false);
    }

    void slotAdviceIsForTheFirstQueuedRunsModel()
    {
        SlotProbeResult r;
        r.device = QStringLiteral("cpu");
        r.deviceName = QStringLiteral("cpu");
        r.model = QStringLiteral("lanestatus-measured");
        r.levels = {{1, 100, 1.0}, {2, 190, 1.9}};
        r.recommended = 2;
        r.measured = QDateTime(QDate(2026, 11, 30), QTime(9, 0), Qt::UTC);
        QVERIFY(SlotAdvice().record(r));

        RunRegistry runs;
        RunInfo running = queued(QStringLiteral("a"), QStringLiteral("lanestatus-other"));
        running.state = RunState::Running;
        const RunId first = runs.add(running);
        const RunId measured = runs.add(queued(QStringLiteral("b"), QStringLiteral("lanestatus-measured")));
        const RunId never = runs.add(queued(QStringLiteral("c"), QStringLiteral("lanestatus-never")));
        LaneStatus status;
        QCOMPARE(status.slotAdvice(lane(QStringLiteral("cpu"), {first, measured})), QString()); // no runs to read
        status.setSources(&runs, {}, nullptr, nullptr);
        QString warning;
        QVERIFY2(status.reloadSlotAdvice(&warning), qPrintable(warning));
        const QString advice = status.slotAdvice(lane(QStringLiteral("cpu"), {first, measured, never}));
        QCOMPARE(advice, QStringLiteral("recommended: 2 slots for lanestatus-measured (measured 2026-11-30: 1.9×)"));
        QCOMPARE(status.slotAdvice(lane(QStringLiteral("cpu"), {first, never, measured})), QString());
        QCOMPARE(status.slotAdvice(lane(QStringLiteral("cpu"))), QString());
    }

    void deviceStatsCarryTheirHistory()
    {
        LaneStatus status;
        QVariantMap stats = status.deviceStats(lane(QStringLiteral("cuda:0")));
        QCOMPARE(stats.value(QStringLiteral("utilization")).toInt(), -1); // unknown without an inventory
        QCOMPARE(stats.value(QStringLiteral("isGpu")).toBool(), false);
        QVERIFY(!stats.contains(QStringLiteral("utilizationHistory")));

        DeviceHistory history;
        history.addSample(QStringLiteral("cuda:0"), 50, 25, 60);
        history.addSample(QStringLiteral("cuda:0"), 70, 30, 65);
        status.setSources(nullptr, {}, nullptr, &history);
        stats = status.deviceStats(lane(QStringLiteral("cuda:0")));
        QCOMPARE(stats.value(QStringLiteral("utilizationHistory")).toList(), (QVariantList{50.0, 70.0}));
        QCOMPARE(stats.value(QStringLiteral("memoryHistory")).toList(), (QVariantList{25.0, 30.0}));
        QCOMPARE(stats.value(QStringLiteral("temperatureHistory")).toList(), (QVariantList{60.0, 65.0}));
        QVERIFY(status.deviceStats(lane(QStringLiteral("cpu")))
                    .value(QStringLiteral("utilizationHistory"))
                    .toList()
                    .isEmpty());
    }

    // A pool's rows: each GPU it names, one it names that the machine lacks
    // too; only active runs whose device lists a GPU are on it; a fixed GPU
    // and a pool under CPU fallback have none.
    void poolRowsNameTheirGpusAndRuns()
    {
        DeviceInventory devices;
        devices.setPollInterval(0);
        QList<DeviceInfo> gpus;
        for (int i = 0; i < 2; ++i) {
            DeviceInfo d;
            d.id = QStringLiteral("cuda:%1").arg(i);
            d.name = QStringLiteral("Test GPU");
            d.isGpu = true;
            d.index = i;
            d.memoryTotal = 24LL << 30;
            d.memoryUsed = 3LL << 29;
            gpus << d;
        }
        devices.setFakeGpus(gpus);
        RunRegistry runs;
        RunInfo both = run(QStringLiteral("ddp"), RunState::Running);
        both.device = Device::parse(QStringLiteral("cuda:0,1"));
        RunInfo ended = run(QStringLiteral("old"), RunState::Finished);
        ended.device = Device::parse(QStringLiteral("cuda:0"));
        runs.add(both);
        runs.add(ended);
        LaneStatus status;
        status.setSources(&runs, {}, &devices, nullptr);
        const QVariantList rows = status.gpuRows(lane(QStringLiteral("cuda:0,5")));
        QCOMPARE(rows.size(), 2);
        const QVariantMap first = rows.at(0).toMap();
        QCOMPARE(first.value(QStringLiteral("id")).toString(), QStringLiteral("cuda:0"));
        QCOMPARE(first.value(QStringLiteral("memoryText")).toString(), QStringLiteral("1.5/24.0 GiB"));
        QCOMPARE(first.value(QStringLiteral("runs")).toList().size(), 1);
        QCOMPARE(first.value(QStringLiteral("runs")).toList().at(0).toMap().value(QStringLiteral("name")).toString(),
                 QStringLiteral("ddp"));
        QCOMPARE(first.value(QStringLiteral("othersBytes")).toLongLong(), 3LL << 29); // no process says whose
        const QVariantMap missing = rows.at(1).toMap();
        QCOMPARE(missing.value(QStringLiteral("index")).toInt(), 5);
        QCOMPARE(missing.value(QStringLiteral("found")).toBool(), false);
        QCOMPARE(status.gpuRows(lane(QStringLiteral("cuda:*"))).size(), 2);
        QCOMPARE(status.deviceName(lane(QStringLiteral("cuda:*"))), QStringLiteral("2 × Test GPU"));
        QVERIFY(status.gpuRows(lane(QStringLiteral("cuda:0"))).isEmpty());
        LaneInfo fallback = lane(QStringLiteral("cuda:*"));
        fallback.effectiveDevice = Device::parse(QStringLiteral("cpu"));
        QVERIFY(status.gpuRows(fallback).isEmpty());
        QCOMPARE(LaneStatus::memoryText(-1, 0), QStringLiteral("—"));
    }
};

QTEST_MAIN(TestLaneStatus)
#include "tst_lanestatus.moc"
