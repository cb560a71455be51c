// Asha and MedianRule as asha.h documents them: the rung ladder, a 9-trial
// sweep worked by hand, min mode, ties, a failed trial, the reasons' texts,
// and the median stopping rule.

#include "orchestration/sweep/asha.h"

#include <QTest>

using namespace trainyard;

namespace {

using Action = StopDecision::Action;
using Records = QHash<int, double>;

// One report, checked: what to do and the rung the decision is about.
void expect(Asha &asha, int trial, double resource, double value, Action action, int rung)
{
    const StopDecision d = asha.report(trial, resource, value);
    QVERIFY2(d.action == action,
             qPrintable(
                 QStringLiteral("trial %1 at %2: %3 (%4)").arg(trial).arg(resource).arg(int(d.action)).arg(d.reason)));
    QCOMPARE(d.rung, rung);
    QCOMPARE(asha.isPaused(trial), action == Action::Pause);
}

} // namespace

class TestAsha : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void rungLadder()
    {
        // 1, 3, 9, 27, 81 and then 243 > 100: max is not on the ladder, so it is the last rung.
        QCOMPARE(Asha(1, 100, 3, true).rungs(), QList<double>({1, 3, 9, 27, 81, 100}));
        // 81 = 3^4 is on it: no extra rung.
        QCOMPARE(Asha(1, 81, 3, true).rungs(), QList<double>({1, 3, 9, 27, 81}));
        QCOMPARE(Asha(2, 50, 2, true).rungs(), QList<double>({2, 4, 8, 16, 32, 50}));
        QCOMPARE(Asha(5, 5, 3, true).rungs(), QList<double>({5}));
        // Not a ladder (the spec refuses these): one rung, never a pause.
        QCOMPARE(Asha(1, 100, 1, true).rungs(), QList<double>({100}));
    }

    void nineTrialsWorkedByHand()
    {
        // eta 3, rungs 1, 3, 9 (rung 0, 1, 2); each trial reports at the rungs only.
        Asha asha(1, 9, 3, true, QStringLiteral("valid/mrr"));
        QCOMPARE(asha.rungs(), QList<double>({1, 3, 9}));

        // 1. t0 0.50 at rung 0: n=1, top floor(1/3)=0: pauses.
        expect(asha, 0, 1, 0.50, Action::Pause, 0);
        QCOMPARE(asha.promotable(), std::nullopt);
        // 2. t1 0.30: n=2, top 0: pauses.
        expect(asha, 1, 1, 0.30, Action::Pause, 0);
        // 3. t2 0.70: n=3, top 1 = {t2}: continues.
        expect(asha, 2, 1, 0.70, Action::Continue, 0);
        // 4. t2 0.75 at rung 1: n=1, top 0: pauses at rung 1.
        expect(asha, 2, 3, 0.75, Action::Pause, 1);
        // 5. t3 0.20 at rung 0: n=4, top 1 = {t2}, t3 4th: pauses. t2 holds
        //    rung 0's top, but it is paused at rung 1, not promotable at 0.
        expect(asha, 3, 1, 0.20, Action::Pause, 0);
        QCOMPARE(asha.promotable(), std::nullopt);
        // 6. t4 0.45: n=5, top 1, t4 3rd (t2 0.7, t0 0.5): pauses.
        expect(asha, 4, 1, 0.45, Action::Pause, 0);
        QCOMPARE(asha.promotable(), std::nullopt);
        // 7. t5 0.10: n=6, top 2 = {t2, t0}: t5 pauses; t0, paused at rung 0,
        //    is now in the top two: promotable.
        expect(asha, 5, 1, 0.10, Action::Pause, 0);
        QCOMPARE(asha.promotable(), std::optional<int>(0));
        asha.promote(0);
        QVERIFY(!asha.isPaused(0));
        QCOMPARE(asha.promotable(), std::nullopt);
        // 8. t0 0.55 at rung 1: n=2 (t2 0.75, t0 0.55), top 0: pauses at rung 1.
        expect(asha, 0, 3, 0.55, Action::Pause, 1);
        QCOMPARE(asha.promotable(), std::nullopt);
        // 9. t6 0.80 at rung 0: n=7, top 2, t6 1st: continues.
        expect(asha, 6, 1, 0.80, Action::Continue, 0);
        // 10. t6 0.60 at rung 1: n=3, top 1 = {t2 0.75}: t6 pauses, and t2,
        //     paused at rung 1, is in rung 1's top: promotable (rung 1 before rung 0).
        expect(asha, 6, 3, 0.60, Action::Pause, 1);
        QCOMPARE(asha.promotable(), std::optional<int>(2));
        asha.promote(2);
        // 11. t2 0.80 at rung 2, the last: no decision, it trains to the end.
        expect(asha, 2, 9, 0.80, Action::Continue, 2);
        // 12. t7 0.40 at rung 0: n=8, top 2 = {t6, t2}, t7 5th: pauses.
        expect(asha, 7, 1, 0.40, Action::Pause, 0);
        // 13. t8 0.90: n=9, top 3, t8 1st: continues.
        expect(asha, 8, 1, 0.90, Action::Continue, 0);
        // 14. t8 0.70 at rung 1: n=4, top 1 = {t2 0.75}, t8 2nd: pauses.
        const StopDecision d = asha.report(8, 3, 0.70);
        QVERIFY(d.action == Action::Pause);
        QCOMPARE(d.reason, QStringLiteral("rung 2 (epoch 3): valid/mrr 0.7 below 0.75, the top third of 4"));
        // Rung 0's top three (t8, t6, t2) and rung 1's top one (t2) all went on: none to promote.
        QCOMPARE(asha.promotable(), std::nullopt);

        const QList<int> rungOf = {1, 0, 2, 0, 0, 0, 1, 0, 1};
        for (int t = 0; t < 9; ++t) {
            QCOMPARE(asha.rungOf(t), rungOf.at(t));
            QCOMPARE(asha.isPaused(t), t != 2);
        }
        QCOMPARE(asha.rungRecords(0).size(), 9);
        QCOMPARE(asha.rungRecords(1), Records({{2, 0.75}, {0, 0.55}, {6, 0.60}, {8, 0.70}}));
        QCOMPARE(asha.rungRecords(2), Records({{2, 0.80}}));
        QCOMPARE(asha.rungRecords(3), Records());
        QCOMPARE(asha.rungOf(42), -1);
    }

    void reportPastSeveralRungs()
    {
        // Evaluated every 10 epochs: the first report at 10 is recorded at
        // rungs 1, 3 and 9 with its value; the decision is at rung 2 (9).
        Asha asha(1, 27, 3, true);
        expect(asha, 0, 10, 0.4, Action::Pause, 2);
        QCOMPARE(asha.rungOf(0), 2);
        for (int k = 0; k < 3; ++k) {
            QCOMPARE(asha.rungRecords(k), Records({{0, 0.4}}));
        }
        // Reports between rungs decide nothing; the value at 27 is the one
        // of the first report at or past it.
        Asha b(1, 27, 3, true);
        for (int t = 1; t <= 2; ++t) {
            b.report(t, 1, 0.1);
        }
        expect(b, 0, 1, 0.9, Action::Continue, 0);
        expect(b, 0, 2, 0.1, Action::Continue, -1);
        expect(b, 0, 30, 0.7, Action::Continue, 3); // rungs 3, 9 and 27 at once; 27 is the last
        QCOMPARE(b.rungRecords(1), Records({{0, 0.7}}));
        QCOMPARE(b.rungRecords(3), Records({{0, 0.7}}));
        expect(b, 0, 31, 0.2, Action::Continue, -1);
        QCOMPARE(b.rungRecords(3), Records({{0, 0.7}}));
    }

    void pausedTrialReportingLate()
    {
        // A report that arrives after the pause but before the process
        // stopped keeps it paused; one past a new rung counts as resumed.
        Asha asha(1, 9, 3, true);
        expect(asha, 0, 1, 0.5, Action::Pause, 0);
        expect(asha, 0, 2, 0.6, Action::Pause, 0);
        expect(asha, 0, 3, 0.6, Action::Pause, 1);
        QCOMPARE(asha.rungOf(0), 1);
    }

    void minMode()
    {
        // Minimizing (a loss): lower is better, the reason says "above".
        Asha asha(1, 9, 3, false, QStringLiteral("valid/loss"));
        expect(asha, 0, 1, 2.0, Action::Pause, 0);
        expect(asha, 1, 1, 3.0, Action::Pause, 0);
        expect(asha, 2, 1, 1.0, Action::Continue, 0); // lowest of 3: the top one
        const StopDecision d = asha.report(3, 1, 2.5);
        QVERIFY(d.action == Action::Pause);
        QCOMPARE(d.reason, QStringLiteral("rung 1 (epoch 1): valid/loss 2.5 above 1, the top third of 4"));
        expect(asha, 4, 1, 4.0, Action::Pause, 0);
        // n=6: the top two are t2 (1.0) and t0 (2.0): t0 promotable, not t1 (3.0).
        expect(asha, 5, 1, 5.0, Action::Pause, 0);
        QCOMPARE(asha.promotable(), std::optional<int>(0));
    }

    void tiesGoToTheEarlierRecorded()
    {
        Asha asha(1, 9, 3, true, QStringLiteral("valid/mrr"));
        expect(asha, 0, 1, 0.5, Action::Pause, 0);
        expect(asha, 1, 1, 0.5, Action::Pause, 0);
        // n=3, top 1: the three tie, t0 was recorded first and holds it.
        const StopDecision d = asha.report(2, 1, 0.5);
        QVERIFY(d.action == Action::Pause);
        QCOMPARE(d.reason,
                 QStringLiteral("rung 1 (epoch 1): valid/mrr 0.5 tied with 0.5, recorded earlier, the top third of 3"));
        QCOMPARE(asha.promotable(), std::optional<int>(0));
        // Two paused in the top (n=6, top 2, all tied): the earlier one first.
        Asha b(1, 9, 3, true);
        for (int t = 0; t < 6; ++t) {
            b.report(t, 1, 0.5);
        }
        QCOMPARE(b.promotable(), std::optional<int>(0));
        b.promote(0);
        QCOMPARE(b.promotable(), std::optional<int>(1));
        b.promote(1);
        QCOMPARE(b.promotable(), std::nullopt);
    }

    void higherRungPromotedFirst()
    {
        // A promotable trial at rung 1 goes before a better-valued one at rung 0 (the paper's get_job).
        Asha asha(1, 9, 3, true);
        for (int t = 0; t < 3; ++t) {
            asha.report(t, 1, 0.1 * (t + 1)); // t2 continues
        }
        asha.report(2, 3, 0.2);  // pauses at rung 1 (n=1)
        asha.report(3, 3, 0.1);  // t3 reports past rung 0 and 1 at once: 0.1 at both
        asha.report(4, 3, 0.05); // rung 1 n=3: top 1 = t2 (0.2)
        QVERIFY(asha.isPaused(2));
        QCOMPARE(asha.rungOf(2), 1);
        // Rung 0 then gets four 0.9s: t5 (n=6, top 2) and t6 (n=7) go on,
        // t7 (n=8, top 2: 3rd) and t8 (n=9, top 3: 4th) pause; at n=9, t7 is in the top three.
        for (int t = 5; t < 9; ++t) {
            asha.report(t, 1, 0.9);
        }
        QVERIFY(!asha.isPaused(5) && !asha.isPaused(6) && asha.isPaused(7) && asha.isPaused(8));
        // t7's 0.9 beats t2's 0.2, but rung 1 comes first.
        QCOMPARE(asha.promotable(), std::optional<int>(2));
        asha.promote(2);
        QCOMPARE(asha.promotable(), std::optional<int>(7));
    }

    void failedTrialNeverPromoted()
    {
        Asha asha(1, 9, 3, true);
        expect(asha, 0, 1, 0.9, Action::Pause, 0);
        asha.fail(0);
        QVERIFY(!asha.isPaused(0));
        expect(asha, 1, 1, 0.5, Action::Pause, 0);
        // n=3, top 1: the failed t0's 0.9 still holds it (its record stays)...
        expect(asha, 2, 1, 0.4, Action::Pause, 0);
        QCOMPARE(asha.rungRecords(0).value(0), 0.9);
        // ...and it is never promoted.
        QCOMPARE(asha.promotable(), std::nullopt);
        asha.promote(0);
        QVERIFY(!asha.isPaused(0));
        // At n=6 the top two are t0 and t1: t1 is promoted, never t0.
        for (int t = 3; t < 6; ++t) {
            asha.report(t, 1, 0.1);
        }
        QCOMPARE(asha.promotable(), std::optional<int>(1));
        // Its later reports are ignored and answer Stop.
        const StopDecision d = asha.report(0, 3, 1.0);
        QVERIFY(d.action == Action::Stop);
        QCOMPARE(asha.rungOf(0), 0);
        QVERIFY(asha.rungRecords(1).isEmpty());
        // A failed running trial is out too.
        Asha b(1, 9, 3, true);
        for (int t = 0; t < 6; ++t) {
            b.report(t, 1, 0.1 * (6 - t)); // each worse than the one before: all pause; top 2: t0, t1
        }
        QCOMPARE(b.promotable(), std::optional<int>(0));
        b.fail(0);
        QCOMPARE(b.promotable(), std::optional<int>(1));
        b.fail(1);
        QCOMPARE(b.promotable(), std::nullopt);
    }

    void reasonTexts()
    {
        Asha asha(1, 100, 3, true, QStringLiteral("valid/mrr"));
        QCOMPARE(asha.report(0, 1, 0.5).reason,
                 QStringLiteral("rung 1 (epoch 1): valid/mrr 0.5, 1 recorded, too few for a top third (3 needed)"));
        asha.report(1, 1, 0.4);
        QCOMPARE(asha.report(2, 1, 0.6).reason,
                 QStringLiteral("rung 1 (epoch 1): valid/mrr 0.6, 1st of 3, within the top third of 3"));
        // Values that read the same in three digits get more.
        QCOMPARE(asha.report(3, 1, 0.59999).reason,
                 QStringLiteral("rung 1 (epoch 1): valid/mrr 0.59999 below 0.6, the top third of 4"));
        // Past every rung at once: decided at the last, 100, which decides nothing.
        QCOMPARE(asha.report(2, 100, 0.7).reason, QStringLiteral("rung 6 (epoch 100): valid/mrr 0.7, the last rung"));
        // Steps, eta 2, no objective name.
        Asha b(100, 400, 2, true, QString(), QStringLiteral("step"));
        b.report(0, 100, 0.3);
        QCOMPARE(b.report(1, 150, 0.2).reason, QStringLiteral("rung 1 (step 100): objective 0.2 below 0.3, "
                                                              "the top half of 2"));
    }

    void medianRule()
    {
        MedianRule m(2, true, QStringLiteral("valid/mrr"));
        // No other trial yet, and within the grace period: train on.
        QVERIFY(m.report(0, 1, 0.5).action == Action::Continue);
        QVERIFY(m.report(0, 2, 0.6).action == Action::Continue);
        QVERIFY(m.report(0, 3, 0.7).action == Action::Continue);
        // Within the grace period (1 < 2): however bad.
        QVERIFY(m.report(1, 1, 0.0).action == Action::Continue);
        // At 2: t1's best 0.2 against t0's running average up to 2, (0.5 + 0.6) / 2 = 0.55.
        const StopDecision d = m.report(1, 2, 0.2);
        QVERIFY(d.action == Action::Stop);
        QCOMPARE(d.rung, -1);
        QCOMPARE(
            d.reason,
            QStringLiteral("epoch 2: best valid/mrr 0.2 below 0.55, the median of 1 other trial's running average"));
        // Stopped for good.
        QVERIFY(m.report(1, 3, 0.9).action == Action::Stop);
        // Best so far, not the latest: t2 had 0.6 at 1, reports 0.3 at 2; 0.6 >= 0.55.
        QVERIFY(m.report(2, 1, 0.6).action == Action::Continue);
        QVERIFY(m.report(2, 2, 0.3).action == Action::Continue);
    }

    void medianOfSeveral()
    {
        MedianRule m(2, true);
        // Running averages at 2: t0 0.5, t1 0.3, t2 0.1, t3 0.7 (each constant;
        // t1 and t2 are stopped at 2, after their report there counts).
        const QList<double> v = {0.5, 0.3, 0.1, 0.7};
        for (int t = 0; t < 4; ++t) {
            for (int r = 1; r <= 2; ++r) {
                m.report(t, r, v.at(t));
            }
        }
        // t4 at 2 sees t0..t3: median (0.3 + 0.5) / 2 = 0.4; 0.41 goes on, 0.39 stops.
        QVERIFY(m.report(4, 2, 0.41).action == Action::Continue);
        const StopDecision d = m.report(5, 2, 0.39);
        QVERIFY(d.action == Action::Stop);
        // t5 counts t0..t4 (0.1 0.3 0.41 0.5 0.7): median 0.41.
        QCOMPARE(d.reason, QStringLiteral("epoch 2: best objective 0.39 below 0.41, the median of 5 other trials' "
                                          "running averages"));
        // Trials that have not reached 3 do not count: t6 at 3 has none to compare with.
        QVERIFY(m.report(6, 3, 0.0).action == Action::Continue);
        // A failed trial's reports still count for the others; its own answer Stop.
        MedianRule f(1, true);
        f.report(0, 1, 0.8);
        f.fail(0);
        QVERIFY(f.report(0, 2, 0.9).action == Action::Stop);
        QVERIFY(f.report(1, 1, 0.5).action == Action::Stop);
    }

    void medianMinMode()
    {
        MedianRule m(1, false, QStringLiteral("valid/loss"));
        m.report(0, 1, 1.0);
        m.report(1, 1, 3.0);
        // Median of t0, t1 at 1: 2.0. Lower is better: 1.5 goes on, 2.5 stops.
        QVERIFY(m.report(2, 1, 1.5).action == Action::Continue);
        const StopDecision d = m.report(3, 1, 2.5);
        QVERIFY(d.action == Action::Stop);
        QCOMPARE(
            d.reason,
            QStringLiteral("epoch 1: best valid/loss 2.5 above 1.5, the median of 3 other trials' running averages"));
    }
};

QTEST_GUILESS_MAIN(TestAsha)
#include "tst_asha.moc"
