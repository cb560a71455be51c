// What a run card says besides the run's own fields (CardText): the held
// state, progress, the loss sparkline's bins and the cut tooltip.

#include "board/cardtext.h"
#include "metrics/metricstore.h"

#include <QJsonObject>
#include <QTest>

#include <cmath>

using namespace trainyard;

class TestCardText : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aHeldQueuedRunSaysHeld()
    {
        RunInfo run;
        run.state = RunState::Queued;
        QCOMPARE(CardText::stateName(run), QStringLiteral("queued"));
        run.held = true;
        QCOMPARE(CardText::stateName(run), QStringLiteral("held"));
        run.state = RunState::Failed; // held only matters while it waits
        QCOMPARE(CardText::stateName(run), QStringLiteral("failed"));
    }

    void progressIsStepsOfTheTotal()
    {
        RunInfo run;
        run.state = RunState::Running;
        QCOMPARE(CardText::progress(run), -1.0); // no total yet
        run.totalSteps = 200;
        run.step = 50;
        QCOMPARE(CardText::progress(run), 0.25);
        run.step = 250; // a resumed run past its old total stays full
        QCOMPARE(CardText::progress(run), 1.0);
        run.step = -1;
        QCOMPARE(CardText::progress(run), -1.0);
        run.state = RunState::Finished; // done is done, whatever the steps say
        QCOMPARE(CardText::progress(run), 1.0);
    }

    // A run with train.max_seconds: its bar follows the time too (issue 23:
    // it jumped from 23 % to 100 % when the budget ended it).
    void progressFollowsTheTimeBudget()
    {
        RunInfo run;
        run.state = RunState::Running;
        run.totalSteps = 1000;
        run.step = 230;
        run.wall = 300;
        run.spec = QJsonObject{{QStringLiteral("train"), QJsonObject{{QStringLiteral("max_seconds"), 400}}}};
        QCOMPARE(CardText::progress(run), 0.75);
    }

    void lossHistoryIsTheMeanOfAtMost48Bins()
    {
        QCOMPARE(CardText::lossHistory(nullptr), QVector<double>());
        MetricSeries empty;
        QCOMPARE(CardText::lossHistory(&empty), QVector<double>());

        MetricSeries few;
        for (int i = 0; i < 5; ++i)
            few.add(i, i, 10.0 - i);
        QCOMPARE(CardText::lossHistory(&few), (QVector<double>{10, 9, 8, 7, 6}));

        // 96 points: two a bin, their mean; a NaN is left out of its bin's mean.
        MetricSeries many;
        for (int i = 0; i < 96; ++i)
            many.add(i, i, i == 1 ? qQNaN() : double(i));
        const QVector<double> bins = CardText::lossHistory(&many);
        QCOMPARE(bins.size(), 48);
        QCOMPARE(bins.at(0), 0.0);
        QCOMPARE(bins.at(1), 2.5);
        QCOMPARE(bins.last(), 94.5);
    }

    void toolTipListsTheSpecAndIsCut()
    {
        RunInfo run;
        run.name = QStringLiteral("a");
        run.state = RunState::Failed;
        run.message = QStringLiteral("out of memory");
        run.spec = QJsonObject{{QStringLiteral("name"), QStringLiteral("a")},
                               {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("transe")},
                                                                     {QStringLiteral("dim"), 8}}}};
        QCOMPARE(CardText::toolTip(run).split(QLatin1Char('\n')),
                 (QStringList{QStringLiteral("a (failed): out of memory"), QStringLiteral("model.type = transe"),
                              QStringLiteral("model.dim = 8")}));

        QJsonObject model;
        for (int i = 0; i < 15; ++i)
            model.insert(QStringLiteral("k%1").arg(i, 2, 10, QLatin1Char('0')), i);
        run.spec = QJsonObject{{QStringLiteral("model"), model}};
        run.message.clear();
        const QStringList lines = CardText::toolTip(run).split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 1 + 14 + 1);
        QCOMPARE(lines.first(), QStringLiteral("a (failed)"));
        QCOMPARE(lines.last(), QStringLiteral("… 1 more in its details (Ctrl+I)"));
    }
};

QTEST_MAIN(TestCardText)
#include "tst_cardtext.moc"
