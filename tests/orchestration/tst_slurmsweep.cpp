// A sweep over a CPU lane and a lane of the one-node test Slurm cluster
// (testcluster.h) together: one queue, each trial on whichever lane frees
// first, the batch jobs' curves from their metrics.jsonl. The fake worker
// on both. Skipped, saying why, where the cluster cannot run.

#include "orchestration/board/board.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"
#include "orchestration/sweep/sweeprunner.h"
#include "testcluster.h"
#include "testutil.h"

#include <QJsonArray>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace trainyard;
using namespace trainyard::test;

class TestSlurmSweep : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    TestCluster m_cluster;
    QString m_skip;

    // A CPU lane (unless `cpuLane` is false) and a lane of the test
    // cluster, and a sweep of the fake model's quality over `qualities`,
    // each trial 30 steps of `stepMs`.
    Experiment mixedExperiment(const QString &name, const QString &sweepName, const QList<QJsonValue> &qualities,
                               int stepMs, bool cpuLane = true)
    {
        QJsonArray lanes{lane(QStringLiteral("slurm:test/debug"), 1, {})};
        if (cpuLane) {
            lanes.prepend(lane(QStringLiteral("cpu"), 1, {}));
        }
        QJsonObject json = experimentJson(name, m_tmp.filePath(name), lanes);
        json.insert(QStringLiteral("clusters"), QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("test")},
                                                                       {QStringLiteral("poll_seconds"), 1},
                                                                       {QStringLiteral("worker"), fakeWorker()}}});
        Experiment ex = experiment(json);
        SweepSpec sweep;
        sweep.name = sweepName;
        sweep.base = fakeSpec(QStringLiteral("base"), 30, stepMs);
        sweep.base.remove(QStringLiteral("name"));
        QJsonObject model = sweep.base.value(QStringLiteral("model")).toObject();
        model.insert(QStringLiteral("quality"), 0.5);
        sweep.base.insert(QStringLiteral("model"), model);
        SweepParameter quality;
        quality.key = QStringLiteral("model.quality");
        quality.kind = SweepParameter::Kind::Values;
        quality.values = qualities;
        sweep.space << quality;
        sweep.objective = QStringLiteral("valid/mrr");
        ex.sweeps << sweep;
        return ex;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        if (fakeWorker().isEmpty()) {
            m_skip = QStringLiteral("TRAINYARD_FAKE_WORKER is not set");
            return;
        }
        QString error;
        QVERIFY2(m_cluster.start(m_tmp.filePath(QStringLiteral("cluster")), &error), qPrintable(error));
        if (!m_cluster.running()) {
            m_skip = QStringLiteral("no test cluster: %1").arg(m_cluster.skipReason());
        }
    }

    void cleanupTestCase()
    {
        QString error;
        QVERIFY2(m_cluster.stop(&error), qPrintable(error));
    }

    void gridOverACpuAndASlurmLane()
    {
        if (!m_skip.isEmpty()) {
            QSKIP(qPrintable(m_skip));
        }
        const Experiment ex = mixedExperiment(QStringLiteral("mixed"), QStringLiteral("mix"), {0.2, 0.4, 0.6, 0.8}, 40);

        Session session;
        QStringList errors;
        QVERIFY2(session.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        Orchestrator *orch = session.orchestrator();
        orch->supervisor()->setWorkerProgram(fakeWorker());
        orch->laneDevices()->setCpuFallback(true); // the cluster's fake GPUs: its node trains on its CPU
        orch->dispatcher()->startAll();
        QVERIFY(QTest::qWaitFor(
            [&] { return orch->sweeps()->isDone(QStringLiteral("mix")) && orch->dispatcher()->activeCount() == 0; },
            180000));
        QSet<int> lanes;
        for (const TrialInfo &t : orch->sweeps()->trials(QStringLiteral("mix"))) {
            const RunInfo r = orch->runs()->value(t.run);
            QVERIFY2(t.phase == TrialInfo::Phase::Finished, qPrintable(r.name + QStringLiteral(": ") + r.message));
            QCOMPARE(r.step, 30);
            QVERIFY(!std::isnan(t.objective));
            QCOMPARE(r.jobId.isEmpty(), r.lane == 0); // the cluster's lane runs batch jobs
            lanes.insert(r.lane);
        }
        QCOMPARE(lanes, (QSet<int>{0, 1}));
        const QString line = orch->sweeps()->progressLine(QStringLiteral("mix"));
        QVERIFY2(line.contains(QStringLiteral("4/4 trials ended")) && line.contains(QStringLiteral("quality 0.8")),
                 qPrintable(line));
    }

    // ASHA on the cluster's lane: a trial paused as a batch job is
    // scancel'ed with SIGTERM, checkpoints and ends stopped; a promoted
    // trial resumes from its checkpoint as a new job with --resume, its
    // steps unbroken. (With a CPU lane beside it, which trials the cluster
    // gets depends on timing: the grid test above covers the two together.)
    void ashaOnASlurmLane()
    {
        if (!m_skip.isEmpty()) {
            QSKIP(qPrintable(m_skip));
        }
        Experiment ex =
            mixedExperiment(QStringLiteral("asha"), QStringLiteral("rungs"), {0.9, 0.2, 0.3, 0.1, 0.4, 0.5}, 60, false);
        SweepSpec &sweep = ex.sweeps.last();
        sweep.stopping.rule = SweepStopping::Rule::Asha;
        sweep.stopping.min = 1;
        sweep.stopping.max = 4;
        sweep.stopping.eta = 2;

        Session session;
        QStringList errors;
        QVERIFY2(session.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        Orchestrator *orch = session.orchestrator();
        orch->supervisor()->setWorkerProgram(fakeWorker());
        orch->supervisor()->setStopTimeout(20000); // a batch job's SIGTERM goes through scancel and a poll
        orch->laneDevices()->setCpuFallback(true);
        // Which lane each trial's every start went to: a batch job has a job id.
        QHash<RunId, QStringList> jobs;
        connect(orch->runs(), &RunRegistry::changed, this, [&](RunId id) {
            const QString job = orch->runs()->value(id).jobId;
            if (!job.isEmpty() && !jobs.value(id).contains(job)) {
                jobs[id] << job;
            }
        });
        orch->dispatcher()->startAll();
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         return orch->sweeps()->isDone(QStringLiteral("rungs"))
                                && orch->dispatcher()->activeCount() == 0;
                     },
                     240000),
                 qPrintable(orch->sweeps()->progressLine(QStringLiteral("rungs"))));
        int pausedAsJob = 0, promoted = 0;
        for (const TrialInfo &t : orch->sweeps()->trials(QStringLiteral("rungs"))) {
            const RunInfo r = orch->runs()->value(t.run);
            QVERIFY2(t.phase == TrialInfo::Phase::Finished || t.phase == TrialInfo::Phase::Paused,
                     qPrintable(r.name + QStringLiteral(": ") + r.message));
            if (t.phase == TrialInfo::Phase::Paused) {
                QCOMPARE(r.state, RunState::Stopped);
                QVERIFY2(r.message.contains(QStringLiteral("rung")), qPrintable(r.message));
                pausedAsJob += r.jobId.isEmpty() ? 0 : 1;
            }
            if (t.values.value(QStringLiteral("model.quality")).toDouble() == 0.9) {
                QCOMPARE(t.phase, TrialInfo::Phase::Finished);
                QCOMPARE(r.step, 40);
            }
            const QList<QJsonObject> metrics = metricsLines(r.runDir, QStringLiteral("metric"));
            bool resumed = false;
            for (const QJsonObject &log : metricsLines(r.runDir, QStringLiteral("log"))) {
                resumed = resumed || log.value(QStringLiteral("text")).toString().startsWith(QStringLiteral("resumed"));
            }
            if (!resumed) {
                continue;
            }
            ++promoted;
            for (int i = 0; i < metrics.size(); ++i) { // no seam: every step once, in order
                QCOMPARE(metrics.at(i).value(QStringLiteral("step")).toInt(), i + 1);
            }
        }
        QVERIFY2(pausedAsJob >= 1, "no trial was paused while it ran as a batch job");
        QVERIFY(promoted >= 1);
        int twoJobs = 0; // a trial paused as a job and promoted as a new job
        for (const QStringList &ids : std::as_const(jobs)) {
            twoJobs += ids.size() >= 2 ? 1 : 0;
        }
        qInfo("paused as a batch job: %d, promoted: %d, resumed as a second job: %d", pausedAsJob, promoted, twoJobs);
        QCOMPARE(twoJobs, promoted);
    }
};

QTEST_MAIN(TestSlurmSweep)
#include "tst_slurmsweep.moc"
