// qcustomplot.h uses `foreach` in its own templates.
#undef QT_NO_FOREACH

// The plots: views of the store's full-resolution curves with TensorBoard
// smoothing that follow the store's rule for re-reported steps (continue
// from them: the loss, the evaluation points and through the feeder),
// thinning that keeps extremes, repeat bands, stable colours, axis and scale
// switches, read-out and export (through the writer `trainyard export` uses).

#include "metrics/metricstore.h"
#include "orchestration/document/experimentdocument.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "ui/app/appsettings.h"
#include "ui/common/runcolors.h"
#include "ui/plot/metriccurve.h"
#include "ui/plot/plotfeeder.h"
#include "ui/plot/plotmetricchoice.h"
#include "ui/plot/plotwidget.h"
#include "ui/plot/repeatband.h"
#include "uitesthelpers.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QMouseEvent>
#include <QSettings>
#include <QSlider>
#include <QSplitter>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QWheelEvent>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace trainyard;

namespace {

// A loss curve as the plots get one: its points in a store (loss and the
// metric lines' epochs), the curve a view of them, caught up after each point.
class TestCurve : public MetricCurve
{
public:
    TestCurve()
        : MetricCurve(CurveSource{&store, 1})
    {
    }
    void append(double step, double epoch, double wall, double loss)
    {
        store.add(1, QStringLiteral("epoch"), std::int64_t(step), wall, epoch);
        store.add(1, QStringLiteral("loss"), std::int64_t(step), wall, loss);
        sync();
    }
    MetricStore store;
};

// A PlotWidget and the store it reads, as the app has them: points go into
// the store, the plot draws its runs from there.
struct StorePlot
{
    explicit StorePlot(RunColors *colors)
        : plot(colors)
    {
    }
    void addRun(const QString &key, const QString &label, const QString &group)
    {
        if (!ids.contains(key)) {
            ids.insert(key, RunId(ids.size() + 1));
        }
        this->plot.addRun(key, label, group, CurveSource{&store, ids.value(key)});
    }
    void appendMetric(const QString &key, double step, double epoch, double wall, double loss)
    {
        store.add(ids.value(key), QStringLiteral("epoch"), std::int64_t(step), wall, epoch);
        store.add(ids.value(key), QStringLiteral("loss"), std::int64_t(step), wall, loss);
    }
    void appendEval(const QString &key, double step, double wall, const QString &metric, double value)
    {
        store.add(ids.value(key), metric, std::int64_t(step), wall, value);
    }
    void resetRunData(const QString &key) { store.removeRun(ids.value(key)); }

    MetricStore store; // before the plot: it outlives it
    PlotWidget plot;
    QHash<QString, RunId> ids;
};

} // namespace

class TestPlotWidget : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_settingsDir;

private Q_SLOTS:
    void initTestCase()
    {
        // The plots' settings go to a folder of this test, never the user's.
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_settingsDir.isValid());
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_settingsDir.path());
    }

    void runColoursAreFarApart()
    {
        // Runs 1 to 40 are told apart at a glance: no two of their colours
        // within 19 CIE76 units (run 11 once was run 1 darker, 14 apart),
        // and none near a past run's ink.
        constexpr double kApart = 19;
        for (int i = 0; i < 40; ++i) {
            for (int j = i + 1; j < 40; ++j) {
                const double d = RunColors::distance(RunColors::paletteColor(i), RunColors::paletteColor(j));
                QVERIFY2(d >= kApart,
                         qPrintable(QStringLiteral("runs %1 and %2: %3 apart (%4, %5)")
                                        .arg(i + 1)
                                        .arg(j + 1)
                                        .arg(d)
                                        .arg(RunColors::paletteColor(i).name(), RunColors::paletteColor(j).name())));
            }
            for (int p = 0; p < 7; ++p) {
                QVERIFY(RunColors::distance(RunColors::paletteColor(i), RunColors::pastPaletteColor(p)) >= kApart);
            }
        }
        QCOMPARE(RunColors::paletteColor(0), QColor(0x4e, 0x79, 0xa7));   // Tableau 10 first
        QCOMPARE(RunColors::paletteColor(0), RunColors::paletteColor(0)); // the same for the app's life
    }

    void smoothingMatchesTensorBoard()
    {
        TestCurve c;
        c.setSmoothing(0.5);
        c.append(1, 0, 0.1, 1.0);
        c.append(2, 0, 0.2, 3.0);
        c.append(3, 0, 0.3, 2.0);
        // Debiased EMA: last = last*w + (1-w)*v; value = last / (1 - w^n).
        QCOMPARE(c.smoothed(0), 1.0);
        QVERIFY(std::abs(c.smoothed(1) - (0.5 * 0.5 + 0.5 * 3.0) / (1 - 0.25)) < 1e-5); // stored as float
        const double last2 = (0.5 * 0.5 + 0.5 * 3.0) * 0.5 + 0.5 * 2.0;
        QVERIFY(std::abs(c.smoothed(2) - last2 / (1 - 0.125)) < 1e-5);
        // Changing the weight recomputes from the full-resolution points.
        c.setSmoothing(0);
        QCOMPARE(c.smoothed(1), 3.0);
    }

    void reReportedStepsReplace()
    {
        TestCurve c;
        for (int s = 1; s <= 10; ++s) {
            c.append(s, s / 5.0, s, 10.0 - s);
        }
        // A resumed worker starts again from step 6.
        c.append(6, 1.2, 11, 100.0);
        QCOMPARE(c.size(), qsizetype(6));
        QCOMPARE(c.value(5), 100.0);
        QCOMPARE(c.maxValue(), 100.0);
        QCOMPARE(c.lowerBound(XAxis::Step, 6), qsizetype(5));
    }

    void theCurveIsAViewOfTheStoresSeries()
    {
        // The same reports, with two resumes (one from before the first point
        // reported again): the store applies the rule once (MetricSeries::add)
        // and the view, caught up point by point, shows exactly its series.
        const QList<int> steps{1, 2, 3, 4, 5, 6, 3, 4, 5, 6, 7, 8, 7, 8, 9};
        TestCurve curve;
        curve.setSmoothing(0.5);
        for (int i = 0; i < steps.size(); ++i) {
            curve.append(steps.at(i), 0, i, 100.0 + i);
        }
        const MetricSeries *series = curve.store.series(1, QStringLiteral("loss"));
        QCOMPARE(curve.size(), qsizetype(series->size()));
        QCOMPARE(curve.size(), qsizetype(9));
        double ema = 0;
        double debias = 1;
        for (std::size_t i = 0; i < series->size(); ++i) {
            QCOMPARE(curve.x(XAxis::Step, qsizetype(i)), double(series->step(i)));
            QCOMPARE(curve.value(qsizetype(i)), series->value(i));
            QCOMPARE(series->step(i), std::int64_t(i + 1));
            // The smoothing cache was recomputed from each cut, not carried over.
            ema = ema * 0.5 + 0.5 * series->value(i);
            debias *= 0.5;
            QVERIFY(std::abs(curve.smoothed(qsizetype(i)) - ema / (1 - debias)) < 1e-4);
        }
        // Steps 1, 2 from the start, 3..6 from the first resume, 7, 8 from the second.
        QCOMPARE(series->value(2), 106.0);
        QCOMPARE(series->value(6), 112.0);
        QCOMPARE(curve.maxValue(), 114.0);
        QCOMPARE(curve.minValue(), 100.0);
        // No copy of the points: the view holds its smoothing cache (a float
        // a point, a quarter in reserve) and nothing else.
        QVERIFY(curve.bytesHeld() <= sizeof(MetricCurve) + 5 * series->size() + 64);
        curve.setSmoothing(0);
        QCOMPARE(curve.bytesHeld(), sizeof(MetricCurve));

        // A run cleared from the store reads as empty, and its next points
        // (a new series, maybe at the old one's address) from scratch.
        curve.store.removeRun(1);
        QVERIFY(curve.sync());
        QCOMPARE(curve.size(), qsizetype(0));
        QVERIFY(!curve.hasFinite());
        curve.append(5, 0, 1, 7.0);
        QCOMPARE(curve.size(), qsizetype(1));
        QCOMPARE(curve.maxValue(), 7.0);
        QVERIFY(!curve.sync()); // nothing new
    }

    void reReportedEvalStepsContinueFromThere()
    {
        RunColors colors;
        StorePlot plotData(&colors);
        PlotWidget &plot = plotData.plot;
        plotData.addRun(QStringLiteral("r"), QStringLiteral("r"), QString());
        for (int s = 10; s <= 50; s += 10) {
            plotData.appendMetric(QStringLiteral("r"), s, s / 10.0, s, 1.0);
            plotData.appendEval(QStringLiteral("r"), s, s, QStringLiteral("valid/mrr"), s / 100.0);
        }
        // A resume from step 20 evaluates again at 30: 40 and 50 are gone.
        plotData.appendEval(QStringLiteral("r"), 30, 60, QStringLiteral("valid/mrr"), 0.9);
        plot.setSelectedRuns({QStringLiteral("r")});
        plot.refreshNow();
        QCOMPARE(plot.evalPlot()->graph(0)->dataCount(), 3);
        QCOMPARE((plot.evalPlot()->graph(0)->data()->constEnd() - 1)->value, 0.9);
        // On the epoch axis an evaluation sits at its step's epoch (the metric lines').
        plot.setXAxis(XAxis::Epoch);
        plot.refreshNow();
        QCOMPARE((plot.evalPlot()->graph(0)->data()->constEnd() - 1)->key, 3.0);
        QTemporaryDir dir;
        QString error;
        QVERIFY2(plot.exportCsv(dir.filePath(QStringLiteral("e.csv")), &error), qPrintable(error));
        QFile csv(dir.filePath(QStringLiteral("e.csv")));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).trimmed().split(QLatin1Char('\n'));
        const QStringList evals = lines.filter(QStringLiteral("valid/mrr"));
        QCOMPARE(evals.size(), 3); // 10, 20, 30
        QCOMPARE(evals.at(2), QStringLiteral("r,30,3,60,valid/mrr,0.9"));
    }

    void feederFollowsAResumedRun()
    {
        // The store cuts at the re-reported step; the plot's view sees the
        // cut (revision) and reads the run again, ending with the store's points.
        QTemporaryDir dir;
        Session session;
        QStringList errors;
        QVERIFY2(session.open(trainyard::testing::twoLaneExperiment(dir.filePath(QStringLiteral("runs"))), QString(),
                              &errors),
                 qPrintable(errors.join(QLatin1Char('\n'))));
        const RunId id = session.orchestrator()->runs()->findByName(QStringLiteral("a"));
        RunColors colors;
        PlotWidget plot(&colors);
        PlotFeeder feeder(&plot);
        ExperimentDocument document(&session);
        feeder.setSource(&document);
        feeder.setSelection({id});
        MetricStore *store = session.metrics();
        for (int s = 1; s <= 10; ++s) {
            store->add(id, QStringLiteral("loss"), s, s, 1.0 / s);
            store->add(id, QStringLiteral("epoch"), s, s, s / 5);
        }
        int redraws = 0;
        connect(&plot, &PlotWidget::refreshed, this, [&] { ++redraws; });
        store->flush(); // the store's batch: the plot redraws at once
        QCOMPARE(redraws, 1);
        const MetricCurve *curve = plot.curve(QString::number(id));
        QVERIFY(curve);
        QCOMPARE(curve->size(), qsizetype(10));
        // Resumed from the checkpoint at step 6.
        for (int s = 7; s <= 12; ++s) {
            store->add(id, QStringLiteral("loss"), s, 100 + s, 50.0 + s);
            store->add(id, QStringLiteral("epoch"), s, 100 + s, s / 5);
        }
        store->flush();
        const MetricSeries *loss = store->series(id, QStringLiteral("loss"));
        QCOMPARE(loss->size(), std::size_t(12));
        QCOMPARE(curve->size(), qsizetype(loss->size()));
        for (std::size_t i = 0; i < loss->size(); ++i) {
            QCOMPARE(curve->x(XAxis::Step, qsizetype(i)), double(loss->step(i)));
            QCOMPARE(curve->value(qsizetype(i)), loss->value(i));
        }
        QCOMPARE(curve->value(5), 1.0 / 6); // the store's double, not a float copy
        QCOMPARE(curve->value(6), 57.0);
        feeder.setSource(nullptr);
        session.close(false);
    }

    void bandsCoverTheStepsEveryRepeatReached()
    {
        TestCurve low;
        TestCurve high;
        TestCurve shortOne;
        for (int s = 0; s <= 10; ++s) {
            low.append(s, 0, s, 1.0);
            high.append(s, 0, s, 3.0);
            if (s <= 5) {
                shortOne.append(s, 0, s, 5.0);
            }
        }
        // the mean jumped where the short repeat ended; it now ends there.
        const BandSeries minMax = repeatBand({&low, &high, &shortOne}, XAxis::Step, 0, 10, 11, RepeatBand::MinMax);
        QCOMPARE(minMax.xs.size(), 11);
        QCOMPARE(minMax.xs.first(), 0.0);
        QCOMPARE(minMax.xs.last(), 5.0);
        for (int i = 0; i < minMax.xs.size(); ++i) {
            QCOMPARE(minMax.mean.at(i), 3.0); // all three, everywhere
            QCOMPARE(minMax.upper.at(i), 5.0);
            QCOMPARE(minMax.lower.at(i), 1.0);
        }
        double first = 0;
        double last = 0;
        QVERIFY(commonExtent({&low, &high, &shortOne}, XAxis::Step, &first, &last));
        QCOMPARE(first, 0.0);
        QCOMPARE(last, 5.0);
        // A repeat without points yet: no common steps, no mean.
        TestCurve notStarted;
        QVERIFY(!commonExtent({&low, &notStarted}, XAxis::Step, &first, &last));
        QVERIFY(repeatBand({&low, &notStarted}, XAxis::Step, 0, 10, 11, RepeatBand::MinMax).xs.isEmpty());
        const BandSeries stdBand = repeatBand({&low, &high}, XAxis::Step, 0, 10, 11, RepeatBand::Std);
        QCOMPARE(stdBand.xs.last(), 10.0);
        QCOMPARE(stdBand.upper.at(3), 3.0);
        QCOMPARE(stdBand.lower.at(3), 1.0);
        QVERIFY(repeatBand({}, XAxis::Step, 0, 10, 11, RepeatBand::MinMax).xs.isEmpty());
    }

    // past the steps every repeat reached, the mean line jumped to the longer repeat's values.
    void repeatsPastTheCommonStepsAreDrawnOneByOne()
    {
        RunColors colors;
        StorePlot plotData(&colors);
        PlotWidget &plot = plotData.plot;
        plot.resize(900, 700);
        plot.setSmoothing(0);
        plotData.addRun(QStringLiteral("long"), QStringLiteral("long"), QStringLiteral("g"));
        plotData.addRun(QStringLiteral("short"), QStringLiteral("short"), QStringLiteral("g"));
        for (int s = 1; s <= 100; ++s) {
            plotData.appendMetric(QStringLiteral("long"), s, 0, s, 1.0);
            if (s <= 60) {
                plotData.appendMetric(QStringLiteral("short"), s, 0, s, 3.0);
            }
        }
        plot.setSelectedRuns({QStringLiteral("long"), QStringLiteral("short")});
        plot.refreshNow();
        const auto graphNamed = [&](const QString &name) -> QCPGraph * {
            for (int i = 0; i < plot.lossPlot()->graphCount(); ++i) {
                if (plot.lossPlot()->graph(i)->name() == name) {
                    return plot.lossPlot()->graph(i);
                }
            }
            return nullptr;
        };
        QCPGraph *mean = graphNamed(QStringLiteral("g (mean of 2)"));
        QVERIFY(mean);
        QVERIFY(mean->dataCount() > 10);
        for (auto it = mean->data()->constBegin(); it != mean->data()->constEnd(); ++it) {
            QVERIFY2(it->key <= 60.0, qPrintable(QString::number(it->key)));
            QCOMPARE(it->value, 2.0);
        }
        // Past step 60 the longer repeat has its own line; the shorter one has none.
        QCPGraph *longLine = graphNamed(QStringLiteral("long"));
        QCPGraph *shortLine = graphNamed(QStringLiteral("short"));
        QVERIFY(longLine && shortLine);
        QCOMPARE(shortLine->dataCount(), 0);
        QVERIFY(longLine->dataCount() >= 40);
        QCOMPARE((longLine->data()->constEnd() - 1)->key, 100.0);
        QVERIFY(longLine->data()->constBegin()->key >= 59.0);
        // Neither member line is in the legend: the group's mean is.
        QVERIFY(!plot.lossPlot()->legend->itemWithPlottable(longLine));
        QVERIFY(plot.lossPlot()->legend->itemWithPlottable(mean));
        // The read-out says what the plot shows.
        QVERIFY2(plot.readoutAt(30).contains(QLatin1String("g (mean of 2): 2")), qPrintable(plot.readoutAt(30)));
        const QString past = plot.readoutAt(80);
        QVERIFY2(past.contains(QLatin1String("long: 1")) && !past.contains(QLatin1String("mean")), qPrintable(past));
    }

    void thinningKeepsExtremesAndBoundsPoints()
    {
        TestCurve c;
        const int n = 200000;
        for (int i = 0; i < n; ++i) {
            c.append(i, i / 1000.0, i * 0.01, 1.0 + 0.001 * std::sin(i * 0.1));
        }
        c.append(n, n / 1000.0, n * 0.01, 1.0);
        // One spike in the middle must survive thinning.
        TestCurve spiky;
        for (int i = 0; i < n; ++i) {
            spiky.append(i, 0, i, i == 123457 ? 50.0 : 1.0);
        }
        QVector<double> xs;
        QVector<double> ys;
        spiky.decimate(XAxis::Step, 0, n, 500, &xs, &ys);
        QVERIFY(xs.size() <= 2 * 500 + 2);
        QVERIFY(*std::max_element(ys.begin(), ys.end()) == 50.0);
        QVERIFY(std::is_sorted(xs.begin(), xs.end()));
        // A zoomed-in range with few points is drawn at full resolution.
        c.decimate(XAxis::Step, 1000, 1100, 500, &xs, &ys);
        QCOMPARE(xs.size(), 103); // 1000..1100 plus one point either side
        QCOMPARE(xs.last(), 1101.0);
        QCOMPARE(xs.first(), 999.0);
        // The other axes work the same way.
        c.decimate(XAxis::Epoch, 1.0, 1.1, 500, &xs, &ys);
        QVERIFY(xs.size() >= 100 && xs.size() <= 104);
    }

    // A long run is read in one sync() by chunked scans and a smoothing loop
    // that takes four points at a time; it must give what reading the same
    // points one by one gives, across chunk borders, gaps and axes that go back.
    void aLongRunReadAtOnceMatchesOnePointAtATime()
    {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        for (const double weight : {0.0, 0.6, 0.99}) {
            TestCurve byPoint;
            byPoint.setSmoothing(weight);
            MetricStore store;
            MetricCurve atOnce(CurveSource{&store, 1});
            atOnce.setSmoothing(weight);
            const int n = 20011; // five scan chunks and a ragged end
            for (int i = 0; i < n; ++i) {
                const double loss = i % 997 == 5 ? nan : (i % 1499 == 7 ? 1e300 : 2.0 + std::sin(i * 0.01) - i * 1e-5);
                const double wall = i == 9000 ? 1.0 : i * 0.5;                   // one wall goes back
                const double epoch = i >= 19900 && i < 19910 ? 0.0 : i / 1000.0; // epochs go back for a while
                byPoint.append(i, epoch, wall, loss);
                store.add(1, QStringLiteral("epoch"), i, wall, epoch);
                store.add(1, QStringLiteral("loss"), i, wall, loss);
            }
            QVERIFY(atOnce.sync());
            QCOMPARE(atOnce.size(), byPoint.size());
            QCOMPARE(atOnce.minValue(), byPoint.minValue());
            QCOMPARE(atOnce.maxValue(), byPoint.maxValue());
            QCOMPARE(atOnce.minPositiveValue(), byPoint.minPositiveValue());
            QCOMPARE(atOnce.firstFinite(), byPoint.firstFinite());
            QCOMPARE(atOnce.lastFinite(), byPoint.lastFinite());
            double ema = 0;
            double debias = 1;
            for (qsizetype i = 0; i < atOnce.size(); ++i) {
                for (const XAxis axis : {XAxis::Step, XAxis::Epoch, XAxis::Wall}) {
                    QCOMPARE(atOnce.x(axis, i), byPoint.x(axis, i));
                }
                const double v = atOnce.value(i);
                if (!MetricCurve::drawable(v)) {
                    QCOMPARE(std::isnan(atOnce.smoothed(i)), std::isnan(v));
                    continue;
                }
                // TensorBoard's definition, one point at a time.
                ema = ema * weight + (1 - weight) * v;
                debias *= weight;
                const double expected = weight > 0 ? ema / (1 - debias) : v;
                QVERIFY2(std::abs(atOnce.smoothed(i) - expected) <= 1e-6 * std::abs(expected),
                         qPrintable(QStringLiteral("weight %1, point %2").arg(weight).arg(i)));
                QVERIFY(std::abs(byPoint.smoothed(i) - expected) <= 1e-6 * std::abs(expected));
            }
            QCOMPARE(atOnce.x(XAxis::Wall, 9000), atOnce.x(XAxis::Wall, 8999)); // never back
            QCOMPARE(atOnce.lowerBound(XAxis::Wall, 4600.0), byPoint.lowerBound(XAxis::Wall, 4600.0));
            QCOMPARE(atOnce.lowerBound(XAxis::Epoch, 19.905), byPoint.lowerBound(XAxis::Epoch, 19.905));
            QVector<double> xs;
            QVector<double> ys;
            QVector<double> pxs;
            QVector<double> pys;
            atOnce.decimate(XAxis::Step, 0, n, 300, &xs, &ys);
            byPoint.decimate(XAxis::Step, 0, n, 300, &pxs, &pys);
            QCOMPARE(xs, pxs);
            QCOMPARE(ys.size(), pys.size());
            for (qsizetype i = 0; i < ys.size(); ++i) {
                // The same points thinned: the same values, to the float cache's precision (NaN for a gap).
                QCOMPARE(std::isnan(ys.at(i)), std::isnan(pys.at(i)));
                QVERIFY2(std::isnan(ys.at(i)) || std::abs(ys.at(i) - pys.at(i)) <= 1e-6 * std::abs(pys.at(i)),
                         qPrintable(QStringLiteral("point %1: %2 vs %3").arg(i).arg(ys.at(i)).arg(pys.at(i))));
            }
        }
    }

    // a diverged run whose first loss is NaN showed no curve. Non-finite
    // points break the line; they never reach the extremes, the smoothing or the axes.
    void nonFiniteLossesDoNotPoisonTheCurve()
    {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        TestCurve c;
        c.setSmoothing(0.5);
        c.append(1, 0, 1, nan);
        c.append(2, 0, 2, 4.0);
        c.append(3, 0, 3, 1e300); // finite as a double, infinite once stored as a float
        c.append(4, 0, 4, 2.0);
        c.append(5, 0, 5, nan);
        QCOMPARE(c.minValue(), 2.0);
        QCOMPARE(c.maxValue(), 4.0);
        QCOMPARE(c.minPositiveValue(), 2.0);
        QCOMPARE(c.firstFinite(), qsizetype(1));
        QCOMPARE(c.lastFinite(), qsizetype(3));
        QCOMPARE(c.smoothed(1), 4.0); // the EMA starts at the first finite point
        QVERIFY(std::abs(c.smoothed(3) - (0.5 * 0.5 * 4.0 + 0.5 * 2.0) / (1 - 0.25)) < 1e-5);
        QVERIFY(!std::isfinite(c.smoothed(0)) && !std::isfinite(c.smoothed(2)));
        double v = 0;
        QVERIFY(!c.valueAt(XAxis::Step, 1, &v));
        QVERIFY(c.valueAt(XAxis::Step, 2, &v) && v == 4.0);
        // Thinned, a bucket's extremes come from its finite points; never an infinity.
        TestCurve many;
        for (int i = 0; i < 10000; ++i) {
            many.append(i, 0, i, i % 7 == 0 ? nan : (i % 11 == 0 ? 1e300 : 1.0 + i * 1e-4));
        }
        QVector<double> xs;
        QVector<double> ys;
        many.decimate(XAxis::Step, 0, 10000, 100, &xs, &ys);
        int finite = 0;
        for (double y : std::as_const(ys)) {
            QVERIFY(!std::isinf(y));
            finite += std::isfinite(y) ? 1 : 0;
        }
        QVERIFY2(finite >= 190, qPrintable(QString::number(finite)));
        // A NaN epoch or wall keeps the x columns in order.
        c.append(6, nan, nan, 1.0);
        QCOMPARE(c.x(XAxis::Wall, 5), 5.0);
        QCOMPARE(c.x(XAxis::Epoch, 5), 0.0);
        QCOMPARE(c.lowerBound(XAxis::Wall, 5.0), qsizetype(4));

        // In the plot: the finite points are drawn and the axis fits them.
        RunColors colors;
        StorePlot plotData(&colors);
        PlotWidget &plot = plotData.plot;
        plot.resize(600, 400);
        plotData.addRun(QStringLiteral("d"), QStringLiteral("d"), QString());
        plotData.appendMetric(QStringLiteral("d"), 1, 0, 1, nan);
        for (int s = 2; s <= 50; ++s) {
            plotData.appendMetric(QStringLiteral("d"), s, 0, s, 2.0 + 1.0 / s);
        }
        plotData.appendMetric(QStringLiteral("d"), 51, 0, 51, std::numeric_limits<double>::infinity());
        plot.setSelectedRuns({QStringLiteral("d")});
        plot.refreshNow();
        QCPGraph *graph = plot.lossPlot()->graph(0);
        int drawn = 0;
        for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
            QVERIFY(!std::isinf(it->value));
            drawn += std::isfinite(it->value) ? 1 : 0;
        }
        QCOMPARE(drawn, 49);
        const QCPRange y = plot.lossPlot()->yAxis->range();
        QVERIFY2(y.lower > 1.9 && y.upper < 2.6, qPrintable(QStringLiteral("%1..%2").arg(y.lower).arg(y.upper)));
        plot.setLogScale(true);
        plot.refreshNow();
        QVERIFY(plot.lossPlot()->yAxis->range().lower > 1.5);
        QVERIFY2(plot.readoutAt(30).contains(QLatin1String("d: 2.0")), qPrintable(plot.readoutAt(30)));
    }

    // A short plot (the window on a small or scaled screen) keeps its y
    // labels apart: five in 60 px were drawn over each other.
    void yLabelsOfAShortPlotStayApart()
    {
        RunColors colors;
        StorePlot plotData(&colors);
        PlotWidget &plot = plotData.plot;
        plot.resize(600, 330);
        plotData.addRun(QStringLiteral("s"), QStringLiteral("s"), QString());
        for (int step = 1; step <= 50; ++step) {
            plotData.appendMetric(QStringLiteral("s"), step, 0, step, 4.0 - step / 20.0);
        }
        plot.setSelectedRuns({QStringLiteral("s")});
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plot.refreshNow();
        QCustomPlot *loss = plot.lossPlot();
        loss->replot(); // the tick count follows the axis's height at the last layout
        loss->replot();
        const QVector<double> ticks = loss->yAxis->tickVector();
        QVERIFY(ticks.size() >= 2);
        const double label = QFontMetrics(loss->yAxis->tickLabelFont()).height();
        for (int i = 1; i < ticks.size(); ++i) {
            const double apart =
                std::abs(loss->yAxis->coordToPixel(ticks[i]) - loss->yAxis->coordToPixel(ticks[i - 1]));
            QVERIFY2(apart >= label,
                     qPrintable(
                         QStringLiteral("%1 px apart in a plot of %2 px").arg(apart).arg(loss->axisRect()->height())));
        }
    }

    // a run's colour came from the order runs were first seen, a
    // repeat group's mean took the colour of the repeat clicked first, and
    // past runs took the board's palette.
    void coloursAreFixedPerRunWhateverTheOrder()
    {
        // A run's colour is its id's: the same whatever order runs are seen in.
        RunColors ascending;
        RunColors descending;
        QSet<QRgb> seen;
        for (int id = 12; id >= 1; --id) {
            descending.colorFor(QString::number(id));
        }
        for (int id = 1; id <= 12; ++id) {
            const QString key = QString::number(id);
            QCOMPARE(ascending.colorFor(key), descending.colorFor(key));
            QCOMPARE(ascending.colorFor(key), RunColors::paletteColor(id - 1));
            seen.insert(ascending.colorFor(key).rgb());
        }
        QCOMPARE(seen.size(), 12); // the 11th and 12th are no twins of the 1st and 2nd
        // A tool's keys (no run ids) take the palette in the order they come.
        QCOMPARE(ascending.colorFor(QStringLiteral("a")), RunColors::paletteColor(0));
        QCOMPARE(ascending.colorFor(QStringLiteral("b")), RunColors::paletteColor(1));
        QCOMPARE(ascending.colorFor(QStringLiteral("a")), RunColors::paletteColor(0));

        // Past runs: dark inks, none near a board colour (HSL lightness and
        // RGB distance), none twice among the first seven.
        QSet<QRgb> past;
        for (int i = 0; i < 7; ++i) {
            const QColor ink = RunColors::pastPaletteColor(i);
            past.insert(ink.rgb());
            for (int j = 0; j < 10; ++j) {
                const QColor board = RunColors::paletteColor(j);
                QVERIFY2(board.lightnessF() - ink.lightnessF() >= 0.1,
                         qPrintable(QStringLiteral("%1 vs %2").arg(ink.name(), board.name())));
                const double distance =
                    std::hypot(ink.red() - board.red(), ink.green() - board.green(), ink.blue() - board.blue());
                QVERIFY2(distance >= 60, qPrintable(QStringLiteral("%1 vs %2").arg(ink.name(), board.name())));
            }
        }
        QCOMPARE(past.size(), 7);

        // In the plot: a group's mean has its first repeat's colour in every
        // order of selection; a past run its ink, dashed; the band is edged
        // and filled enough to see.
        RunColors colors;
        StorePlot plotData(&colors);
        PlotWidget &plot = plotData.plot;
        plot.resize(900, 700);
        const QStringList repeats{QStringLiteral("4"), QStringLiteral("5"), QStringLiteral("6")};
        for (const QString &id : repeats) {
            plotData.addRun(id, QStringLiteral("transh-") + id, QStringLiteral("transh"));
            for (int s = 1; s <= 30; ++s) {
                plotData.appendMetric(id, s, 0, s, 1.0 / s + id.toInt() * 0.01);
            }
        }
        plotData.ids.insert(QStringLiteral("past:/old/run"), RunId(99));
        plot.addRun(QStringLiteral("past:/old/run"), QStringLiteral("old"), QString(), CurveSource{&plotData.store, 99},
                    RunOrigin::Past);
        for (int s = 1; s <= 30; ++s) {
            plotData.appendMetric(QStringLiteral("past:/old/run"), s, 0, s, 2.0 / s);
        }
        const auto graphNamed = [&](const QString &name) -> QCPGraph * {
            for (int i = 0; i < plot.lossPlot()->graphCount(); ++i) {
                if (plot.lossPlot()->graph(i)->name() == name) {
                    return plot.lossPlot()->graph(i);
                }
            }
            return nullptr;
        };
        const QList<QStringList> orders{{QStringLiteral("6"), QStringLiteral("4"), QStringLiteral("5")},
                                        {QStringLiteral("5"), QStringLiteral("6"), QStringLiteral("4")},
                                        repeats};
        for (QStringList order : orders) {
            order.append(QStringLiteral("past:/old/run"));
            plot.setSelectedRuns(order);
            plot.refreshNow();
            QCPGraph *mean = graphNamed(QStringLiteral("transh (mean of 3)"));
            QVERIFY(mean);
            QCOMPARE(mean->pen().color(), colors.colorFor(QStringLiteral("4")));
            QCPGraph *old = graphNamed(QStringLiteral("old"));
            QVERIFY(old);
            QCOMPARE(old->pen().style(), Qt::DashLine);
            QCOMPARE(old->pen().color(), RunColors::pastPaletteColor(0));
            // The band: a graph filled to another, both edged, in the mean's colour.
            QCPGraph *lower = nullptr;
            for (int i = 0; i < plot.lossPlot()->graphCount(); ++i) {
                lower = plot.lossPlot()->graph(i)->channelFillGraph() ? plot.lossPlot()->graph(i) : lower;
            }
            QVERIFY(lower);
            QVERIFY2(lower->brush().color().alpha() >= 80, qPrintable(QString::number(lower->brush().color().alpha())));
            QCOMPARE(lower->brush().color().rgb(), mean->pen().color().rgb());
            for (QCPGraph *edge : {lower, lower->channelFillGraph()}) {
                QVERIFY(edge->pen().style() != Qt::NoPen);
                QCOMPARE(edge->pen().color().rgb(), mean->pen().color().rgb());
                QVERIFY(edge->pen().color().alpha() >= 150);
            }
        }
    }

    void plotsSelectedRunsWithBands()
    {
        RunColors colors;
        StorePlot plotData(&colors);
        PlotWidget &plot = plotData.plot;
        plot.resize(900, 700);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        // Three repeats of one spec and a lone run.
        for (int r = 0; r < 3; ++r) {
            const QString id = QStringLiteral("rep%1").arg(r);
            plotData.addRun(id, id, QStringLiteral("spec"));
            for (int s = 1; s <= 100 + 20 * r; ++s) {
                plotData.appendMetric(id, s, s / 10.0, s * 0.5, 1.0 / s + 0.01 * r);
            }
            plotData.appendEval(id, 50, 25, QStringLiteral("valid/mrr"), 0.2 + 0.05 * r);
        }
        plotData.addRun(QStringLiteral("solo"), QStringLiteral("solo"), QString());
        for (int s = 1; s <= 80; ++s) {
            plotData.appendMetric(QStringLiteral("solo"), s, s / 10.0, s, 2.0 / s);
        }
        plot.setSelectedRuns({QStringLiteral("rep0"), QStringLiteral("rep1"), QStringLiteral("rep2"),
                              QStringLiteral("solo"), QStringLiteral("unknown")});
        QCOMPARE(plot.selectedRuns().size(), 4);
        plot.refreshNow();
        // The default smoothing applies to every run, as the controls show it.
        QVERIFY(plot.smoothing() > 0);
        QCOMPARE(plot.curve(QStringLiteral("solo"))->smoothing(), plot.smoothing());
        QVERIFY(plot.curve(QStringLiteral("solo"))->smoothed(1) != plot.curve(QStringLiteral("solo"))->value(1));
        // Repeats: one mean line and a band (3 graphs) and each repeat's line past the
        // steps all three reached (3, empty where there is nothing past them); the lone run: one line.
        QCOMPARE(plot.lossPlot()->graphCount(), 7);
        QVERIFY(plot.drawnPointCount(QStringLiteral("group:spec")) > 10);
        QCOMPARE(plot.drawnPointCount(QStringLiteral("solo")), 80);
        QCOMPARE(plot.evalMetric(), QStringLiteral("valid/mrr"));
        QCOMPARE(plot.evalPlot()->graphCount(), 4);
        // Separate lines instead of a band.
        plot.setBand(PlotWidget::Band::Lines);
        plot.refreshNow();
        QCOMPARE(plot.lossPlot()->graphCount(), 4);
        QCOMPARE(plot.drawnPointCount(QStringLiteral("rep2")), 140);
        plot.setBand(PlotWidget::Band::Std);
        plot.refreshNow();
        QCOMPARE(plot.lossPlot()->graphCount(), 7);

        // The x axis follows the chosen quantity; log scale switches the axis.
        plot.setXAxis(XAxis::Wall);
        plot.refreshNow();
        QVERIFY(plot.lossPlot()->xAxis->range().upper >= 80.0);
        plot.setXAxis(XAxis::Step);
        plot.setLogScale(true);
        plot.refreshNow();
        QCOMPARE(plot.lossPlot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
        QVERIFY(plot.lossPlot()->yAxis->range().lower > 0);

        // Zoom stops following; fit follows again.
        plot.lossPlot()->xAxis->setRange(10, 20);
        QTest::mouseDClick(plot.lossPlot(), Qt::LeftButton);
        plot.refreshNow();
        QVERIFY(plot.following());
        QVERIFY(plot.lossPlot()->xAxis->range().upper >= 140.0);

        // Read-out: the group's mean and the lone run at step 10.
        const QString readout = plot.readoutAt(10);
        QVERIFY2(readout.contains(QLatin1String("spec (mean of 3)")) && readout.contains(QLatin1String("solo: 0.2")),
                 qPrintable(readout));
        // The hover line follows the mouse and goes when it leaves, and never into an export
        // (it stayed and landed in exported PNGs).
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        const QPoint inside = plot.lossPlot()->axisRect()->rect().center();
        QMouseEvent move(QEvent::MouseMove, QPointF(inside), plot.lossPlot()->mapToGlobal(QPointF(inside)),
                         Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(plot.lossPlot(), &move);
        QVERIFY(plot.hoverShown());
        QEvent leave(QEvent::Leave);
        QApplication::sendEvent(plot.lossPlot(), &leave);
        QVERIFY(!plot.hoverShown());
        QApplication::sendEvent(plot.lossPlot(), &move);
        QVERIFY(plot.hoverShown());
        QTemporaryDir pngDir;
        QVERIFY(plot.exportPng(pngDir.filePath(QStringLiteral("p.png"))));
        QVERIFY(!plot.hoverShown());
        // Between two steps: the read-out names the nearest whole step ("step 65.9671").
        const QString between = plot.readoutAt(9.6);
        QVERIFY2(between.contains(QLatin1String("step 10</b>")) && between.contains(QLatin1String("solo: 0.2")),
                 qPrintable(between));
    }

    // The loss and evaluation axes start and end at the same x on screen,
    // whatever their tick labels and legends, so a step lines up across them.
    void bothPlotsShareTheirLeftEdge()
    {
        RunColors colors;
        StorePlot plotData(&colors);
        PlotWidget &plot = plotData.plot;
        plot.resize(900, 700);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plotData.addRun(QStringLiteral("r"), QStringLiteral("r"), QString());
        for (int s = 1; s <= 50; ++s) {
            plotData.appendMetric(QStringLiteral("r"), s, 0, s, 123456.0 + s); // wide labels
        }
        plotData.appendEval(QStringLiteral("r"), 25, 25, QStringLiteral("valid/mrr"), 0.3);
        plotData.appendEval(QStringLiteral("r"), 50, 50, QStringLiteral("valid/mrr"), 0.5);
        plot.setSelectedRuns({QStringLiteral("r")});
        plot.refreshNow();
        const int lossLeft = plot.lossPlot()->axisRect()->rect().left();
        QVERIFY(lossLeft > 60);
        QCOMPARE(plot.evalPlot()->axisRect()->rect().left(), lossLeft);
        // And end at the same x, though the legends differ ("r" beside both; a
        // second run with a long name in the loss plot only).
        plotData.addRun(QStringLiteral("s"), QStringLiteral("a run with a long name"), QString());
        plotData.appendMetric(QStringLiteral("s"), 1, 0, 1, 2.0);
        plotData.appendMetric(QStringLiteral("s"), 50, 0, 50, 1.0);
        plot.setSelectedRuns({QStringLiteral("r"), QStringLiteral("s")});
        plot.refreshNow();
        QCOMPARE(plot.evalPlot()->axisRect()->rect().right(), plot.lossPlot()->axisRect()->rect().right());
        QCOMPARE(plot.evalPlot()->axisRect()->rect().left(), plot.lossPlot()->axisRect()->rect().left());
    }

    // with nothing selected, the axes of the last selection stayed.
    void anEmptySelectionClearsBothPlots()
    {
        RunColors colors;
        StorePlot plotData(&colors);
        PlotWidget &plot = plotData.plot;
        plot.resize(900, 700);
        plotData.addRun(QStringLiteral("r"), QStringLiteral("r"), QString());
        for (int s = 100; s <= 200; ++s) {
            plotData.appendMetric(QStringLiteral("r"), s, 0, s, 10.0 + s / 20.0);
        }
        plotData.appendEval(QStringLiteral("r"), 150, 150, QStringLiteral("valid/mrr"), 0.3);
        plotData.appendEval(QStringLiteral("r"), 200, 200, QStringLiteral("valid/mrr"), 0.5);
        const auto hint = [](QCustomPlot *p) {
            for (int i = 0; i < p->itemCount(); ++i) {
                auto *text = qobject_cast<QCPItemText *>(p->item(i));
                if (text && text->visible()) {
                    return text->text();
                }
            }
            return QString();
        };
        plot.setSelectedRuns({QStringLiteral("r")});
        plot.refreshNow();
        QVERIFY(plot.lossPlot()->xAxis->range().lower >= 90); // the data (100..200, a little room), not 0..1
        QVERIFY(plot.lossPlot()->yAxis->range().lower > 10);
        QVERIFY(plot.evalPlot()->yAxis->range().lower > 0.2);
        QVERIFY(hint(plot.lossPlot()).isEmpty());

        plot.setSelectedRuns({});
        plot.refreshNow();
        QCOMPARE(plot.lossPlot()->graphCount(), 0);
        QCOMPARE(plot.evalPlot()->graphCount(), 0);
        QCOMPARE(plot.lossPlot()->xAxis->range(), QCPRange(0, 1));
        QCOMPARE(plot.evalPlot()->xAxis->range(), QCPRange(0, 1));
        QCOMPARE(plot.lossPlot()->yAxis->range(), QCPRange(0, 1));
        QCOMPARE(plot.evalPlot()->yAxis->range(), QCPRange(0, 1));
        QCOMPARE(hint(plot.lossPlot()), QStringLiteral("Select runs to plot"));
        // Also on a log scale, and after a zoom.
        plot.setLogScale(true);
        plot.lossPlot()->xAxis->setRange(5, 6);
        plot.fitToData();
        plot.refreshNow();
        QCOMPARE(plot.lossPlot()->xAxis->range(), QCPRange(0, 1));
        QCOMPARE(plot.lossPlot()->yAxis->range(), QCPRange(0.1, 10));

        plot.setSelectedRuns({QStringLiteral("r")});
        plot.refreshNow();
        QVERIFY(plot.lossPlot()->xAxis->range().lower >= 90);
        QVERIFY(hint(plot.lossPlot()).isEmpty());
    }

    // on a log scale a loss below 1 had no tick label below 1 (only the powers
    // of ten were labelled, or evenly spaced ticks bunched at the top of the axis).
    void logScaleLabelsSmallLosses()
    {
        RunColors colors;
        StorePlot plotData(&colors);
        PlotWidget &plot = plotData.plot;
        plot.resize(900, 700);
        plot.setSmoothing(0);
        plot.setLogScale(true);
        plotData.addRun(QStringLiteral("r"), QStringLiteral("r"), QString());
        plot.setSelectedRuns({QStringLiteral("r")});
        // The ticks and labels the loss axis shows for these losses (in its range).
        QList<double> ticks;
        QStringList shown;
        const auto show = [&](const QList<double> &losses) {
            plotData.resetRunData(QStringLiteral("r"));
            for (int i = 0; i < losses.size(); ++i) {
                plotData.appendMetric(QStringLiteral("r"), i + 1, 0, i + 1, losses.at(i));
            }
            plot.refreshNow();
            QCPAxis *y = plot.lossPlot()->yAxis;
            ticks.clear();
            shown.clear();
            for (int i = 0; i < y->tickVector().size(); ++i) {
                if (y->range().contains(y->tickVector().at(i))) {
                    ticks.append(y->tickVector().at(i));
                    shown.append(y->tickVectorLabels().at(i));
                }
            }
            // Labels spread over the whole axis: no stretch of more than 40 % of it (on the
            // log scale) without one, from either end.
            const double lo = std::log(y->range().lower);
            const double span = std::log(y->range().upper) - lo;
            double previous = 0;
            double widest = 0;
            for (double t : std::as_const(ticks)) {
                widest = std::max(widest, (std::log(t) - lo) / span - previous);
                previous = (std::log(t) - lo) / span;
            }
            // and none near either end, where a curve starts or ends.
            const double ends = std::max((std::log(ticks.first()) - lo) / span, 1 - previous);
            widest = std::max(widest, 1 - previous);
            const QString what =
                shown.join(QLatin1Char(' ')) + QStringLiteral(" widest gap %1, at the ends %2").arg(widest).arg(ends);
            QVERIFY2(shown.size() >= 2 && widest <= 0.4 && ends <= 0.25, qPrintable(what));
            for (const QString &label : std::as_const(shown)) {
                QVERIFY2(!label.isEmpty(), qPrintable(what));
            }
        };
        // From above 10 down below 1: a label below 1 (0.5 or so), not just 1 and 10.
        show({50, 5, 0.3});
        QVERIFY2(std::any_of(ticks.begin(), ticks.end(), [](double t) { return t < 1; }),
                 qPrintable(shown.join(QLatin1Char(' '))));
        // a loss from 13 down to 5 had labels 6 to 10 only.
        show({13, 11, 9, 7, 5.5, 5});
        QVERIFY2(std::any_of(ticks.begin(), ticks.end(), [](double t) { return t >= 11; }),
                 qPrintable(shown.join(QLatin1Char(' '))));
        show({33, 20, 9.6});
        // Within one decade below 1.
        show({0.6, 0.45, 0.3, 0.2});
        QVERIFY2(shown.contains(QLatin1String("0.2")) || shown.contains(QLatin1String("0.3")),
                 qPrintable(shown.join(QLatin1Char(' '))));
        show({2.5, 0.05});
        show({0.05, 0.005}); // small values read as decimals
        QVERIFY2(shown.contains(QLatin1String("0.01")), qPrintable(shown.join(QLatin1Char(' '))));
        show({0.151, 0.15, 0.149}); // nearly flat
        // Several decades: the powers of ten.
        show({10, 1, 0.1, 0.01, 0.001});
        for (const char *decade : {"0.001", "0.01", "0.1", "1", "10"}) {
            QVERIFY2(shown.contains(QLatin1String(decade)), qPrintable(shown.join(QLatin1Char(' '))));
        }
        show({1e6, 1e-6}); // very many
    }

    // the evaluation axis read "0.0118, 0.0118, 0.0117, 0.0117".
    void axisLabelsTellTicksApart()
    {
        RunColors colors;
        StorePlot plotData(&colors);
        PlotWidget &plot = plotData.plot;
        plot.resize(900, 700);
        plot.setSmoothing(0);
        plotData.addRun(QStringLiteral("r"), QStringLiteral("r"), QString());
        for (int s = 1; s <= 10; ++s) {
            plotData.appendMetric(QStringLiteral("r"), s, 0, s, 1000.01 + 0.004 * s); // a loss that barely moves
            plotData.appendEval(QStringLiteral("r"), s, s, QStringLiteral("valid/mrr"), 0.01171 + 0.00001 * s);
        }
        plot.setSelectedRuns({QStringLiteral("r")});
        plot.refreshNow();
        for (QCPAxis *axis : {plot.evalPlot()->yAxis, plot.lossPlot()->yAxis}) {
            QStringList labels;
            for (int i = 0; i < axis->tickVector().size(); ++i) {
                if (axis->range().contains(axis->tickVector().at(i))) {
                    labels.append(axis->tickVectorLabels().at(i));
                }
            }
            const QString what = labels.join(QStringLiteral(", "));
            QVERIFY2(labels.size() >= 3, qPrintable(what));
            QCOMPARE(QSet<QString>(labels.begin(), labels.end()).size(), labels.size());
            // Each label reads back as its tick (to the tick step), not a rounded neighbour.
            const double step = axis->tickVector().at(1) - axis->tickVector().at(0);
            for (int i = 0; i < axis->tickVector().size(); ++i) {
                bool ok = false;
                const double read = axis->tickVectorLabels().at(i).toDouble(&ok);
                QVERIFY2(ok && std::abs(read - axis->tickVector().at(i)) < 0.01 * step, qPrintable(what));
            }
        }
        // Large values are written alike, each with its power of ten (typeset
        // as "·10⁵"), not "750000" under "1·10⁶".
        for (int s = 1; s <= 10; ++s) {
            plotData.store.add(plotData.ids.value(QStringLiteral("r")), QStringLiteral("samples_per_s"), s, s,
                               130000.0 * s);
        }
        plotData.store.flush();
        plot.setCurveMetric(QStringLiteral("samples_per_s"));
        plot.refreshNow();
        QCOMPARE(plot.curveMetric(), QStringLiteral("samples_per_s"));
        QCPAxis *axis = plot.lossPlot()->yAxis;
        QStringList labels;
        for (int i = 0; i < axis->tickVector().size(); ++i) {
            if (axis->range().contains(axis->tickVector().at(i)) && axis->tickVector().at(i) != 0) {
                labels.append(axis->tickVectorLabels().at(i));
            }
        }
        QVERIFY2(labels.size() >= 3, qPrintable(labels.join(QStringLiteral(", "))));
        for (const QString &label : std::as_const(labels)) {
            QVERIFY2(label.contains(QLatin1Char('e')) && !label.contains(QLatin1String("0e")),
                     qPrintable(labels.join(QStringLiteral(", "))));
        }
    }

    // the legends sat inside the axes, over the curves.
    void legendsStayOutsideTheAxes()
    {
        RunColors colors;
        StorePlot plotData(&colors);
        PlotWidget &plot = plotData.plot;
        plot.resize(900, 700);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        QStringList ids;
        const auto addRuns = [&](int n) {
            for (int i = 0; i < n; ++i) {
                const QString id = QStringLiteral("run-with-a-long-name-%1").arg(ids.size());
                plotData.addRun(id, id, QString());
                for (int s = 1; s <= 50; ++s) {
                    plotData.appendMetric(id, s, 0, s, 1.0 / s);
                }
                plotData.appendEval(id, 50, 50, QStringLiteral("valid/mrr"), 0.5);
                ids.append(id);
            }
            plot.setSelectedRuns(ids);
            plot.refreshNow();
        };
        addRuns(3);
        for (QCustomPlot *p : {plot.lossPlot(), plot.evalPlot()}) {
            const QRect legend = p->legend->outerRect();
            QVERIFY(p->legend->visible());
            QCOMPARE(p->legend->itemCount(), 3);
            QVERIFY(legend.width() > 0 && legend.height() > 0);
            QVERIFY2(!legend.intersects(p->axisRect()->outerRect()), p->objectName().toUtf8());
            QVERIFY(p->rect().contains(legend));
        }
        const int withLegend = plot.lossPlot()->axisRect()->width();
        // with ten runs selected the legends vanished. Eleven: every
        // run listed, in columns when one is too short, beside the axes, all
        // inside the plot, and the axes keep most of the width.
        const auto checkLegend = [](QCustomPlot *p) {
            QVERIFY(p->legend->visible());
            QVERIFY2(p->rect().contains(p->legend->outerRect()), p->objectName().toUtf8());
            QVERIFY(!p->legend->outerRect().intersects(p->axisRect()->outerRect()));
            for (int i = 0; i < p->legend->itemCount(); ++i) {
                QVERIFY(p->rect().contains(p->legend->item(i)->outerRect()));
            }
            QVERIFY2(p->axisRect()->width() >= 0.55 * p->width(), qPrintable(QString::number(p->axisRect()->width())));
        };
        addRuns(8);
        for (QCustomPlot *p : {plot.lossPlot(), plot.evalPlot()}) {
            checkLegend(p);
            QCOMPARE(p->legend->itemCount(), 11);
        }
        QVERIFY(plot.lossPlot()->legend->columnCount() >= 1);
        // A smaller window: more columns, or the rest summed up, never cut.
        plot.resize(700, 450);
        QApplication::processEvents();
        plot.refreshNow();
        for (QCustomPlot *p : {plot.lossPlot(), plot.evalPlot()}) {
            checkLegend(p);
        }
        plot.resize(900, 700);
        QApplication::processEvents();
        // Many more: the ones that fit, then "+N more" (the read-out names every run).
        addRuns(40);
        for (QCustomPlot *p : {plot.lossPlot(), plot.evalPlot()}) {
            checkLegend(p);
            auto *last = p->legend->item(p->legend->itemCount() - 1);
            QVERIFY(!qobject_cast<QCPPlottableLegendItem *>(last));
            QVERIFY(p->legend->itemCount() >= 12);
        }
        plot.setSelectedRuns(ids.mid(0, 2));
        plot.refreshNow();
        QVERIFY(plot.lossPlot()->legend->visible());
        QCOMPARE(plot.lossPlot()->legend->itemCount(), 2);
        QVERIFY(plot.lossPlot()->axisRect()->width() >= withLegend);
        QVERIFY(!plot.lossPlot()->legend->outerRect().intersects(plot.lossPlot()->axisRect()->outerRect()));
    }

    // An image is drawn at its own size (trainyard-plot exports a plot that
    // is never shown): the legends are laid out for that size, then for the screen's.
    void exportedLegendsFitTheImage()
    {
        RunColors colors;
        StorePlot plotData(&colors);
        PlotWidget &plot = plotData.plot; // never shown: a small widget
        QStringList ids;
        for (int i = 1; i <= 10; ++i) {
            const QString id = QString::number(i);
            plotData.addRun(id, QStringLiteral("run-%1").arg(i), QString());
            for (int s = 1; s <= 20; ++s) {
                plotData.appendMetric(id, s, 0, s, 1.0 / s + i);
            }
            ids.append(id);
        }
        plot.setSelectedRuns(ids);
        plot.refreshNow();
        QVERIFY(plot.lossPlot()->legend->itemCount() < 10); // no room on the small widget
        int listed = -1;
        connect(plot.lossPlot(), &QCustomPlot::afterLayout, this, [&] {
            if (plot.lossPlot()->viewport().width() == 1000) {
                listed = 0;
                for (int i = 0; i < plot.lossPlot()->legend->itemCount(); ++i) {
                    listed += qobject_cast<QCPPlottableLegendItem *>(plot.lossPlot()->legend->item(i)) ? 1 : 0;
                }
            }
        });
        QTemporaryDir dir;
        QVERIFY(plot.exportPng(dir.filePath(QStringLiteral("p.png")), 1000, 1400));
        QCOMPARE(listed, 10);
        QVERIFY(plot.lossPlot()->legend->itemCount() < 10); // the widget's layout again
    }

    // the evaluation legend listed runs without a value for the chosen metric.
    void legendsListOnlyRunsWithValues()
    {
        RunColors colors;
        StorePlot plotData(&colors);
        PlotWidget &plot = plotData.plot;
        plot.resize(900, 700);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        QStringList ids;
        for (int i = 1; i <= 12; ++i) {
            const QString id = QString::number(i);
            plotData.addRun(id, QStringLiteral("run-%1").arg(i), QString());
            for (int s = 1; s <= 20; ++s) {
                plotData.appendMetric(id, s, 0, s, 1.0 / s);
            }
            if (i % 3 == 0) {
                plotData.appendEval(id, 20, 20, QStringLiteral("valid/mrr"), 0.1 * i);
            }
            ids.append(id);
        }
        plot.setSelectedRuns(ids);
        plot.refreshNow();
        const auto listed = [](QCustomPlot *p) {
            QStringList names;
            for (int i = 0; i < p->legend->itemCount(); ++i) {
                if (auto *item = qobject_cast<QCPPlottableLegendItem *>(p->legend->item(i))) {
                    names.append(item->plottable()->name());
                }
            }
            return names;
        };
        QCOMPARE(plot.evalMetric(), QStringLiteral("valid/mrr"));
        QCOMPARE(listed(plot.evalPlot()), (QStringList{QStringLiteral("run-3"), QStringLiteral("run-6"),
                                                       QStringLiteral("run-9"), QStringLiteral("run-12")}));
        QCOMPARE(listed(plot.lossPlot()).size(), 12);
        // A run's first evaluation puts it in the legend.
        plotData.appendEval(QStringLiteral("1"), 20, 20, QStringLiteral("valid/mrr"), 0.5);
        plotData.store.flush();
        QCOMPARE(listed(plot.evalPlot()).first(), QStringLiteral("run-1"));
        QCOMPARE(listed(plot.evalPlot()).size(), 5);
    }

    // the evaluation plot got 2/5 of the height; it gets half, and the user can move the split.
    void evaluationPlotGetsAFairShare()
    {
        RunColors colors;
        StorePlot plotData(&colors);
        PlotWidget &plot = plotData.plot;
        plot.resize(900, 700);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        const int loss = plot.lossPlot()->height();
        const int eval = plot.evalPlot()->height();
        QVERIFY2(std::abs(loss - eval) <= 0.05 * (loss + eval),
                 qPrintable(QStringLiteral("%1 %2").arg(loss).arg(eval)));
        auto *splitter = qobject_cast<QSplitter *>(plot.lossPlot()->parentWidget());
        QVERIFY(splitter);
        QCOMPARE(splitter->indexOf(plot.evalPlot()), 1);
        QVERIFY(!splitter->childrenCollapsible());
        splitter->setSizes({(loss + eval) / 4, 3 * (loss + eval) / 4});
        QTRY_VERIFY(plot.evalPlot()->height() > 2 * plot.lossPlot()->height());
        // An image shows the plots the way the window does.
        plotData.addRun(QStringLiteral("r"), QStringLiteral("r"), QString());
        plot.setSelectedRuns({QStringLiteral("r")});
        QTemporaryDir dir;
        QVERIFY(plot.exportPng(dir.filePath(QStringLiteral("p.png")), 400, 800));
        QImage image(dir.filePath(QStringLiteral("p.png")));
        QCOMPARE(image.size(), QSize(400, 800));
    }

    // with only KG runs selected, "valid/accuracy" stayed chosen and the plot was empty.
    void evalMetricsFollowTheSelection()
    {
        RunColors colors;
        StorePlot plotData(&colors);
        PlotWidget &plot = plotData.plot;
        plot.resize(900, 700);
        for (const QString &id : {QStringLiteral("kg"), QStringLiteral("img")}) {
            plotData.addRun(id, id, QString());
            for (int s = 1; s <= 20; ++s) {
                plotData.appendMetric(id, s, 0, s, 1.0 / s);
            }
        }
        for (int s = 10; s <= 20; s += 10) {
            plotData.appendEval(QStringLiteral("kg"), s, s, QStringLiteral("valid/hits@10"), 0.4);
            plotData.appendEval(QStringLiteral("kg"), s, s, QStringLiteral("valid/mrr"), 0.2);
            plotData.appendEval(QStringLiteral("img"), s, s, QStringLiteral("valid/accuracy"), 0.9);
        }
        auto *box = plot.findChild<QComboBox *>(QStringLiteral("evalMetric"));
        QVERIFY(box);
        const auto listed = [box] {
            QStringList items;
            for (int i = 0; i < box->count(); ++i) {
                items.append(box->itemText(i));
            }
            return items;
        };
        // Every metric is offered (the loss too: either plot shows any).
        const QStringList kgMetrics{QStringLiteral("loss"), QStringLiteral("valid/hits@10"),
                                    QStringLiteral("valid/mrr")};
        plot.setSelectedRuns({QStringLiteral("img")});
        QCOMPARE(plot.availableMetrics(), (QStringList{QStringLiteral("loss"), QStringLiteral("valid/accuracy")}));
        QCOMPARE(plot.evalMetric(), QStringLiteral("valid/accuracy"));

        // Only KG runs: their metrics, MRR first choice, and the plot shows it.
        plot.setSelectedRuns({QStringLiteral("kg")});
        QCOMPARE(plot.availableMetrics(), kgMetrics);
        QCOMPARE(listed(), kgMetrics);
        QCOMPARE(plot.evalMetric(), QStringLiteral("valid/mrr"));
        QCOMPARE(box->currentText(), QStringLiteral("valid/mrr"));
        plot.refreshNow();
        QCOMPARE(plot.evalPlot()->graph(0)->dataCount(), 2);

        // The user picks Hits@10 in the list; it stays while it is there.
        box->setFocus();
        QTest::keyClick(box, Qt::Key_Up);
        QCOMPARE(plot.evalMetric(), QStringLiteral("valid/hits@10"));
        plot.setSelectedRuns({QStringLiteral("img")});
        QCOMPARE(plot.evalMetric(), QStringLiteral("valid/accuracy"));
        plot.setSelectedRuns({QStringLiteral("img"), QStringLiteral("kg")});
        QCOMPARE(plot.availableMetrics().size(), 4);
        QCOMPARE(plot.evalMetric(), QStringLiteral("valid/hits@10")); // back to the user's choice
        plot.setSelectedRuns({QStringLiteral("kg")});
        QCOMPARE(plot.evalMetric(), QStringLiteral("valid/hits@10"));

        // A metric that arrives for a selected run is listed; nothing selected, nothing listed.
        plotData.appendEval(QStringLiteral("kg"), 20, 20, QStringLiteral("test/mrr"), 0.25);
        plotData.store.flush();
        QVERIFY(plot.availableMetrics().contains(QStringLiteral("test/mrr")));
        plot.setSelectedRuns({});
        QVERIFY(plot.availableMetrics().isEmpty());
        QCOMPARE(box->count(), 0);
        // A bare metric name picks that metric of a split.
        plot.setSelectedRuns({QStringLiteral("img")});
        plot.setEvalMetric(QStringLiteral("accuracy"));
        QCOMPARE(plot.evalMetric(), QStringLiteral("valid/accuracy"));
    }

    // only the loss and evaluation metrics could be plotted; "valid/epoch" was offered.
    void anyMetricARunReportsCanBePlotted()
    {
        appSettings().remove(QStringLiteral("plot"));
        RunColors colors;
        const QString grad = QStringLiteral("grad_norm");
        {
            StorePlot plotData(&colors);
            PlotWidget &plot = plotData.plot;
            plot.resize(900, 700);
            plot.rememberSettings();
            plot.setSmoothing(0);
            // A script's run (loss, lr and its own grad_norm) and the worker's
            // (throughput and memory), both evaluated, as the store names them.
            plotData.addRun(QStringLiteral("1"), QStringLiteral("script"), QString());
            plotData.addRun(QStringLiteral("2"), QStringLiteral("worker"), QString());
            const RunId script = plotData.ids.value(QStringLiteral("1"));
            const RunId worker = plotData.ids.value(QStringLiteral("2"));
            for (int s = 1; s <= 40; ++s) {
                plotData.appendMetric(QStringLiteral("1"), s, s / 10, s, 1.0 / s);
                plotData.store.add(script, QStringLiteral("lr"), s, s, 1e-3);
                plotData.store.add(script, grad, s, s, 10.0 + s);
                plotData.appendMetric(QStringLiteral("2"), s, s / 10, s, 2.0 / s);
                plotData.store.add(worker, QStringLiteral("samples_per_s"), s, s, 500.0 + s);
                plotData.store.add(worker, QStringLiteral("mem_bytes"), s, s, 1e8);
            }
            for (const RunId run : {script, worker}) {
                plotData.store.add(run, QStringLiteral("valid/mrr"), 40, 40, 0.3);
                plotData.store.add(run, QStringLiteral("valid/epoch"), 40, 40, 4);
            }
            plot.setSelectedRuns({QStringLiteral("1"), QStringLiteral("2")});
            plot.refreshNow();
            const QStringList offered{grad,
                                      QStringLiteral("loss"),
                                      QStringLiteral("lr"),
                                      QStringLiteral("mem_bytes"),
                                      QStringLiteral("samples_per_s"),
                                      QStringLiteral("valid/mrr")};
            QCOMPARE(plot.availableMetrics(), offered); // no "epoch", no "valid/epoch"
            auto *upper = plot.findChild<QComboBox *>(QStringLiteral("curveMetric"));
            auto *lower = plot.findChild<QComboBox *>(QStringLiteral("evalMetric"));
            QVERIFY(upper && lower);
            for (QComboBox *box : {upper, lower}) {
                QCOMPARE(box->count(), offered.size());
                for (int i = 0; i < box->count(); ++i) {
                    QCOMPARE(box->itemText(i), offered.at(i));
                }
            }
            QCOMPARE(upper->currentText(), QStringLiteral("loss"));
            QCOMPARE(lower->currentText(), QStringLiteral("valid/mrr"));

            // The user picks grad_norm for the upper plot (the first in its list).
            upper->setFocus();
            QTest::keyClick(upper, Qt::Key_Home);
            QCOMPARE(plot.curveMetric(), grad);
            plot.refreshNow();
            const auto graphNamed = [](QCustomPlot *p, const QString &name) -> QCPGraph * {
                for (int i = 0; i < p->graphCount(); ++i) {
                    if (p->graph(i)->name() == name) {
                        return p->graph(i);
                    }
                }
                return nullptr;
            };
            QCPGraph *line = graphNamed(plot.lossPlot(), QStringLiteral("script"));
            QVERIFY(line);
            QCOMPARE(line->dataCount(), 40);
            QCOMPARE((line->data()->constEnd() - 1)->value, 50.0);
            QCOMPARE(plot.lossPlot()->yAxis->label(), grad);
            QVERIFY(plot.lossPlot()->yAxis->range().contains(50.0));
            // The worker's run has none: no line, not in the legend.
            QCOMPARE(graphNamed(plot.lossPlot(), QStringLiteral("worker"))->dataCount(), 0);
            QCOMPARE(plot.lossPlot()->legend->itemCount(), 1);
            QVERIFY(plot.readoutAt(20).contains(QLatin1String("script: 30")));

            // And samples_per_s for the lower plot (just above valid/mrr).
            lower->setFocus();
            QTest::keyClick(lower, Qt::Key_Up);
            QCOMPARE(plot.evalMetric(), QStringLiteral("samples_per_s"));
            plot.refreshNow();
            QCPGraph *points = graphNamed(plot.evalPlot(), QStringLiteral("worker"));
            QCOMPARE(points->dataCount(), 40);
            QCOMPARE((points->data()->constEnd() - 1)->value, 540.0);
            QCOMPARE(plot.evalPlot()->legend->itemCount(), 1);
            QCOMPARE(plot.evalPlot()->yAxis->label(), QStringLiteral("samples_per_s"));

            // Only the worker's run selected: its metrics offered, the loss back on top.
            plot.setSelectedRuns({QStringLiteral("2")});
            QVERIFY(!plot.availableMetrics().contains(grad));
            QCOMPARE(plot.curveMetric(), QStringLiteral("loss"));
            QCOMPARE(plot.evalMetric(), QStringLiteral("samples_per_s"));
            plot.setSelectedRuns({QStringLiteral("1"), QStringLiteral("2")});
            QCOMPARE(plot.curveMetric(), grad); // the pick is kept while it is missing
        }
        // Remembered across restarts, like the other settings.
        StorePlot plotData(&colors);
        PlotWidget &plot = plotData.plot;
        plot.rememberSettings();
        plotData.addRun(QStringLiteral("1"), QStringLiteral("script"), QString());
        plotData.store.add(plotData.ids.value(QStringLiteral("1")), grad, 1, 1, 3.0);
        plotData.store.add(plotData.ids.value(QStringLiteral("1")), QStringLiteral("samples_per_s"), 1, 1, 9.0);
        plot.setSelectedRuns({QStringLiteral("1")});
        QCOMPARE(plot.curveMetric(), grad);
        QCOMPARE(plot.evalMetric(), QStringLiteral("samples_per_s"));
        appSettings().remove(QStringLiteral("plot"));
    }

    // What each plot shows without the user's pick, or while the runs lack it.
    void metricChoiceFallsBack()
    {
        using Plot = PlotMetricChoice::Plot;
        const QString none;
        QCOMPARE(PlotMetricChoice::shownFor(Plot::Upper, {}, none), QStringLiteral("loss"));
        QCOMPARE(PlotMetricChoice::shownFor(Plot::Upper, {QStringLiteral("acc"), QStringLiteral("loss")}, none),
                 QStringLiteral("loss"));
        // A script that logs no loss (the module's loss is optional): its first training metric.
        QCOMPARE(PlotMetricChoice::shownFor(Plot::Upper, {QStringLiteral("acc"), QStringLiteral("valid/acc")}, none),
                 QStringLiteral("acc"));
        QCOMPARE(PlotMetricChoice::shownFor(Plot::Upper, {QStringLiteral("valid/acc")}, none), QStringLiteral("loss"));
        QCOMPARE(PlotMetricChoice::shownFor(Plot::Upper, {QStringLiteral("lr"), QStringLiteral("loss")},
                                            QStringLiteral("lr")),
                 QStringLiteral("lr"));
        // Below: an evaluation metric, never a training one unless picked.
        QCOMPARE(PlotMetricChoice::shownFor(Plot::Lower, {QStringLiteral("loss"), QStringLiteral("lr")}, none), none);
        QCOMPARE(
            PlotMetricChoice::shownFor(
                Plot::Lower, {QStringLiteral("loss"), QStringLiteral("test/mrr"), QStringLiteral("valid/mrr")}, none),
            QStringLiteral("valid/mrr"));
        QCOMPARE(PlotMetricChoice::shownFor(Plot::Lower, {QStringLiteral("loss"), QStringLiteral("test/hits@1")}, none),
                 QStringLiteral("test/hits@1"));
        QCOMPARE(PlotMetricChoice::shownFor(Plot::Lower, {QStringLiteral("lr"), QStringLiteral("valid/mrr")},
                                            QStringLiteral("lr")),
                 QStringLiteral("lr"));
    }

    // smoothing, log scale, x axis, band and metric were forgotten on reopen.
    void settingsAreRememberedAcrossRestarts()
    {
        const QString file = m_settingsDir.filePath(QStringLiteral("trainyard/trainyard.conf"));
        appSettings().remove(QStringLiteral("plot"));
        RunColors colors;
        {
            // A plot that is not the app's (trainyard-plot, the benchmarks) leaves them alone.
            StorePlot toolData(&colors);
            PlotWidget &tool = toolData.plot;
            tool.setLogScale(true);
            tool.setSmoothing(0.1);
        }
        QVERIFY(!appSettings().contains(QStringLiteral("plot/logScale")));
        {
            StorePlot plotData(&colors);
            PlotWidget &plot = plotData.plot;
            plot.rememberSettings();
            QCOMPARE(plot.smoothing(), 0.6); // nothing saved yet: the defaults
            QVERIFY(!plot.logScale());
            // Through the controls, as the user sets them.
            plot.findChild<QSlider *>(QStringLiteral("smoothing"))->setValue(30);
            plot.findChild<QCheckBox *>(QStringLiteral("logScale"))->setChecked(true);
            auto *x = plot.findChild<QComboBox *>(QStringLiteral("xAxis"));
            x->setCurrentIndex(x->findData(int(XAxis::Epoch)));
            auto *band = plot.findChild<QComboBox *>(QStringLiteral("band"));
            band->setCurrentIndex(band->findData(int(RepeatBand::Std)));
            plot.setEvalMetric(QStringLiteral("valid/hits@10"));
            QCOMPARE(plot.smoothing(), 0.3);
            QCOMPARE(plot.xAxis(), XAxis::Epoch);
        }
        QVERIFY(QFile::exists(file));
        {
            StorePlot plotData(&colors);
            PlotWidget &plot = plotData.plot;
            plot.rememberSettings();
            QCOMPARE(plot.smoothing(), 0.3);
            QVERIFY(plot.logScale());
            QCOMPARE(plot.xAxis(), XAxis::Epoch);
            QCOMPARE(plot.band(), RepeatBand::Std);
            QCOMPARE(plot.lossPlot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
            // The controls show them.
            QCOMPARE(plot.findChild<QSlider *>(QStringLiteral("smoothing"))->value(), 30);
            QVERIFY(plot.findChild<QCheckBox *>(QStringLiteral("logScale"))->isChecked());
            QCOMPARE(plot.findChild<QComboBox *>(QStringLiteral("xAxis"))->currentData().toInt(), int(XAxis::Epoch));
            QCOMPARE(plot.findChild<QComboBox *>(QStringLiteral("band"))->currentData().toInt(), int(RepeatBand::Std));
            // The metric is chosen as soon as a selected run has it, over MRR.
            plotData.addRun(QStringLiteral("kg"), QStringLiteral("kg"), QString());
            plotData.appendEval(QStringLiteral("kg"), 10, 10, QStringLiteral("valid/mrr"), 0.2);
            plotData.appendEval(QStringLiteral("kg"), 10, 10, QStringLiteral("valid/hits@10"), 0.4);
            plot.setSelectedRuns({QStringLiteral("kg")});
            QCOMPARE(plot.evalMetric(), QStringLiteral("valid/hits@10"));
        }
        {
            // Values this version cannot read leave the defaults.
            QSettings s(QStringLiteral("trainyard"), QStringLiteral("trainyard"));
            s.setValue(QStringLiteral("plot/smoothing"), QStringLiteral("lots"));
            s.setValue(QStringLiteral("plot/xAxis"), QStringLiteral("sideways"));
            s.setValue(QStringLiteral("plot/band"), 7);
        }
        StorePlot plotData(&colors);
        PlotWidget &plot = plotData.plot;
        plot.rememberSettings();
        QCOMPARE(plot.smoothing(), 0.6);
        QCOMPARE(plot.xAxis(), XAxis::Step);
        QCOMPARE(plot.band(), RepeatBand::MinMax);
        QVERIFY(plot.logScale());
        appSettings().remove(QStringLiteral("plot"));
    }

    // there was no box zoom. Ctrl+drag draws one; pan, wheel and double-click stay.
    void ctrlDragZoomsToABox()
    {
        RunColors colors;
        StorePlot plotData(&colors);
        PlotWidget &plot = plotData.plot;
        plot.resize(900, 700);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plot.setSmoothing(0);
        plotData.addRun(QStringLiteral("r"), QStringLiteral("r"), QString());
        for (int s = 0; s <= 100; ++s) {
            plotData.appendMetric(QStringLiteral("r"), s, 0, s, 10.0 - s / 10.0);
        }
        plotData.appendEval(QStringLiteral("r"), 100, 100, QStringLiteral("valid/mrr"), 0.5);
        plot.setSelectedRuns({QStringLiteral("r")});
        plot.refreshNow();
        QCustomPlot *p = plot.lossPlot();
        const auto at = [p](double x, double y) {
            return QPointF(p->xAxis->coordToPixel(x), p->yAxis->coordToPixel(y));
        };
        const auto mouse = [p](QEvent::Type type, const QPointF &pos, Qt::MouseButtons buttons,
                               Qt::KeyboardModifiers modifiers) {
            QMouseEvent event(type, pos, p->mapToGlobal(pos), type == QEvent::MouseMove ? Qt::NoButton : Qt::LeftButton,
                              buttons, modifiers);
            QApplication::sendEvent(p, &event);
        };
        const auto drag = [&](const QPointF &from, const QPointF &to, Qt::KeyboardModifiers modifiers) {
            mouse(QEvent::MouseButtonPress, from, Qt::LeftButton, modifiers);
            mouse(QEvent::MouseMove, (from + to) / 2, Qt::LeftButton, modifiers);
            mouse(QEvent::MouseMove, to, Qt::LeftButton, modifiers);
            mouse(QEvent::MouseButtonRelease, to, Qt::NoButton, modifiers);
            plot.refreshNow();
        };
        // Ctrl+drag from (step 20, loss 8) to (step 40, loss 6): the axes show that box.
        drag(at(20, 8), at(40, 6), Qt::ControlModifier);
        QVERIFY(!plot.following());
        const QCPRange x = p->xAxis->range();
        const QCPRange y = p->yAxis->range();
        QVERIFY2(std::abs(x.lower - 20) < 0.5 && std::abs(x.upper - 40) < 0.5,
                 qPrintable(QStringLiteral("%1..%2").arg(x.lower).arg(x.upper)));
        QVERIFY2(std::abs(y.lower - 6) < 0.1 && std::abs(y.upper - 8) < 0.1,
                 qPrintable(QStringLiteral("%1..%2").arg(y.lower).arg(y.upper)));
        QCOMPARE(plot.evalPlot()->xAxis->range(), x); // one x range for both plots
        // A Ctrl+click is no box: nothing changes.
        drag(at(30, 7), at(30, 7), Qt::ControlModifier);
        QCOMPARE(p->xAxis->range(), x);
        // A plain drag still pans: the range moves, its size stays.
        drag(at(30, 7), at(30, 7) + QPointF(100, 0), Qt::NoModifier);
        QVERIFY(p->xAxis->range().lower < x.lower - 1);
        QVERIFY(std::abs(p->xAxis->range().size() - x.size()) < 1e-6);
        // The wheel still zooms.
        const double before = p->xAxis->range().size();
        const QPointF centre = at(30, 7);
        QWheelEvent wheel(centre, p->mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(p, &wheel);
        QVERIFY(p->xAxis->range().size() < before);
        // A double-click follows the data again.
        QTest::mouseDClick(p, Qt::LeftButton, Qt::NoModifier, centre.toPoint());
        plot.refreshNow();
        QVERIFY(plot.following());
        QVERIFY(p->xAxis->range().lower <= 0 && p->xAxis->range().upper >= 100);
    }

    void redrawsAtMost30TimesASecond()
    {
        RunColors colors;
        StorePlot plotData(&colors);
        PlotWidget &plot = plotData.plot;
        plot.resize(600, 400);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plotData.addRun(QStringLiteral("r"), QStringLiteral("r"), QString());
        plot.setSelectedRuns({QStringLiteral("r")});
        int redraws = 0;
        connect(&plot, &PlotWidget::refreshed, this, [&] { ++redraws; });
        QElapsedTimer timer;
        timer.start();
        int step = 0;
        while (timer.elapsed() < 1000) {
            for (int i = 0; i < 50; ++i, ++step) {
                plotData.appendMetric(QStringLiteral("r"), step, 0, step, 1.0);
            }
            QTest::qWait(1); // the load generator's pacing: lines as a live run sends them
        }
        // The store's batches pace the redraws: at most 30 a second (plus one
        // for the edge); at least some, even on a busy machine.
        QVERIFY2(redraws >= 2 && redraws <= 32, qPrintable(QString::number(redraws)));
        plotData.store.flush();
        QCOMPARE(plot.curve(QStringLiteral("r"))->size(), qsizetype(step));
        // A change of view is one redraw, however many changes in one pass.
        const auto redrawDue = [&plot] {
            const QList<QTimer *> timers = plot.findChildren<QTimer *>();
            return std::any_of(timers.cbegin(), timers.cend(), [](const QTimer *t) { return t->isActive(); });
        };
        QTRY_VERIFY(!redrawDue());
        redraws = 0;
        plot.setSmoothing(0.1);
        plot.setSmoothing(0.2);
        plot.setLogScale(true);
        QTRY_COMPARE(redraws, 1);
        QVERIFY(!redrawDue()); // none more to come
        QCOMPARE(redraws, 1);
    }

    void exports()
    {
        RunColors colors;
        StorePlot plotData(&colors);
        PlotWidget &plot = plotData.plot;
        plot.resize(600, 400);
        plotData.addRun(QStringLiteral("1"), QStringLiteral("a,b"), QString());
        for (int s = 1; s <= 5; ++s) {
            plotData.appendMetric(QStringLiteral("1"), s, 0.5 * s, 0.25 * s, 1.0 / s);
        }
        plotData.appendEval(QStringLiteral("1"), 5, 1.25, QStringLiteral("valid/accuracy"), 0.75);
        plotData.store.add(plotData.ids.value(QStringLiteral("1")), QStringLiteral("lr"), 5, 1.25, 1e-3);
        plot.setSelectedRuns({QStringLiteral("1")});
        QTemporaryDir dir;
        QString error;
        QVERIFY2(plot.exportCsv(dir.filePath(QStringLiteral("p.csv")), &error), qPrintable(error));
        QFile csv(dir.filePath(QStringLiteral("p.csv")));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).trimmed().split(QLatin1Char('\n'));
        // Every metric, as `trainyard export` writes it: the same writer, from the store, in doubles.
        QCOMPARE(lines.size(), 8);
        QCOMPARE(lines.at(0), QStringLiteral("run,step,epoch,wall,metric,value"));
        QCOMPARE(lines.at(2), QStringLiteral("\"a,b\",2,1,0.5,loss,0.5"));
        QCOMPARE(lines.at(3), QStringLiteral("\"a,b\",3,1.5,0.75,loss,0.3333333333333333"));
        QCOMPARE(lines.at(6), QStringLiteral("\"a,b\",5,2.5,1.25,valid/accuracy,0.75"));
        QCOMPARE(lines.at(7), QStringLiteral("\"a,b\",5,2.5,1.25,lr,0.001"));
        QVERIFY(plot.exportPng(dir.filePath(QStringLiteral("p.png")), 640, 480));
        QImage image(dir.filePath(QStringLiteral("p.png")));
        QCOMPARE(image.width(), 640);
        QVERIFY(plot.exportPdf(dir.filePath(QStringLiteral("p.pdf"))));
        QFile pdf(dir.filePath(QStringLiteral("p.pdf")));
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        QVERIFY(pdf.read(5) == "%PDF-");
        QVERIFY(!plot.exportCsv(QStringLiteral("/nonexistent-dir/x.csv"), &error));
        QVERIFY(error.contains(QLatin1String("/nonexistent-dir/x.csv")));
    }
};

QTEST_MAIN(TestPlotWidget)
#include "tst_plotwidget.moc"
