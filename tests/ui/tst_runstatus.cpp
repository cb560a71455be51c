// The runs table and `trainyard status` say the same of one session: a
// running (paused) run's progress and process, a queued run's full lane,
// a waiting run's afters (RunStatusRow, the one builder of both).

#include "metrics/metricstore.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/document/experimentdocument.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/session/statusreport.h"
#include "orchestration/supervision/supervisor.h"
#include "tests/helpers/buildprograms.h"
#include "ui/runs/runtablemodel.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace trainyard;

namespace {

QJsonObject fakeSpec(const QString &name, int steps, const QStringList &after = {})
{
    QJsonObject spec{{QStringLiteral("name"), name},
                     {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("fake")},
                                                           {QStringLiteral("steps"), steps},
                                                           {QStringLiteral("step_ms"), 5}}},
                     {QStringLiteral("data"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("synthetic-kg")}}}};
    if (!after.isEmpty()) {
        spec.insert(QStringLiteral("after"), QJsonArray::fromStringList(after));
    }
    return spec;
}

} // namespace

class TestRunStatus : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void theRunsTableAndTheCommandAgree()
    {
        const QString fake = qEnvironmentVariable("TRAINYARD_FAKE_WORKER");
        if (fake.isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        QTemporaryDir dir;
        const QJsonObject json{
            {QStringLiteral("name"), QStringLiteral("agree")},
            {QStringLiteral("runs_root"), dir.filePath(QStringLiteral("runs"))},
            {QStringLiteral("lanes"),
             QJsonArray{
                 QJsonObject{{QStringLiteral("device"), QStringLiteral("cpu")},
                             {QStringLiteral("slots"), 1},
                             {QStringLiteral("runs"),
                              QJsonArray{fakeSpec(QStringLiteral("c1"), 4000), fakeSpec(QStringLiteral("c2"), 10),
                                         fakeSpec(QStringLiteral("c3"), 10, {QStringLiteral("c1")})}}}}}};
        const QString file = dir.filePath(QStringLiteral("agree.json"));
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly) && out.write(QJsonDocument(json).toJson()) > 0);
        out.close();
        QStringList errors;
        const auto experiment = Experiment::load(file, &errors);
        QVERIFY2(experiment, qPrintable(errors.join(QLatin1Char('\n'))));

        Session session;
        QVERIFY2(session.open(*experiment, file, &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        Orchestrator *orchestrator = session.orchestrator();
        orchestrator->supervisor()->setWorkerProgram(fake);
        ExperimentDocument document(&session);
        RunTableModel model;
        model.setDocument(&document);
        orchestrator->dispatcher()->startAll();

        // Paused after some steps: nothing moves while the two are compared.
        const RunId c1 = orchestrator->runs()->findByName(QStringLiteral("c1"));
        QTRY_VERIFY_WITH_TIMEOUT(orchestrator->runs()->value(c1).step > 0, 10000);
        QString error;
        QVERIFY2(orchestrator->supervisor()->pause(c1, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(orchestrator->runs()->value(c1).state, RunState::Paused, 5000);

        // The window's rows (after its refresh) are the session's report.
        const auto modelRows = [&model] {
            QList<RunStatusRow> rows;
            for (int r = 0; r < model.rowCount(); ++r) {
                if (model.row(r).id != 0) {
                    rows << model.row(r).status;
                }
            }
            return rows;
        };
        QTRY_VERIFY_WITH_TIMEOUT(modelRows() == liveStatusReport(*orchestrator), 5000);
        const QList<RunStatusRow> rows = modelRows();
        QCOMPARE(rows.size(), 3);
        QCOMPARE(rows.at(0).state, QStringLiteral("paused"));
        QCOMPARE(rows.at(1).reason, QStringLiteral("lane full (1 of 1 slots busy)"));
        QCOMPARE(rows.at(2).state, QStringLiteral("waiting"));
        for (int r = 0; r < rows.size(); ++r) {
            QCOMPARE(model.data(model.index(r, RunTableModel::StateColumn)).toString(), rows.at(r).state);
        }
        QCOMPARE(model.data(model.index(1, RunTableModel::StateColumn), Qt::ToolTipRole).toString(),
                 QStringLiteral("queued: lane full (1 of 1 slots busy)"));

        // `trainyard status`, asking this session over its control socket
        // (the event loop runs meanwhile, so that it can answer).
        QProcess command;
        command.start(buildProgram("TRAINYARD_BIN"), {QStringLiteral("status"), QStringLiteral("--json"), file});
        QTRY_COMPARE_WITH_TIMEOUT(command.state(), QProcess::NotRunning, 15000);
        QCOMPARE(command.exitCode(), 0);
        const QJsonObject said = QJsonDocument::fromJson(command.readAllStandardOutput()).object();
        QVERIFY(said.value(QStringLiteral("live")).toBool());
        QList<RunStatusRow> commandRows;
        for (const QJsonValue &run : said.value(QStringLiteral("runs")).toArray()) {
            commandRows << RunStatusRow::fromJson(run.toObject());
        }
        QCOMPARE(commandRows, rows);

        session.close(false);
        QTRY_VERIFY_WITH_TIMEOUT(!session.isOpen(), 15000);
    }
};

QTEST_MAIN(TestRunStatus)
#include "tst_runstatus.moc"
