// StopEscalation alone, against a FakeLauncher: each step, its timeout,
// the skips (not connected, pending in a queue), killAll's kill, and that
// the run shows Stopping before the launcher is touched.

#include "fakelauncher.h"
#include "orchestration/supervision/stopescalation.h"

#include <QSignalSpy>
#include <QTest>

using namespace trainyard;
using namespace trainyard::test;
using Step = StopEscalation::Step;

namespace {

constexpr RunId kRun = 7;
constexpr int kTimeoutMs = 100;

struct Rig
{
    explicit Rig(bool connected)
        : stop(kRun, &launcher, [this, connected] {
            ++asks;
            return connected;
        })
    {
        stop.setTimeout(kTimeoutMs);
        QObject::connect(&stop, &StopEscalation::stopping, &stop, [this](RunId id, const QString &message) {
            QCOMPARE(id, kRun);
            callsAtStopping = launcher.calls.size();
            messages << message;
        });
    }
    FakeLauncher launcher;
    int asks = 0;
    qsizetype callsAtStopping = -1;
    QStringList messages;
    StopEscalation stop;
};

} // namespace

class TestStopEscalation : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Connected: Asked, then Terminated after one timeout, Killed after the next.
    void askedThenTerminatedThenKilled()
    {
        Rig r(true);
        QCOMPARE(r.stop.step(), Step::None);
        r.stop.stop(false);
        QCOMPARE(r.asks, 1);
        QCOMPARE(r.stop.step(), Step::Asked);
        QCOMPARE(r.messages, QStringList{QString()});
        QVERIFY(r.launcher.calls.isEmpty()); // asked on the socket only

        r.stop.stop(false); // again: under way, nothing new
        QCOMPARE(r.asks, 1);
        QCOMPARE(r.messages.size(), 1);

        QTRY_COMPARE_WITH_TIMEOUT(r.stop.step(), Step::Terminated, 5000);
        QCOMPARE(r.launcher.calls, QStringList{QStringLiteral("terminate 7")});
        QTRY_COMPARE_WITH_TIMEOUT(r.stop.step(), Step::Killed, 5000);
        QCOMPARE(r.launcher.calls, (QStringList{QStringLiteral("terminate 7"), QStringLiteral("kill 7")}));
        // Each step waited its own timeout.
        QVERIFY2(r.launcher.callTimes.at(1) - r.launcher.callTimes.at(0) >= kTimeoutMs - 5,
                 qPrintable(QString::number(r.launcher.callTimes.at(1) - r.launcher.callTimes.at(0))));
        QCOMPARE(r.stop.killMessage(), QStringLiteral("did not stop within 0.2 s; killed"));
        QVERIFY(!r.stop.cancelsPending());
        QVERIFY(!r.stop.nextStepDue()); // the end of the line: no further step
        QCOMPARE(r.launcher.calls.size(), 2);
    }

    // Not connected: straight to Terminated, Stopping said before terminate().
    void notConnectedSkipsAsked()
    {
        Rig r(false);
        r.stop.stop(false);
        QCOMPARE(r.asks, 1);
        QCOMPARE(r.stop.step(), Step::Terminated);
        QCOMPARE(r.callsAtStopping, 0);
        QCOMPARE(r.launcher.calls, QStringList{QStringLiteral("terminate 7")});
        QTRY_COMPARE_WITH_TIMEOUT(r.stop.step(), Step::Killed, 5000);
        QCOMPARE(r.launcher.count(QStringLiteral("kill"), kRun), 1);
    }

    // Pending in a queue: cancelled there (terminate), never asked, says why.
    void pendingIsCancelled()
    {
        Rig r(true);
        r.stop.stop(true, QStringLiteral("Resources"));
        QCOMPARE(r.asks, 0);
        QCOMPARE(r.stop.step(), Step::Terminated);
        QVERIFY(r.stop.cancelsPending());
        QCOMPARE(r.messages, QStringList{QStringLiteral("cancelling (was pending: Resources)")});
        QCOMPARE(r.callsAtStopping, 0);
        QCOMPARE(r.launcher.calls, QStringList{QStringLiteral("terminate 7")});
    }

    // killAll: Killed at once, with its reason; a stop after it asks nothing.
    void killIsAtOnce()
    {
        Rig r(true);
        r.stop.kill(true, QStringLiteral("killed on request"));
        QCOMPARE(r.stop.step(), Step::Killed);
        QVERIFY(r.stop.cancelsPending());
        QCOMPARE(r.stop.killMessage(), QStringLiteral("killed on request"));
        QCOMPARE(r.launcher.calls, QStringList{QStringLiteral("kill 7")});
        r.stop.stop(false);
        QCOMPARE(r.asks, 0);
        QCOMPARE(r.messages, QStringList{QStringLiteral("killed on request")}); // Stopping, nothing gentler
        QVERIFY(!r.stop.nextStepDue());
        QCOMPARE(r.launcher.calls.size(), 1);
    }

    // The run ended (halt, as from inside terminate()): no further step.
    void haltEndsTheEscalation()
    {
        Rig r(true);
        r.stop.stop(false);
        QCOMPARE(r.stop.step(), Step::Asked);
        r.stop.halt();
        QVERIFY(!r.stop.nextStepDue());
        QVERIFY(r.launcher.calls.isEmpty());

        Rig s(false); // halted by the exit the launcher reports from inside stopping's slot
        QObject::connect(&s.stop, &StopEscalation::stopping, &s.stop, [&s] { s.stop.halt(); });
        s.stop.stop(false);
        QVERIFY(s.launcher.calls.isEmpty());
        QVERIFY(!s.stop.nextStepDue());
        QVERIFY(s.launcher.calls.isEmpty());
        s.stop.kill(false, QStringLiteral("killed on request"));
        QVERIFY(s.launcher.calls.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestStopEscalation)
#include "tst_stopescalation.moc"
