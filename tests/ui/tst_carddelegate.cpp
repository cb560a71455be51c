// What a run card's progress bar says ("took 2 s" for a run that
// trained 9 s across a stop and resume; an ETA on a paused run).

#include "ui/board/carddelegate.h"

#include <QTest>

using namespace trainyard;

class TestCardDelegate : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void tookIsTheTrainingTimeAcrossAResume()
    {
        RunInfo run;
        run.state = RunState::Finished;
        // Resumed at 10:00:07 after a stop; the worker's clock says 9 s in all.
        run.started = QDateTime(QDate(2026, 12, 1), QTime(10, 0, 7));
        run.ended = run.started.addSecs(2);
        run.wall = 9.2;
        QCOMPARE(CardDelegate::progressText(run, 1.0), QStringLiteral("100% · took 9 s"));
        run.wall = 0; // no metric line seen: the last stretch is all there is
        QCOMPARE(CardDelegate::progressText(run, 1.0), QStringLiteral("100% · took 2 s"));
    }

    void aPausedRunHasNoEta()
    {
        RunInfo run;
        run.state = RunState::Running;
        run.etaSeconds = 190;
        QCOMPARE(CardDelegate::progressText(run, 0.42), QStringLiteral("42% · ETA 3:10"));
        run.state = RunState::Paused;
        QCOMPARE(CardDelegate::progressText(run, 0.42), QStringLiteral("42%"));
    }
};

QTEST_MAIN(TestCardDelegate)
#include "tst_carddelegate.moc"
