// Outcomes follow the evidence: the done line's status wins over
// the exit status, a program's NaN loss is a gap in its curve and divergence
// when it lasts, the module reports from rank 0 only, and a worker that
// exits 0 without a step or a done line failed. Real python3 programs
// through the trainyard module, and trainyard-fake-worker.
//
// Each test function's first comment line ("Fault: ... | User sees: ... |
// Kept: ...") feeds docs/reliability.md (tests/faults/collect-reliability.py).

#include "metrics/metricstore.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"
#include "tests/orchestration/testutil.h"

#include <QDir>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <csignal>
#include <memory>

using namespace trainyard;
using namespace trainyard::test;

namespace {

// A program run of `python3 -c CODE`.
QJsonObject pythonRun(const QString &name, const QString &code)
{
    return QJsonObject{
        {QStringLiteral("name"), name},
        {QStringLiteral("program"),
         QJsonObject{{QStringLiteral("argv"), QJsonArray{QStringLiteral("python3"), QStringLiteral("-c"), code}}}}};
}

} // namespace

class TestOutcomes : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;

    // A session of one CPU lane holding `runs`.
    std::unique_ptr<Session> open(const QString &name, const QJsonArray &runs) const
    {
        auto session = std::make_unique<Session>();
        QStringList errors;
        if (!session->open(experiment(experimentJson(name, m_tmp.filePath(name),
                                                     {lane(QStringLiteral("cpu"), int(runs.size()), runs)})),
                           QString(), &errors)) {
            qWarning("%s", qPrintable(errors.join(QLatin1Char('\n'))));
        }
        // Beside it, BUILD/python holds the module: program runs get it on PYTHONPATH.
        session->orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
        return session;
    }

    static RunInfo runToTheEnd(Orchestrator *orch, RunId id, int timeoutMs = 30000)
    {
        [&] { QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orch->runs()->value(id).state), timeoutMs); }();
        return orch->runs()->value(id);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty()) {
            QSKIP("python3 is not installed");
        }
    }

    // Fault: a program run gets SIGTERM from outside Trainyard (kill, timeout, systemd, preemption), checkpoints, writes done "stopped" and exits 4 | User sees: the run "stopped", message "reported stopped in its done line; the program exited 4" (was: failed, "exit 4 — worker.log: ...") | Kept: its checkpoint and every point, for a resume
    void outsideSigtermAfterACheckpointIsStopped()
    {
        auto session = open(
            QStringLiteral("outside"),
            {pythonRun(QStringLiteral("term"), QStringLiteral("import os, sys, time, trainyard\n"
                                                              "run = trainyard.init()\n"
                                                              "step = 0\n"
                                                              "while not run.should_stop() and step < 20000:\n"
                                                              "    step += 1\n"
                                                              "    run.log(step, loss=1.0 / step)\n"
                                                              "    time.sleep(0.005)\n"
                                                              "path = os.path.join(run.checkpoint_dir, 'last.txt')\n"
                                                              "open(path, 'w').write(str(step))\n"
                                                              "run.checkpoint(step, path)\n"
                                                              "sys.exit(run.finish())\n"))});
        Orchestrator *orch = session->orchestrator();
        const RunId id = orch->runs()->findByName(QStringLiteral("term"));
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(id).step >= 5 && orch->runs()->value(id).pid > 0, 20000);
        QCOMPARE(::kill(pid_t(orch->runs()->value(id).pid), SIGTERM), 0); // nobody pressed Stop
        const RunInfo r = runToTheEnd(orch, id);
        QVERIFY2(r.state == RunState::Stopped, qPrintable(r.message));
        QCOMPARE(r.exitCode, 4);
        QCOMPARE(r.message, QStringLiteral("reported stopped in its done line; the program exited 4"));
        QCOMPARE(readJsonFile(r.runDir + QStringLiteral("/status.json")).value(QStringLiteral("state")).toString(),
                 QStringLiteral("stopped"));
        QVERIFY(QFile::exists(r.runDir + QStringLiteral("/checkpoints/last.txt")));
    }

    // Fault: a program's loss turns NaN at step 50 of 100 and stays NaN; another's is NaN from step 20 to 29 only | User sees: the first "diverged" ("the loss was NaN or infinite from step 50 to the end"), the second finished; both curves have a gap at the NaN steps and one warning each | Kept: all 100 lines of each with their finite grad_norm
    void nanLossIsAGapAndDivergesWhenItLasts()
    {
        const QString code = QStringLiteral("import trainyard, sys\n"
                                            "run = trainyard.init()\n"
                                            "first, last = int(sys.argv[1]), int(sys.argv[2])\n"
                                            "for step in range(1, 101):\n"
                                            "    bad = first <= step <= last\n"
                                            "    run.log(step, loss=float('nan') if bad else 1.0 / step, "
                                            "grad_norm=0.25, total_steps=100)\n");
        auto withArgs = [&](const QString &name, int first, int last) {
            QJsonObject spec = pythonRun(name, code);
            QJsonObject program = spec.value(QStringLiteral("program")).toObject();
            QJsonArray argv = program.value(QStringLiteral("argv")).toArray();
            argv << QString::number(first) << QString::number(last);
            program.insert(QStringLiteral("argv"), argv);
            spec.insert(QStringLiteral("program"), program);
            return spec;
        };
        auto session = open(QStringLiteral("nan"),
                            {withArgs(QStringLiteral("stays"), 50, 100), withArgs(QStringLiteral("recovers"), 20, 29)});
        Orchestrator *orch = session->orchestrator();
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 30000);
        for (const auto &[name, first, last] :
             {std::tuple{QStringLiteral("stays"), 50, 100}, std::tuple{QStringLiteral("recovers"), 20, 29}}) {
            const RunId id = orch->runs()->findByName(name);
            const RunInfo r = orch->runs()->value(id);
            const MetricSeries *loss = session->metrics()->series(id, QStringLiteral("loss"));
            const MetricSeries *grad = session->metrics()->series(id, QStringLiteral("grad_norm"));
            QVERIFY(loss && grad);
            QCOMPARE(int(loss->size()), 100);
            QCOMPARE(int(grad->size()), 100);
            for (std::size_t i = 0; i < loss->size(); ++i) {
                const bool bad = int(loss->step(i)) >= first && int(loss->step(i)) <= last;
                QCOMPARE(std::isnan(loss->value(i)), bad);
                QCOMPARE(grad->value(i), 0.25);
            }
            int warnings = 0;
            for (const QJsonObject &log : metricsLines(r.runDir, QStringLiteral("log"))) {
                warnings += log.value(QStringLiteral("level")).toString() == QStringLiteral("warning");
            }
            QCOMPARE(warnings, 1);
            if (name == QStringLiteral("stays")) {
                QVERIFY2(r.state == RunState::Diverged, qPrintable(r.message));
                QVERIFY2(r.message.contains(QStringLiteral("from step 50 to the end")), qPrintable(r.message));
            } else {
                QVERIFY2(r.state == RunState::Finished, qPrintable(r.message));
            }
        }
    }

    // Fault: a program starts two processes (as mp.spawn or torchrun do) that each call trainyard.init(), RANK 0 and 1 | User sees: one curve, one done line, the run finished; Stop reaches both ranks (rank 1 reads rank 0's stop from RUN_DIR/.trainyard-control.json) | Kept: rank 0's metrics.jsonl in its fixed format, no step twice
    void twoRanksMakeOneCurveAndBothObeyStop()
    {
        const QString code =
            QStringLiteral("import multiprocessing, os, sys, time, trainyard\n"
                           "def rank_main(rank, steps):\n"
                           "    os.environ['RANK'] = str(rank)\n"
                           "    run = trainyard.init()\n"
                           "    step = 0\n"
                           "    while not run.should_stop() and step < steps:\n"
                           "        step += 1\n"
                           "        run.log(step, loss=1.0 / step, rank=float(rank))\n"
                           "        time.sleep(0.002)\n"
                           "if __name__ == '__main__':\n"
                           "    ctx = multiprocessing.get_context('spawn')\n"
                           "    procs = [ctx.Process(target=rank_main, args=(r, int(sys.argv[1]))) for r in (0, 1)]\n"
                           "    [p.start() for p in procs]\n"
                           "    [p.join() for p in procs]\n"
                           "    sys.exit(max(p.exitcode for p in procs))\n");
        QTemporaryDir scripts;
        QVERIFY(writeFile(scripts.filePath(QStringLiteral("ranks.py")), code.toUtf8()));
        auto spec = [&](const QString &name, int steps) {
            return QJsonObject{
                {QStringLiteral("name"), name},
                {QStringLiteral("program"),
                 QJsonObject{{QStringLiteral("argv"),
                              QJsonArray{QStringLiteral("python3"), scripts.filePath(QStringLiteral("ranks.py")),
                                         QString::number(steps)}}}}};
        };
        auto session = open(QStringLiteral("ranks"),
                            {spec(QStringLiteral("whole"), 100), spec(QStringLiteral("stopped"), 100000)});
        Orchestrator *orch = session->orchestrator();
        const RunId whole = orch->runs()->findByName(QStringLiteral("whole"));
        const RunId stopped = orch->runs()->findByName(QStringLiteral("stopped"));
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(stopped).step >= 50, 30000);
        QVERIFY(orch->runActions()->stopRun(stopped));
        for (RunId id : {whole, stopped}) {
            const RunInfo r = runToTheEnd(orch, id);
            QVERIFY2(r.state == (id == whole ? RunState::Finished : RunState::Stopped), qPrintable(r.message));
            QCOMPARE(metricsLines(r.runDir, QStringLiteral("done")).size(), 1);
            const QList<QJsonObject> metric = metricsLines(r.runDir, QStringLiteral("metric"));
            for (const QJsonObject &m : metric) {
                QCOMPARE(m.value(QStringLiteral("rank")).toDouble(), 0.0);
            }
            const MetricSeries *loss = session->metrics()->series(id, QStringLiteral("loss"));
            QVERIFY(loss);
            QCOMPARE(int(loss->size()), int(metric.size()));
            for (std::size_t i = 1; i < loss->size(); ++i) {
                QVERIFY(loss->step(i) > loss->step(i - 1));
            }
            if (id == whole) {
                QCOMPARE(int(loss->size()), 100);
            }
        }
        // Rank 1 obeyed too: the program ended (exit 0), not the stop escalation's kill.
        QVERIFY2(!orch->runs()->value(stopped).message.contains(QStringLiteral("killed")),
                 qPrintable(orch->runs()->value(stopped).message));
    }

    // Fault: the worker command exits 0 without writing a single metric or done line (a wrong worker, a wrapper that forgot to exec) | User sees: the run "failed", "exited 0 but never reported a step or a done line — not trainyard-worker? see worker.log" (was: finished) | Kept: worker.log with what it printed
    void workerExitingZeroWithoutAReportFailed()
    {
        auto session =
            open(QStringLiteral("silent"), {fakeSpec(QStringLiteral("mute"), 20, 5, QStringLiteral("silent"))});
        Orchestrator *orch = session->orchestrator();
        const RunId id = orch->runs()->findByName(QStringLiteral("mute"));
        orch->dispatcher()->startAll();
        const RunInfo r = runToTheEnd(orch, id);
        QCOMPARE(r.state, RunState::Failed);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.message.startsWith(QStringLiteral(
                     "exited 0 but never reported a step or a done line — not trainyard-worker? see worker.log")),
                 qPrintable(r.message));
        QVERIFY2(r.message.contains(QStringLiteral("exits 0 without reporting")), qPrintable(r.message));
        QCOMPARE(readJsonFile(r.runDir + QStringLiteral("/status.json")).value(QStringLiteral("state")).toString(),
                 QStringLiteral("failed"));
    }
};

QTEST_GUILESS_MAIN(TestOutcomes)
#include "tst_outcomes.moc"
