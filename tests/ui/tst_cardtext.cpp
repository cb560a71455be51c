// What a run card says besides the run's own fields (CardText): the held
// state, progress, the loss sparkline's bins and the cut tooltip.

#include "metrics/metricstore.h"
#include "ui/board/cardtext.h"

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

    // A run with train.max_seconds: its bar follows the time too (it
    // jumped from 23 % to 100 % when the budget ended it).
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
        for (int i = 0; i < 5; ++i) {
            few.add(i, i, 10.0 - i);
        }
        QCOMPARE(CardText::lossHistory(&few), (QVector<double>{10, 9, 8, 7, 6}));

        // 96 points: two a bin, their mean; a NaN is left out of its bin's mean.
        MetricSeries many;
        for (int i = 0; i < 96; ++i) {
            many.add(i, i, i == 1 ? qQNaN() : double(i));
        }
        const QVector<double> bins = CardText::lossHistory(&many);
        QCOMPARE(bins.size(), 48);
        QCOMPARE(bins.at(0), 0.0);
        QCOMPARE(bins.at(1), 2.5);
        QCOMPARE(bins.last(), 94.5);
    }

    // a failed card said "exit 1 — worker.log:" and the reason
    // was only in the status bar. Its line says why first.
    void aFailedCardSaysWhyFirst_data()
    {
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("why");
        QTest::newRow("a script's traceback")
            << QStringLiteral("exit 1 — worker.log:\nepoch 1\nTraceback (most recent call last):\n  File \"<string>\", "
                              "line 2, in <module>\nZeroDivisionError: division by zero")
            << QStringLiteral("ZeroDivisionError: division by zero (exit 1)");
        QTest::newRow("the worker's last line")
            << QStringLiteral("exit 2: bad input — worker.log: trainyard-worker: /data/x: No such file or directory")
            << QStringLiteral("trainyard-worker: /data/x: No such file or directory (exit 2: bad input)");
        // A misspelt key's line was cut in the middle of "bad input" and
        // closed twice: "… (exit 2: bad input (spec, data or arguments))".
        QTest::newRow("a misspelt key") << QStringLiteral(
            "exit 2: bad input (spec, data or arguments) — worker.log: trainyard-worker: spec.json: "
            "train.epoch: unknown key (expected one of \"epochs\", \"max_steps\", \"lr\")")
                                        << QStringLiteral("train.epoch: unknown key (exit 2: bad input)");
        QTest::newRow("how it ended says why") << QStringLiteral("killed by signal 9 (SIGKILL: Killed) — worker.log: x")
                                               << QStringLiteral("killed by signal 9 (SIGKILL: Killed)");
        QTest::newRow("diverged") << QStringLiteral("diverged: the loss was NaN or infinite from step 5 to the end "
                                                    "(exit 0) — worker.log:\nstep 5")
                                  << QStringLiteral("diverged: the loss was NaN or infinite from step 5 to the end "
                                                    "(exit 0)");
        QTest::newRow("no log") << QStringLiteral("exit 1") << QStringLiteral("exit 1");
    }
    void aFailedCardSaysWhyFirst()
    {
        QFETCH(QString, message);
        QFETCH(QString, why);
        QCOMPARE(CardText::failure(message), why);
        RunInfo run;
        run.state = RunState::Failed;
        run.message = message;
        run.loss = 0.5; // it reported a loss before it failed: the reason still comes first
        run.step = 10;
        QCOMPARE(CardText::statusLine(run), why);
        run.state = RunState::Running;
        run.message.clear();
        QCOMPARE(CardText::statusLine(run), QStringLiteral("loss 0.5 · step 10"));
    }

    // "transe · cpu · 166.3 MiB · re…" cut the card's text; the
    // tooltip has the lines whole, and a note of an active run shows.
    void theCardsLinesAreWholeInItsTooltip()
    {
        RunInfo run;
        run.name = QStringLiteral("transe-nations-2");
        run.state = RunState::Running;
        run.device = Device::parse(QStringLiteral("cpu"));
        run.memBytes = 166.3 * 1024 * 1024;
        run.repeatIndex = 0;
        run.repeatCount = 3;
        run.spec =
            QJsonObject{{QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("transe")}}}};
        const QString detail = CardText::detailLine(run);
        QVERIFY2(detail.startsWith(QStringLiteral("transe · cpu · "))
                     && detail.endsWith(QStringLiteral(" · repeat 1/3")),
                 qPrintable(detail));
        QCOMPARE(CardText::toolTip(run).split(QLatin1Char('\n')).value(1), detail);
        run.message = QStringLiteral("no metrics (does not use the trainyard module)");
        QCOMPARE(CardText::statusLine(run), run.message);
        run.state = RunState::Queued; // not active: no device, no memory
        QCOMPARE(CardText::detailLine(run), QStringLiteral("transe · repeat 1/3"));
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
                 (QStringList{QStringLiteral("a (failed): out of memory"), QStringLiteral("transe"),
                              QStringLiteral("model.type = transe"), QStringLiteral("model.dim = 8")}));

        QJsonObject model;
        for (int i = 0; i < 15; ++i) {
            model.insert(QStringLiteral("k%1").arg(i, 2, 10, QLatin1Char('0')), i);
        }
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
