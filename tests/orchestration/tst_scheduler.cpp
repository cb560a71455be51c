// Scheduler with trainyard-fake-worker: queue order, slots, repeats, edits
// and their signals, supervision of crashing, hanging and stopped workers.

#include "devices/deviceinventory.h"
#include "dispatch/scheduler.h"
#include "experiment/runspecview.h"
#include "ingest/metricsserver.h"
#include "metrics/metricstore.h"
#include "runstore/runstore.h"
#include "session/session.h"
#include "testutil.h"

#include <QJsonArray>
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
        if (!ok)
            qWarning("%s", qPrintable(errors.join(QLatin1Char('\n'))));
        session->scheduler()->setWorkerProgram(fakeWorker());
        session->scheduler()->setStopTimeout(2000);
        return session;
    }

    static RunId idOf(Session *s, const char *name) { return s->scheduler()->findRun(QString::fromLatin1(name)); }

private Q_SLOTS:
    void initTestCase()
    {
        if (fakeWorker().isEmpty())
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        QVERIFY(m_dir.isValid());
    }

    void repeatsExpandNamesAndSeeds()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1, {withRepeat(fakeSpec(QStringLiteral("x")), 3)})});
        Scheduler *sch = s->scheduler();
        QCOMPARE(sch->totalCount(), 3);
        const QList<RunId> ids = sch->lane(0).runs;
        QCOMPARE(ids.size(), 3);
        for (int i = 0; i < 3; ++i) {
            const RunInfo r = sch->run(ids.at(i));
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
        Scheduler *sch = s->scheduler();
        QStringList startOrder;
        int maxActive = 0;
        connect(sch, &Scheduler::runChanged, this, [&](RunId id) {
            maxActive = std::max(maxActive, sch->activeCount());
            const RunInfo r = sch->run(id);
            if (r.state == RunState::Starting && !startOrder.contains(r.name))
                startOrder << r.name;
        });
        QSignalSpy idle(sch, &Scheduler::idle);
        QSignalSpy counts(sch, &Scheduler::finishCountChanged);
        sch->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 20000);
        QCOMPARE(startOrder,
                 (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d")}));
        QCOMPARE(maxActive, 2);
        QCOMPARE(sch->finishedCount(), 4);
        QCOMPARE(counts.last().at(0).toInt(), 4);
        QCOMPARE(counts.last().at(1).toInt(), 4);
        for (RunId id : sch->runIds()) {
            const RunInfo r = sch->run(id);
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
        Scheduler *sch = s->scheduler();
        QSignalSpy aboutToAdd(sch, &Scheduler::runAboutToBeAdded);
        QSignalSpy added(sch, &Scheduler::runAdded);
        QSignalSpy aboutToMove(sch, &Scheduler::runAboutToBeMoved);
        QSignalSpy moved(sch, &Scheduler::runMoved);
        QSignalSpy aboutToRemove(sch, &Scheduler::runAboutToBeRemoved);
        QSignalSpy removed(sch, &Scheduler::runRemoved);
        QSignalSpy laneAdded(sch, &Scheduler::laneAdded);
        QSignalSpy laneRemoved(sch, &Scheduler::laneRemoved);

        // Add with a taken name: made unique; repeats expand.
        QString error;
        const QList<RunId> ids = sch->addRun(1, fakeSpec(QStringLiteral("a")), 2, -1, &error);
        QVERIFY2(ids.size() == 2, qPrintable(error));
        QCOMPARE(aboutToAdd.count(), 2);
        QCOMPARE(aboutToAdd.at(0).at(0).toInt(), 1);
        QCOMPARE(aboutToAdd.at(1).at(1).toInt(), 1);
        QCOMPARE(added.count(), 2);
        QCOMPARE(sch->run(ids.at(0)).name, QStringLiteral("a-1"));
        QCOMPARE(sch->run(ids.at(1)).name, QStringLiteral("a-2"));

        // Invalid spec refused with a message naming the key.
        QJsonObject bad = fakeSpec(QStringLiteral("z"));
        bad.insert(QStringLiteral("bogus"), 1);
        QVERIFY(sch->addRun(0, bad, 1, -1, &error).isEmpty());
        QVERIFY2(error.contains(QStringLiteral("unknown key \"bogus\"")), qPrintable(error));

        // Move b from lane 0 to the front of lane 1.
        const RunId b = idOf(s.get(), "b");
        QVERIFY(sch->moveRun(b, 1, 0, &error));
        QCOMPARE(aboutToMove.count(), 1);
        QCOMPARE(aboutToMove.at(0).at(1).toInt(), 0); // from lane
        QCOMPARE(aboutToMove.at(0).at(2).toInt(), 1); // from position
        QCOMPARE(aboutToMove.at(0).at(3).toInt(), 1); // to lane
        QCOMPARE(aboutToMove.at(0).at(4).toInt(), 0); // to position
        QCOMPARE(moved.count(), 1);
        QCOMPARE(sch->lane(1).runs, (QList<RunId>{b, ids.at(0), ids.at(1)}));
        QCOMPARE(sch->run(b).lane, 1);
        // Within a lane: to the end.
        QVERIFY(sch->moveRun(b, 1, 2, &error));
        QCOMPARE(sch->lane(1).runs, (QList<RunId>{ids.at(0), ids.at(1), b}));

        // Duplicate lands right after the original with a unique name.
        const RunId copy = sch->duplicateRun(ids.at(0), &error);
        QVERIFY(copy != 0);
        QCOMPARE(sch->position(copy), 1);
        QCOMPARE(sch->run(copy).name, QStringLiteral("a-1-2"));
        // ... and a seed no run on the board has (issue 12: a duplicate kept its seed).
        {
            QSet<qint64> seeds;
            for (RunId other : sch->runIds()) {
                if (other != copy)
                    seeds.insert(RunSpecView(sch->run(other).spec).seed().value_or(-1));
            }
            const qint64 seed = RunSpecView(sch->run(copy).spec).seed().value_or(-1);
            QVERIFY2(seed > 0 && !seeds.contains(seed), qPrintable(QString::number(seed)));
        }

        QVERIFY(sch->removeRun(copy, &error));
        QCOMPARE(aboutToRemove.count(), 1);
        QCOMPARE(removed.at(0).at(0).toInt(), copy);
        QVERIFY(!sch->contains(copy));

        // Lanes.
        const int index = sch->addLane(QStringLiteral("cuda:5"), 2, 0, &error);
        QCOMPARE(index, 0);
        QCOMPARE(laneAdded.count(), 1);
        QCOMPARE(sch->run(b).lane, 2); // shifted
        QCOMPARE(sch->addLane(QStringLiteral("gpu0"), 1, -1, &error), -1);
        QVERIFY(error.contains(QStringLiteral("cuda:N")));
        QVERIFY(!sch->setLaneSlots(0, -3, &error));
        QCOMPARE(error, QStringLiteral("slots: expected an integer ≥ 1, got -3"));
        QVERIFY(sch->removeLane(0, &error));
        QCOMPARE(laneRemoved.count(), 1);
        QCOMPARE(sch->run(b).lane, 1);

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
        Scheduler *sch = s->scheduler();
        QSignalSpy idle(sch, &Scheduler::idle);
        sch->startAll();
        const RunId victim = idOf(s.get(), "victim");
        QTRY_VERIFY_WITH_TIMEOUT(sch->run(victim).step >= 5, 10000);
        QVERIFY(sch->run(victim).pid > 0);
        ::kill(static_cast<pid_t>(sch->run(victim).pid), SIGKILL);
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 20000);
        const RunInfo v = sch->run(victim);
        QCOMPARE(v.state, RunState::Failed);
        QCOMPARE(v.exitSignal, SIGKILL);
        QVERIFY2(v.message.contains(QStringLiteral("signal 9")), qPrintable(v.message));
        const QJsonObject status = readJsonFile(v.runDir + QStringLiteral("/status.json"));
        QCOMPARE(status.value(QStringLiteral("state")).toString(), QStringLiteral("failed"));
        QCOMPARE(status.value(QStringLiteral("signal")).toInt(), SIGKILL);
        QVERIFY(status.value(QStringLiteral("exit_code")).isNull());
        for (const char *name : {"ok1", "ok2"}) {
            const RunInfo r = sch->run(idOf(s.get(), name));
            QCOMPARE(r.state, RunState::Finished);
            QCOMPARE(readJsonFile(r.runDir + QStringLiteral("/status.json")).value(QStringLiteral("state")).toString(),
                     QStringLiteral("finished"));
        }
        QCOMPARE(sch->finishedCount(), 2);
    }

    void exitStatusesMapToStates()
    {
        auto s = open({lane(QStringLiteral("cpu"), 4,
                            {fakeSpec(QStringLiteral("crash"), 20, 5, QStringLiteral("crash"), 5),
                             fakeSpec(QStringLiteral("fail"), 20, 5, QStringLiteral("fail"), 5),
                             fakeSpec(QStringLiteral("diverge"), 20, 5, QStringLiteral("diverge"), 5),
                             fakeSpec(QStringLiteral("fine"), 20, 5)})});
        Scheduler *sch = s->scheduler();
        QSignalSpy idle(sch, &Scheduler::idle);
        QSignalSpy ended(sch, &Scheduler::runEnded);
        sch->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 20000);
        QCOMPARE(ended.count(), 4);
        const RunInfo crash = sch->run(idOf(s.get(), "crash"));
        QCOMPARE(crash.state, RunState::Failed);
        QCOMPARE(crash.exitSignal, SIGABRT);
        QVERIFY2(crash.message.contains(QStringLiteral("crashing on purpose")), qPrintable(crash.message));
        const RunInfo fail = sch->run(idOf(s.get(), "fail"));
        QCOMPARE(fail.state, RunState::Failed);
        QCOMPARE(fail.exitCode, 1);
        QVERIFY2(fail.message.contains(QStringLiteral("exit 1: runtime failure")), qPrintable(fail.message));
        QVERIFY2(fail.message.contains(QStringLiteral("worker.log")), qPrintable(fail.message));
        QCOMPARE(sch->run(idOf(s.get(), "diverge")).state, RunState::Diverged);
        QCOMPARE(sch->run(idOf(s.get(), "diverge")).exitCode, 3);
        QCOMPARE(sch->run(idOf(s.get(), "fine")).state, RunState::Finished);
    }

    // Issue 12: the worker's command line of a run, from one place: what it
    // would start with while queued, what it started with after (also in
    // status.json, with the host, for the run's later readers).
    void commandLineOfARunFromQueueToStatus()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("cmd"))})});
        Scheduler *sch = s->scheduler();
        sch->setCpuThreads(3);
        const RunId id = idOf(s.get(), "cmd");
        const QString dir = s->store()->runDir(QStringLiteral("cmd"));
        const QStringList queued = sch->commandLine(id);
        QCOMPARE(queued.value(0), fakeWorker());
        QCOMPARE(queued.mid(1),
                 (QStringList{QStringLiteral("--spec"), dir + QStringLiteral("/spec.json"), QStringLiteral("--run-dir"),
                              dir, QStringLiteral("--connect"), QStringLiteral("unix:") + s->server()->socketPath(),
                              QStringLiteral("--device"), QStringLiteral("cpu"), QStringLiteral("--threads"),
                              QStringLiteral("3")}));
        QVERIFY(sch->run(id).command.isEmpty());

        QSignalSpy idle(sch, &Scheduler::idle);
        sch->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 20000);
        const RunInfo r = sch->run(id);
        QCOMPARE(r.state, RunState::Finished);
        QCOMPARE(r.command, queued);
        QCOMPARE(sch->commandLine(id), queued);
        QCOMPARE(r.host, QSysInfo::machineHostName());
        RunInfo status;
        QVERIFY(s->store()->readStatus(QStringLiteral("cmd"), &status));
        QCOMPARE(status.command, queued);
        QCOMPARE(status.host, r.host);
    }

    void missingWorkerFailsClearly()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("a"))})});
        s->scheduler()->setWorkerProgram(m_dir.filePath(QStringLiteral("no-such-worker")));
        QSignalSpy idle(s->scheduler(), &Scheduler::idle);
        s->scheduler()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 5000);
        const RunInfo r = s->scheduler()->run(idOf(s.get(), "a"));
        QCOMPARE(r.state, RunState::Failed);
        QVERIFY2(r.message.contains(QStringLiteral("cannot start")), qPrintable(r.message));
    }

    void stopThenResumeFromCheckpoint()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("long"), 120, 10)})});
        Scheduler *sch = s->scheduler();
        const RunId id = idOf(s.get(), "long");
        sch->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(sch->run(id).step >= 12 && sch->run(id).connected, 10000);
        QString error;
        QVERIFY2(sch->stopRun(id, &error), qPrintable(error));
        QCOMPARE(sch->run(id).state, RunState::Stopping);
        QTRY_COMPARE_WITH_TIMEOUT(sch->run(id).state, RunState::Stopped, 10000);
        QCOMPARE(sch->run(id).exitCode, 4);
        QVERIFY(s->store()->hasCheckpoint(QStringLiteral("long")));
        const qint64 stoppedAt = sch->run(id).step;
        QVERIFY(stoppedAt < 120);

        QVERIFY2(sch->startRun(id, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(sch->run(id).state, RunState::Finished, 15000);
        // Every step once, none lost across the stop.
        const MetricSeries *loss = s->metrics()->series(id, QStringLiteral("loss"));
        QVERIFY(loss);
        QCOMPARE(int(loss->size()), 120);
        for (std::size_t i = 0; i < loss->size(); ++i)
            QCOMPARE(loss->step(i), std::int64_t(i + 1));
    }

    void hungWorkerStallsAndIsKilled()
    {
        auto s = open(
            {lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("hang"), 100, 5, QStringLiteral("hang"), 5)})});
        Scheduler *sch = s->scheduler();
        sch->setStallTimeout(800);
        sch->setStopTimeout(300);
        const RunId id = idOf(s.get(), "hang");
        sch->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(sch->run(id).state, RunState::Stalled, 10000);
        QVERIFY(sch->run(id).message.contains(QStringLiteral("no heartbeat")));
        QVERIFY(sch->stopRun(id));
        // stop ignored, SIGTERM ignored, then SIGKILL.
        QTRY_COMPARE_WITH_TIMEOUT(sch->run(id).state, RunState::Failed, 10000);
        QCOMPARE(sch->run(id).exitSignal, SIGKILL);
        QVERIFY2(sch->run(id).message.contains(QStringLiteral("did not stop")), qPrintable(sch->run(id).message));
    }

    void pauseAndResume()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("p"), 80, 10)})});
        Scheduler *sch = s->scheduler();
        const RunId id = idOf(s.get(), "p");
        sch->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(sch->run(id).connected && sch->run(id).step >= 3, 10000);
        QString error;
        QVERIFY2(sch->pauseRun(id, &error), qPrintable(error));
        QCOMPARE(sch->run(id).state, RunState::Paused);
        QVERIFY(!sch->pauseRun(id, &error));
        QVERIFY2(sch->resumeRun(id, &error), qPrintable(error));
        QCOMPARE(sch->run(id).state, RunState::Running);
        QTRY_COMPARE_WITH_TIMEOUT(sch->run(id).state, RunState::Finished, 15000);
    }

    void heldRunWaitsForItsOwnStart()
    {
        // One long run keeps the lane's dispatching going while a held run waits.
        auto s = open({lane(QStringLiteral("cpu"), 2, {fakeSpec(QStringLiteral("long"), 200, 10)})});
        Scheduler *sch = s->scheduler();
        sch->startAll();
        QVERIFY(sch->isDispatching());
        const QList<RunId> held = sch->addHeldRun(0, fakeSpec(QStringLiteral("look-first"), 5));
        QCOMPARE(held.size(), 1);
        QVERIFY(sch->run(held.first()).held);
        const QList<RunId> plain = sch->addRun(0, fakeSpec(QStringLiteral("plain"), 5));
        QTRY_COMPARE_WITH_TIMEOUT(sch->run(plain.first()).state, RunState::Finished, 10000);
        // A free slot all along, yet the held run was never started.
        QCOMPARE(sch->run(held.first()).state, RunState::Queued);
        QVERIFY(sch->startRun(held.first()));
        QVERIFY(!sch->run(held.first()).held);
        QTRY_COMPARE_WITH_TIMEOUT(sch->run(held.first()).state, RunState::Finished, 10000);
        sch->stopAll();
        QTRY_VERIFY_WITH_TIMEOUT(sch->activeCount() == 0, 10000);
    }

    void heldRunStartsWithTheNextStartAll()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1, {})});
        Scheduler *sch = s->scheduler();
        const RunId held = sch->addHeldRun(0, fakeSpec(QStringLiteral("h"), 5)).value(0);
        QVERIFY(held != 0);
        sch->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(sch->run(held).state, RunState::Finished, 10000);
    }

    void anEditedRepeatLeavesItsGroup()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1, {withRepeat(fakeSpec(QStringLiteral("r")), 3)})});
        Scheduler *sch = s->scheduler();
        const RunId second = idOf(s.get(), "r-2");
        QCOMPARE(sch->run(second).group, QStringLiteral("r"));
        QCOMPARE(sch->run(second).repeatCount, 3);
        // The same spec again is no change: it stays a repeat.
        QVERIFY(sch->setRunSpec(second, sch->run(second).spec));
        QCOMPARE(sch->run(second).group, QStringLiteral("r"));
        QJsonObject spec = sch->run(second).spec;
        QJsonObject model = spec.value(QStringLiteral("model")).toObject();
        model.insert(QStringLiteral("steps"), 99);
        spec.insert(QStringLiteral("model"), model);
        QVERIFY(sch->setRunSpec(second, spec));
        const RunInfo edited = sch->run(second);
        QCOMPARE(edited.group, QStringLiteral("r-2"));
        QCOMPARE(edited.repeatCount, 1);
        // Saved, the other two stay entries of their own, the edited one too.
        const Experiment ex = sch->toExperiment(QStringLiteral("t"), QString());
        QCOMPARE(ex.lanes.first().runs.size(), 3);
        for (const ExperimentRun &run : ex.lanes.first().runs)
            QCOMPARE(run.repeat, 1);
    }

    void cancelAndRetry()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1,
                            {fakeSpec(QStringLiteral("first"), 30, 10), fakeSpec(QStringLiteral("second"), 10)})});
        Scheduler *sch = s->scheduler();
        QSignalSpy idle(sch, &Scheduler::idle);
        const RunId second = idOf(s.get(), "second");
        QVERIFY(sch->cancelRun(second));
        QCOMPARE(sch->run(second).state, RunState::Cancelled);
        sch->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 10000);
        QCOMPARE(sch->finishedCount(), 1);
        QVERIFY(!QFile::exists(sch->run(second).runDir + QStringLiteral("/metrics.jsonl")));
        QVERIFY(sch->retryRun(second));
        QCOMPARE(sch->run(second).state, RunState::Queued);
        sch->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(sch->run(second).state, RunState::Finished, 10000);
        QCOMPARE(sch->finishedCount(), 2);
    }

    void missingGpuNeedsCpuFallback()
    {
        auto s = open({lane(QStringLiteral("cuda:7"), 1, {fakeSpec(QStringLiteral("g"), 10)})});
        Scheduler *sch = s->scheduler();
        if (s->devices()->hasDevice(QStringLiteral("cuda:7")))
            QSKIP("this machine has a cuda:7");
        QCOMPARE(sch->missingDeviceLanes(), QList<int>{0});
        QVERIFY(sch->preflight().join(QLatin1Char('\n')).contains(QStringLiteral("cuda:7")));
        QString error;
        QVERIFY(!sch->startRun(idOf(s.get(), "g"), &error));
        QVERIFY2(error.contains(QStringLiteral("CPU fallback")), qPrintable(error));
        QSignalSpy idle(sch, &Scheduler::idle);
        sch->startAll();
        QCOMPARE(idle.count(), 1); // nothing it could start
        QCOMPARE(sch->run(idOf(s.get(), "g")).state, RunState::Queued);

        sch->setCpuFallback(true);
        QCOMPARE(sch->lane(0).effectiveDevice, QStringLiteral("cpu"));
        sch->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(sch->run(idOf(s.get(), "g")).state, RunState::Finished, 10000);
        QCOMPARE(sch->run(idOf(s.get(), "g")).device, QStringLiteral("cpu"));
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
        Scheduler *sch = session.scheduler();
        sch->setWorkerProgram(fakeWorker());
        QVERIFY(sch->missingDeviceLanes().isEmpty());
        QVERIFY2(sch->preflight().join(QLatin1Char('\n')).contains(QStringLiteral("sbatch is not on PATH")),
                 qPrintable(sch->preflight().join(QLatin1Char('\n'))));
        sch->setCpuFallback(true);
        QCOMPARE(sch->lane(0).effectiveDevice, QStringLiteral("slurm:hpc/gpu"));
        QSignalSpy idle(sch, &Scheduler::idle);
        sch->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 10000);
        QCOMPARE(sch->run(idOf(&session, "c")).state, RunState::Finished);
        const RunInfo slurmRun = sch->run(idOf(&session, "s"));
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
        Scheduler *sch = s->scheduler();
        const RunId id = idOf(s.get(), "r");
        QSignalSpy connected(s->server(), &MetricsServer::runConnected);
        sch->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(sch->run(id).state, RunState::Finished, 15000);
        QVERIFY(connected.count() >= 2);
        const MetricSeries *loss = s->metrics()->series(id, QStringLiteral("loss"));
        QVERIFY(loss);
        QCOMPARE(int(loss->size()), 100);
    }

    void busyGpuWarnsBeforeStarting()
    {
        auto s = open({lane(QStringLiteral("cuda:0"), 1, {fakeSpec(QStringLiteral("g"), 5)})});
        DeviceInfo gpu;
        gpu.id = QStringLiteral("cuda:0");
        gpu.name = QStringLiteral("Test GPU");
        gpu.isGpu = true;
        gpu.index = 0;
        gpu.processes << GpuProcess{4242, 1 << 30, false, QStringLiteral("python3")};
        s->devices()->setFakeGpus({gpu});
        const QString problems = s->scheduler()->preflight().join(QLatin1Char('\n'));
        QVERIFY2(problems.contains(QStringLiteral("busy with another user's process: pid 4242 (python3)")),
                 qPrintable(problems));
        QSignalSpy warnings(s->scheduler(), &Scheduler::warning);
        s->scheduler()->startAll();
        QCOMPARE(warnings.count(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(s->scheduler()->run(idOf(s.get(), "g")).state, RunState::Finished, 10000);
    }

    void csvExportLongFormat()
    {
        auto s = open({lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("c"), 10)})});
        QSignalSpy idle(s->scheduler(), &Scheduler::idle);
        s->scheduler()->startAll();
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
            if (line.startsWith("c,") && line.contains(",loss,"))
                ++lossLines;
        }
        QCOMPARE(lossLines, 10);
    }
};

QTEST_GUILESS_MAIN(TestScheduler)
#include "tst_scheduler.moc"
