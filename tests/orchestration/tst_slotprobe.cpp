// SlotProbe: the decision on given figures, and real probes with
// trainyard-fake-worker copies that compete for the CPU (a busy loop per
// step), a failing copy, cancel; SlotAdvice's file round trip and a corrupt file.

#include "orchestration/slots/slotadvice.h"
#include "orchestration/slots/slotprobe.h"
#include "testutil.h"

#include <QDir>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace trainyard;
using namespace trainyard::test;

namespace {

// A fake spec whose every step is CPU work, so k copies share the cores.
QJsonObject busySpec(const QString &behaviour = QStringLiteral("train"), int atStep = -1)
{
    QJsonObject spec = fakeSpec(QStringLiteral("busy"), 100000, 0, behaviour, atStep);
    QJsonObject model = spec.value(QStringLiteral("model")).toObject();
    model.insert(QStringLiteral("work"), 4000000); // ~5 ms a step on an idle core
    spec.insert(QStringLiteral("model"), model);
    return spec;
}

bool alive(qint64 pid)
{
    return ::kill(static_cast<pid_t>(pid), 0) == 0;
}

} // namespace

class TestSlotProbe : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<SlotProbeResult>(); }

    void recommendation_data()
    {
        QTest::addColumn<QList<double>>("totals"); // for 1, 2, 4 copies
        QTest::addColumn<int>("expected");
        QTest::newRow("2 pays, 4 only 1.21x more") << QList<double>{100, 190, 230} << 2;
        QTest::newRow("cnn on the H200: 2 copies 0.9x") << QList<double>{100, 90, 85} << 1;
        QTest::newRow("scales 4x") << QList<double>{100, 200, 400} << 4;
        QTest::newRow("transe on the H200: 2.3x at 4") << QList<double>{100, 160, 230} << 4;
        QTest::newRow("flat") << QList<double>{100, 101, 102} << 1;
        QTest::newRow("just under 1.25 at 2") << QList<double>{100, 124, 400} << 1;
        QTest::newRow("one level") << QList<double>{100} << 1;
    }

    void recommendation()
    {
        QFETCH(QList<double>, totals);
        QFETCH(int, expected);
        const int copies[] = {1, 2, 4};
        QList<QPair<int, double>> levels;
        for (qsizetype i = 0; i < totals.size(); ++i) {
            levels.append(qMakePair(copies[i], totals.at(i)));
        }
        QCOMPARE(SlotProbe::recommend(levels), expected);
    }

    void uneven_levels_scale_the_threshold()
    {
        // 1 -> 3 copies needs 1.25^log2(3) = 1.42x.
        QCOMPARE(SlotProbe::recommend({{1, 100.0}, {3, 140.0}}), 1);
        QCOMPARE(SlotProbe::recommend({{1, 100.0}, {3, 145.0}}), 3);
        QCOMPARE(SlotProbe::recommend({}), 1);
    }

    void bad_arguments_are_refused()
    {
        SlotProbe probe;
        probe.setWorkerProgram(fakeWorker().isEmpty() ? QStringLiteral("/bin/false") : fakeWorker());
        QString error;
        QVERIFY(!probe.start(QStringLiteral("gpu0"), busySpec(), {1, 2}, 50, &error));
        QVERIFY2(error.contains(QStringLiteral("device")), qPrintable(error));
        QVERIFY(!probe.start(QStringLiteral("cpu"), busySpec(), {2, 4}, 50, &error));
        QVERIFY2(error.contains(QStringLiteral("start with 1")), qPrintable(error));
        QVERIFY(!probe.start(QStringLiteral("cpu"), busySpec(), {1, 4, 2}, 50, &error));
        QVERIFY2(error.contains(QStringLiteral("ascending")), qPrintable(error));
        QVERIFY(!probe.start(QStringLiteral("cpu"), busySpec(), {1, 64}, 50, &error));
        QVERIFY2(error.contains(QStringLiteral("64")), qPrintable(error));
        QVERIFY(!probe.start(QStringLiteral("cpu"), QJsonObject{}, {1, 2}, 50, &error));
        QVERIFY2(error.contains(QStringLiteral("model.type")), qPrintable(error));
        QVERIFY(!probe.start(QStringLiteral("cuda:99"), busySpec(), {1, 2}, 50, &error));
        QVERIFY2(error.contains(QStringLiteral("cuda:99")), qPrintable(error));
        QVERIFY(!probe.isRunning());
    }

    void probeSpec_turns_eval_and_checkpoints_off()
    {
        const QJsonObject s = SlotProbe::probeSpec(withRepeat(busySpec(), 3), 200);
        QVERIFY(!s.contains(QStringLiteral("repeat")));
        QCOMPARE(s[QStringLiteral("train")][QStringLiteral("max_steps")].toInt(), 200);
        QCOMPARE(s[QStringLiteral("eval")][QStringLiteral("every_epochs")].toInt(), 0);
        QCOMPARE(s[QStringLiteral("checkpoint")][QStringLiteral("every_steps")].toInt(), 0);
        QVERIFY(s[QStringLiteral("report")][QStringLiteral("every_steps")].toInt() <= 40);
    }

    void probe_measures_every_level()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        SlotProbe probe;
        probe.setWorkerProgram(fakeWorker());
        QSignalSpy finished(&probe, &SlotProbe::finished);
        QSignalSpy failed(&probe, &SlotProbe::failed);
        QSignalSpy progress(&probe, &SlotProbe::progress);
        QString error;
        QVERIFY2(probe.start(QStringLiteral("cpu"), busySpec(), {1, 2, 4}, 60, &error), qPrintable(error));
        const QString root = probe.runsRoot();
        QVERIFY(QFileInfo::exists(root));
        QSet<qint64> pids;
        QTRY_VERIFY_WITH_TIMEOUT(([&] {
                                     for (qint64 pid : probe.workerPids()) {
                                         pids.insert(pid);
                                     }
                                     return !finished.isEmpty() || !failed.isEmpty();
                                 }()),
                                 90000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        const auto result = finished.first().first().value<SlotProbeResult>();
        QCOMPARE(result.levels.size(), 3);
        QCOMPARE(result.levels.at(0).copies, 1);
        QCOMPARE(result.levels.at(2).copies, 4);
        for (const SlotProbeLevel &l : result.levels) {
            QVERIFY2(l.samplesPerSecond > 0, qPrintable(QString::number(l.copies)));
            QVERIFY(l.ratio > 0);
            qInfo("%d copies: %.0f samples/s, %.2fx", l.copies, l.samplesPerSecond, l.ratio);
        }
        QCOMPARE(result.levels.at(0).ratio, 1.0);
        QVERIFY(result.recommended == 1 || result.recommended == 2 || result.recommended == 4);
        QList<QPair<int, double>> totals;
        for (const SlotProbeLevel &l : result.levels) {
            totals.append(qMakePair(l.copies, l.samplesPerSecond));
        }
        QCOMPARE(result.recommended, SlotProbe::recommend(totals));
        QCOMPARE(result.model, QStringLiteral("fake"));
        QCOMPARE(result.deviceName, QStringLiteral("cpu"));
        QVERIFY(result.measured.isValid());
        QVERIFY(!progress.isEmpty());
        QCOMPARE(progress.last().at(2).toInt(), 100);
        QVERIFY(!probe.isRunning());
        QVERIFY2(!QFileInfo::exists(root), qPrintable(root));
        QVERIFY(pids.size() >= 7); // 1 + 2 + 4 copies
        for (qint64 pid : std::as_const(pids)) {
            QVERIFY(!alive(pid));
        }
    }

    void real_worker_probe()
    {
        const QString worker = qEnvironmentVariable("TRAINYARD_WORKER");
        if (worker.isEmpty() || !QFileInfo(worker).isExecutable()) {
            QSKIP("TRAINYARD_WORKER (the real trainyard-worker) is not built");
        }
        // A tiny TransE on generated data: the real worker's samples_per_s path.
        const QJsonObject spec{
            {QStringLiteral("name"), QStringLiteral("tiny")},
            {QStringLiteral("model"),
             QJsonObject{{QStringLiteral("type"), QStringLiteral("transe")}, {QStringLiteral("dim"), 8}}},
            {QStringLiteral("data"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("synthetic-kg")},
                                                 {QStringLiteral("entities"), 40},
                                                 {QStringLiteral("relations"), 3},
                                                 {QStringLiteral("triples"), 400}}},
            {QStringLiteral("train"), QJsonObject{{QStringLiteral("batch_size"), 64}}}};
        SlotProbe probe;
        probe.setWorkerProgram(worker);
        QSignalSpy finished(&probe, &SlotProbe::finished);
        QSignalSpy failed(&probe, &SlotProbe::failed);
        QString error;
        QVERIFY2(probe.start(QStringLiteral("cpu"), spec, {1, 2}, 40, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), 90000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        const auto result = finished.first().first().value<SlotProbeResult>();
        QCOMPARE(result.model, QStringLiteral("transe"));
        QCOMPARE(result.levels.size(), 2);
        for (const SlotProbeLevel &l : result.levels) {
            QVERIFY(l.samplesPerSecond > 0);
            qInfo("real worker, %d copies: %.0f samples/s, %.2fx", l.copies, l.samplesPerSecond, l.ratio);
        }
        QVERIFY(result.recommended == 1 || result.recommended == 2);
    }

    void failing_copy_fails_the_probe()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        SlotProbe probe;
        probe.setWorkerProgram(fakeWorker());
        QSignalSpy finished(&probe, &SlotProbe::finished);
        QSignalSpy failed(&probe, &SlotProbe::failed);
        QVERIFY(probe.start(QStringLiteral("cpu"), busySpec(QStringLiteral("fail"), 5), {1, 2}, 50));
        const QString root = probe.runsRoot();
        QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), 30000);
        const QString message = failed.first().first().toString();
        QVERIFY2(message.contains(QStringLiteral("probe")) && message.contains(QStringLiteral("failed")),
                 qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("fake-worker")), qPrintable(message)); // the worker's own words
        QVERIFY(finished.isEmpty());
        QVERIFY(!probe.isRunning());
        QVERIFY(probe.workerPids().isEmpty());
        QVERIFY(!QFileInfo::exists(root));
    }

    void cancel_leaves_no_worker()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        SlotProbe probe;
        probe.setWorkerProgram(fakeWorker());
        QSignalSpy cancelled(&probe, &SlotProbe::cancelled);
        QSignalSpy finished(&probe, &SlotProbe::finished);
        QVERIFY(probe.start(QStringLiteral("cpu"), busySpec(), {1, 2}, 100000));
        const QString root = probe.runsRoot();
        QTRY_VERIFY_WITH_TIMEOUT(!probe.workerPids().isEmpty(), 10000);
        const QList<qint64> pids = probe.workerPids();
        probe.cancel();
        QCOMPARE(cancelled.size(), 1);
        QVERIFY(finished.isEmpty());
        QVERIFY(!probe.isRunning());
        for (qint64 pid : pids) {
            QVERIFY(!alive(pid));
        }
        QVERIFY(!QFileInfo::exists(root));
    }

    void advice_round_trip()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("sub/slot-probes.json"));
        SlotProbeResult r;
        r.device = QStringLiteral("cuda:0");
        r.deviceName = QStringLiteral("NVIDIA H200");
        r.model = QStringLiteral("transe");
        r.steps = 300;
        r.levels = {{1, 1000, 1.0}, {2, 1600, 1.6}, {4, 2300, 2.3}};
        r.recommended = 4;
        r.measured = QDateTime(QDate(2026, 11, 30), QTime(12, 0), Qt::UTC);
        SlotProbeResult cpu = r;
        cpu.deviceName = QStringLiteral("cpu");
        cpu.recommended = 1;
        QString error;
        {
            SlotAdvice advice(path);
            QVERIFY(advice.load(&error)); // missing: empty, fine
            QVERIFY(advice.entries().isEmpty());
            QVERIFY2(advice.record(r, &error), qPrintable(error));
            QVERIFY2(advice.record(cpu, &error), qPrintable(error));
            r.recommended = 2; // replaces the first entry
            r.levels[1].ratio = 1.9;
            QVERIFY2(advice.record(r, &error), qPrintable(error));
        }
        SlotAdvice again(path);
        QVERIFY2(again.load(&error), qPrintable(error));
        QCOMPARE(again.entries().size(), 2);
        const auto found = again.find(QStringLiteral("NVIDIA H200"), QStringLiteral("transe"));
        QVERIFY(found);
        QCOMPARE(found->recommended, 2);
        QCOMPARE(found->levels.size(), 3);
        QCOMPARE(found->levels.at(2).samplesPerSecond, 2300.0);
        QCOMPARE(found->measured, r.measured);
        QCOMPARE(SlotAdvice::summary(*found),
                 QStringLiteral("recommended: 2 slots for transe (measured 2026-11-30: 1.9×)"));
        QCOMPARE(again.find(QStringLiteral("cpu"), QStringLiteral("transe"))->recommended, 1);
        QVERIFY(!again.find(QStringLiteral("cpu"), QStringLiteral("sacn")));
    }

    void corrupt_advice_file_is_empty_with_a_warning()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("slot-probes.json"));
        QVERIFY(writeFile(path, "{\"probes\": [ {\"model\": \"transe\""));
        SlotAdvice advice(path);
        QString warning;
        QVERIFY(!advice.load(&warning));
        QVERIFY2(warning.contains(path) && warning.contains(QStringLiteral("not JSON")), qPrintable(warning));
        QVERIFY(advice.entries().isEmpty());

        QVERIFY(writeFile(path, "[1, 2]"));
        QVERIFY(!advice.load(&warning));
        QVERIFY2(warning.contains(QStringLiteral("probes")), qPrintable(warning));

        // One broken entry is skipped and named; a good one is kept.
        QVERIFY(writeFile(path, "{\"probes\": [{\"model\": \"x\"}, {\"device_name\": \"cpu\", \"model\": \"mlp\", "
                                "\"recommended\": 2, \"measured\": \"2026-11-30T10:00:00Z\", \"levels\": []}]}"));
        QVERIFY(!advice.load(&warning));
        QVERIFY2(warning.contains(QStringLiteral("probes[0].device_name")), qPrintable(warning));
        QCOMPARE(advice.entries().size(), 1);

        // Recording over a corrupt file replaces it.
        QVERIFY(writeFile(path, "garbage"));
        SlotProbeResult r;
        r.deviceName = QStringLiteral("cpu");
        r.model = QStringLiteral("transe");
        r.levels = {{1, 10, 1.0}};
        r.measured = QDateTime::currentDateTimeUtc();
        QString error;
        QVERIFY2(advice.record(r, &error), qPrintable(error));
        QVERIFY2(advice.load(&warning), qPrintable(warning));
        QCOMPARE(advice.entries().size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestSlotProbe)
#include "tst_slotprobe.moc"
