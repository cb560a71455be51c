// qcustomplot.h uses `foreach` in its own templates.
#undef QT_NO_FOREACH

// The whole window with the real worker: open a small experiment, queue a
// run from the palette, start everything, and watch cards, plots and the
// finish count reach the end; closing while runs train asks what to do.

#include "metrics/metricstore.h"
#include "orchestration/board/board.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/document/experimentdocument.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "ui/app/desktopapp.h"
#include "ui/app/mainwindow.h"
#include "ui/board/boardmodel.h"
#include "ui/board/boardview.h"
#include "ui/common/prompts.h"
#include "ui/common/runcolors.h"
#include "ui/editors/runeditordialog.h"
#include "ui/palette/modelpalettemodel.h"
#include "ui/plot/plotfeeder.h"
#include "ui/plot/plotwidget.h"
#include "ui/runs/comparedialog.h"
#include "ui/runs/logview.h"
#include "ui/runs/runcompare.h"
#include "ui/runs/rundetailsdialog.h"
#include "ui/runs/runtablemodel.h"
#include "ui/runs/runtablepanel.h"
#include "uitesthelpers.h"

#include <QAction>
#include <QApplication>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QProcess>
#include <QPushButton>
#include <QScopeGuard>
#include <QStandardPaths>
#include <QStatusBar>
#include <QSysInfo>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <qcustomplot.h>

#include <cmath>
#include <functional>

using namespace trainyard;
using namespace trainyard::testing;

namespace {

QString writeExperiment(const QTemporaryDir &dir, int epochs)
{
    QJsonObject repeated = tinyKgSpec(QStringLiteral("kg"), epochs);
    repeated.insert(QStringLiteral("repeat"), 2);
    const QJsonObject experiment{
        {QStringLiteral("name"), QStringLiteral("gui-test")},
        {QStringLiteral("runs_root"), dir.filePath(QStringLiteral("runs"))},
        {QStringLiteral("lanes"), QJsonArray{QJsonObject{{QStringLiteral("device"), QStringLiteral("cpu")},
                                                         {QStringLiteral("slots"), 1},
                                                         {QStringLiteral("runs"), QJsonArray{repeated}}},
                                             QJsonObject{{QStringLiteral("device"), QStringLiteral("cpu")},
                                                         {QStringLiteral("slots"), 1},
                                                         {QStringLiteral("runs"), QJsonArray{}}}}}};
    return writeExperimentFile(dir, experiment);
}

// The window's action with menu text `text` ("Re&try"), nullptr when none.
QAction *action(const MainWindow &window, const QString &text)
{
    for (QAction *a : window.findChildren<QAction *>()) {
        if (a->text() == text) {
            return a;
        }
    }
    return nullptr;
}

// The palette's entry for a model type, or an invalid index.
QModelIndex paletteEntry(MainWindow &window, const QString &type)
{
    ModelPaletteModel *palette = window.paletteModel();
    for (int g = 0; g < palette->rowCount(); ++g) {
        const QModelIndex group = palette->index(g, 0);
        for (int r = 0; r < palette->rowCount(group); ++r) {
            if (palette->index(r, 0, group).data().toString() == type) {
                return palette->index(r, 0, group);
            }
        }
    }
    return {};
}

// Drops the palette's `entry` onto `lane` as a drag does, after `edit` has
// changed its run spec as the run editor would.
bool dropFromPalette(MainWindow &window, const QModelIndex &entry, const QModelIndex &lane,
                     const std::function<void(QJsonObject &)> &edit)
{
    const QString mime = QStringLiteral("application/x-trainyard-run-spec");
    std::unique_ptr<QMimeData> data(window.paletteModel()->mimeData({entry}));
    QJsonObject payload = QJsonDocument::fromJson(data->data(mime)).object();
    QJsonObject spec = payload.value(QLatin1String("spec")).toObject();
    edit(spec);
    payload.insert(QStringLiteral("spec"), spec);
    data->setData(mime, QJsonDocument(payload).toJson());
    return window.boardModel()->dropMimeData(data.get(), Qt::CopyAction, -1, 0, lane);
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT

private:
    QString m_worker;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        initDesktopApp();
        m_worker = qEnvironmentVariable("TRAINYARD_WORKER");
        if (m_worker.isEmpty() || !QFileInfo(m_worker).isExecutable()) {
            QSKIP("TRAINYARD_WORKER is not set to an executable trainyard-worker");
        }
        QProcess probe;
        probe.start(m_worker, {QStringLiteral("--list-models")});
        if (!probe.waitForFinished(20000) || probe.exitCode() != 0) {
            QSKIP("trainyard-worker --list-models does not work yet; the GUI cannot train");
        }
    }

    // Quit (Ctrl+Q) with unsaved board edits asks first; Cancel keeps the
    // window, the session and the edit (the edit was lost).
    void quitWithUnsavedEditsAsksFirst()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.useScriptedPrompts();
        window.setEditorEnabled(false);
        QVERIFY(window.openFile(writeExperiment(dir, 2)));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.document()->addLane(QStringLiteral("cpu"), 1));
        QVERIFY(window.windowTitle().contains(QLatin1Char('*')));
        int asked = 0;
        window.useScriptedPrompts()->unsaved = [&] {
            ++asked;
            return Prompts::UnsavedChoice::Cancel;
        };
        QVERIFY(!window.close()); // what Quit does
        QCOMPARE(asked, 1);
        QVERIFY(window.isVisible());
        QVERIFY(window.session());
        QCOMPARE(window.session()->orchestrator()->board()->laneCount(), 3);
        window.useScriptedPrompts()->unsaved = [&] {
            ++asked;
            return Prompts::UnsavedChoice::Discard;
        };
        QVERIFY(window.close());
        QCOMPARE(asked, 2);
    }

    // Run control is enabled only where it can act on a selected run
    // (Pause and Resume looked enabled on a diverged run).
    void runControlFollowsTheSelectedRunsStates()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.useScriptedPrompts();
        window.setEditorEnabled(false);
        QVERIFY(window.openFile(writeExperiment(dir, 2)));
        Orchestrator *orchestrator = window.session()->orchestrator();
        const RunId first = orchestrator->board()->runIds().first();
        QAction *start = action(window, QStringLiteral("&Start"));
        QAction *pause = action(window, QStringLiteral("&Pause"));
        QAction *resume = action(window, QStringLiteral("Res&ume"));
        QAction *retry = action(window, QStringLiteral("Re&try"));
        QVERIFY(start && pause && resume && retry);
        window.boardView()->selectRuns({first});
        QTRY_VERIFY(start->isEnabled()); // queued
        QVERIFY(!pause->isEnabled() && !resume->isEnabled() && !retry->isEnabled());
        QVERIFY(orchestrator->runActions()->cancelRun(first)); // a terminal state, as diverged is
        QTRY_VERIFY(retry->isEnabled());
        QVERIFY(!start->isEnabled() && !pause->isEnabled() && !resume->isEnabled());
    }

    // a run with a missing data folder started and failed when its
    // turn came. Start all checks the data first (with the worker) and asks.
    void startAllChecksTheDataFirst()
    {
        QTemporaryDir dir;
        QJsonObject bad = tinyKgSpec(QStringLiteral("bad"));
        bad.insert(QStringLiteral("data"),
                   QJsonObject{{QStringLiteral("kind"), QStringLiteral("kg")},
                               {QStringLiteral("path"), dir.filePath(QStringLiteral("missing"))}});
        const QString path = writeExperimentFile(
            dir, QJsonObject{
                     {QStringLiteral("name"), QStringLiteral("check-test")},
                     {QStringLiteral("runs_root"), dir.filePath(QStringLiteral("runs"))},
                     {QStringLiteral("lanes"), QJsonArray{QJsonObject{{QStringLiteral("device"), QStringLiteral("cpu")},
                                                                      {QStringLiteral("runs"), QJsonArray{bad}}}}}});
        MainWindow window;
        window.useScriptedPrompts();
        QVERIFY(window.openFile(path));
        QStringList asked;
        window.useScriptedPrompts()->start = [&](const QStringList &problems) {
            asked = problems;
            return false; // "No": nothing starts
        };
        window.startAll();
        QTRY_VERIFY_WITH_TIMEOUT(!asked.isEmpty(), 30000);
        QVERIFY2(asked.first().contains(QLatin1String("run bad")) && asked.first().contains(QLatin1String("missing")),
                 qPrintable(asked.first()));
        Orchestrator *orchestrator = window.session()->orchestrator();
        QCOMPARE(orchestrator->runs()->value(orchestrator->runs()->findByName(QStringLiteral("bad"))).state,
                 RunState::Queued);
        QVERIFY(!orchestrator->dispatcher()->isDispatching());
        window.close();
    }

    // Retry runs the run again at once (it went back to "queued"
    // and waited for a Start all).
    void retryStartsTheRun()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.useScriptedPrompts();
        window.setEditorEnabled(false);
        QVERIFY(window.openFile(writeExperiment(dir, 1)));
        Orchestrator *orchestrator = window.session()->orchestrator();
        const RunId first = orchestrator->board()->runIds().first();
        QVERIFY(orchestrator->runActions()->cancelRun(first));
        window.boardView()->selectRuns({first});
        QAction *retry = action(window, QStringLiteral("Re&try"));
        QVERIFY(retry);
        QTRY_VERIFY(retry->isEnabled());
        retry->trigger();
        QVERIFY2(isActive(orchestrator->runs()->value(first).state),
                 qPrintable(runStateName(orchestrator->runs()->value(first).state)));
        QVERIFY(!orchestrator->dispatcher()->isDispatching()); // only that run: the others stay queued
        QTRY_COMPARE_WITH_TIMEOUT(orchestrator->runs()->value(first).state, RunState::Finished, 60000);
        QCOMPARE(orchestrator->runs()->value(orchestrator->board()->runIds().at(1)).state, RunState::Queued);
        window.close();
    }

    // what a run is, from its card (Details…, Ctrl+I; Show worker
    // log opens the same window on its log) and from the runs table, for a
    // run of the open experiment and for a past one; notes typed there show
    // in the table.
    void runDetailsFromACardAndTheRunsTable()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.useScriptedPrompts();
        window.setEditorEnabled(false);
        QVERIFY(window.openFile(writeExperiment(dir, 2)));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        Orchestrator *orchestrator = window.session()->orchestrator();
        const RunId first = orchestrator->board()->runIds().first();
        QAction *details = action(window, QStringLiteral("Det&ails…"));
        QAction *log = action(window, QStringLiteral("Show worker &log"));
        QVERIFY(details && log);
        QCOMPARE(details->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_I));
        window.boardView()->selectRuns({first});
        QTRY_VERIFY(details->isEnabled());
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        window.boardView()->setFocus();
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_I, Qt::ControlModifier); // on the board
        QCOMPARE(window.findChildren<RunDetailsDialog *>().size(), 1);
        RunDetailsDialog *dialog = window.findChildren<RunDetailsDialog *>().first();
        QVERIFY(dialog->isVisible());
        QCOMPARE(dialog->currentPage(), RunDetailsDialog::Page::Overview);
        const QString runDir = window.session()->store()->runDir(orchestrator->runs()->value(first).name);
        QCOMPARE(dialog->runDir(), runDir);
        // Queued: the command line it would start with.
        QVERIFY2(dialog->commandText().contains(QStringLiteral("--spec ") + runDir + QStringLiteral("/spec.json")),
                 qPrintable(dialog->commandText()));
        QVERIFY2(dialog->commandText().contains(QStringLiteral("--device cpu")), qPrintable(dialog->commandText()));

        log->trigger();
        QCOMPARE(window.findChildren<RunDetailsDialog *>().size(), 1); // the same window
        QCOMPARE(dialog->currentPage(), RunDetailsDialog::Page::Log);

        // Tags typed in the details are in the runs table's row of the run.
        QTest::keyClicks(dialog->findChild<QLineEdit *>(QStringLiteral("tags")), QStringLiteral("baseline"));
        QVERIFY(dialog->saveNotes());
        const auto rowOf = [&window](const QString &dirOfRun, RunId id) {
            RunTableModel *table = window.runTable();
            for (int r = 0; r < table->rowCount(); ++r) {
                const QModelIndex index = table->index(r, 0);
                if ((id && index.data(RunTableModel::RunIdRole).toInt() == id)
                    || (!id && index.data(RunTableModel::RunDirRole).toString() == dirOfRun)) {
                    return r;
                }
            }
            return -1;
        };
        const int row = rowOf(QString(), first);
        QVERIFY(row >= 0);
        QCOMPARE(window.runTable()->index(row, RunTableModel::TagsColumn).data().toString(),
                 QStringLiteral("baseline"));
        QCOMPARE(window.session()->store()->readNotes(orchestrator->runs()->value(first).name).tags,
                 QStringList{QStringLiteral("baseline")});
        // The table's row opens the same window.
        QCOMPARE(window.showTableRunDetails(row), dialog);

        // A past experiment's run, from the runs table.
        const QString pastRoot =
            QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/details-test-past");
        QDir(pastRoot).removeRecursively();
        const RunStore past(pastRoot);
        QString error;
        QVERIFY2(past.prepareRunDir(QStringLiteral("old"), tinyKgSpec(QStringLiteral("old")), &error),
                 qPrintable(error));
        RunInfo status;
        status.name = QStringLiteral("old");
        status.state = RunState::Diverged;
        status.exitCode = 3;
        status.host = QStringLiteral("elsewhere");
        QVERIFY(past.writeStatus(status, &error));
        window.runTable()->refreshHistory();
        window.runTable()->waitForHistory();
        const int pastRow = rowOf(past.runDir(QStringLiteral("old")), 0);
        QVERIFY(pastRow >= 0);
        RunDetailsDialog *pastDialog = window.showTableRunDetails(pastRow);
        QVERIFY(pastDialog && pastDialog != dialog);
        QCOMPARE(pastDialog->runDir(), past.runDir(QStringLiteral("old")));
        QCOMPARE(pastDialog->findChild<QLabel *>(QStringLiteral("exit"))->text(),
                 QStringLiteral("exit 3: diverged (loss NaN/inf)"));
        QCOMPARE(pastDialog->findChild<QLabel *>(QStringLiteral("host"))->text(), QStringLiteral("elsewhere"));
        pastDialog->close();
        dialog->close();
        QTRY_VERIFY(window.findChildren<RunDetailsDialog *>().isEmpty());

        // Ctrl+I in the runs table: the current row's details (the cards'
        // Ctrl+I must not make the key ambiguous there).
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTableView *table = window.runTablePanel()->view();
        window.findChild<QTabWidget *>()->setCurrentWidget(window.runTablePanel()); // the Runs tab
        table->setFocus();
        for (int r = 0; r < table->model()->rowCount(); ++r) {
            if (table->model()->index(r, 0).data(RunTableModel::RunDirRole).toString()
                == past.runDir(QStringLiteral("old"))) {
                table->setCurrentIndex(table->model()->index(r, 0));
            }
        }
        QTest::keyClick(table, Qt::Key_I, Qt::ControlModifier);
        QCOMPARE(window.findChildren<RunDetailsDialog *>().size(), 1);
        QCOMPARE(window.findChildren<RunDetailsDialog *>().first()->runDir(), past.runDir(QStringLiteral("old")));
        window.findChildren<RunDetailsDialog *>().first()->close();
        QDir(pastRoot).removeRecursively();
        window.close();
    }

    // A file with misspelt keys opened silently, its run failed at Start
    // and Start all named one key: the window names every one on open, as
    // `trainyard check` does, and Start all asks about each.
    void misspeltKeysAreNamedOnOpen()
    {
        if (realWorker().isEmpty()) {
            QSKIP(kNoRealWorker);
        }
        QTemporaryDir dir;
        QJsonObject spec = tinyKgSpec(QStringLiteral("kg"));
        QJsonObject train = spec.value(QLatin1String("train")).toObject();
        train.remove(QStringLiteral("epochs"));
        train.remove(QStringLiteral("batch_size"));
        train.insert(QStringLiteral("epoch"), 2);
        train.insert(QStringLiteral("batchsize"), 64);
        spec.insert(QStringLiteral("train"), train);
        const QString file = writeExperimentFile(
            dir, QJsonObject{
                     {QStringLiteral("name"), QStringLiteral("typos")},
                     {QStringLiteral("runs_root"), dir.filePath(QStringLiteral("runs"))},
                     {QStringLiteral("lanes"), QJsonArray{QJsonObject{{QStringLiteral("device"), QStringLiteral("cpu")},
                                                                      {QStringLiteral("runs"), QJsonArray{spec}}}}}});
        MainWindow window;
        ScriptedPrompts *prompts = window.useScriptedPrompts();
        window.setEditorEnabled(false);
        QVERIFY(window.openFile(file));
        window.loadCatalogue(); // as the app does on start
        auto *banner = window.findChild<QLabel *>(QStringLiteral("specProblems"));
        QVERIFY(banner);
        QTRY_VERIFY_WITH_TIMEOUT(!banner->isHidden(), 20000); // once the worker's catalogue is listed
        for (const char *key : {"train.epoch: unknown key", "train.batchsize: unknown key"}) {
            QVERIFY2(banner->text().contains(QLatin1String(key)), qPrintable(banner->text()));
        }
        QStringList asked;
        prompts->start = [&asked](const QStringList &problems) {
            asked = problems;
            return false;
        };
        window.startAll();
        QTRY_VERIFY_WITH_TIMEOUT(!asked.isEmpty(), 20000);
        const QString question = asked.join(QLatin1Char('\n'));
        for (const char *key : {"train.epoch: unknown key", "train.batchsize: unknown key"}) {
            QVERIFY2(question.contains(QLatin1String(key)), qPrintable(question));
        }
        QCOMPARE(window.session()
                     ->orchestrator()
                     ->runs()
                     ->value(window.session()->orchestrator()->board()->runIds().first())
                     .state,
                 RunState::Queued);
        window.close();
    }

    // After Save as of a new experiment, the runs table
    // listed every run twice: once as "untitled-… (open)", once under the
    // new name as a past run (its runs folder moved with the name while the
    // table kept the old one).
    void saveAsOfANewExperimentListsEachRunOnce()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.useScriptedPrompts();
        window.setEditorEnabled(false);
        QVERIFY(window.newExperiment());
        QVERIFY(window.session()->name().startsWith(QLatin1String("untitled-")));
        const QString oldRoot = window.session()->runsRoot();
        const QString name = QStringLiteral("saved-as-%1").arg(QDateTime::currentMSecsSinceEpoch());
        const QString root = QFileInfo(oldRoot).absolutePath() + QLatin1Char('/') + name;
        const auto cleanup = qScopeGuard([&] {
            QDir(oldRoot).removeRecursively();
            QDir(root).removeRecursively();
        });
        QVERIFY(window.boardModel()->queueSpec(0, -1, tinyKgSpec(QStringLiteral("kg"), 1), 2));
        window.startAll();
        QTRY_COMPARE_WITH_TIMEOUT(window.finishCountText(), QStringLiteral("2 of 2 finished"), 60000);
        auto *tabs = window.findChild<QTabWidget *>();
        QTableView *table = window.runTablePanel()->view();
        // This experiment's rows (other tests' past experiments may be listed too).
        const auto rows = [&](QStringList *experiments) {
            QStringList folders;
            for (int r = 0; r < table->model()->rowCount(); ++r) {
                const QString folder = table->model()->index(r, 0).data(RunTableModel::RunDirRole).toString();
                const QString parent = QFileInfo(folder).absolutePath();
                if (parent == oldRoot || parent == root) {
                    folders << folder;
                    *experiments << table->model()->index(r, RunTableModel::ExperimentColumn).data().toString();
                }
            }
            folders.sort();
            return folders;
        };
        tabs->setCurrentWidget(window.runTablePanel()); // the Runs tab reads the history
        window.runTable()->waitForHistory();
        QStringList experiments;
        QCOMPARE(rows(&experiments).size(), 2);

        QVERIFY(window.saveTo(dir.filePath(name + QStringLiteral(".json"))));
        QCOMPARE(window.session()->name(), name);
        QCOMPARE(window.session()->runsRoot(), root); // the folder moved with the name
        tabs->setCurrentWidget(window.plot());
        tabs->setCurrentWidget(window.runTablePanel());
        window.runTable()->waitForHistory();
        experiments.clear();
        QCOMPARE(rows(&experiments), (QStringList{root + QStringLiteral("/kg-1"), root + QStringLiteral("/kg-2")}));
        QCOMPARE(experiments, (QStringList{name + QStringLiteral(" (open)"), name + QStringLiteral(" (open)")}));
        // A run's details named the folder it had before: its command
        // line (Copy command) names where it is now.
        window.boardView()->selectRuns({window.session()->orchestrator()->runs()->findByName(QStringLiteral("kg-1"))});
        QAction *details = action(window, QStringLiteral("Det&ails…"));
        QTRY_VERIFY(details->isEnabled());
        details->trigger();
        QCOMPARE(window.findChildren<RunDetailsDialog *>().size(), 1);
        const QString command = window.findChildren<RunDetailsDialog *>().first()->commandText();
        QVERIFY2(command.contains(root + QStringLiteral("/kg-1")) && !command.contains(oldRoot + QLatin1Char('/')),
                 qPrintable(command));
        window.close();
    }

    // runs of past experiments could not be plotted beside the open ones.
    // A state file others can write is refused when the
    // experiment opens: the status bar says so, and the run it names, found
    // with metrics but no ending, is lost: nothing adopted, nothing to stop.
    void aRefusedStateFileIsShownAndNothingIsAdopted()
    {
        QTemporaryDir dir;
        const QString file = writeExperiment(dir, 1);
        const RunStore store(dir.filePath(QStringLiteral("runs")));
        QVERIFY(QDir().mkpath(store.runDir(QStringLiteral("kg-1"))));
        {
            QFile metrics(store.runDir(QStringLiteral("kg-1")) + QStringLiteral("/metrics.jsonl"));
            QVERIFY(metrics.open(QIODevice::WriteOnly));
            metrics.write("{\"type\":\"metric\",\"wall\":1,\"step\":1,\"epoch\":0,\"loss\":2}\n");
        }
        const QString state = store.root() + QStringLiteral("/.trainyard-state.json");
        {
            QFile f(state);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(R"({"runs":{"kg-1":{"pid":1,"token":"t0123456789","start_ticks":1,)"
                    R"("launcher":{"kind":"local","pid":1,"start_ticks":1}}}})");
        }
        QVERIFY(QFile::setPermissions(state, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadOther
                                                 | QFileDevice::WriteOther));
        MainWindow window;
        window.useScriptedPrompts();
        window.setEditorEnabled(false);
        QVERIFY(window.openFile(file));
        QVERIFY2(window.statusBar()->currentMessage().contains(QStringLiteral("is writable by others")),
                 qPrintable(window.statusBar()->currentMessage()));
        Orchestrator *orch = window.session()->orchestrator();
        const RunId id = orch->runs()->findByName(QStringLiteral("kg-1"));
        QVERIFY(id != 0);
        QCOMPARE(orch->runs()->value(id).state, RunState::Lost);
        QCOMPARE(orch->dispatcher()->activeCount(), 0);
        window.close();
    }

    // Comparing two runs: Select two in the
    // runs table, Compare (Ctrl+M, the Run menu, the row menu): their specs
    // side by side with what differs marked, and both curves.
    void compareTwoRunsFromTheRunsTable()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.useScriptedPrompts();
        window.setEditorEnabled(false);
        QVERIFY(window.openFile(writeExperiment(dir, 1)));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QString pastRoot =
            QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/compare-test-past");
        QDir(pastRoot).removeRecursively();
        const auto cleanup = qScopeGuard([&] { QDir(pastRoot).removeRecursively(); });
        const RunStore past(pastRoot);
        for (const auto &[name, lr] :
             {std::pair{QStringLiteral("lr-high"), 0.1}, std::pair{QStringLiteral("lr-low"), 0.001}}) {
            QJsonObject spec = tinyKgSpec(name);
            QJsonObject train = spec.value(QStringLiteral("train")).toObject();
            train.insert(QStringLiteral("lr"), lr);
            spec.insert(QStringLiteral("train"), train);
            QString error;
            QVERIFY2(past.prepareRunDir(name, spec, &error), qPrintable(error));
            QFile metrics(past.runDir(name) + QStringLiteral("/metrics.jsonl"));
            QVERIFY(metrics.open(QIODevice::WriteOnly));
            for (int step = 1; step <= 7; ++step) {
                metrics.write(QStringLiteral("{\"type\":\"metric\",\"wall\":%1,\"step\":%1,\"epoch\":0,\"loss\":%2}\n")
                                  .arg(step)
                                  .arg(lr / step)
                                  .toUtf8());
            }
        }
        window.findChild<QTabWidget *>()->setCurrentWidget(window.runTablePanel());
        window.runTable()->waitForHistory();
        QTableView *table = window.runTablePanel()->view();
        QAction *compare = window.runCompare()->action();
        QCOMPARE(compare->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_M));
        // The board's two selected cards (the first lane's, selected on open) could be compared.
        QCOMPARE(window.boardView()->selectedRuns().size(), 2);
        QVERIFY(compare->isEnabled());
        window.boardView()->selectRuns({});
        QVERIFY(!compare->isEnabled()); // nothing selected
        QVERIFY(action(window, QStringLiteral("Co&mpare two runs…")));
        for (int r = 0; r < table->model()->rowCount(); ++r) {
            if (QFileInfo(table->model()->index(r, 0).data(RunTableModel::RunDirRole).toString()).absolutePath()
                == pastRoot) {
                table->selectionModel()->select(table->model()->index(r, 0),
                                                QItemSelectionModel::Select | QItemSelectionModel::Rows);
            }
        }
        QCOMPARE(window.runTablePanel()->selectedRows().size(), 2);
        QVERIFY(compare->isEnabled());
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        table->setFocus();
        QTest::keyClick(table, Qt::Key_M, Qt::ControlModifier);
        QTRY_COMPARE(window.findChildren<CompareDialog *>().size(), 1);
        CompareDialog *dialog = window.findChildren<CompareDialog *>().first();
        QVERIFY(dialog->isVisible());
        QVERIFY2(dialog->differingKeys().contains(QStringLiteral("train.lr")),
                 qPrintable(dialog->differingKeys().join(QLatin1Char(','))));
        QVERIFY(!dialog->differingKeys().contains(QStringLiteral("model.dim")));
        QStringList lrs{dialog->valueText(QStringLiteral("train.lr"), 0),
                        dialog->valueText(QStringLiteral("train.lr"), 1)};
        lrs.sort();
        QCOMPARE(lrs, (QStringList{QStringLiteral("0.001"), QStringLiteral("0.1")}));
        // Both curves, from the past runs pinned to the plots (also drawn beside the board's runs).
        dialog->plot()->refreshNow();
        for (const QString &name : {QStringLiteral("lr-high"), QStringLiteral("lr-low")}) {
            const QString key = PlotFeeder::pastRunKey(past.runDir(name));
            QVERIFY(dialog->plot()->curve(key));
            QCOMPARE(dialog->plot()->curve(key)->size(), qsizetype(7));
            QVERIFY(window.plotFeeder()->isPinned(past.runDir(name)));
        }
        dialog->close();
        QTRY_VERIFY(window.findChildren<CompareDialog *>().isEmpty());
        window.close();
    }

    void pastRunsArePlottedBesideTheBoardsRuns()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.useScriptedPrompts();
        window.setEditorEnabled(false);
        QVERIFY(window.openFile(writeExperiment(dir, 1)));
        const QString pastRoot =
            QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/plot-test-past");
        QDir(pastRoot).removeRecursively();
        const RunStore past(pastRoot);
        QString error;
        QVERIFY2(past.prepareRunDir(QStringLiteral("old"), tinyKgSpec(QStringLiteral("old")), &error),
                 qPrintable(error));
        {
            QFile metrics(past.runDir(QStringLiteral("old")) + QStringLiteral("/metrics.jsonl"));
            QVERIFY(metrics.open(QIODevice::WriteOnly));
            for (int step = 1; step <= 5; ++step) {
                metrics.write(QStringLiteral("{\"type\":\"metric\",\"wall\":%1,\"step\":%1,\"epoch\":0,\"loss\":%2}\n")
                                  .arg(step)
                                  .arg(1.0 / step)
                                  .toUtf8());
            }
            metrics.write(R"({"type":"eval","wall":5,"step":5,"epoch":1,"split":"valid","mrr":0.25})"
                          "\n");
        }
        window.runTable()->refreshHistory();
        window.runTable()->waitForHistory();
        int row = -1;
        for (int r = 0; r < window.runTable()->rowCount(); ++r) {
            if (window.runTable()->index(r, 0).data(RunTableModel::RunDirRole).toString()
                == past.runDir(QStringLiteral("old"))) {
                row = r;
            }
        }
        QVERIFY(row >= 0);
        QVERIFY(window.togglePastRunPlot(row));
        const QString key = PlotFeeder::pastRunKey(past.runDir(QStringLiteral("old")));
        QVERIFY(window.plot()->selectedRuns().contains(key));
        QCOMPARE(window.plot()->curve(key)->size(), qsizetype(5));
        // Beside the board's selection, whatever it is.
        const RunId first = window.session()->orchestrator()->board()->runIds().first();
        window.boardView()->selectRuns({first});
        QTRY_VERIFY(window.plot()->selectedRuns().contains(QString::number(first)));
        QVERIFY(window.plot()->selectedRuns().contains(key));
        QVERIFY(window.plot()->availableMetrics().contains(QStringLiteral("valid/mrr")));
        // the past run took the board's palette. It is dashed, in
        // an ink no board colour is near; the board's run keeps its card's colour.
        window.plot()->refreshNow();
        const auto pen = [&](const QString &label) {
            QCustomPlot *loss = window.plot()->lossPlot();
            for (int i = 0; i < loss->graphCount(); ++i) {
                if (loss->graph(i)->name() == label) {
                    return loss->graph(i)->pen();
                }
            }
            return QPen(Qt::NoPen);
        };
        const QPen pastPen = pen(QStringLiteral("old (plot-test-past)"));
        QCOMPARE(pastPen.style(), Qt::DashLine);
        QCOMPARE(pastPen.color(), RunColors::pastPaletteColor(0));
        const QPen livePen = pen(window.session()->orchestrator()->runs()->value(first).name);
        QCOMPARE(livePen.style(), Qt::SolidLine);
        QCOMPARE(livePen.color(), RunColors::paletteColor(first - 1));
        QVERIFY(!window.togglePastRunPlot(row)); // again: off the plot
        QVERIFY(!window.plot()->selectedRuns().contains(key));
        window.close();
        QDir(pastRoot).removeRecursively();
    }

    // typing a name another run has ("kg-2") queued the run as
    // "kg-2-2" although the README says Queue stays disabled. The run
    // editor of a drop says the name is taken, and Queue stays disabled.
    void aTakenNameKeepsQueueDisabled()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.useScriptedPrompts();
        QVERIFY(window.openFile(writeExperiment(dir, 2))); // kg-1, kg-2 on lane 0
        window.loadCatalogue();
        QTRY_VERIFY_WITH_TIMEOUT(paletteEntry(window, QStringLiteral("transe")).isValid(), 20000);
        bool seen = false;
        QString problem;
        onNextModal("trainyard::RunEditorDialog", [&](QWidget *w) {
            auto *editor = static_cast<RunEditorDialog *>(w);
            const auto close = qScopeGuard([editor] { editor->reject(); }); // whatever fails below
            auto *name = editor->findChild<QLineEdit *>(QStringLiteral("name"));
            auto *queue = editor->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
            seen = name && queue && name->text() == QLatin1String("transe") && queue->isEnabled();
            name->setText(QStringLiteral("kg-2"));
            QTRY_VERIFY(!queue->isEnabled());
            problem = editor->problem();
            queue->click(); // disabled: nothing happens
            QCOMPARE(editor->result(), 0);
        });
        QVERIFY(!dropFromPalette(window, paletteEntry(window, QStringLiteral("transe")),
                                 window.boardModel()->index(1, 0), [](QJsonObject &) {}));
        QVERIFY(seen);
        QVERIFY2(problem.contains(QStringLiteral("\"kg-2\" is already used")), qPrintable(problem));
        Orchestrator *orchestrator = window.session()->orchestrator();
        QCOMPARE(orchestrator->board()->runIds().size(), 2); // nothing queued, nothing renamed
        QCOMPARE(orchestrator->runs()->findByName(QStringLiteral("kg-2-2")), RunId(0));
    }

    void trainsAnExperimentToTheEnd()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.useScriptedPrompts();
        window.setEditorEnabled(false);
        QVERIFY(window.openFile(writeExperiment(dir, 2)));
        window.loadCatalogue();
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        Orchestrator *orchestrator = window.session()->orchestrator();
        BoardModel *board = window.boardModel();
        QCOMPARE(board->rowCount(), 2);
        QCOMPARE(board->rowCount(board->index(0, 0)), 2);

        // Drag an mlp from the palette onto the second lane (through the models).
        QTRY_VERIFY_WITH_TIMEOUT(paletteEntry(window, QStringLiteral("mlp")).isValid(), 20000);
        const QModelIndex mlp = paletteEntry(window, QStringLiteral("mlp"));
        QVERIFY(mlp.isValid());
        // Small enough for a test: a few steps on generated images.
        QVERIFY(dropFromPalette(window, mlp, board->index(1, 0), [](QJsonObject &spec) {
            QJsonObject train = spec.value(QLatin1String("train")).toObject();
            train.insert(QStringLiteral("epochs"), 1);
            train.insert(QStringLiteral("max_steps"), 20);
            spec.insert(QStringLiteral("train"), train);
            QJsonObject dataSpec = spec.value(QLatin1String("data")).toObject();
            if (dataSpec.value(QLatin1String("kind")).toString() == QLatin1String("synthetic-images")) {
                dataSpec.insert(QStringLiteral("samples"), 256);
                spec.insert(QStringLiteral("data"), dataSpec);
            }
        }));
        QCOMPARE(board->rowCount(board->index(1, 0)), 1);
        QCOMPARE(window.finishCountText(), QStringLiteral("0 of 3 finished"));

        // Plot every run, then train.
        window.boardView()->selectRuns(orchestrator->board()->runIds());
        window.startAll();
        QTRY_COMPARE_WITH_TIMEOUT(window.finishCountText(), QStringLiteral("3 of 3 finished"), 150000);
        for (RunId id : orchestrator->board()->runIds()) {
            const QModelIndex card = board->runIndex(id);
            QCOMPARE(card.data(BoardModel::StateNameRole).toString(), QStringLiteral("finished"));
            QCOMPARE(card.data(BoardModel::ProgressRole).toDouble(), 1.0);
            QVERIFY(!card.data(BoardModel::LossHistoryRole).value<QVector<double>>().isEmpty());
            // The plot holds every point the store has, at full resolution.
            const MetricSeries *loss = window.session()->metrics()->series(id, QStringLiteral("loss"));
            QVERIFY(loss && loss->size() > 0);
            QTRY_COMPARE(window.plot()->curve(QString::number(id))->size(), qsizetype(loss->size()));
        }
        QVERIFY(!window.plot()->availableMetrics().isEmpty());
        QVERIFY2(window.lastNotification().contains(QLatin1String("3 of 3 finished")),
                 qPrintable(window.lastNotification()));
        QCOMPARE(window.runTable()->rowCount(), 3);

        // What a finished run was: how it ended, where, the command line it
        // started with, every hyperparameter with the real worker's defaults.
        const RunId first = orchestrator->board()->runIds().first();
        RunDetailsDialog *details = window.showRunDetails(first);
        QVERIFY(details);
        QCOMPARE(details->findChild<QLabel *>(QStringLiteral("exit"))->text(), QStringLiteral("exit 0: finished"));
        QCOMPARE(details->findChild<QLabel *>(QStringLiteral("host"))->text(), QSysInfo::machineHostName());
        QCOMPARE(details->commandText(), RunDetailsDialog::shellQuoted(orchestrator->runs()->value(first).command));
        QVERIFY2(details->commandText().contains(QStringLiteral("--connect unix:")),
                 qPrintable(details->commandText()));
        const QJsonObject resolved = details->resolvedSpec();
        QVERIFY(resolved.value(QStringLiteral("train")).toObject().contains(QStringLiteral("weight_decay")));
        QVERIFY(!orchestrator->runs()
                     ->value(first)
                     .spec.value(QStringLiteral("train"))
                     .toObject()
                     .contains(QStringLiteral("weight_decay")));
        QFile log(orchestrator->runs()->value(first).runDir + QStringLiteral("/worker.log"));
        QVERIFY(log.open(QIODevice::ReadOnly));
        QCOMPARE(details->log()->toPlainText(), QString::fromUtf8(log.readAll()));
        details->close();
        window.close();
    }

    // Bring your own model: a TorchScript module file dropped from the
    // palette onto a lane trains like the built-in models.
    void trainsATorchScriptModel()
    {
        const QString maker = qEnvironmentVariable("TRAINYARD_MAKE_TEST_MODULE");
        if (maker.isEmpty() || !QFileInfo(maker).isExecutable()) {
            QSKIP("TRAINYARD_MAKE_TEST_MODULE is not set: no program to build the TorchScript module");
        }
        QTemporaryDir dir;
        const QString module = dir.filePath(QStringLiteral("my-model.pt"));
        QCOMPARE(QProcess::execute(maker, {module, QStringLiteral("4"), QStringLiteral("8")}), 0);

        MainWindow window;
        window.useScriptedPrompts();
        window.setEditorEnabled(false);
        QVERIFY(window.openFile(writeExperiment(dir, 1)));
        window.loadCatalogue();
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        BoardModel *board = window.boardModel();
        QTRY_VERIFY_WITH_TIMEOUT(paletteEntry(window, QStringLiteral("torchscript")).isValid(), 20000);
        const QModelIndex entry = paletteEntry(window, QStringLiteral("torchscript"));
        QVERIFY2(entry.isValid(), "the palette lists no torchscript model");

        // What the editor's file chooser fills in: the module's path.
        QString droppedType;
        QVERIFY(dropFromPalette(window, entry, board->index(1, 0), [&](QJsonObject &spec) {
            QJsonObject model = spec.value(QLatin1String("model")).toObject();
            droppedType = model.value(QLatin1String("type")).toString();
            model.insert(QStringLiteral("path"), module);
            spec.insert(QStringLiteral("model"), model);
            spec.insert(QStringLiteral("name"), QStringLiteral("byom"));
            spec.insert(QStringLiteral("data"),
                        QJsonObject{{QStringLiteral("kind"), QStringLiteral("synthetic-images")},
                                    {QStringLiteral("samples"), 400},
                                    {QStringLiteral("classes"), 4},
                                    {QStringLiteral("size"), 8}});
            QJsonObject train = spec.value(QLatin1String("train")).toObject();
            train.insert(QStringLiteral("epochs"), 2);
            train.insert(QStringLiteral("batch_size"), 32);
            train.insert(QStringLiteral("lr"), 0.01);
            spec.insert(QStringLiteral("train"), train);
            spec.insert(QStringLiteral("report"), QJsonObject{{QStringLiteral("every_steps"), 1}});
        }));
        QCOMPARE(droppedType, QStringLiteral("torchscript"));
        QCOMPARE(board->rowCount(board->index(1, 0)), 1);
        const RunId id = board->index(0, 0, board->index(1, 0)).data(BoardModel::RunIdRole).value<RunId>();

        window.session()->orchestrator()->runActions()->startRun(id);
        QTRY_COMPARE_WITH_TIMEOUT(board->runIndex(id).data(BoardModel::StateNameRole).toString(),
                                  QStringLiteral("finished"), 120000);
        // It learned: zero weights start at ln(4); the last loss is below it.
        const MetricSeries *loss = window.session()->metrics()->series(id, QStringLiteral("loss"));
        QVERIFY(loss && loss->size() > 10);
        QVERIFY2(std::abs(loss->value(0) - std::log(4.0)) < 1e-4, qPrintable(QString::number(loss->value(0))));
        QVERIFY2(loss->value(loss->size() - 1) < 0.9 * std::log(4.0),
                 qPrintable(QString::number(loss->value(loss->size() - 1))));
        window.close();
    }

    // A trusted file's script that raises: its card fails alone, the
    // traceback in the card's tooltip and in the Log page of its details.
    void aCrashingScriptShowsItsTraceback()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty()) {
            QSKIP("python3 is not installed");
        }
        QTemporaryDir dir;
        const auto program = [](const QString &name, const QString &code) {
            return QJsonObject{{QStringLiteral("name"), name},
                               {QStringLiteral("program"),
                                QJsonObject{{QStringLiteral("argv"),
                                             QJsonArray{QStringLiteral("python3"), QStringLiteral("-c"), code}}}}};
        };
        const QString file = writeExperimentFile(
            dir,
            QJsonObject{{QStringLiteral("name"), QStringLiteral("scripts")},
                        {QStringLiteral("runs_root"), dir.filePath(QStringLiteral("runs"))},
                        {QStringLiteral("lanes"),
                         QJsonArray{QJsonObject{
                             {QStringLiteral("device"), QStringLiteral("cpu")},
                             {QStringLiteral("slots"), 2},
                             {QStringLiteral("runs"),
                              QJsonArray{program(QStringLiteral("crash"), QStringLiteral("print('epoch 1')\n1 / 0")),
                                         program(QStringLiteral("fine"), QStringLiteral("print('ok')"))}}}}}});
        MainWindow window;
        window.useScriptedPrompts();
        QStringList asked;
        window.useScriptedPrompts()->trusts = [&](const QString &, const QStringList &commands) {
            asked = commands;
            return true;
        };
        QVERIFY(window.openFile(file));
        QCOMPARE(asked.size(), 2);
        window.show();
        Orchestrator *orchestrator = window.session()->orchestrator();
        window.startAll();
        QTRY_VERIFY_WITH_TIMEOUT(
            orchestrator->dispatcher()->isIdle() && orchestrator->dispatcher()->finishedCount() == 1, 20000);
        const RunId crash = orchestrator->runs()->findByName(QStringLiteral("crash"));
        QCOMPARE(orchestrator->runs()->value(crash).state, RunState::Failed);
        BoardModel *board = window.boardModel();
        const QString tooltip = board->index(0, 0, board->index(0, 0)).data(Qt::ToolTipRole).toString();
        QVERIFY2(tooltip.contains(QStringLiteral("Traceback (most recent call last):")), qPrintable(tooltip));
        QVERIFY2(tooltip.contains(QStringLiteral("ZeroDivisionError: division by zero")), qPrintable(tooltip));
        RunDetailsDialog *details = window.showRunDetails(crash, RunDetailsDialog::Page::Log);
        QVERIFY(details);
        auto *log = details->findChild<LogView *>();
        QVERIFY(log);
        QTRY_VERIFY(log->toPlainText().contains(QStringLiteral("ZeroDivisionError")));
        details->close();
    }

    // a program that does not use the trainyard module showed
    // "starting" for its whole run, Pause disabled without a word. Once its
    // process runs it is running, with a note, and Pause says why it is off.
    void aProgramWithoutTheModuleRunsWithANote()
    {
        QTemporaryDir dir;
        const QString file = writeExperimentFile(
            dir,
            QJsonObject{{QStringLiteral("name"), QStringLiteral("quiet")},
                        {QStringLiteral("runs_root"), dir.filePath(QStringLiteral("runs"))},
                        {QStringLiteral("lanes"),
                         QJsonArray{QJsonObject{
                             {QStringLiteral("device"), QStringLiteral("cpu")},
                             {QStringLiteral("runs"),
                              QJsonArray{QJsonObject{
                                  {QStringLiteral("name"), QStringLiteral("quiet")},
                                  {QStringLiteral("program"),
                                   QJsonObject{{QStringLiteral("argv"),
                                                QJsonArray{QStringLiteral("sleep"), QStringLiteral("30")}}}}}}}}}}});
        MainWindow window;
        window.useScriptedPrompts()->trusts = [](const QString &, const QStringList &) { return true; };
        QVERIFY(window.openFile(file));
        Orchestrator *orchestrator = window.session()->orchestrator();
        const RunId quiet = orchestrator->runs()->findByName(QStringLiteral("quiet"));
        window.boardView()->selectRuns({quiet});
        window.startAll();
        const QModelIndex card = window.boardModel()->runIndex(quiet);
        QTRY_COMPARE_WITH_TIMEOUT(card.data(BoardModel::StateNameRole).toString(), QStringLiteral("running"), 10000);
        QCOMPARE(orchestrator->runs()->value(quiet).message,
                 QStringLiteral("no metrics (does not use the trainyard module)"));
        QCOMPARE(orchestrator->dispatcher()->activeCount(), 1);
        QAction *pause = action(window, QStringLiteral("&Pause"));
        QAction *stop = action(window, QStringLiteral("S&top"));
        QVERIFY(pause && stop);
        QTRY_VERIFY(stop->isEnabled());
        QVERIFY(!pause->isEnabled());
        QVERIFY2(pause->toolTip().contains(QStringLiteral("does not use the trainyard module")),
                 qPrintable(pause->toolTip()));
        window.stopAll();
        QTRY_VERIFY_WITH_TIMEOUT(orchestrator->dispatcher()->isIdle(), 20000);
        QCOMPARE(orchestrator->runs()->value(quiet).state, RunState::Stopped);
    }

    void closingWhileTrainingAsks()
    {
        QTemporaryDir dir;
        MainWindow window;
        int asked = 0;
        window.useScriptedPrompts()->close = [&] {
            ++asked;
            return asked == 1 ? Prompts::CloseChoice::Cancel : Prompts::CloseChoice::StopRuns;
        };
        QVERIFY(window.openFile(writeExperiment(dir, 500)));
        window.show();
        Orchestrator *orchestrator = window.session()->orchestrator();
        window.startAll();
        QTRY_VERIFY_WITH_TIMEOUT(orchestrator->dispatcher()->activeCount() > 0, 20000);
        QVERIFY(!window.close()); // cancelled: the window stays, the run trains on
        QCOMPARE(asked, 1);
        QVERIFY(orchestrator->dispatcher()->activeCount() > 0);
        QVERIFY(window.close());
        QCOMPARE(asked, 2);
        QVERIFY(!window.session());
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
