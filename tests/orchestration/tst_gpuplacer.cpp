// GpuPlacer as gpuplacer.h documents it: spreading over a pool, packing by
// memory, slots, the busy policies, the reservation that keeps a run of two
// GPUs from being starved, impossible requests, and memory's units.

#include "orchestration/placement/gpuplacer.h"

#include <QTest>

#include <climits>

using namespace trainyard;

namespace {

constexpr qint64 GiB = 1024LL * 1024 * 1024;

QList<GpuRoom> emptyGpus(int count, qint64 total = 80 * GiB)
{
    QList<GpuRoom> rooms;
    for (int i = 0; i < count; ++i) {
        GpuRoom r;
        r.index = i;
        r.totalBytes = total;
        r.freeBytes = total;
        rooms << r;
    }
    return rooms;
}

GpuRequest request(QList<int> allowed, int slotCount = 1, int gpus = 1, qint64 memory = -1)
{
    GpuRequest q;
    q.allowed = allowed;
    q.slotsPerGpu = slotCount;
    q.gpus = gpus;
    q.memoryBytes = memory;
    return q;
}

} // namespace

class TestGpuPlacer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void spreadsOverThePoolFirst()
    {
        GpuPlacer placer(emptyGpus(4));
        QList<int> used;
        for (int i = 0; i < 4; ++i) {
            used << placer.place(request({0, 1, 2, 3}, 2)).gpus;
        }
        QCOMPARE(used, QList<int>({0, 1, 2, 3}));
        // Then a second run on each, and no third (2 slots).
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(placer.place(request({0, 1, 2, 3}, 2)).gpus.size(), 1);
        }
        const GpuPlacement full = placer.place(request({0, 1, 2, 3}, 2));
        QVERIFY(full.gpus.isEmpty());
        QVERIFY(!full.impossible);
        QCOMPARE(full.waitReason, QStringLiteral("every GPU of the lane has its 2 runs"));
    }

    void onlyTheLanesGpus()
    {
        GpuPlacer placer(emptyGpus(8));
        QCOMPARE(placer.place(request({5, 7})).gpus, QList<int>({5}));
        QCOMPARE(placer.place(request({5, 7})).gpus, QList<int>({7}));
        QVERIFY(placer.place(request({5, 7})).gpus.isEmpty());
    }

    void packsByMemory()
    {
        // Three 20 GiB runs fit one 80 GiB GPU with slots to spare; the
        // fourth goes there too, the fifth waits for memory.
        GpuPlacer placer(emptyGpus(1));
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(placer.place(request({0}, 8, 1, 20 * GiB)).gpus, QList<int>({0}));
        }
        const GpuPlacement p = placer.place(request({0}, 8, 1, 20 * GiB));
        QVERIFY(p.gpus.isEmpty());
        QCOMPARE(p.waitReason, QStringLiteral("needs 20.0 GiB; most free: cuda:0 with 0 MiB"));
        QCOMPARE(placer.rooms().first().promisedBytes, 80 * GiB);
    }

    void memoryInUseCounts()
    {
        QList<GpuRoom> rooms = emptyGpus(2);
        rooms[0].freeBytes = 10 * GiB; // someone's 70 GiB
        rooms[0].othersBytes = 70 * GiB;
        GpuPlacer placer(rooms);
        // More free memory wins among GPUs with as many runs.
        QCOMPARE(placer.place(request({0, 1}, 4, 1, 8 * GiB)).gpus, QList<int>({1}));
        QCOMPARE(placer.place(request({0, 1}, 4, 1, 8 * GiB)).gpus, QList<int>({0}));
        // GPU 0 has 2 GiB left, GPU 1 64 GiB: the next goes to 1 whatever its runs.
        QCOMPARE(placer.place(request({0, 1}, 4, 1, 8 * GiB)).gpus, QList<int>({1}));
    }

    void unknownMemoryLeavesItToSlots()
    {
        QList<GpuRoom> rooms = emptyGpus(1);
        rooms[0].freeBytes = -1;
        GpuPlacer placer(rooms);
        QCOMPARE(placer.place(request({0}, 2, 1, 200 * GiB)).gpus.size(), 0); // larger than the GPU: impossible
        QCOMPARE(placer.place(request({0}, 2, 1, 30 * GiB)).gpus, QList<int>({0}));
        QCOMPARE(placer.place(request({0}, 2, 1, 30 * GiB)).gpus, QList<int>({0}));
        QVERIFY(placer.place(request({0}, 2, 1, 30 * GiB)).gpus.isEmpty());
    }

    void busyPolicies()
    {
        QList<GpuRoom> rooms = emptyGpus(2);
        rooms[1].busyWith = QStringLiteral("user bob, python, 14.2 GiB");
        rooms[1].othersBytes = qint64(14.2 * GiB);
        rooms[1].freeBytes = rooms[1].totalBytes - rooms[1].othersBytes;
        rooms[0].busyWith = rooms[1].busyWith;
        rooms[0].othersBytes = 75 * GiB;
        rooms[0].freeBytes = 5 * GiB;
        {
            GpuPlacer placer(rooms);
            GpuRequest q = request({1});
            const GpuPlacement p = placer.place(q);
            QVERIFY(p.gpus.isEmpty());
            QCOMPARE(p.waitReason, QStringLiteral("cuda:1 busy — user bob, python, 14.2 GiB"));
        }
        {
            // Share: starts there while its memory fits beside bob's.
            GpuPlacer placer(rooms);
            GpuRequest q = request({0, 1}, 1, 1, 60 * GiB);
            q.busy = BusyPolicy::Share;
            QCOMPARE(placer.place(q).gpus, QList<int>({1}));
            QVERIFY(placer.place(q).gpus.isEmpty()); // GPU 0 has 5 GiB beside its other user
        }
        {
            // Ignore: others' memory is not looked at either.
            GpuPlacer placer(rooms);
            GpuRequest q = request({0}, 1, 1, 60 * GiB);
            q.busy = BusyPolicy::Ignore;
            QCOMPARE(placer.place(q).gpus, QList<int>({0}));
        }
    }

    void twoGpuRunIsNotStarved()
    {
        // Four GPUs, each with one long run. A 2-GPU run heads the queue,
        // a stream of 1-GPU runs follows. Slots 2: without the reservation
        // every second slot would go to the small runs and the big one
        // would wait for two GPUs that never drain.
        QList<GpuRoom> rooms = emptyGpus(4);
        for (GpuRoom &r : rooms) {
            r.runs = 1;
        }
        rooms[2].runs = 2; // fuller
        GpuPlacer placer(rooms);
        GpuRequest big = request({0, 1, 2, 3}, 1, 2);
        big.label = QStringLiteral("ddp");
        const GpuPlacement waits = placer.place(big);
        QVERIFY(waits.gpus.isEmpty());
        QCOMPARE(placer.reserved(), QList<int>({0, 1}));
        // Small runs may use what is not kept for it (slots 2): GPU 3 only.
        QCOMPARE(placer.place(request({0, 1, 2, 3}, 2)).gpus, QList<int>({3}));
        const GpuPlacement small = placer.place(request({0, 1, 2, 3}, 2));
        QVERIFY(small.gpus.isEmpty());
        QCOMPARE(small.waitReason, QStringLiteral("cuda:0 kept for ddp; cuda:1 kept for ddp"));

        // The next pass, once GPUs 0 and 1 have drained: the big run starts there.
        QList<GpuRoom> later = placer.rooms();
        later[0].runs = 0;
        later[1].runs = 0;
        GpuPlacer next(later);
        QCOMPARE(next.place(big).gpus, QList<int>({0, 1}));
        QCOMPARE(next.rooms().at(0).runs, 1);
        QCOMPARE(next.rooms().at(1).runs, 1);
    }

    void oneReservationPerQueueLetsOthersBackfill()
    {
        // Every GPU holds a run (slots 2 would allow more), memory is short
        // on GPUs 0 and 1. The first waiting run reserves GPU 2; the second
        // big one reserves nothing; a small run still starts on GPU 3.
        QList<GpuRoom> rooms = emptyGpus(4);
        for (GpuRoom &r : rooms) {
            r.runs = 1;
        }
        rooms[0].freeBytes = rooms[1].freeBytes = 10 * GiB;
        rooms[2].freeBytes = 70 * GiB;
        rooms[3].freeBytes = 30 * GiB;
        GpuPlacer placer(rooms);
        GpuRequest first = request({0, 1, 2, 3}, 2, 1, 75 * GiB);
        first.label = QStringLiteral("first");
        QVERIFY(placer.place(first).gpus.isEmpty());
        QCOMPARE(placer.reserved(), QList<int>({2}));
        QVERIFY(placer.place(request({0, 1, 2, 3}, 2, 1, 75 * GiB)).gpus.isEmpty());
        QCOMPARE(placer.reserved(), QList<int>({2})); // the queue's first waiting run holds it
        QCOMPARE(placer.place(request({0, 1, 2, 3}, 2, 1, 20 * GiB)).gpus, QList<int>({3}));
        // Another lane's queue reserves for its own first waiting run.
        GpuRequest other = request({0, 1}, 1, 2);
        other.queue = 1;
        QVERIFY(placer.place(other).gpus.isEmpty());
        QCOMPARE(placer.reserved(), QList<int>({2, 0, 1}));
    }

    void aRunOfSeveralGpusMustFitEach()
    {
        // Only one GPU could ever hold 40 GiB: two of them never can.
        QList<GpuRoom> rooms = emptyGpus(2);
        rooms[1].totalBytes = rooms[1].freeBytes = 24 * GiB;
        GpuPlacer placer(rooms);
        const GpuPlacement p = placer.place(request({0, 1}, 1, 2, 40 * GiB));
        QVERIFY(p.impossible);
        QCOMPARE(p.waitReason, QStringLiteral("needs 40.0 GiB on each of 2 GPUs; 1 of the lane's GPUs has that much"));
        QVERIFY(placer.reserved().isEmpty());
        QCOMPARE(placer.place(request({0, 1}, 1, 1, 1 * GiB)).gpus, QList<int>({0}));
    }

    // A run of two GPUs at the head of a pool's queue holds its GPUs from
    // a lane placed before it in the pass (a fixed lane on one of them).
    void aHeldRunKeepsItsGpusFromEarlierLanes()
    {
        QList<GpuRoom> rooms = emptyGpus(2);
        rooms[1].runs = 1; // GPU 1 still busy with a run of the pool
        GpuPlacer placer(rooms);
        GpuRequest ddp = request({0, 1}, 1, 2);
        ddp.label = QStringLiteral("ddp");
        ddp.queue = 1;
        placer.hold(ddp);
        QCOMPARE(placer.reserved(), QList<int>({0, 1}));
        GpuRequest fixed = request({0}, INT_MAX);
        fixed.label = QStringLiteral("short");
        const GpuPlacement p = placer.place(fixed);
        QVERIFY(p.gpus.isEmpty());
        QCOMPARE(p.waitReason, QStringLiteral("cuda:0 kept for ddp"));
        QVERIFY(placer.place(ddp).gpus.isEmpty()); // GPU 1 has no slot yet
        // Once GPU 1 drained, it takes both; what it held is released.
        QList<GpuRoom> later = emptyGpus(2);
        GpuPlacer next(later);
        next.hold(ddp);
        QCOMPARE(next.place(ddp).gpus, QList<int>({0, 1}));
        QVERIFY(next.reserved().isEmpty());
    }

    void aBusyGpuIsNotReserved()
    {
        QList<GpuRoom> rooms = emptyGpus(3);
        rooms[0].runs = 1;
        rooms[1].busyWith = QStringLiteral("user bob, python, 3.0 GiB");
        rooms[2].runs = 1;
        GpuPlacer placer(rooms);
        QVERIFY(placer.place(request({0, 1, 2}, 1, 2)).gpus.isEmpty());
        QCOMPARE(placer.reserved(), QList<int>({0, 2}));
    }

    void impossibleRequests()
    {
        GpuPlacer placer(emptyGpus(2));
        GpuPlacement p = placer.place(request({0, 1}, 1, 3));
        QVERIFY(p.impossible);
        QCOMPARE(p.waitReason, QStringLiteral("needs 3 GPUs; the lane has 2"));
        p = placer.place(request({0}, 1, 1, 100 * GiB));
        QVERIFY(p.impossible);
        QCOMPARE(p.waitReason, QStringLiteral("needs 100.0 GiB on a GPU; the lane's largest has 80.0 GiB"));
        QVERIFY(placer.reserved().isEmpty()); // an impossible run keeps nothing
    }

    void remoteNames()
    {
        QList<GpuRoom> rooms = emptyGpus(1);
        rooms[0].busyWith = QStringLiteral("user ann, python3, 2.0 GiB");
        GpuPlacer placer(rooms, QStringLiteral("ssh:lab/"));
        QCOMPARE(placer.place(request({0})).waitReason,
                 QStringLiteral("ssh:lab/cuda:0 busy — user ann, python3, 2.0 GiB"));
    }

    void memoryUnits_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("bytes");
        QTest::newRow("GiB") << "30GiB" << 30 * GiB;
        QTest::newRow("spaced") << " 512 MiB " << 512LL * 1024 * 1024;
        QTest::newRow("fraction") << "1.5GiB" << qint64(1.5 * GiB);
        QTest::newRow("decimal") << "2GB" << 2000000000LL;
        QTest::newRow("bytes") << "1048576" << 1048576LL;
        QTest::newRow("B") << "100B" << 100LL;
        QTest::newRow("lower-case") << "30gib" << -1LL;
        QTest::newRow("negative") << "-1GiB" << -1LL;
        QTest::newRow("word") << "lots" << -1LL;
        QTest::newRow("empty") << "" << -1LL;
        QTest::newRow("huge") << "99999999999TiB" << -1LL;
    }
    void memoryUnits()
    {
        QFETCH(QString, text);
        QFETCH(qint64, bytes);
        QCOMPARE(parseMemory(text), bytes);
    }

    void memoryText()
    {
        QCOMPARE(formatMemory(qint64(14.2 * GiB)), QStringLiteral("14.2 GiB"));
        QCOMPARE(formatMemory(80 * GiB), QStringLiteral("80.0 GiB"));
        QCOMPARE(formatMemory(300LL * 1024 * 1024), QStringLiteral("300 MiB"));
    }
};

QTEST_GUILESS_MAIN(TestGpuPlacer)
#include "tst_gpuplacer.moc"
