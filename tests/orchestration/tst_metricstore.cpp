// MetricStore: columnar series, the re-reported-step rule (continue from it), memory per point, batched
// update signals.

#include "metrics/metricstore.h"

#include <QSignalSpy>
#include <QTest>

using namespace trainyard;

class TestMetricStore : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void appendsInStepOrder()
    {
        MetricStore store;
        for (int i = 1; i <= 5; ++i) {
            store.add(1, QStringLiteral("loss"), i, i * 0.1, 1.0 / i);
        }
        const MetricSeries *s = store.series(1, QStringLiteral("loss"));
        QVERIFY(s);
        QCOMPARE(int(s->size()), 5);
        QCOMPARE(s->steps()[4], std::int64_t(5));
        QCOMPARE(s->values()[1], 0.5);
        QCOMPARE(s->walls()[2], 0.30000000000000004);
        QCOMPARE(s->revision(), 0u);
        QVERIFY(!store.series(1, QStringLiteral("nope")));
        QVERIFY(!store.series(2, QStringLiteral("loss")));
    }

    void reReportedStepContinuesFromThere()
    {
        MetricStore store;
        for (int i = 1; i <= 10; ++i) {
            store.add(1, QStringLiteral("loss"), i, i, 10.0 + i);
        }
        // A resumed worker re-reports steps 6..8 after its checkpoint: the
        // curve continues from step 6, the old 6..10 are gone.
        for (int i = 6; i <= 8; ++i) {
            store.add(1, QStringLiteral("loss"), i, 100 + i, -double(i));
        }
        const MetricSeries *s = store.series(1, QStringLiteral("loss"));
        QCOMPARE(int(s->size()), 8);
        QCOMPARE(s->value(4), 15.0);
        QCOMPARE(s->value(5), -6.0);
        QCOMPARE(s->wall(7), 108.0);
        QCOMPARE(s->lastValue(), -8.0);
        // One cut (at step 6); 7 and 8 are plain appends after it.
        QCOMPARE(s->revision(), 1u);
        for (std::size_t i = 0; i < s->size(); ++i) {
            QCOMPARE(s->step(i), std::int64_t(i + 1));
        }
        // The run goes on past where it was before the resume.
        for (int i = 9; i <= 12; ++i) {
            store.add(1, QStringLiteral("loss"), i, 100 + i, -double(i));
        }
        QCOMPARE(int(s->size()), 12);
        QCOMPARE(s->revision(), 1u);
        // The same step again (a final evaluation at the last step) takes its place.
        store.add(1, QStringLiteral("loss"), 12, 200, 0.5);
        QCOMPARE(int(s->size()), 12);
        QCOMPARE(s->lastValue(), 0.5);
        QCOMPARE(s->wall(11), 200.0);
    }

    void earlierStepDropsLaterOnes()
    {
        // A step between two points is no late arrival to slot in: it is a
        // resume from an earlier checkpoint, so what came after it goes.
        MetricStore store;
        store.add(1, QStringLiteral("eval"), 10, 1, 1);
        store.add(1, QStringLiteral("eval"), 30, 3, 3);
        store.add(1, QStringLiteral("eval"), 20, 2, 2);
        const MetricSeries *e = store.series(1, QStringLiteral("eval"));
        QCOMPARE(int(e->size()), 2);
        QCOMPARE(e->step(1), std::int64_t(20));
        QCOMPARE(e->value(1), 2.0);
        // A step before the first point starts the curve over.
        store.add(1, QStringLiteral("eval"), 5, 0.5, 0.25);
        QCOMPARE(int(e->size()), 1);
        QCOMPARE(e->step(0), std::int64_t(5));
        QCOMPARE(e->revision(), 2u);
    }

    void resumePositionIsOneRule()
    {
        const std::vector<std::int64_t> steps{2, 4, 6};
        QCOMPARE(resumePosition(steps, std::int64_t(7)), std::size_t(3)); // new: at the end
        QCOMPARE(resumePosition(steps, std::int64_t(6)), std::size_t(2)); // the last again: replaces it
        QCOMPARE(resumePosition(steps, std::int64_t(5)), std::size_t(2)); // drops 6
        QCOMPARE(resumePosition(steps, std::int64_t(4)), std::size_t(1));
        QCOMPARE(resumePosition(steps, std::int64_t(1)), std::size_t(0));
        QCOMPARE(resumePosition(std::vector<double>{}, 3.0), std::size_t(0));
        // Points of any kind, through their step.
        struct Point
        {
            double step;
            double value;
        };
        const QList<Point> points{{1, 0}, {3, 0}};
        QCOMPARE(resumePosition(points, 2.0, [](const Point &p) { return p.step; }), std::size_t(1));
        QCOMPARE(resumePosition(points, 4.0, [](const Point &p) { return p.step; }), std::size_t(2));
    }

    void atMost32BytesPerPoint()
    {
        MetricStore store;
        const int metrics[3] = {store.metricId(QStringLiteral("loss")), store.metricId(QStringLiteral("lr")),
                                store.metricId(QStringLiteral("epoch"))};
        for (RunId run = 1; run <= 4; ++run) {
            for (int step = 1; step <= 100000; ++step) {
                for (int m : metrics) {
                    store.add(run, m, step, step * 0.01, 0.5);
                }
            }
        }
        QCOMPARE(store.pointCount(), std::size_t(1200000));
        const double perPoint = double(store.bytesReserved()) / double(store.pointCount());
        qInfo("%.2f bytes per point", perPoint);
        QVERIFY2(perPoint <= 32.0, qPrintable(QString::number(perPoint)));
    }

    void updatesAreBatched()
    {
        MetricStore store;
        store.setBatchInterval(30);
        QSignalSpy updated(&store, &MetricStore::updated);
        for (int i = 1; i <= 5000; ++i) {
            store.add(1, QStringLiteral("loss"), i, i, 1);
            store.add(2, QStringLiteral("loss"), i, i, 1);
        }
        QCOMPARE(updated.count(), 0); // nothing until the event loop runs
        QTRY_COMPARE(updated.count(), 1);
        QCOMPARE(updated.at(0).at(0).value<QList<RunId>>(), (QList<RunId>{1, 2}));
        store.add(2, QStringLiteral("loss"), 6000, 1, 1);
        store.flush();
        QCOMPARE(updated.count(), 2);
        QCOMPARE(updated.at(1).at(0).value<QList<RunId>>(), QList<RunId>{2});
    }

    void removeRunForgetsItsSeries()
    {
        MetricStore store;
        store.add(1, QStringLiteral("loss"), 1, 1, 1);
        store.add(2, QStringLiteral("loss"), 1, 1, 1);
        store.removeRun(1);
        QVERIFY(!store.series(1, QStringLiteral("loss")));
        QVERIFY(store.series(2, QStringLiteral("loss")));
        QCOMPARE(store.metricNames(2), QStringList{QStringLiteral("loss")});
    }

    // "valid/epoch" was offered as a metric to plot. One rule says
    // which series are bookkeeping, for the plots' pickers and the CSV.
    void epochsAreBookkeepingNotMetrics()
    {
        for (const char *name :
             {"epoch", "valid/epoch", "test/epoch", "valid/step", "valid/wall", "step", "wall", "valid/total_steps"}) {
            QVERIFY2(MetricStore::isBookkeeping(QString::fromUtf8(name)), name);
        }
        for (const char *name : {"loss", "lr", "grad_norm", "samples_per_s", "mem_bytes", "valid/mrr", "test/hits@10",
                                 "valid/accuracy", "epochs_seen", "valid/epoch_loss"}) {
            QVERIFY2(!MetricStore::isBookkeeping(QString::fromUtf8(name)), name);
        }
    }
};

QTEST_GUILESS_MAIN(TestMetricStore)
#include "tst_metricstore.moc"
