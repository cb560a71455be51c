// A Slurm cluster reached over ssh whose files are not mounted here
// (docs/cluster.md#without-a-shared-filesystem): the test cluster
// (tests/slurm/start-cluster.sh) and a private sshd in one mount namespace
// with a tmpfs as the cluster's runs root (TestRemoteHost with a cluster;
// skipped, saying why, without root, sshd, unshare or Slurm). The run
// folders are made there over ssh, the jobs are submitted as always, their
// metrics.jsonl and worker.log are mirrored here and the curves come from
// the mirror; reattached after the session left them running.

#include "metrics/metricstore.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "testremotehost.h"
#include "testutil.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace trainyard;
using namespace trainyard::test;

class TestRemoteCluster : public QObject
{
    Q_OBJECT

    QTemporaryDir m_runtime;
    QTemporaryDir m_tmp;
    TestRemoteHost m_host;

    Experiment clusterExperiment(const QString &name, const QJsonArray &runs) const
    {
        QJsonObject json =
            experimentJson(name, m_tmp.filePath(name), {lane(QStringLiteral("slurm:far/debug"), 4, runs)});
        json.insert(QStringLiteral("clusters"),
                    QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("far")},
                                           {QStringLiteral("reach"), QStringLiteral("ssh")},
                                           {QStringLiteral("host"), QStringLiteral("127.0.0.1")},
                                           {QStringLiteral("ssh_config"), m_host.sshConfig()},
                                           {QStringLiteral("runs_root"), m_host.runsRoot()},
                                           {QStringLiteral("worker"), fakeWorker()},
                                           {QStringLiteral("poll_seconds"), 1}}});
        return experiment(json);
    }

    std::unique_ptr<Session> open(const Experiment &ex)
    {
        auto session = std::make_unique<Session>();
        QStringList errors;
        if (!session->open(ex, QString(), &errors)) {
            qWarning("%s", qPrintable(errors.join(QLatin1Char('\n'))));
        }
        return session;
    }

    static QString everyStepOnce(const MetricStore &store, RunId id, int steps)
    {
        const MetricSeries *loss = store.series(id, QStringLiteral("loss"));
        if (!loss) {
            return QStringLiteral("no loss series");
        }
        if (int(loss->size()) != steps) {
            return QStringLiteral("%1 points, expected %2").arg(loss->size()).arg(steps);
        }
        for (int i = 0; i < steps; ++i) {
            if (loss->step(std::size_t(i)) != i + 1) {
                return QStringLiteral("point %1 has step %2").arg(i).arg(loss->step(std::size_t(i)));
            }
        }
        return {};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QFile::setPermissions(m_runtime.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        qputenv("XDG_RUNTIME_DIR", m_runtime.path().toUtf8());
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set (run through ctest)");
        }
        QString error;
        QVERIFY2(m_host.start(m_tmp.filePath(QStringLiteral("site")), &error, QStringLiteral("64m"),
                              m_tmp.filePath(QStringLiteral("site/cluster"))),
                 qPrintable(error));
    }

    void cleanupTestCase() { m_host.stop(); }

    void trainsWithoutASharedFilesystem()
    {
        if (!m_host.running()) {
            QSKIP(qPrintable(m_host.skipReason()));
        }
        auto session = open(clusterExperiment(QStringLiteral("nfs-free"), {fakeSpec(QStringLiteral("j1"), 80, 20),
                                                                           fakeSpec(QStringLiteral("j2"), 60, 20)}));
        Orchestrator *orch = session->orchestrator();
        QVERIFY2(orch->laneDevices()->preflight().isEmpty(),
                 qPrintable(orch->laneDevices()->preflight().join(QLatin1Char('\n'))));
        const RunId j1 = orch->runs()->findByName(QStringLiteral("j1"));
        const RunId j2 = orch->runs()->findByName(QStringLiteral("j2"));
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        // Live from the mirror: points arrive while the job runs.
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(j1).step > 5 && orch->runs()->value(j1).state == RunState::Running,
                                 60000);
        QVERIFY(!orch->runs()->value(j1).jobId.isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 120000);
        QCOMPARE(orch->runs()->value(j1).state, RunState::Finished);
        QCOMPARE(orch->runs()->value(j2).state, RunState::Finished);
        QVERIFY2(everyStepOnce(*session->metrics(), j1, 80).isEmpty(),
                 qPrintable(everyStepOnce(*session->metrics(), j1, 80)));
        QVERIFY2(everyStepOnce(*session->metrics(), j2, 60).isEmpty(),
                 qPrintable(everyStepOnce(*session->metrics(), j2, 60)));
        // The folder is there only; here its mirror, byte for byte.
        const QString there = m_host.runsRoot() + QStringLiteral("/j1");
        QVERIFY(!QFileInfo::exists(there));
        const QString here = m_tmp.filePath(QStringLiteral("nfs-free/j1"));
        QCOMPARE(readFile(here + QStringLiteral("/metrics.jsonl")),
                 m_host.run(QStringLiteral("cat '%1/metrics.jsonl'").arg(there)));
        QCOMPARE(readFile(here + QStringLiteral("/worker.log")),
                 m_host.run(QStringLiteral("cat '%1/worker.log'").arg(there)));
        QVERIFY(session->store()->hasCheckpoint(QStringLiteral("j1"))); // listed from there
        QVERIFY(orch->runs()->value(j1).command.contains(there + QStringLiteral("/spec.json")));
    }

    // Left running (the app closed with "leave running"), opened again:
    // the job is reattached, what it wrote meanwhile mirrored, every step once.
    void reattachedWithoutASharedFilesystem()
    {
        if (!m_host.running()) {
            QSKIP(qPrintable(m_host.skipReason()));
        }
        const Experiment ex = clusterExperiment(QStringLiteral("again"), {fakeSpec(QStringLiteral("long"), 250, 20)});
        {
            auto session = open(ex);
            Orchestrator *orch = session->orchestrator();
            const RunId id = orch->runs()->findByName(QStringLiteral("long"));
            orch->dispatcher()->startAll();
            QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(id).step > 20, 60000);
            session->close(true);
        }
        QTest::qWait(1500); // the outage itself: the run trains on while no app follows it
        auto session = open(ex);
        Orchestrator *orch = session->orchestrator();
        const RunId id = orch->runs()->findByName(QStringLiteral("long"));
        QVERIFY(orch->runs()->value(id).reattached);
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).state, RunState::Finished, 60000);
        QVERIFY2(everyStepOnce(*session->metrics(), id, 250).isEmpty(),
                 qPrintable(everyStepOnce(*session->metrics(), id, 250)));
    }
};

QTEST_GUILESS_MAIN(TestRemoteCluster)
#include "tst_remotecluster.moc"
