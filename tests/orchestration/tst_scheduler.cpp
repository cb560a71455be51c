// Orchestrator with trainyard-fake-worker: queue order, slots, repeats, edits
// and their signals, supervision of crashing, hanging and stopped workers.

#include "metrics/metricstore.h"
#include "orchestration/board/board.h"
#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/devices/deviceinventory.h"
#include "orchestration/dispatch/cpuonlyworker.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/dispatch/startplanner.h"
#include "orchestration/ingest/metricsserver.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runspec/runspecview.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"
#include "testcatalogue.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace trainyard;
using namespace trainyard::test;

class TestScheduler : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_counter = 0;

    // A fresh session on a fresh runs root, using the fake worker.
    std::unique_ptr<Session> open(const QJsonArray &lanes)
    {
        auto session = std::make_unique<Session>();
        const QString root = m_dir.filePath(QStringLiteral("exp%1").arg(++m_counter));
        QStringList errors;
        const bool ok = session->open(experiment(experimentJson(QStringLiteral("t"), root, lanes)), QString(), &errors);
        if (!ok) {
            qWarning("%s", qPrintable(errors.join(QLatin1Char('\n'))));
        }
        session->orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
        session->orchestrator()->supervisor()->setStopTimeout(2000);
        return session;
    }

    static RunId idOf(Session *s, const char *name)
    {
        return s->orchestrator()->runs()->findByName(QString::fromLatin1(name));
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        QVERIFY(m_dir.isValid());
    }

    void repeatsExpandNamesAndSeeds()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1, {withRepeat(fakeSpec(QStringLiteral("x")), 3)})});
        Orchestrator *orch = s->orchestrator();
        QCOMPARE(orch->dispatcher()->totalCount(), 3);
        const QList<RunId> ids = orch->laneDevices()->lane(0).runs;
        QCOMPARE(ids.size(), 3);
        for (int i = 0; i < 3; ++i) {
            const RunInfo r = orch->runs()->value(ids.at(i));
            QCOMPARE(r.name, QStringLiteral("x-%1").arg(i + 1));
            QCOMPARE(r.spec.value(QStringLiteral("train")).toObject().value(QStringLiteral("seed")).toInt(), 7 + i);
            QVERIFY(!r.spec.contains(QStringLiteral("repeat")));
            QCOMPARE(r.group, QStringLiteral("x"));
            QCOMPARE(r.repeatIndex, i);
            QCOMPARE(r.state, RunState::Queued);
        }
        // Untouched repeats collapse back into one entry when saved.
        const Experiment ex = s->experiment();
        QCOMPARE(ex.lanes.size(), 1);
        QCOMPARE(ex.lanes.at(0).runs.size(), 1);
        QCOMPARE(ex.lanes.at(0).runs.at(0).repeat, 3);
        QCOMPARE(ex.lanes.at(0).runs.at(0).spec.value(QStringLiteral("name")).toString(), QStringLiteral("x"));
    }

    void slotsLimitConcurrencyAndKeepQueueOrder()
    {
        auto s = open({lane(QStringLiteral("cpu"), 2,
                            {fakeSpec(QStringLiteral("a"), 15), fakeSpec(QStringLiteral("b"), 15),
                             fakeSpec(QStringLiteral("c"), 15), fakeSpec(QStringLiteral("d"), 15)})});
        Orchestrator *orch = s->orchestrator();
        QStringList startOrder;
        int maxActive = 0;
        connect(orch->runs(), &RunRegistry::changed, this, [&](RunId id) {
            maxActive = std::max(maxActive, orch->dispatcher()->activeCount());
            const RunInfo r = orch->runs()->value(id);
            if (r.state == RunState::Starting && !startOrder.contains(r.name)) {
                startOrder << r.name;
            }
        });
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        QSignalSpy counts(orch->dispatcher(), &Dispatcher::finishCountChanged);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 20000);
        QCOMPARE(startOrder,
                 (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d")}));
        QCOMPARE(maxActive, 2);
        QCOMPARE(orch->dispatcher()->finishedCount(), 4);
        QCOMPARE(counts.last().at(0).toInt(), 4);
        QCOMPARE(counts.last().at(1).toInt(), 4);
        for (RunId id : orch->board()->runIds()) {
            const RunInfo r = orch->runs()->value(id);
            QCOMPARE(r.state, RunState::Finished);
            QCOMPARE(r.exitCode, 0);
            QCOMPARE(r.step, 15);
            const QJsonObject status = readJsonFile(r.runDir + QStringLiteral("/status.json"));
            QCOMPARE(status.value(QStringLiteral("state")).toString(), QStringLiteral("finished"));
            QCOMPARE(status.value(QStringLiteral("exit_code")).toInt(), 0);
            const MetricSeries *loss = s->metrics()->series(id, QStringLiteral("loss"));
            QVERIFY(loss);
            QCOMPARE(int(loss->size()), 15);
            QVERIFY(s->metrics()->series(id, QStringLiteral("valid/mrr")));
        }
    }

    void editsEmitPreciseSignals()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("a")), fakeSpec(QStringLiteral("b"))}),
                       lane(QStringLiteral("cpu"), 1, {})});
        Orchestrator *orch = s->orchestrator();
        QSignalSpy aboutToAdd(orch->board(), &Board::runAboutToBeAdded);
        QSignalSpy added(orch->board(), &Board::runAdded);
        QSignalSpy aboutToMove(orch->board(), &Board::runAboutToBeMoved);
        QSignalSpy moved(orch->board(), &Board::runMoved);
        QSignalSpy aboutToRemove(orch->board(), &Board::runAboutToBeRemoved);
        QSignalSpy removed(orch->board(), &Board::runRemoved);
        QSignalSpy laneAdded(orch->board(), &Board::laneAdded);
        QSignalSpy laneRemoved(orch->board(), &Board::laneRemoved);

        // Add with a taken name: made unique; repeats expand.
        QString error;
        const QList<RunId> ids = orch->board()->addRun(1, fakeSpec(QStringLiteral("a")), 2, -1, &error);
        QVERIFY2(ids.size() == 2, qPrintable(error));
        QCOMPARE(aboutToAdd.count(), 2);
        QCOMPARE(aboutToAdd.at(0).at(0).toInt(), 1);
        QCOMPARE(aboutToAdd.at(1).at(1).toInt(), 1);
        QCOMPARE(added.count(), 2);
        QCOMPARE(orch->runs()->value(ids.at(0)).name, QStringLiteral("a-1"));
        QCOMPARE(orch->runs()->value(ids.at(1)).name, QStringLiteral("a-2"));

        // Invalid spec refused with a message naming the key.
        QJsonObject bad = fakeSpec(QStringLiteral("z"));
        bad.insert(QStringLiteral("bogus"), 1);
        QVERIFY(orch->board()->addRun(0, bad, 1, -1, &error).isEmpty());
        QVERIFY2(error.contains(QStringLiteral("unknown key \"bogus\"")), qPrintable(error));

        // Move b from lane 0 to the front of lane 1.
        const RunId b = idOf(s.get(), "b");
        QVERIFY(orch->board()->moveRun(b, 1, 0, &error));
        QCOMPARE(aboutToMove.count(), 1);
        QCOMPARE(aboutToMove.at(0).at(1).toInt(), 0); // from lane
        QCOMPARE(aboutToMove.at(0).at(2).toInt(), 1); // from position
        QCOMPARE(aboutToMove.at(0).at(3).toInt(), 1); // to lane
        QCOMPARE(aboutToMove.at(0).at(4).toInt(), 0); // to position
        QCOMPARE(moved.count(), 1);
        QCOMPARE(orch->laneDevices()->lane(1).runs, (QList<RunId>{b, ids.at(0), ids.at(1)}));
        QCOMPARE(orch->runs()->value(b).lane, 1);
        // Within a lane: to the end.
        QVERIFY(orch->board()->moveRun(b, 1, 2, &error));
        QCOMPARE(orch->laneDevices()->lane(1).runs, (QList<RunId>{ids.at(0), ids.at(1), b}));

        // Duplicate lands right after the original with a unique name.
        const RunId copy = orch->board()->duplicateRun(ids.at(0), &error);
        QVERIFY(copy != 0);
        QCOMPARE(orch->board()->position(copy), 1);
        QCOMPARE(orch->runs()->value(copy).name, QStringLiteral("a-1-2"));
        // ... and a seed no run on the board has (a duplicate kept its seed).
        {
            QSet<qint64> seeds;
            for (RunId other : orch->board()->runIds()) {
                if (other != copy) {
                    seeds.insert(RunSpecView(orch->runs()->value(other).spec).seed().value_or(-1));
                }
            }
            const qint64 seed = RunSpecView(orch->runs()->value(copy).spec).seed().value_or(-1);
            QVERIFY2(seed > 0 && !seeds.contains(seed), qPrintable(QString::number(seed)));
        }

        QVERIFY(orch->board()->removeRun(copy, &error));
        QCOMPARE(aboutToRemove.count(), 1);
        QCOMPARE(removed.at(0).at(0).toInt(), copy);
        QVERIFY(!orch->runs()->contains(copy));

        // Lanes.
        const int index = orch->board()->addLane(QStringLiteral("cuda:5"), 2, 0, &error);
        QCOMPARE(index, 0);
        QCOMPARE(laneAdded.count(), 1);
        QCOMPARE(orch->runs()->value(b).lane, 2); // shifted
        QCOMPARE(orch->board()->addLane(QStringLiteral("gpu0"), 1, -1, &error), -1);
        QVERIFY(error.contains(QStringLiteral("cuda:N")));
        QVERIFY(!orch->board()->setLaneSlots(0, -3, &error));
        QCOMPARE(error, QStringLiteral("slots: expected an integer ≥ 1, got -3"));
        QVERIFY(orch->board()->removeLane(0, &error));
        QCOMPARE(laneRemoved.count(), 1);
        QCOMPARE(orch->runs()->value(b).lane, 1);

        // The edited board saves with the moved run and the added repeats.
        const Experiment ex = s->experiment();
        QCOMPARE(ex.lanes.at(1).runs.size(), 2);
        QCOMPARE(ex.lanes.at(1).runs.at(0).repeat, 2);
        QCOMPARE(ex.lanes.at(1).runs.at(1).spec.value(QStringLiteral("name")).toString(), QStringLiteral("b"));
    }

    void sigkillFailsThatRunAlone()
    {
        auto s = open({lane(QStringLiteral("cpu"), 2,
                            {fakeSpec(QStringLiteral("victim"), 400, 10), fakeSpec(QStringLiteral("ok1"), 30)}),
                       lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("ok2"), 30)})});
        Orchestrator *orch = s->orchestrator();
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        const RunId victim = idOf(s.get(), "victim");
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(victim).step >= 5, 10000);
        QVERIFY(orch->runs()->value(victim).pid > 0);
        ::kill(static_cast<pid_t>(orch->runs()->value(victim).pid), SIGKILL);
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 20000);
        const RunInfo v = orch->runs()->value(victim);
        QCOMPARE(v.state, RunState::Failed);
        QCOMPARE(v.exitSignal, SIGKILL);
        QVERIFY2(v.message.contains(QStringLiteral("signal 9")), qPrintable(v.message));
        const QJsonObject status = readJsonFile(v.runDir + QStringLiteral("/status.json"));
        QCOMPARE(status.value(QStringLiteral("state")).toString(), QStringLiteral("failed"));
        QCOMPARE(status.value(QStringLiteral("signal")).toInt(), SIGKILL);
        QVERIFY(status.value(QStringLiteral("exit_code")).isNull());
        for (const char *name : {"ok1", "ok2"}) {
            const RunInfo r = orch->runs()->value(idOf(s.get(), name));
            QCOMPARE(r.state, RunState::Finished);
            QCOMPARE(readJsonFile(r.runDir + QStringLiteral("/status.json")).value(QStringLiteral("state")).toString(),
                     QStringLiteral("finished"));
        }
        QCOMPARE(orch->dispatcher()->finishedCount(), 2);
    }

    void exitStatusesMapToStates()
    {
        auto s = open({lane(QStringLiteral("cpu"), 4,
                            {fakeSpec(QStringLiteral("crash"), 20, 5, QStringLiteral("crash"), 5),
                             fakeSpec(QStringLiteral("fail"), 20, 5, QStringLiteral("fail"), 5),
                             fakeSpec(QStringLiteral("diverge"), 20, 5, QStringLiteral("diverge"), 5),
                             fakeSpec(QStringLiteral("fine"), 20, 5)})});
        Orchestrator *orch = s->orchestrator();
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        QSignalSpy ended(orch->dispatcher(), &Dispatcher::runEnded);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 20000);
        QCOMPARE(ended.count(), 4);
        const RunInfo crash = orch->runs()->value(idOf(s.get(), "crash"));
        QCOMPARE(crash.state, RunState::Failed);
        QCOMPARE(crash.exitSignal, SIGABRT);
        QVERIFY2(crash.message.contains(QStringLiteral("crashing on purpose")), qPrintable(crash.message));
        const RunInfo fail = orch->runs()->value(idOf(s.get(), "fail"));
        QCOMPARE(fail.state, RunState::Failed);
        QCOMPARE(fail.exitCode, 1);
        QVERIFY2(fail.message.contains(QStringLiteral("exit 1: runtime failure")), qPrintable(fail.message));
        QVERIFY2(fail.message.contains(QStringLiteral("worker.log")), qPrintable(fail.message));
        QCOMPARE(orch->runs()->value(idOf(s.get(), "diverge")).state, RunState::Diverged);
        QCOMPARE(orch->runs()->value(idOf(s.get(), "diverge")).exitCode, 3);
        QCOMPARE(orch->runs()->value(idOf(s.get(), "fine")).state, RunState::Finished);
    }

    // the worker's command line of a run, from one place: what it
    // would start with while queued, what it started with after (also in
    // status.json, with the host, for the run's later readers).
    void commandLineOfARunFromQueueToStatus()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("cmd"))})});
        Orchestrator *orch = s->orchestrator();
        orch->laneDevices()->setCpuThreads(3);
        const RunId id = idOf(s.get(), "cmd");
        const QString dir = s->store()->runDir(QStringLiteral("cmd"));
        const QStringList queued = orch->startPlanner()->commandLine(id);
        QCOMPARE(queued.value(0), fakeWorker());
        QCOMPARE(queued.mid(1),
                 (QStringList{QStringLiteral("--spec"), dir + QStringLiteral("/spec.json"), QStringLiteral("--run-dir"),
                              dir, QStringLiteral("--connect"), QStringLiteral("unix:") + s->server()->socketPath(),
                              QStringLiteral("--device"), QStringLiteral("cpu"), QStringLiteral("--threads"),
                              QStringLiteral("3")}));
        QVERIFY(orch->runs()->value(id).command.isEmpty());

        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 20000);
        const RunInfo r = orch->runs()->value(id);
        QCOMPARE(r.state, RunState::Finished);
        QCOMPARE(r.command, queued);
        QCOMPARE(orch->startPlanner()->commandLine(id), queued);
        QCOMPARE(r.host, QSysInfo::machineHostName());
        RunInfo status;
        QVERIFY(s->store()->readStatus(QStringLiteral("cmd"), &status));
        QCOMPARE(status.command, queued);
        QCOMPARE(status.host, r.host);
    }

    void missingWorkerFailsClearly()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("a"))})});
        s->orchestrator()->supervisor()->setWorkerProgram(m_dir.filePath(QStringLiteral("no-such-worker")));
        QSignalSpy idle(s->orchestrator()->dispatcher(), &Dispatcher::idle);
        s->orchestrator()->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 5000);
        const RunInfo r = s->orchestrator()->runs()->value(idOf(s.get(), "a"));
        QCOMPARE(r.state, RunState::Failed);
        QVERIFY2(r.message.contains(QStringLiteral("cannot start")), qPrintable(r.message));
    }

    void stopThenResumeFromCheckpoint()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("long"), 120, 10)})});
        Orchestrator *orch = s->orchestrator();
        const RunId id = idOf(s.get(), "long");
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(id).step >= 12 && orch->runs()->value(id).connected, 10000);
        QString error;
        QVERIFY2(orch->runActions()->stopRun(id, &error), qPrintable(error));
        QCOMPARE(orch->runs()->value(id).state, RunState::Stopping);
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).state, RunState::Stopped, 10000);
        QCOMPARE(orch->runs()->value(id).exitCode, 4);
        QVERIFY(s->store()->hasCheckpoint(QStringLiteral("long")));
        const qint64 stoppedAt = orch->runs()->value(id).step;
        QVERIFY(stoppedAt < 120);

        QVERIFY2(orch->runActions()->startRun(id, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).state, RunState::Finished, 15000);
        // Every step once, none lost across the stop.
        const MetricSeries *loss = s->metrics()->series(id, QStringLiteral("loss"));
        QVERIFY(loss);
        QCOMPARE(int(loss->size()), 120);
        for (std::size_t i = 0; i < loss->size(); ++i) {
            QCOMPARE(loss->step(i), std::int64_t(i + 1));
        }
    }

    // Start on a stopped run of a full lane was refused ("lane 1 has no
    // free slot"): it is queued, says why, naming the lane by its title,
    // and starts (from its checkpoint) when the slot frees, though nothing
    // else is dispatched.
    void startOnAFullLaneQueuesTheRun()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1,
                            {fakeSpec(QStringLiteral("a"), 400, 10), fakeSpec(QStringLiteral("b"), 400, 10)})});
        Orchestrator *orch = s->orchestrator();
        const RunId a = idOf(s.get(), "a");
        const RunId b = idOf(s.get(), "b");
        QString error;
        QVERIFY2(orch->runActions()->startRun(a, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(a).step >= 3 && orch->runs()->value(a).connected, 10000);
        QVERIFY(orch->runActions()->stopRun(a));
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(a).state, RunState::Stopped, 10000);
        QVERIFY2(orch->runActions()->startRun(b, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(b).connected, 10000);

        QVERIFY2(orch->runActions()->startRun(a, &error), qPrintable(error));
        QCOMPARE(orch->runs()->value(a).state, RunState::Queued);
        QCOMPARE(orch->runs()->value(a).message, QStringLiteral("waits: lane cpu has no free slot (1 in use)"));
        QVERIFY(!orch->dispatcher()->isDispatching());
        QVERIFY(orch->runActions()->stopRun(b));
        QTRY_VERIFY_WITH_TIMEOUT(isActive(orch->runs()->value(a).state), 10000);
        QCOMPARE(orch->runs()->value(b).state, RunState::Stopped);
        QVERIFY(orch->runActions()->stopRun(a));
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(a).state), 10000);
    }

    void hungWorkerStallsAndIsKilled()
    {
        auto s = open(
            {lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("hang"), 100, 5, QStringLiteral("hang"), 5)})});
        Orchestrator *orch = s->orchestrator();
        orch->supervisor()->setStallTimeout(800);
        orch->supervisor()->setStopTimeout(300);
        const RunId id = idOf(s.get(), "hang");
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).state, RunState::Stalled, 10000);
        QVERIFY(orch->runs()->value(id).message.contains(QStringLiteral("no heartbeat")));
        QVERIFY(orch->runActions()->stopRun(id));
        // stop ignored, SIGTERM ignored, then SIGKILL.
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).state, RunState::Failed, 10000);
        QCOMPARE(orch->runs()->value(id).exitSignal, SIGKILL);
        QVERIFY2(orch->runs()->value(id).message.contains(QStringLiteral("did not stop")),
                 qPrintable(orch->runs()->value(id).message));
    }

    void pauseAndResume()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("p"), 80, 10)})});
        Orchestrator *orch = s->orchestrator();
        const RunId id = idOf(s.get(), "p");
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(id).connected && orch->runs()->value(id).step >= 3, 10000);
        QString error;
        QVERIFY2(orch->supervisor()->pause(id, &error), qPrintable(error));
        QCOMPARE(orch->runs()->value(id).state, RunState::Paused);
        QVERIFY(!orch->supervisor()->pause(id, &error));
        QVERIFY2(orch->runActions()->resumeRun(id, &error), qPrintable(error));
        QCOMPARE(orch->runs()->value(id).state, RunState::Running);
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).state, RunState::Finished, 15000);
    }

    void heldRunWaitsForItsOwnStart()
    {
        // One long run keeps the lane's dispatching going while a held run waits.
        auto s = open({lane(QStringLiteral("cpu"), 2, {fakeSpec(QStringLiteral("long"), 200, 10)})});
        Orchestrator *orch = s->orchestrator();
        orch->dispatcher()->startAll();
        QVERIFY(orch->dispatcher()->isDispatching());
        const QList<RunId> held = orch->board()->addHeldRun(0, fakeSpec(QStringLiteral("look-first"), 5));
        QCOMPARE(held.size(), 1);
        QVERIFY(orch->runs()->value(held.first()).held);
        const QList<RunId> plain = orch->board()->addRun(0, fakeSpec(QStringLiteral("plain"), 5));
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(plain.first()).state, RunState::Finished, 10000);
        // A free slot all along, yet the held run was never started.
        QCOMPARE(orch->runs()->value(held.first()).state, RunState::Queued);
        QVERIFY(orch->runActions()->startRun(held.first()));
        QVERIFY(!orch->runs()->value(held.first()).held);
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(held.first()).state, RunState::Finished, 10000);
        orch->dispatcher()->stopAll();
        QTRY_VERIFY_WITH_TIMEOUT(orch->dispatcher()->activeCount() == 0, 10000);
    }

    void heldRunStartsWithTheNextStartAll()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1, {})});
        Orchestrator *orch = s->orchestrator();
        const RunId held = orch->board()->addHeldRun(0, fakeSpec(QStringLiteral("h"), 5)).value(0);
        QVERIFY(held != 0);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(held).state, RunState::Finished, 10000);
    }

    void anEditedRepeatLeavesItsGroup()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1, {withRepeat(fakeSpec(QStringLiteral("r")), 3)})});
        Orchestrator *orch = s->orchestrator();
        const RunId second = idOf(s.get(), "r-2");
        QCOMPARE(orch->runs()->value(second).group, QStringLiteral("r"));
        QCOMPARE(orch->runs()->value(second).repeatCount, 3);
        // The same spec again is no change: it stays a repeat.
        QVERIFY(orch->board()->setRunSpec(second, orch->runs()->value(second).spec));
        QCOMPARE(orch->runs()->value(second).group, QStringLiteral("r"));
        QJsonObject spec = orch->runs()->value(second).spec;
        QJsonObject model = spec.value(QStringLiteral("model")).toObject();
        model.insert(QStringLiteral("steps"), 99);
        spec.insert(QStringLiteral("model"), model);
        QVERIFY(orch->board()->setRunSpec(second, spec));
        const RunInfo edited = orch->runs()->value(second);
        QCOMPARE(edited.group, QStringLiteral("r-2"));
        QCOMPARE(edited.repeatCount, 1);
        // Saved, the other two stay entries of their own, the edited one too.
        const Experiment ex = orch->board()->toExperiment(QStringLiteral("t"), QString());
        QCOMPARE(ex.lanes.first().runs.size(), 3);
        for (const ExperimentRun &run : ex.lanes.first().runs) {
            QCOMPARE(run.repeat, 1);
        }
    }

    void cancelAndRetry()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1,
                            {fakeSpec(QStringLiteral("first"), 30, 10), fakeSpec(QStringLiteral("second"), 10)})});
        Orchestrator *orch = s->orchestrator();
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        const RunId second = idOf(s.get(), "second");
        QVERIFY(orch->runActions()->cancelRun(second));
        QCOMPARE(orch->runs()->value(second).state, RunState::Cancelled);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 10000);
        QCOMPARE(orch->dispatcher()->finishedCount(), 1);
        QVERIFY(!QFile::exists(orch->runs()->value(second).runDir + QStringLiteral("/metrics.jsonl")));
        QVERIFY(orch->runActions()->retryRun(second));
        QCOMPARE(orch->runs()->value(second).state, RunState::Queued);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(second).state, RunState::Finished, 10000);
        QCOMPARE(orch->dispatcher()->finishedCount(), 2);
    }

    // Start's preflight names a cuda: lane handed a worker built without
    // CUDA (cpuonlyworker::problems, from the worker's "libtorch"), once,
    // instead of each of its runs failing at its start.
    void aCpuOnlyWorkerOnAGpuLaneIsNamedBeforeStart()
    {
        const QJsonObject program{
            {QStringLiteral("name"), QStringLiteral("p")},
            {QStringLiteral("program"), QJsonObject{{QStringLiteral("argv"), QJsonArray{QStringLiteral("true")}}}}};
        auto s = open({lane(QStringLiteral("cuda:0"), 1, {fakeSpec(QStringLiteral("g"))}),
                       lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("c"))}),
                       lane(QStringLiteral("cuda:0"), 1, {program})});
        Orchestrator *orch = s->orchestrator();
        const auto catalogue = [](const QJsonValue &torch) {
            QJsonObject root = QJsonDocument::fromJson(catalogueJson()).object();
            if (!torch.isUndefined()) {
                root.insert(QStringLiteral("libtorch"), torch);
            }
            QString error;
            return ModelCatalogue::fromJson(root, &error);
        };
        const ModelCatalogue cpuOnly = catalogue(
            QJsonObject{{QStringLiteral("version"), QStringLiteral("1.13.1")}, {QStringLiteral("cuda"), QJsonValue()}});
        const auto problems = [&](const ModelCatalogue &c) {
            return cpuonlyworker::problems(*orch->laneDevices(), *orch->board(), *orch->runs(), &c);
        };
        // Whether or not this machine has a cuda:0, its runs would get this worker.
        QCOMPARE(problems(cpuOnly),
                 QStringList{QStringLiteral(
                     "lane cuda:0: this trainyard-worker was built without CUDA (LibTorch 1.13.1, CPU only); "
                     "rebuild it against a CUDA LibTorch (see docs/gpu.md) or allow CPU fallback")});
        QCOMPARE(cpuonlyworker::lanes(*orch->laneDevices(), *orch->board(), *orch->runs(), &cpuOnly), QList<int>{0});

        const ModelCatalogue cuda = catalogue(QJsonObject{{QStringLiteral("version"), QStringLiteral("2.11.0")},
                                                          {QStringLiteral("cuda"), QStringLiteral("12.8")}});
        QCOMPARE(cuda.libTorch().text(), QStringLiteral("LibTorch 2.11.0, CUDA 12.8"));
        QVERIFY(problems(cuda).isEmpty());
        QVERIFY(problems(catalogue(QJsonValue::Undefined)).isEmpty()); // an older worker does not say

        orch->laneDevices()->setCpuFallback(true);
        if (s->devices()->hasDevice(QStringLiteral("cuda:0"))) {
            QVERIFY(problems(cpuOnly).value(0).endsWith(QStringLiteral("; its runs will train on the CPU")));
        } else {
            QVERIFY(problems(cpuOnly).isEmpty()); // the lane falls back to the CPU
        }
    }

    void missingGpuNeedsCpuFallback()
    {
        auto s = open({lane(QStringLiteral("cuda:7"), 1, {fakeSpec(QStringLiteral("g"), 10)})});
        Orchestrator *orch = s->orchestrator();
        if (s->devices()->hasDevice(QStringLiteral("cuda:7"))) {
            QSKIP("this machine has a cuda:7");
        }
        QCOMPARE(orch->laneDevices()->missingDeviceLanes(), QList<int>{0});
        QVERIFY(orch->laneDevices()->preflight().join(QLatin1Char('\n')).contains(QStringLiteral("cuda:7")));
        QString error;
        QVERIFY(!orch->runActions()->startRun(idOf(s.get(), "g"), &error));
        QVERIFY2(error.contains(QStringLiteral("CPU fallback")), qPrintable(error));
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        QCOMPARE(idle.count(), 1); // nothing it could start
        QCOMPARE(orch->runs()->value(idOf(s.get(), "g")).state, RunState::Queued);

        orch->laneDevices()->setCpuFallback(true);
        QCOMPARE(orch->laneDevices()->lane(0).effectiveDevice.toString(), QStringLiteral("cpu"));
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(idOf(s.get(), "g")).state, RunState::Finished, 10000);
        QCOMPARE(orch->runs()->value(idOf(s.get(), "g")).device.toString(), QStringLiteral("cpu"));
    }

    // CPU fallback turned on while the board dispatches: the missing GPU's
    // lane says so (LaneDevices::laneChanged) and its queued run starts on
    // the CPU at once, without another Start all.
    void cpuFallbackStartsAMissingGpusRunWhileDispatching()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("long"), 100000, 10)}),
                       lane(QStringLiteral("cuda:7"), 1, {fakeSpec(QStringLiteral("g"), 10)})});
        Orchestrator *orch = s->orchestrator();
        if (s->devices()->hasDevice(QStringLiteral("cuda:7"))) {
            QSKIP("this machine has a cuda:7");
        }
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(idOf(s.get(), "long")).state, RunState::Running, 10000);
        QVERIFY(orch->dispatcher()->isDispatching());
        QCOMPARE(orch->runs()->value(idOf(s.get(), "g")).state, RunState::Queued);

        QSignalSpy laneChanged(orch->laneDevices(), &LaneDevices::laneChanged);
        orch->laneDevices()->setCpuFallback(true);
        QCOMPARE(laneChanged.count(), 1);
        QCOMPARE(laneChanged.at(0).at(0).toInt(), 1);
        QCOMPARE(orch->runs()->value(idOf(s.get(), "g")).state, RunState::Starting); // dispatched at once
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(idOf(s.get(), "g")).state, RunState::Finished, 10000);
        QCOMPARE(orch->runs()->value(idOf(s.get(), "g")).device.toString(), QStringLiteral("cpu"));
        QVERIFY(orch->runActions()->stopRun(idOf(s.get(), "long")));
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(idOf(s.get(), "long")).state), 10000);
    }

    // A Slurm lane never falls back to this machine's CPU, and the file keeps
    // its clusters and gres when saved. Without the Slurm commands on PATH
    // the preflight says so and its runs fail naming sbatch, while the CPU
    // lane trains (tst_slurmscheduler submits to a real cluster).
    void slurmLanesNeedTheSlurmCommands()
    {
        QJsonObject json = experimentJson(QStringLiteral("t"), m_dir.filePath(QStringLiteral("slurm")),
                                          {lane(QStringLiteral("slurm:hpc/gpu"), 2, {fakeSpec(QStringLiteral("s"), 5)}),
                                           lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("c"), 5)})});
        json.insert(QStringLiteral("clusters"),
                    QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("hpc")}}});
        QJsonArray lanes = json.value(QStringLiteral("lanes")).toArray();
        QJsonObject first = lanes.at(0).toObject();
        first.insert(QStringLiteral("gres"), QStringLiteral("gpu:2"));
        lanes[0] = first;
        json.insert(QStringLiteral("lanes"), lanes);
        const QByteArray path = qgetenv("PATH");
        qputenv("PATH", m_dir.filePath(QStringLiteral("no-slurm-here")).toLocal8Bit());
        const auto restorePath = qScopeGuard([&] { qputenv("PATH", path); });
        Session session;
        QStringList errors;
        QVERIFY2(session.open(experiment(json), QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        Orchestrator *orch = session.orchestrator();
        orch->supervisor()->setWorkerProgram(fakeWorker());
        QVERIFY(orch->laneDevices()->missingDeviceLanes().isEmpty());
        QVERIFY2(
            orch->laneDevices()->preflight().join(QLatin1Char('\n')).contains(QStringLiteral("sbatch is not on PATH")),
            qPrintable(orch->laneDevices()->preflight().join(QLatin1Char('\n'))));
        orch->laneDevices()->setCpuFallback(true);
        QCOMPARE(orch->laneDevices()->lane(0).effectiveDevice.toString(), QStringLiteral("slurm:hpc/gpu"));
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 10000);
        QCOMPARE(orch->runs()->value(idOf(&session, "c")).state, RunState::Finished);
        const RunInfo slurmRun = orch->runs()->value(idOf(&session, "s"));
        QCOMPARE(slurmRun.state, RunState::Failed);
        QVERIFY2(slurmRun.message.contains(QStringLiteral("sbatch")), qPrintable(slurmRun.message));
        const QJsonObject saved = session.experiment().toJson();
        const QJsonArray clusters{QJsonObject{{QStringLiteral("name"), QStringLiteral("hpc")},
                                              {QStringLiteral("reach"), QStringLiteral("local")}}};
        QCOMPARE(saved.value(QStringLiteral("clusters")), QJsonValue(clusters));
        QCOMPARE(saved.value(QStringLiteral("lanes")).toArray().at(0).toObject().value(QStringLiteral("gres")),
                 QJsonValue(QStringLiteral("gpu:2")));
    }

    void reconnectingWorkerLosesNoPoint()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1,
                            {fakeSpec(QStringLiteral("r"), 100, 10, QStringLiteral("reconnect"), 20)})});
        Orchestrator *orch = s->orchestrator();
        const RunId id = idOf(s.get(), "r");
        QSignalSpy connected(s->server(), &MetricsServer::runConnected);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).state, RunState::Finished, 15000);
        QVERIFY(connected.count() >= 2);
        const MetricSeries *loss = s->metrics()->series(id, QStringLiteral("loss"));
        QVERIFY(loss);
        QCOMPARE(int(loss->size()), 100);
    }

    void csvExportLongFormat()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("c"), 10)})});
        QSignalSpy idle(s->orchestrator()->dispatcher(), &Dispatcher::idle);
        s->orchestrator()->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 10000);
        const QString path = m_dir.filePath(QStringLiteral("out.csv"));
        QString error;
        QVERIFY2(s->exportCsv(path, {}, &error), qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = f.readAll().split('\n');
        QCOMPARE(lines.first(),
                 QByteArray("run,step,epoch,wall,metric,value")); // the one column set (MetricsCsvWriter)
        int lossLines = 0;
        for (const QByteArray &line : lines) {
            if (line.startsWith("c,") && line.contains(",loss,")) {
                ++lossLines;
            }
        }
        QCOMPARE(lossLines, 10);
    }
};

QTEST_GUILESS_MAIN(TestScheduler)
#include "tst_scheduler.moc"
