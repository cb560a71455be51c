// RunTableModel's past rows: it formats RunStore::readHistory's RunRecords
// of every experiment folder under the history roots (the open experiment's
// own folder excepted), under QAbstractItemModelTester.

#include "orchestration/runstore/runstore.h"
#include "protocol/protocol.h"
#include "ui/app/appsettings.h"
#include "ui/runs/runtablemodel.h"
#include "ui/runs/runtablepanel.h"
#include "ui/runs/runtableproxy.h"
#include "uitesthelpers.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QScrollBar>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
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

// A finished past run of `spec`.
void makeSpecRun(const QString &runsRoot, const QJsonObject &spec)
{
    const RunStore store(runsRoot);
    const QString name = spec.value(QStringLiteral("name")).toString();
    QString error;
    QVERIFY2(store.prepareRunDir(name, spec, &error), qPrintable(error));
    RunInfo info;
    info.name = name;
    info.state = RunState::Finished;
    info.started = QDateTime(QDate(2026, 11, 30), QTime(10, 0), Qt::UTC);
    info.ended = info.started.addSecs(10);
    QVERIFY2(store.writeStatus(info, &error), qPrintable(error));
}

QJsonObject transe(const QString &name, double lr, int dim)
{
    return QJsonObject{{QStringLiteral("name"), name},
                       {QStringLiteral("model"),
                        QJsonObject{{QStringLiteral("type"), QStringLiteral("transe")}, {QStringLiteral("dim"), dim}}},
                       {QStringLiteral("train"), QJsonObject{{QStringLiteral("lr"), lr}}}};
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

ModelCatalogue catalogue()
{
    QString error;
    return ModelCatalogue::fromJson(testing::catalogueJson(), &error);
}

} // namespace

class TestRunTableModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    // Each case starts from the default columns (the panel keeps the user's in QSettings).
    void init() { appSettings().remove(QStringLiteral("runsTable")); }

    // sorting by loss put the runs without a loss first. They go
    // last, ascending and descending.
    void runsWithoutAValueSortLast()
    {
        QTemporaryDir history;
        const QString past = history.filePath(QStringLiteral("old"));
        makeRun(past, QStringLiteral("none"), QByteArray(), RunState::Failed);
        makeRun(past, QStringLiteral("low"), line(protocol::metric(5, 1, 0.5, 0.5)), RunState::Finished);
        makeRun(past, QStringLiteral("high"), line(protocol::metric(5, 1, 2.0, 0.5)), RunState::Finished);
        RunTableModel model;
        model.setDocument(QStringLiteral("open"), history.filePath(QStringLiteral("open")), nullptr);
        model.setHistoryRoots({history.path()});
        model.refreshHistory();
        model.waitForHistory();
        QCOMPARE(model.rowCount(), 3);
        RunTableProxy proxy;
        proxy.setSourceModel(&model);
        const auto order = [&] {
            QStringList names;
            for (int r = 0; r < proxy.rowCount(); ++r) {
                names << proxy.index(r, RunTableModel::NameColumn).data().toString();
            }
            return names;
        };
        proxy.sort(RunTableModel::LossColumn, Qt::AscendingOrder);
        QCOMPARE(order(), (QStringList{QStringLiteral("low"), QStringLiteral("high"), QStringLiteral("none")}));
        proxy.sort(RunTableModel::LossColumn, Qt::DescendingOrder);
        QCOMPARE(order(), (QStringList{QStringLiteral("high"), QStringLiteral("low"), QStringLiteral("none")}));
    }

    // one column per hyperparameter of the runs' specs (flattened,
    // with the catalogue's defaults), numbers sorted as numbers.
    void hyperparameterColumns()
    {
        QTemporaryDir history;
        const QString past = history.filePath(QStringLiteral("sweep"));
        makeSpecRun(past, transe(QStringLiteral("a"), 0.5, 16));
        makeSpecRun(past, transe(QStringLiteral("b"), 10, 16));
        QJsonObject c = transe(QStringLiteral("c"), 2, 16);
        c.insert(QStringLiteral("eval"), QJsonObject{{QStringLiteral("every_epochs"), 10}}); // the default, written out
        makeSpecRun(past, c);
        RunTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDocument(QStringLiteral("open"), history.filePath(QStringLiteral("open")), nullptr);
        model.setHistoryRoots({history.path()});
        model.refreshHistory();
        model.waitForHistory();
        QCOMPARE(model.rowCount(), 3);

        // Without a catalogue: the keys the specs hold.
        QCOMPARE(model.paramKeys(), (QStringList{QStringLiteral("model.dim"), QStringLiteral("train.lr"),
                                                 QStringLiteral("eval.every_epochs")}));
        QCOMPARE(model.columnCount(), RunTableModel::FixedColumnCount + 3);
        QVERIFY(model.paramDiffers(QStringLiteral("train.lr")));
        QVERIFY(!model.paramDiffers(QStringLiteral("model.dim")));
        QVERIFY(model.paramDiffers(QStringLiteral("eval.every_epochs"))); // only c has it
        const int lr = model.paramColumn(QStringLiteral("train.lr"));
        QCOMPARE(model.headerData(lr, Qt::Horizontal).toString(), QStringLiteral("train.lr"));
        QCOMPARE(model.headerData(lr, Qt::Horizontal, RunTableModel::ParamKeyRole).toString(),
                 QStringLiteral("train.lr"));
        QCOMPARE(model.index(0, lr).data().toString(), QStringLiteral("0.5"));

        // With it: every default too, and a default written out is no difference.
        model.setCatalogue(catalogue());
        model.waitForHistory(); // the past rows are made again in the background
        QVERIFY(model.paramKeys().contains(QStringLiteral("model.norm")));
        QVERIFY(model.paramKeys().contains(QStringLiteral("train.epochs")));
        QVERIFY(model.paramKeys().contains(QStringLiteral("data.entities")));
        QVERIFY(!model.paramKeys().contains(QStringLiteral("name")));
        QVERIFY(!model.paramKeys().contains(QStringLiteral("model.type"))); // the Model column
        QVERIFY(!model.paramDiffers(QStringLiteral("eval.every_epochs")));
        QVERIFY(!model.paramDiffers(QStringLiteral("model.norm")));
        QVERIFY(model.paramDiffers(QStringLiteral("train.lr")));
        const int epochs = model.paramColumn(QStringLiteral("train.epochs"));
        QCOMPARE(model.index(1, epochs).data().toString(), QStringLiteral("50"));

        // Numbers sort as numbers: 0.5, 2, 10 (as text: 0.5, 10, 2).
        RunTableProxy proxy;
        proxy.setSourceModel(&model);
        const int lrColumn = model.paramColumn(QStringLiteral("train.lr"));
        proxy.sort(lrColumn, Qt::AscendingOrder);
        QStringList order;
        for (int r = 0; r < proxy.rowCount(); ++r) {
            order << proxy.index(r, RunTableModel::NameColumn).data().toString();
        }
        QCOMPARE(order, (QStringList{QStringLiteral("a"), QStringLiteral("c"), QStringLiteral("b")}));
    }

    // a program run's parameters are config.<name> columns: the
    // spec's "config", and what the script reported it used beside it
    // (params.json, its init(config=) defaults under Trainyard's values).
    // A params.json that is a link is refused, never followed.
    void programConfigColumns()
    {
        QTemporaryDir history;
        const QString past = history.filePath(QStringLiteral("sweep"));
        const auto program = [](const QString &name, double lr) {
            return QJsonObject{
                {QStringLiteral("name"), name},
                {QStringLiteral("program"),
                 QJsonObject{{QStringLiteral("argv"), QJsonArray{QStringLiteral("python3"), QStringLiteral("t.py"),
                                                                 QStringLiteral("--lr={lr}")}}}},
                {QStringLiteral("config"), QJsonObject{{QStringLiteral("lr"), lr}}}};
        };
        makeSpecRun(past, program(QStringLiteral("p1"), 0.01));
        makeSpecRun(past, program(QStringLiteral("p2"), 0.1));
        makeSpecRun(past, program(QStringLiteral("p3"), 1));
        const RunStore store(past);
        QVERIFY(writeFile(store.runDir(QStringLiteral("p1")) + QStringLiteral("/params.json"),
                          R"({"lr": 0.01, "layers": 3, "opt": "adam", "bad-name": 1, "list": [1]})"));
        QVERIFY(writeFile(history.filePath(QStringLiteral("elsewhere.json")), R"({"layers": 99})"));
        QVERIFY(QFile::link(history.filePath(QStringLiteral("elsewhere.json")),
                            store.runDir(QStringLiteral("p3")) + QStringLiteral("/params.json")));
        RunTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDocument(QStringLiteral("open"), history.filePath(QStringLiteral("open")), nullptr);
        model.setHistoryRoots({history.path()});
        model.refreshHistory();
        model.waitForHistory();
        QCOMPARE(model.rowCount(), 3);
        QStringList configKeys;
        for (const QString &key : model.paramKeys()) {
            if (key.startsWith(QLatin1String("config."))) {
                configKeys << key;
            }
        }
        // Valid names with a number, string, boolean or null only.
        QCOMPARE(configKeys, (QStringList{QStringLiteral("config.layers"), QStringLiteral("config.lr"),
                                          QStringLiteral("config.opt")}));
        QVERIFY(model.paramDiffers(QStringLiteral("config.lr")));
        QVERIFY(model.paramDiffers(QStringLiteral("config.layers"))); // only p1 reported it
        const int lr = model.paramColumn(QStringLiteral("config.lr"));
        const int layers = model.paramColumn(QStringLiteral("config.layers"));
        QMap<QString, QStringList> cells;
        for (int r = 0; r < model.rowCount(); ++r) {
            cells[model.index(r, RunTableModel::NameColumn).data().toString()] =
                QStringList{model.index(r, lr).data().toString(), model.index(r, layers).data().toString()};
        }
        QCOMPARE(cells.value(QStringLiteral("p1")), (QStringList{QStringLiteral("0.01"), QStringLiteral("3")}));
        // Written alike in the column.
        QCOMPARE(cells.value(QStringLiteral("p2")), (QStringList{QStringLiteral("0.10"), QString()}));
        QCOMPARE(cells.value(QStringLiteral("p3")),
                 (QStringList{QStringLiteral("1.00"), QString()})); // the link: refused
    }

    // a program's run.summary values are summary.<name> columns
    // after the spec's, the last value of each name in its metrics.jsonl
    // (the record of truth); a NaN (null) shows as null and sorts last.
    void programSummaryColumns()
    {
        QTemporaryDir history;
        const QString past = history.filePath(QStringLiteral("scripts"));
        const auto program = [](const QString &name) {
            return QJsonObject{
                {QStringLiteral("name"), name},
                {QStringLiteral("program"),
                 QJsonObject{{QStringLiteral("argv"), QJsonArray{QStringLiteral("python3"), QStringLiteral("t.py")}}}}};
        };
        makeSpecRun(past, program(QStringLiteral("s1")));
        makeSpecRun(past, program(QStringLiteral("s2")));
        makeSpecRun(past, program(QStringLiteral("s3")));
        const RunStore store(past);
        auto summary = [](double wall, const char *key, const nlohmann::json &value) {
            auto s = protocol::summary(wall);
            s[key] = value;
            return line(s);
        };
        auto metric = protocol::metric(11, 1, 0, 1.0);
        metric.erase("loss");
        metric["acc"] = 0.5;
        QVERIFY(writeFile(store.runDir(QStringLiteral("s1")) + QStringLiteral("/metrics.jsonl"),
                          line(metric) + summary(1.0, "best_acc", 0.9) + summary(2.0, "best_acc", 0.93)
                              + summary(2.5, "epochs", 12)));
        QVERIFY(writeFile(store.runDir(QStringLiteral("s2")) + QStringLiteral("/metrics.jsonl"),
                          summary(1.0, "best_acc", 0.871)));
        QVERIFY(writeFile(store.runDir(QStringLiteral("s3")) + QStringLiteral("/metrics.jsonl"),
                          summary(1.0, "best_acc", nullptr)));
        RunTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDocument(QStringLiteral("open"), history.filePath(QStringLiteral("open")), nullptr);
        model.setHistoryRoots({history.path()});
        model.refreshHistory();
        model.waitForHistory();
        QCOMPARE(model.rowCount(), 3);
        QStringList summaryKeys;
        for (const QString &key : model.paramKeys()) {
            if (key.startsWith(QLatin1String("summary."))) {
                summaryKeys << key;
            }
        }
        QCOMPARE(summaryKeys, (QStringList{QStringLiteral("summary.best_acc"), QStringLiteral("summary.epochs")}));
        QCOMPARE(model.paramKeys().mid(model.paramKeys().size() - 2), summaryKeys); // after the spec's
        QVERIFY(model.paramDiffers(QStringLiteral("summary.best_acc")));
        const int best = model.paramColumn(QStringLiteral("summary.best_acc"));
        const int epochs = model.paramColumn(QStringLiteral("summary.epochs"));
        QMap<QString, QStringList> cells;
        for (int r = 0; r < model.rowCount(); ++r) {
            cells[model.index(r, RunTableModel::NameColumn).data().toString()] =
                QStringList{model.index(r, best).data().toString(), model.index(r, epochs).data().toString()};
        }
        // Written alike in the column: 0.930 beside 0.871.
        QCOMPARE(cells.value(QStringLiteral("s1")), (QStringList{QStringLiteral("0.930"), QStringLiteral("12")}));
        QCOMPARE(cells.value(QStringLiteral("s2")), (QStringList{QStringLiteral("0.871"), QString()}));
        QCOMPARE(cells.value(QStringLiteral("s3")), (QStringList{QStringLiteral("null"), QString()}));
        // Sorted by it, highest first: the NaN last.
        RunTableProxy sorted;
        sorted.setSourceModel(&model);
        sorted.sort(best, Qt::DescendingOrder);
        QStringList order;
        for (int r = 0; r < sorted.rowCount(); ++r) {
            order << sorted.index(r, RunTableModel::NameColumn).data().toString();
        }
        QCOMPARE(order, (QStringList{QStringLiteral("s1"), QStringLiteral("s2"), QStringLiteral("s3")}));
    }

    // The panel shows the hyperparameters that differ; the header's menu
    // shows or hides any column, and the choice outlives a refresh.
    void panelShowsTheDifferingHyperparameters()
    {
        QTemporaryDir history;
        const QString past = history.filePath(QStringLiteral("sweep"));
        makeSpecRun(past, transe(QStringLiteral("a"), 0.5, 16));
        makeSpecRun(past, transe(QStringLiteral("b"), 10, 16));
        RunTableModel model;
        model.setDocument(QStringLiteral("open"), history.filePath(QStringLiteral("open")), nullptr);
        model.setHistoryRoots({history.path()});
        RunTablePanel panel(&model);
        model.refreshHistory();
        model.waitForHistory();
        QTableView *view = panel.view();
        const int lr = model.paramColumn(QStringLiteral("train.lr"));
        const int dim = model.paramColumn(QStringLiteral("model.dim"));
        QVERIFY(lr > 0 && dim > 0);
        QVERIFY(!view->isColumnHidden(lr));
        QVERIFY(view->isColumnHidden(dim));
        QVERIFY(!view->isColumnHidden(RunTableModel::StateColumn));
        QVERIFY(view->isColumnHidden(RunTableModel::TagsColumn)); // blank for every run
        QVERIFY(view->isColumnHidden(RunTableModel::FolderColumn));
        panel.setColumnShown(dim, true);
        panel.setColumnShown(lr, false);
        model.refreshHistory();
        model.waitForHistory();
        QVERIFY(!view->isColumnHidden(model.paramColumn(QStringLiteral("model.dim"))));
        QVERIFY(view->isColumnHidden(model.paramColumn(QStringLiteral("train.lr"))));
        QVERIFY(view->horizontalHeader()->contextMenuPolicy() == Qt::CustomContextMenu);
        // The choices outlive the window: a new panel (the next start) shows the same columns.
        RunTablePanel again(&model);
        model.refreshHistory();
        model.waitForHistory();
        QVERIFY(!again.view()->isColumnHidden(model.paramColumn(QStringLiteral("model.dim"))));
        QVERIFY(again.view()->isColumnHidden(model.paramColumn(QStringLiteral("train.lr"))));
    }

    // tags and a note per run, from its notes.json, as columns the
    // filter searches; a change from the run details shows at once.
    void tagsAndNotes()
    {
        QTemporaryDir history;
        const QString past = history.filePath(QStringLiteral("sweep"));
        makeSpecRun(past, transe(QStringLiteral("a"), 0.5, 16));
        makeSpecRun(past, transe(QStringLiteral("b"), 10, 16));
        const RunStore store(past);
        RunNotes notes;
        notes.tags = {QStringLiteral("baseline"), QStringLiteral("paper")};
        notes.note = QStringLiteral("the reference run\nsecond line");
        QVERIFY(store.writeNotes(QStringLiteral("a"), notes));
        RunTableModel model;
        model.setDocument(QStringLiteral("open"), history.filePath(QStringLiteral("open")), nullptr);
        model.setHistoryRoots({history.path()});
        RunTablePanel panel(&model);
        model.refreshHistory();
        model.waitForHistory();
        QCOMPARE(model.index(0, RunTableModel::TagsColumn).data().toString(), QStringLiteral("baseline, paper"));
        QCOMPARE(model.index(0, RunTableModel::NoteColumn).data().toString(), QStringLiteral("the reference run …"));
        QCOMPARE(model.index(0, RunTableModel::NoteColumn).data(Qt::ToolTipRole).toString(), notes.note);
        QCOMPARE(model.headerData(RunTableModel::TagsColumn, Qt::Horizontal).toString(), QStringLiteral("Tags"));
        QCOMPARE(model.pastRun(0)->notes, notes);

        panel.findChild<QLineEdit *>()->setText(QStringLiteral("tag:baseline"));
        QCOMPARE(panel.view()->model()->rowCount(), 1);
        QCOMPARE(panel.view()->model()->index(0, RunTableModel::NameColumn).data().toString(), QStringLiteral("a"));

        RunNotes b;
        b.tags = {QStringLiteral("Baseline"), QStringLiteral("second")};
        model.setNotes(store.runDir(QStringLiteral("b")), b);
        QCOMPARE(model.index(1, RunTableModel::TagsColumn).data().toString(), QStringLiteral("Baseline, second"));
        QCOMPARE(panel.view()->model()->rowCount(), 2);
    }

    // The query box (an invalid query turns it red and
    // says why), the run's name kept in view while the hyperparameters
    // scroll, a column's numbers written alike, blank columns hidden until
    // a run has a value, and rows grouped by a column from the header's menu.
    void panelQueriesFreezesAndGroups()
    {
        QTemporaryDir history;
        makeSpecRun(history.filePath(QStringLiteral("exp1")), transe(QStringLiteral("transe-nations"), 0.5, 16));
        makeSpecRun(history.filePath(QStringLiteral("exp1")), transe(QStringLiteral("transe-umls"), 10, 16));
        makeSpecRun(history.filePath(QStringLiteral("exp2")), transe(QStringLiteral("transe-nations"), 0.001, 32));
        QJsonObject transh = transe(QStringLiteral("transh-nations"), 0.5, 16);
        transh.insert(QStringLiteral("model"),
                      QJsonObject{{QStringLiteral("type"), QStringLiteral("transh")}, {QStringLiteral("dim"), 16}});
        makeSpecRun(history.filePath(QStringLiteral("exp2")), transh);
        RunTableModel model;
        model.setDocument(QStringLiteral("open"), history.filePath(QStringLiteral("open")), nullptr);
        model.setHistoryRoots({history.path()});
        RunTablePanel panel(&model);
        QAbstractItemModelTester tester(panel.view()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.refreshHistory();
        model.waitForHistory();
        QAbstractItemModel *shown = panel.view()->model();
        QCOMPARE(shown->rowCount(), 4);
        const auto names = [shown] {
            QStringList out;
            for (int r = 0; r < shown->rowCount(); ++r) {
                out << shown->index(r, RunTableModel::ExperimentColumn).data().toString() + QLatin1Char('/')
                           + shown->index(r, RunTableModel::NameColumn).data().toString();
            }
            out.sort();
            return out;
        };

        // Queries: the issue's words, and comparisons.
        panel.queryBox()->setText(QStringLiteral("exp1 transe-nations"));
        QCOMPARE(names(), QStringList{QStringLiteral("exp1/transe-nations")});
        panel.queryBox()->setText(QStringLiteral("model=transe lr<1"));
        QCOMPARE(names(), (QStringList{QStringLiteral("exp1/transe-nations"), QStringLiteral("exp2/transe-nations")}));
        QVERIFY(panel.queryBox()->styleSheet().isEmpty());
        panel.queryBox()->setText(QStringLiteral("model=transe speed>3"));
        QCOMPARE(shown->rowCount(), 4); // hides nothing, says why
        QVERIFY(panel.queryBox()->styleSheet().contains(QLatin1String("border")));
        QVERIFY2(panel.queryBox()->toolTip().contains(QLatin1String("no column is called \"speed\"")),
                 qPrintable(panel.queryBox()->toolTip()));
        panel.queryBox()->clear();
        QVERIFY(panel.queryBox()->styleSheet().isEmpty());
        QCOMPARE(shown->rowCount(), 4);

        // One format a column: 0.001, 0.5 and 10 as 0.001, 0.500, 10.000.
        const int lr = model.paramColumn(QStringLiteral("train.lr"));
        QStringList lrs;
        for (int r = 0; r < model.rowCount(); ++r) {
            lrs << model.index(r, lr).data().toString();
        }
        lrs.sort();
        QCOMPARE(lrs, (QStringList{QStringLiteral("0.001"), QStringLiteral("0.500"), QStringLiteral("0.500"),
                                   QStringLiteral("10.000")}));

        // Blank for every run: hidden, and shown once a run has a value.
        QVERIFY(model.columnBlank(RunTableModel::TagsColumn));
        QVERIFY(panel.view()->isColumnHidden(RunTableModel::TagsColumn));
        QVERIFY(panel.view()->isColumnHidden(RunTableModel::MrrColumn));
        RunNotes best;
        best.tags = {QStringLiteral("best")};
        model.setNotes(model.index(0, 0).data(RunTableModel::RunDirRole).toString(), best);
        QVERIFY(!panel.view()->isColumnHidden(RunTableModel::TagsColumn));
        panel.queryBox()->setText(QStringLiteral("tag:BEST"));
        QCOMPARE(shown->rowCount(), 1);
        panel.queryBox()->clear();

        // Frozen: the experiment and the run stay at the left edge while the
        // others scroll under them.
        panel.resize(420, 300);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QTableView *frozen = panel.frozenView();
        QVERIFY(frozen->isVisible());
        QCOMPARE(frozen->model(), shown);
        QCOMPARE(frozen->selectionModel(), panel.view()->selectionModel());
        for (int c = 0; c < shown->columnCount(); ++c) {
            QCOMPARE(frozen->isColumnHidden(c), c > RunTableModel::NameColumn || panel.view()->isColumnHidden(c));
        }
        const int nameX = frozen->columnViewportPosition(RunTableModel::NameColumn);
        QScrollBar *across = panel.view()->horizontalScrollBar();
        QVERIFY(across->maximum() > 0);
        across->setValue(across->maximum());
        QVERIFY(panel.view()->columnViewportPosition(RunTableModel::NameColumn) < 0); // scrolled away below
        QCOMPARE(frozen->columnViewportPosition(RunTableModel::NameColumn), nameX);   // still in view
        QCOMPARE(frozen->width(), panel.view()->columnWidth(RunTableModel::ExperimentColumn)
                                      + panel.view()->columnWidth(RunTableModel::NameColumn));
        // Its header sorts the table.
        QTest::mouseClick(frozen->horizontalHeader()->viewport(), Qt::LeftButton, {},
                          QPoint(frozen->horizontalHeader()->sectionViewportPosition(RunTableModel::NameColumn) + 5,
                                 frozen->horizontalHeader()->height() / 2));
        QCOMPARE(panel.view()->horizontalHeader()->sortIndicatorSection(), int(RunTableModel::NameColumn));
        QCOMPARE(frozen->horizontalHeader()->sortIndicatorSection(), int(RunTableModel::NameColumn));

        // Group by the model, from the header's menu.
        std::unique_ptr<QMenu> menu(panel.headerMenu(RunTableModel::ModelColumn, &panel));
        auto *groupBy = menu->findChild<QAction *>(QStringLiteral("groupBy"));
        QVERIFY(groupBy);
        QCOMPARE(groupBy->text(), QStringLiteral("&Group by Model"));
        groupBy->trigger();
        QCOMPARE(panel.groupColumn(), int(RunTableModel::ModelColumn));
        QCOMPARE(shown->rowCount(), 6); // two headers
        // Shown whole: each shown column as wide as its cells ("▾ Model = tra…" was cut).
        const auto fits = [&panel](int c) {
            const QAbstractItemView *cells = panel.view();
            return panel.view()->isColumnHidden(c) || panel.view()->columnWidth(c) >= cells->sizeHintForColumn(c);
        };
        QTRY_VERIFY(fits(RunTableModel::ExperimentColumn));
        for (int c = 0; c < shown->columnCount(); ++c) {
            QVERIFY2(fits(c), qPrintable(shown->headerData(c, Qt::Horizontal).toString()));
        }
        // A value that grows after the table was sized widens its column.
        RunNotes longer;
        longer.tags = {QStringLiteral("best"), QStringLiteral("a-tag-much-longer-than-the-column-was")};
        model.setNotes(model.index(0, 0).data(RunTableModel::RunDirRole).toString(), longer);
        QTRY_VERIFY(fits(RunTableModel::TagsColumn));
        QVERIFY(shown->index(0, 0).data(RunTableModel::GroupHeaderRole).toBool());
        QCOMPARE(shown->index(0, RunTableModel::ExperimentColumn).data().toString(),
                 QStringLiteral("▾ Model = transe"));
        QCOMPARE(shown->index(0, RunTableModel::NameColumn).data().toString(), QStringLiteral("3 runs"));
        QCOMPARE(shown->index(4, RunTableModel::ExperimentColumn).data().toString(),
                 QStringLiteral("▾ Model = transh"));
        QCOMPARE(panel.modelRow(0), -1);
        QVERIFY(!(shown->flags(shown->index(0, 0)) & Qt::ItemIsSelectable));
        // Within a group, the table's order (by name, as sorted above).
        QCOMPARE(shown->index(1, RunTableModel::NameColumn).data().toString(), QStringLiteral("transe-nations"));
        QCOMPARE(shown->index(3, RunTableModel::NameColumn).data().toString(), QStringLiteral("transe-umls"));
        // A selected run stays selected while the groups change.
        panel.view()->selectRow(3);
        QCOMPARE(panel.selectedRows().size(), 1);
        const QString selectedDir =
            model.index(panel.selectedRows().first(), 0).data(RunTableModel::RunDirRole).toString();
        // A click on a header folds its group.
        QTest::mouseClick(panel.view()->viewport(), Qt::LeftButton, {},
                          panel.view()->visualRect(shown->index(0, RunTableModel::StateColumn)).center());
        QCOMPARE(shown->rowCount(), 3);
        QCOMPARE(shown->index(0, RunTableModel::ExperimentColumn).data().toString(),
                 QStringLiteral("▸ Model = transe"));
        QTest::mouseClick(panel.view()->viewport(), Qt::LeftButton, {},
                          panel.view()->visualRect(shown->index(0, RunTableModel::StateColumn)).center());
        QCOMPARE(shown->rowCount(), 6);
        panel.view()->selectRow(3);
        panel.queryBox()->setText(QStringLiteral("nations"));
        QCOMPARE(shown->rowCount(), 5);           // two transe runs, one transh, two headers
        QCOMPARE(panel.selectedRows().size(), 0); // transe-umls is filtered out
        panel.queryBox()->clear();
        panel.view()->selectRow(1);
        const QString kept = model.index(panel.selectedRows().first(), 0).data(RunTableModel::RunDirRole).toString();
        panel.view()->sortByColumn(RunTableModel::NameColumn, Qt::DescendingOrder);
        QCOMPARE(panel.selectedRows().size(), 1);
        QCOMPARE(model.index(panel.selectedRows().first(), 0).data(RunTableModel::RunDirRole).toString(), kept);
        QVERIFY(!selectedDir.isEmpty());
        // No groups again.
        std::unique_ptr<QMenu> again(panel.headerMenu(-1, &panel));
        again->findChild<QAction *>(QStringLiteral("noGroups"))->trigger();
        QCOMPARE(shown->rowCount(), 4);
        QCOMPARE(panel.groupColumn(), -1);
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
        model.setDocument(QStringLiteral("open-experiment"), open, nullptr);
        model.setHistoryRoots({history.path()});
        model.refreshHistory();
        model.waitForHistory();
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
        // How long it trained by the worker's clock (its last line's wall), not start to end (75 s).
        QCOMPARE(model.index(0, RunTableModel::DurationColumn).data(RunTableModel::SortRole).toDouble(), 2.2);
        QCOMPARE(model.index(0, 0).data(RunTableModel::RunIdRole).toInt(), 0);
        QCOMPARE(model.index(0, 0).data(RunTableModel::RunDirRole).toString(), past + QStringLiteral("/a"));
        QCOMPARE(text(1, RunTableModel::NameColumn), QStringLiteral("b"));
        QCOMPARE(text(1, RunTableModel::StateColumn), QStringLiteral("failed"));
        QCOMPARE(text(1, RunTableModel::LossColumn), QStringLiteral("2.00")); // as 0.25 is written
        QCOMPARE(text(1, RunTableModel::MrrColumn), QString());

        // Appended lines show on the next refresh.
        QFile f(past + QStringLiteral("/b/metrics.jsonl"));
        QVERIFY(f.open(QIODevice::Append));
        f.write(line(protocol::metric(6, 1, 1.5, 0.6)));
        f.close();
        model.refreshHistory();
        model.waitForHistory();
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(text(1, RunTableModel::StepColumn), QStringLiteral("6"));
        QCOMPARE(text(1, RunTableModel::LossColumn), QStringLiteral("1.50"));
    }
};

QTEST_MAIN(TestRunTableModel)
#include "tst_runtablemodel.moc"
