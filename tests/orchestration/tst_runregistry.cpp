// RunRegistry as the only writer of run records: update() says a change
// once (or not at all, Quiet), setState() and update() check every state
// change against the one table beside RunState (isAllowedTransition), and
// refuse, with a warning, what the table does not allow.

#include "orchestration/records/runinfo.h"
#include "orchestration/records/runregistry.h"

#include <QJsonObject>
#include <QMap>
#include <QSignalSpy>
#include <QTest>

#include <QRegularExpression>

using namespace trainyard;

namespace {

const QList<RunState> kAll = {RunState::Queued, RunState::Waiting,  RunState::Starting, RunState::Running,
                              RunState::Paused, RunState::Stalled,  RunState::Stopping, RunState::Finished,
                              RunState::Failed, RunState::Diverged, RunState::Stopped,  RunState::Cancelled,
                              RunState::Lost};

RunId addRun(RunRegistry &runs, const QString &name, RunState state = RunState::Queued)
{
    RunInfo info;
    info.name = name;
    info.state = state;
    return runs.add(info);
}

} // namespace

class TestRunRegistry : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // The table, every pair of states: exactly these changes (and staying) are allowed.
    void transitionTable()
    {
        using S = RunState;
        const QList<S> ends = {S::Finished, S::Failed, S::Diverged, S::Stopped, S::Cancelled, S::Lost};
        QMap<S, QList<S>> allowed;
        allowed[S::Queued] = QList<S>{S::Starting, S::Running, S::Waiting} + ends;
        allowed[S::Waiting] = QList<S>{S::Queued, S::Running} + ends;
        allowed[S::Starting] = QList<S>{S::Running, S::Stalled, S::Stopping} + ends;
        allowed[S::Running] = QList<S>{S::Starting, S::Stalled, S::Paused, S::Stopping} + ends;
        allowed[S::Stalled] = QList<S>{S::Starting, S::Running, S::Paused, S::Stopping} + ends;
        allowed[S::Paused] = QList<S>{S::Starting, S::Running, S::Stopping} + ends;
        allowed[S::Stopping] = ends;
        for (S end : ends) {
            allowed[end] = {S::Queued};
        }
        int count = 0;
        for (S from : kAll) {
            for (S to : kAll) {
                const bool expected = from == to || allowed.value(from).contains(to);
                count += expected && from != to;
                QVERIFY2(isAllowedTransition(from, to) == expected,
                         qPrintable(QStringLiteral("%1 -> %2").arg(runStateName(from), runStateName(to))));
            }
        }
        QCOMPARE(count, 9 + 8 + 9 + 10 + 10 + 9 + 6 + 6);
        // The ones that matter most, spelled out.
        QVERIFY(!isAllowedTransition(S::Starting, S::Paused));    // pause needs a running worker
        QVERIFY(!isAllowedTransition(S::Stopping, S::Running));   // a stop is not taken back
        QVERIFY(!isAllowedTransition(S::Finished, S::Running));   // an end starts again only through the queue
        QVERIFY(!isAllowedTransition(S::Queued, S::Stopping));    // nothing to stop
        QVERIFY(isAllowedTransition(S::Running, S::Starting));    // a requeue
        QVERIFY(isAllowedTransition(S::Queued, S::Lost));         // a state file that named another's job
        QVERIFY(isAllowedTransition(S::Cancelled, S::Queued));    // a retry
        QVERIFY(!isAllowedTransition(S::Cancelled, S::Finished)); // an end is final until it is queued again
        QVERIFY(!isAllowedTransition(S::Waiting, S::Starting));   // released to the queue first, never started
        QVERIFY(!isAllowedTransition(S::Finished, S::Waiting));   // a retry queues; waiting is decided there
    }

    void setStateChecksTheTable()
    {
        RunRegistry runs;
        const RunId id = addRun(runs, QStringLiteral("a"));
        QSignalSpy changed(&runs, &RunRegistry::changed);
        QVERIFY(runs.setState(id, RunState::Starting));
        QCOMPARE(changed.count(), 1);
        QVERIFY(runs.setState(id, RunState::Starting)); // the same: allowed, nothing new to say
        QCOMPARE(changed.count(), 1);
        QVERIFY(runs.setState(id, RunState::Starting, QStringLiteral("pending: Resources")));
        QCOMPARE(changed.count(), 2);
        QCOMPARE(runs.value(id).message, QStringLiteral("pending: Resources"));

        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("a: starting -> queued refused.*")));
        QVERIFY(!runs.setState(id, RunState::Queued, QStringLiteral("not written")));
        QCOMPARE(runs.value(id).state, RunState::Starting);
        QCOMPARE(runs.value(id).message, QStringLiteral("pending: Resources"));
        QCOMPARE(changed.count(), 2);
        QVERIFY(!runs.setState(id + 1, RunState::Running)); // no such run
    }

    void updateSaysItOnce()
    {
        RunRegistry runs;
        const RunId id = addRun(runs, QStringLiteral("a"));
        QSignalSpy changed(&runs, &RunRegistry::changed);
        QVERIFY(runs.update(id, [](RunInfo &r) {
            r.pid = 42;
            r.message = QStringLiteral("hi");
            r.state = RunState::Starting;
        }));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).value<RunId>(), id);
        const RunInfo r = runs.value(id);
        QCOMPARE(r.pid, 42);
        QCOMPARE(r.state, RunState::Starting);

        QVERIFY(runs.update(
            id, [](RunInfo &r) { r.step = 7; }, RunRegistry::Notify::Quiet));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(runs.value(id).step, 7);
        runs.touch(id);
        QCOMPARE(changed.count(), 2);
        QVERIFY(!runs.update(id + 1, [](RunInfo &r) { r.step = 1; }));
    }

    // train.max_seconds ends a run whatever its steps say: the
    // ETA is the sooner of the two ends, the progress the further.
    void progressAndEtaRespectTheTimeBudget()
    {
        RunInfo run;
        run.state = RunState::Running;
        run.step = 230;
        run.totalSteps = 1000;
        run.wall = 120;
        QCOMPARE(runProgress(run), 0.23); // no budget: the steps
        QCOMPARE(budgetLeft(run), -1.0);
        run.spec = QJsonObject{{QStringLiteral("train"), QJsonObject{{QStringLiteral("max_seconds"), 400}}}};
        QCOMPARE(budgetLeft(run), 280.0);
        QCOMPARE(runProgress(run), 0.3); // 120 s of 400
        // 770 steps at 0.3454/s would be 37:09; the budget ends it in 4:40.
        QCOMPARE(estimatedSecondsLeft(run.step, run.totalSteps, 770.0 / 2229, budgetLeft(run)), 280.0);
        QCOMPARE(estimatedSecondsLeft(run.step, run.totalSteps, 10, budgetLeft(run)), 77.0); // steps end first
        QCOMPARE(estimatedSecondsLeft(run.step, run.totalSteps, 0, budgetLeft(run)), 280.0); // no rate yet
        QCOMPARE(estimatedSecondsLeft(run.step, -1, 0, -1), -1.0);
        // The bar goes up with the time, not from 23 % to 100 % at the end.
        run.wall = 399;
        QVERIFY(runProgress(run) > 0.99);
        run.wall = 500; // evaluation after the budget
        QCOMPARE(runProgress(run), 1.0);
        QCOMPARE(budgetLeft(run), 0.0);
        run.spec = QJsonObject{{QStringLiteral("train"), QJsonObject{{QStringLiteral("max_seconds"), QJsonValue()}}}};
        QCOMPARE(runProgress(run), 0.23); // null: no limit
        run.totalSteps = -1;
        QCOMPARE(runProgress(run), -1.0);
        run.state = RunState::Finished;
        QCOMPARE(runProgress(run), 1.0);
    }

    void updateRefusesWhatTheTableDoesNot()
    {
        RunRegistry runs;
        const RunId id = addRun(runs, QStringLiteral("a"), RunState::Finished);
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("a: finished -> running refused.*")));
        runs.update(id, [](RunInfo &r) {
            r.state = RunState::Running;
            r.message = QStringLiteral("kept");
        });
        QCOMPARE(runs.value(id).state, RunState::Finished); // the old state
        QCOMPARE(runs.value(id).message, QStringLiteral("kept"));

        // Id and name are the registry's: put back.
        QTest::ignoreMessage(QtWarningMsg,
                             QRegularExpression(QStringLiteral("a: an update changed the id or the name.*")));
        runs.update(id, [](RunInfo &r) {
            r.name = QStringLiteral("b");
            r.id = 99;
        });
        QCOMPARE(runs.value(id).name, QStringLiteral("a"));
        QCOMPARE(runs.value(id).id, id);
        QCOMPARE(runs.findByName(QStringLiteral("a")), id);
        runs.rename(id, QStringLiteral("b"));
        QCOMPARE(runs.findByName(QStringLiteral("b")), id);
        QCOMPARE(runs.findByName(QStringLiteral("a")), 0);
    }
};

QTEST_GUILESS_MAIN(TestRunRegistry)
#include "tst_runregistry.moc"
