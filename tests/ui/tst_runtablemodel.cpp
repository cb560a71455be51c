// RunTableModel's past rows: it formats RunStore::readHistory's RunRecords
// of every experiment folder under the history roots (the open experiment's
// own folder excepted), under QAbstractItemModelTester.

#include "protocol.h"
#include "runstore.h"
#include "runtablemodel.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace trainyard;

namespace {

QByteArray line(const nlohmann::json &message)
{
    return QByteArray::fromStdString(protocol::encode(message));
}

void makeRun(const QString &runsRoot, const QString &name, const QByteArray &metrics, RunState state)
{
    const RunStore store(runsRoot);
    QString error;
    const QJsonObject spec{
        {QStringLiteral("name"), name},
        {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("transh")}}},
        {QStringLiteral("data"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("kg")},
                                             {QStringLiteral("path"), QStringLiteral("/data/kg/UMLS")}}}};
    QVERIFY2(store.prepareRunDir(name, spec, &error), qPrintable(error));
    QFile f(store.runDir(name) + QStringLiteral("/metrics.jsonl"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(metrics);
    RunInfo info;
    info.name = name;
    info.state = state;
    info.started = QDateTime(QDate(2026, 11, 30), QTime(10, 0), Qt::UTC);
    info.ended = info.started.addSecs(75);
    QVERIFY2(store.writeStatus(info, &error), qPrintable(error));
}

} // namespace

class TestRunTableModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Issue 12: sorting by loss put the runs without a loss first. They go
    // last, ascending and descending.
    void runsWithoutAValueSortLast()
    {
        QTemporaryDir history;
        const QString past = history.filePath(QStringLiteral("old"));
        makeRun(past, QStringLiteral("none"), QByteArray(), RunState::Failed);
        makeRun(past, QStringLiteral("low"), line(protocol::metric(5, 1, 0.5, 0.5)), RunState::Finished);
        makeRun(past, QStringLiteral("high"), line(protocol::metric(5, 1, 2.0, 0.5)), RunState::Finished);
        RunTableModel model;
        model.setSession(QStringLiteral("open"), history.filePath(QStringLiteral("open")), nullptr, nullptr);
        model.setHistoryRoots({history.path()});
        model.refreshHistory();
        QCOMPARE(model.rowCount(), 3);
        RunTableSortProxy proxy;
        proxy.setSourceModel(&model);
        const auto order = [&] {
            QStringList names;
            for (int r = 0; r < proxy.rowCount(); ++r)
                names << proxy.index(r, RunTableModel::NameColumn).data().toString();
            return names;
        };
        proxy.sort(RunTableModel::LossColumn, Qt::AscendingOrder);
        QCOMPARE(order(), (QStringList{QStringLiteral("low"), QStringLiteral("high"), QStringLiteral("none")}));
        proxy.sort(RunTableModel::LossColumn, Qt::DescendingOrder);
        QCOMPARE(order(), (QStringList{QStringLiteral("high"), QStringLiteral("low"), QStringLiteral("none")}));
    }

    void pastRunsFromTheirFolders()
    {
        QTemporaryDir history;
        const QString past = history.filePath(QStringLiteral("old-experiment"));
        auto valid = protocol::evalResult(20, "valid", 2.0);
        valid["mrr"] = 0.5;
        valid["hits@10"] = 0.75;
        auto test = protocol::evalResult(20, "test", 2.1);
        test["mrr"] = 0.4;
        makeRun(past, QStringLiteral("a"),
                line(protocol::metric(10, 1, 0.5, 1.0)) + line(protocol::metric(20, 2, 0.25, 2.0)) + line(valid)
                    + line(test) + line(protocol::done("finished", 0, 2.2)),
                RunState::Finished);
        makeRun(past, QStringLiteral("b"), line(protocol::metric(5, 1, 2.0, 0.5)), RunState::Failed);
        // The open experiment's folder: its runs are live rows, not history.
        const QString open = history.filePath(QStringLiteral("open-experiment"));
        makeRun(open, QStringLiteral("c"), line(protocol::metric(1, 1, 1.0, 0.1)), RunState::Finished);

        RunTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSession(QStringLiteral("open-experiment"), open, nullptr, nullptr);
        model.setHistoryRoots({history.path()});
        model.refreshHistory();
        QCOMPARE(model.rowCount(), 2);
        auto text = [&](int row, int column) { return model.index(row, column).data().toString(); };
        QCOMPARE(text(0, RunTableModel::ExperimentColumn), QStringLiteral("old-experiment"));
        QCOMPARE(text(0, RunTableModel::NameColumn), QStringLiteral("a"));
        QCOMPARE(text(0, RunTableModel::ModelColumn), QStringLiteral("transh"));
        QCOMPARE(text(0, RunTableModel::DataColumn), QStringLiteral("kg: UMLS"));
        QCOMPARE(text(0, RunTableModel::StateColumn), QStringLiteral("finished"));
        QCOMPARE(text(0, RunTableModel::StepColumn), QStringLiteral("20"));
        QCOMPARE(text(0, RunTableModel::LossColumn), QStringLiteral("0.25"));
        QCOMPARE(text(0, RunTableModel::MrrColumn), QStringLiteral("0.4"));     // the test split's
        QCOMPARE(text(0, RunTableModel::Hits10Column), QStringLiteral("0.75")); // only valid has it
        QCOMPARE(text(0, RunTableModel::AccuracyColumn), QString());
        QCOMPARE(model.index(0, RunTableModel::DurationColumn).data(RunTableModel::SortRole).toDouble(), 75.0);
        QCOMPARE(model.index(0, 0).data(RunTableModel::RunIdRole).toInt(), 0);
        QCOMPARE(model.index(0, 0).data(RunTableModel::RunDirRole).toString(), past + QStringLiteral("/a"));
        QCOMPARE(text(1, RunTableModel::NameColumn), QStringLiteral("b"));
        QCOMPARE(text(1, RunTableModel::StateColumn), QStringLiteral("failed"));
        QCOMPARE(text(1, RunTableModel::LossColumn), QStringLiteral("2"));
        QCOMPARE(text(1, RunTableModel::MrrColumn), QString());

        // Appended lines show on the next refresh.
        QFile f(past + QStringLiteral("/b/metrics.jsonl"));
        QVERIFY(f.open(QIODevice::Append));
        f.write(line(protocol::metric(6, 1, 1.5, 0.6)));
        f.close();
        model.refreshHistory();
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(text(1, RunTableModel::StepColumn), QStringLiteral("6"));
        QCOMPARE(text(1, RunTableModel::LossColumn), QStringLiteral("1.5"));
    }
};

QTEST_MAIN(TestRunTableModel)
#include "tst_runtablemodel.moc"
