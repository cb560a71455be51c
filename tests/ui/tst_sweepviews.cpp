// The Sweep view's parts on hand-made trials: no runner, no worker.

#include "ui/sweep/parallelcoordinates.h"
#include "ui/sweep/sweepplots.h"
#include "ui/sweep/sweeptablemodel.h"
#include "ui/sweep/sweepview.h"

#include <QElapsedTimer>
#include <QFile>
#include <QHeaderView>
#include <QImage>
#include <QJsonArray>
#include <QPixmap>
#include <QPushButton>
#include <QSet>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace trainyard;

namespace {

// How many colours a painting holds: lines coloured by their objective give
// many, an empty plot (background, axes, text) few.
int colourCount(const QPixmap &pixmap)
{
    const QImage image = pixmap.toImage();
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2) {
        for (int x = 0; x < image.width(); x += 2) {
            colours.insert(image.pixel(x, y));
        }
    }
    return int(colours.size());
}

// lr on a log range, dim from values, a fixed batch size.
SweepSpec spec(bool maximize = true)
{
    SweepSpec s;
    s.name = QStringLiteral("lrsweep");
    s.objective = QStringLiteral("valid/mrr");
    s.maximize = maximize;
    SweepParameter lr;
    lr.key = QStringLiteral("train.lr");
    lr.kind = SweepParameter::Kind::LogUniform;
    lr.low = 1e-4;
    lr.high = 1e-1;
    SweepParameter dim;
    dim.key = QStringLiteral("model.dim");
    dim.kind = SweepParameter::Kind::Values;
    dim.values = {50, 100, 200};
    dim.integer = true;
    SweepParameter batch;
    batch.key = QStringLiteral("train.batch_size");
    batch.kind = SweepParameter::Kind::Fixed;
    batch.values = {256};
    s.space = {lr, dim, batch};
    s.stopping.rule = SweepStopping::Rule::Asha;
    s.stopping.min = 1;
    s.stopping.max = 9;
    s.stopping.eta = 3;
    return s;
}

TrialInfo trial(int index, double lr, int dim, double objective, TrialInfo::Phase phase = TrialInfo::Phase::Finished,
                int rung = 2)
{
    TrialInfo t;
    t.index = index;
    t.values = QJsonObject{{QStringLiteral("train.lr"), lr}, {QStringLiteral("model.dim"), dim}};
    t.objective = objective;
    t.phase = phase;
    t.rung = rung;
    return t;
}

QList<TrialInfo> trials()
{
    return {trial(0, 1e-3, 50, 0.20, TrialInfo::Phase::Paused, 0),
            trial(1, 1e-2, 100, 0.31),
            trial(2, 1e-4, 200, 0.90, TrialInfo::Phase::Failed, 0), // failed: never the best
            trial(3, 3e-2, 200, qQNaN(), TrialInfo::Phase::Training, -1),
            trial(4, 3e-3, 100, 0.25, TrialInfo::Phase::Training, 1),
            trial(5, 5e-4, 50, 0.12, TrialInfo::Phase::Stopped, 0)};
}

QList<int> order(const SweepTableModel &model)
{
    QList<int> out;
    for (int row = 0; row < model.rowCount(); ++row) {
        out << model.data(model.index(row, 0), SweepTableModel::TrialIndexRole).toInt();
    }
    return out;
}

} // namespace

class TestSweepViews : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void tableSortsByObjectiveFailedLast()
    {
        SweepTableModel model;
        model.setSweep(spec(true), trials());
        QCOMPARE(order(model), (QList<int>{1, 4, 0, 5, 3, 2}));
        // The fixed key is no column: trial, lr, dim, objective, rung, state, reason.
        QCOMPARE(model.columnCount(), 7);
        QCOMPARE(model.headerData(1, Qt::Horizontal).toString(), QStringLiteral("train.lr"));
        QCOMPARE(model.data(model.index(0, 0)).toString(), QStringLiteral("lrsweep-2"));
        QCOMPARE(model.data(model.index(0, 2)).toString(), QStringLiteral("100"));
        QCOMPARE(model.data(model.index(0, 3)).toString(), QStringLiteral("0.31"));
        QCOMPARE(model.trialAt(0).rung, 2);
        QCOMPARE(model.data(model.index(0, 4)).toString(), QStringLiteral("3")); // rungs read from 1, as the reasons
        QCOMPARE(model.data(model.index(5, 5)).toString(), QStringLiteral("failed"));

        model.setSweep(spec(false), trials()); // min: the smallest first, still NaN then failed last
        QCOMPARE(order(model), (QList<int>{5, 0, 4, 1, 3, 2}));
    }

    // The view as the window shows it: whole trial names, most of the height
    // for the table, the cards' word for an early-stopped trial, CSV out.
    void viewReadsLikeTheBoardAndExports()
    {
        SweepSpec s = spec();
        s.name = QStringLiteral("transe-5-sweep");
        QList<TrialInfo> many;
        for (int i = 0; i < 15; ++i) {
            many << trial(i, (i + 1) / 1000.0, 50, (10 + i) / 100.0,
                          i < 5 ? TrialInfo::Phase::Paused : TrialInfo::Phase::Finished, 0);
        }
        SweepView view;
        view.resize(1280, 620); // the tab of a 1280×1024 window's lower half
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.showSweep(s, many);
        QTableView *table = view.tableView();
        const int nameWidth = table->fontMetrics().horizontalAdvance(QStringLiteral("transe-5-sweep-15"));
        QVERIFY2(table->columnWidth(0) > nameWidth, qPrintable(QString::number(table->columnWidth(0))));
        QCOMPARE(table->textElideMode(), Qt::ElideMiddle);
        QVERIFY(table->columnWidth(5) > table->fontMetrics().horizontalAdvance(QStringLiteral("stopped (promotable)")));
        const int visibleRows = table->viewport()->height() / table->verticalHeader()->defaultSectionSize();
        QVERIFY2(visibleRows >= 10, qPrintable(QString::number(visibleRows)));

        const int paused = view.tableModel()->rowOfTrial(0);
        QCOMPARE(view.tableModel()->data(view.tableModel()->index(paused, 5)).toString(),
                 QStringLiteral("stopped (promotable)"));
        QCOMPARE(SweepTableModel::phaseText(TrialInfo::Phase::Stopped), runStateName(RunState::Stopped));

        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("trials.csv"));
        QString suggested;
        view.setExportPathAsker([&](const QString &name) {
            suggested = name;
            return file;
        });
        auto *exportButton = view.findChild<QPushButton *>(QStringLiteral("sweepExport"));
        QVERIFY(exportButton && exportButton->isEnabled());
        exportButton->click();
        QCOMPARE(suggested, QStringLiteral("transe-5-sweep.csv"));
        QFile csv(file);
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 16);
        QCOMPARE(lines.at(0), QStringLiteral("trial,train.lr,model.dim,valid/mrr,rung,state,reason"));
        QCOMPARE(lines.at(1), QStringLiteral("transe-5-sweep-15,0.015,50,0.24,1,finished,"));
        QCOMPARE(lines.at(15), QStringLiteral("transe-5-sweep-1,0.001,50,0.1,1,stopped (promotable),"));
    }

    void brushFiltersTrialsAndTable()
    {
        SweepView view;
        view.showSweep(spec(), trials());
        ParallelCoordinatesPlot *plot = view.parallelPlot();
        QCOMPARE(plot->axisCount(), 3); // lr, dim, objective
        QVERIFY(!plot->visibleTrials());
        QCOMPARE(view.tableModel()->rowCount(), 6);

        plot->setBrush(1, 90, 250); // dim 100 or 200
        QCOMPARE(*plot->visibleTrials(), (QSet<int>{1, 2, 3, 4}));
        QCOMPARE(view.tableModel()->rowCount(), 4);
        QVERIFY(!plot->isSelected(0));

        // A second axis: inside both. The objective axis leaves out the trial without one and the failed one.
        plot->setBrush(2, 0.2, 0.35);
        QCOMPARE(*plot->visibleTrials(), (QSet<int>{1, 4}));
        QCOMPARE(order(*view.tableModel()), (QList<int>{1, 4}));

        plot->clearBrushes();
        QCOMPARE(view.tableModel()->rowCount(), 6);

        // New reports keep the user's brush.
        plot->setBrush(1, 40, 60);
        view.showSweep(spec(), trials());
        QCOMPARE(view.tableModel()->rowCount(), 2);
    }

    void mouseDragBrushesAnAxis()
    {
        ParallelCoordinatesPlot plot;
        plot.resize(700, 320);
        plot.setSweep(spec(), trials());
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        QSignalSpy changed(&plot, &ParallelCoordinatesPlot::filterChanged);
        const int x = int(plot.axisX(1));
        const QPoint from(x, int(plot.valueY(1, 210)));
        const QPoint to(x, int(plot.valueY(1, 160)));
        QTest::mousePress(&plot, Qt::LeftButton, {}, from);
        QTest::mouseMove(&plot, to);
        QTest::mouseRelease(&plot, Qt::LeftButton, {}, to);
        QVERIFY(changed.count() >= 1);
        QVERIFY(plot.hasBrush(1));
        QCOMPARE(*plot.visibleTrials(), (QSet<int>{2, 3})); // the dim 200 trials
        // A click on the axis clears its brush.
        QTest::mouseClick(&plot, Qt::LeftButton, {}, from);
        QVERIFY(!plot.hasBrush(1));
        QVERIFY(!plot.visibleTrials());
        QVERIFY2(colourCount(plot.grab()) > 20, "the trials' lines, coloured by objective, are painted");
    }

    void logAxes()
    {
        ParallelCoordinatesPlot plot;
        plot.resize(700, 320);
        plot.setSweep(spec(), trials());
        QVERIFY(plot.axisIsLogarithmic(0));
        QVERIFY(!plot.axisIsLogarithmic(1));
        // On a log axis 1e-4 .. 1e-1, 1e-2.5 lies halfway between the ends.
        const double mid = plot.valueY(0, std::pow(10.0, -2.5));
        QVERIFY(std::abs(mid - (plot.valueY(0, 1e-4) + plot.valueY(0, 1e-1)) / 2) < 0.5);
        // Best bright, worst dark.
        QVERIFY(plot.objectiveColor(0.31).lightness() > plot.objectiveColor(0.12).lightness());

        ObjectiveScatter scatter;
        scatter.setSweep(spec(), trials());
        QCOMPARE(scatter.key(), QStringLiteral("train.lr"));
        QVERIFY(scatter.xIsLogarithmic());
        QCOMPARE(scatter.pointCount(), 4); // no failed trial, none without an objective
        QVERIFY(scatter.setKey(QStringLiteral("model.dim")));
        QVERIFY(!scatter.xIsLogarithmic());
        QVERIFY(!scatter.setKey(QStringLiteral("train.batch_size"))); // fixed: not searched
    }

    void bestSoFarSteps()
    {
        const QList<BestSoFarPlot::Report> reports{{5, 0.1}, {1, 0.2}, {3, 0.15}, {7, 0.4}, {9, qQNaN()}, {8, 0.3}};
        const QList<BestSoFarPlot::Report> max = BestSoFarPlot::bestSoFar(reports, true);
        QCOMPARE(max.size(), 2);
        QCOMPARE(max.at(0).time, 1.0);
        QCOMPARE(max.at(1).value, 0.4);
        const QList<BestSoFarPlot::Report> min = BestSoFarPlot::bestSoFar(reports, false);
        QCOMPARE(min.size(), 3); // 0.2 at 1, 0.15 at 3, 0.1 at 5
        QCOMPARE(min.last().time, 5.0);
        BestSoFarPlot plot;
        plot.setReports(reports, true, QStringLiteral("valid/mrr"));
        QCOMPARE(plot.bestSteps().size(), 2);
    }

    // A large sweep: every trial a row and a line, brushing still exact; the time one redraw takes is printed.
    void thousandTrials()
    {
        QList<TrialInfo> many;
        for (int i = 0; i < 1000; ++i) {
            many << trial(i, std::pow(10.0, -4 + 3.0 * (i % 97) / 96), 50 << (i % 3), 0.001 * (i % 500),
                          i % 10 == 0 ? TrialInfo::Phase::Failed : TrialInfo::Phase::Finished, i % 3);
        }
        SweepView view;
        view.resize(1400, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QElapsedTimer timer;
        timer.start();
        view.showSweep(spec(), many);
        const qint64 shown = timer.elapsed();
        const QPixmap parallel = view.parallelPlot()->grab();
        const qint64 plotted = timer.elapsed();
        const QPixmap pixmap = view.grab();
        qInfo("1000 trials: set in %lld ms, parallel plot painted in %lld ms, the whole view in %lld ms",
              qlonglong(shown), qlonglong(plotted - shown), qlonglong(timer.elapsed() - plotted));
        timer.restart();
        view.showSweep(spec(), many); // what a report of the runner's brings
        view.grab();
        qInfo("new reports of the 1000, shown and painted: %lld ms", qlonglong(timer.elapsed()));
        QVERIFY(colourCount(parallel) > 20);
        QVERIFY(colourCount(pixmap) > colourCount(parallel)); // the table and the other plots too
        QCOMPARE(view.tableModel()->rowCount(), 1000);
        view.parallelPlot()->setBrush(1, 150, 250); // dim 200: every third trial
        QCOMPARE(view.tableModel()->rowCount(), 333);
        QCOMPARE(view.tableModel()->trialAt(332).phase, TrialInfo::Phase::Failed); // failed last, still
    }

    void rungLadderCounts()
    {
        const QList<RungLadder::Rung> rungs = RungLadder::count(spec(), trials());
        QCOMPARE(rungs.size(), 3); // 1, 3, 9
        QCOMPARE(rungs.at(0).resource, 1.0);
        QCOMPARE(rungs.at(2).resource, 9.0);
        QCOMPARE(rungs.at(0).recorded, 5); // every trial but the one without a report
        QCOMPARE(rungs.at(0).paused, 1);
        QCOMPARE(rungs.at(0).stopped, 2); // stopped, and the failed one
        QCOMPARE(rungs.at(0).continued, 2);
        QCOMPARE(rungs.at(1).recorded, 2);
        QCOMPARE(rungs.at(2).recorded, 1);
        SweepSpec none = spec();
        none.stopping.rule = SweepStopping::Rule::None;
        QVERIFY(RungLadder::count(none, trials()).isEmpty());
    }
};

QTEST_MAIN(TestSweepViews)
#include "tst_sweepviews.moc"
