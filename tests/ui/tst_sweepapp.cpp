// A sweep built in the window: a model dropped on a lane opens the run
// editor, its "Sweep…" opens the sweep editor, accepting it adds the sweep
// (an undo step of the document) and its trials appear on the board with
// the sweep's badge and in the Sweep view, started on trainyard-fake-worker.

#include "orchestration/board/board.h"
#include "orchestration/document/experimentdocument.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/sweep/sweeprunner.h"
#include "ui/app/mainwindow.h"
#include "ui/board/boardmodel.h"
#include "ui/board/boardview.h"
#include "ui/editors/runeditordialog.h"
#include "ui/editors/specdialogs.h"
#include "ui/sweep/parallelcoordinates.h"
#include "ui/sweep/sweeppanel.h"
#include "ui/sweep/sweeptablemodel.h"
#include "ui/sweep/sweepview.h"
#include "uitesthelpers.h"

#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QUndoStack>
#include <QtTest>

#include <functional>

using namespace trainyard;
using namespace trainyard::testing;

namespace {

// Two CPU lanes of one slot; `queued`: a run on lane 0 that nobody started.
QString writeExperiment(const QTemporaryDir &dir, const QJsonArray &queued = {})
{
    const QJsonObject lane{{QStringLiteral("device"), QStringLiteral("cpu")},
                           {QStringLiteral("slots"), 1},
                           {QStringLiteral("runs"), QJsonArray{}}};
    QJsonObject first = lane;
    first.insert(QStringLiteral("runs"), queued);
    return writeExperimentFile(dir, QJsonObject{{QStringLiteral("name"), QStringLiteral("sweep-gui")},
                                                {QStringLiteral("runs_root"), dir.filePath(QStringLiteral("runs"))},
                                                {QStringLiteral("lanes"), QJsonArray{first, lane}}});
}

} // namespace

class TestSweepApp : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void dropSweepAccept()
    {
        const QString fake = qEnvironmentVariable("TRAINYARD_FAKE_WORKER");
        if (fake.isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        qputenv("TRAINYARD_WORKER", fake.toLocal8Bit()); // the trials start on it
        QTemporaryDir dir;
        MainWindow window;
        window.useScriptedPrompts();
        QString error;
        window.setCatalogue(ModelCatalogue::fromJson(trainyard::test::validationCatalogueJson(), &error));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        // A run queued on lane 0 and not started: "Start sweep" starts the trials all the same.
        QVERIFY(window.openFile(writeExperiment(dir, {tinyKgSpec(QStringLiteral("other"))})));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        Orchestrator *orchestrator = window.session()->orchestrator();
        const RunId other = orchestrator->board()->runIds().value(0);
        QCOMPARE(orchestrator->runs()->value(other).name, QStringLiteral("other"));
        const int undoBefore = window.undoStack()->count();

        bool sawRunEditor = false;
        bool sawSweepEditor = false;
        onNextModal("trainyard::RunEditorDialog", [&](QWidget *editor) {
            sawRunEditor = true;
            // The sweep editor comes next, from the run editor's "Sweep…".
            onNextModal("trainyard::SweepEditorDialog", [&](QWidget *sweep) {
                sawSweepEditor = true;
                auto *mode = sweep->findChild<QComboBox *>(QStringLiteral("sweepMode:train.lr"));
                QVERIFY(mode);
                mode->setCurrentIndex(mode->findText(QStringLiteral("values")));
                auto *values = sweep->findChild<QLineEdit *>(QStringLiteral("sweepValues:train.lr"));
                values->setText(QStringLiteral("0.01, 0.001, 0.0001"));
                auto *accept = sweep->findChild<QPushButton *>(QStringLiteral("sweepAccept"));
                QVERIFY(accept->isEnabled());
                accept->click();
            });
            auto *button = editor->findChild<QPushButton *>(QStringLiteral("sweepButton"));
            QVERIFY(button);
            button->click();
            if (QApplication::activeModalWidget() == editor) { // the spec did not pass: say why
                qWarning() << "run editor refused:" << static_cast<RunEditorDialog *>(editor)->problem();
                static_cast<QDialog *>(editor)->reject();
            }
        });
        // What a palette drop on lane 0 does: nothing is queued as a run of its own.
        // 200 epochs: the fake worker trains them for 20 s, time enough for the controls below.
        QVERIFY(!window.boardModel()->queueSpec(0, -1, tinyKgSpec(QStringLiteral("kg"), 200), 1));
        QVERIFY(sawRunEditor);
        QVERIFY(sawSweepEditor);

        SweepRunner *runner = orchestrator->sweeps();
        QVERIFY(runner->sweep(QStringLiteral("kg-sweep")));
        QCOMPARE(runner->trials(QStringLiteral("kg-sweep")).size(), 3);
        QCOMPARE(window.undoStack()->count(), undoBefore + 1);
        QVERIFY(window.undoStack()->undoText().contains(QStringLiteral("kg-sweep")));

        // "Start sweep" started it, without Start all: a trial on each lane's slot, with the sweep's badge.
        QVERIFY(!orchestrator->dispatcher()->isDispatching());
        const auto trialRuns = [&] {
            QList<RunId> ids = orchestrator->board()->runIds();
            ids.removeAll(other);
            return ids;
        };
        QTRY_COMPARE(trialRuns().size(), 2);
        QCOMPARE(orchestrator->runs()->value(other).state, RunState::Queued); // nobody started it
        int badged = 0;
        for (RunId id : trialRuns()) {
            const RunInfo run = orchestrator->runs()->value(id);
            QVERIFY2(run.state != RunState::Queued, qPrintable(run.name));
            QVERIFY2(run.name.startsWith(QStringLiteral("kg-sweep-")), qPrintable(run.name));
            const QModelIndex card = window.boardModel()->runIndex(id);
            QCOMPARE(card.data(BoardModel::SweepRole).toString(), QStringLiteral("kg-sweep"));
            ++badged;
        }
        QVERIFY(badged >= 2); // one a lane at least, each lane has one slot

        // The Sweep view shows it.
        SweepView *view = window.sweepPanel()->view();
        QCOMPARE(view->currentSweep(), QStringLiteral("kg-sweep"));
        QCOMPARE(view->tableModel()->rowCount(), 3);
        QTabWidget *tabs = window.findChild<QTabWidget *>();
        bool tabbed = false;
        for (int i = 0; i < tabs->count(); ++i) {
            tabbed = tabbed || tabs->widget(i) == view;
        }
        QVERIFY(tabbed);
        QVERIFY(view->parallelPlot()->axisCount() >= 2); // a searched key and the objective

        // A trial's card picked on the board picks its row in the view, and a row its card.
        const RunId second = trialRuns().at(1);
        int trial = -1;
        QCOMPARE(runner->sweepOf(second, &trial), QStringLiteral("kg-sweep"));
        window.boardView()->selectRuns({second});
        QCOMPARE(view->selectedTrial(), trial);
        const RunId first = trialRuns().at(0);
        runner->sweepOf(first, &trial);
        // The view shows the runs once its refresh after the placing came (it waits for a burst to end).
        QTRY_VERIFY(view->tableModel()->trialAt(view->tableModel()->rowOfTrial(trial)).run == first);
        view->tableView()->selectRow(view->tableModel()->rowOfTrial(trial));
        QCOMPARE(window.boardView()->selectedRuns(), (QList<RunId>{first}));

        // The controls: stop the selected trial, pause and resume, stop the sweep.
        const auto button = [&](const char *name) { return view->findChild<QPushButton *>(QLatin1String(name)); };
        QVERIFY(!button("sweepAddTrials")->isEnabled()); // a grid has no more samples to add
        QVERIFY(!button("sweepPromote")->isEnabled());   // the trial trains: nothing to promote
        QVERIFY(button("sweepStopTrial")->isEnabled());
        // Stopped once it trains (a stop while it starts is a kill, not a checkpointed stop).
        QTRY_VERIFY(orchestrator->runs()->value(first).step >= 0);
        button("sweepStopTrial")->click();
        const auto phaseOf = [&](int index) {
            for (const TrialInfo &t : runner->trials(QStringLiteral("kg-sweep"))) {
                if (t.index == index) {
                    return t.phase;
                }
            }
            return TrialInfo::Phase::Waiting;
        };
        QTRY_COMPARE(phaseOf(trial), TrialInfo::Phase::Stopped);
        button("sweepPause")->click();
        QCOMPARE(button("sweepPause")->text(), QStringLiteral("Resume"));
        button("sweepPause")->click();
        QCOMPARE(button("sweepPause")->text(), QStringLiteral("Pause"));
        button("sweepStop")->click();
        QTRY_VERIFY_WITH_TIMEOUT(runner->isDone(QStringLiteral("kg-sweep")), 20000);
        QTRY_VERIFY(!button("sweepStop")->isEnabled());
        QVERIFY(!button("sweepPause")->isEnabled()); // nothing left to pause
        // The status bar counts the trials that stopped as ended, not as still to finish.
        const int stopped = orchestrator->runs()->count(RunState::Stopped);
        QVERIFY(stopped >= 2);
        QVERIFY2(window.finishCountText().contains(QStringLiteral("ended (0 finished, %1 stopped").arg(stopped)),
                 qPrintable(window.finishCountText()));
    }

    // Cancel in the sweep editor goes back to the run editor as the user left it.
    void cancelledSweepKeepsTheRunEditor()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.useScriptedPrompts();
        QString error;
        window.setCatalogue(ModelCatalogue::fromJson(trainyard::test::validationCatalogueJson(), &error));
        QVERIFY(window.openFile(writeExperiment(dir)));
        int runEditors = 0;
        QString nameAgain;
        onNextModal("trainyard::RunEditorDialog", [&](QWidget *editor) {
            ++runEditors;
            auto *name = editor->findChild<QLineEdit *>(QStringLiteral("name"));
            name->setText(QStringLiteral("kg-edited"));
            onNextModal("trainyard::SweepEditorDialog", [&](QWidget *sweep) {
                // Back in the run editor after the Cancel: the edit is there.
                onNextModal("trainyard::RunEditorDialog", [&](QWidget *again) {
                    ++runEditors;
                    nameAgain = again->findChild<QLineEdit *>(QStringLiteral("name"))->text();
                    static_cast<QDialog *>(again)->reject();
                });
                sweep->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Cancel)->click();
            });
            editor->findChild<QPushButton *>(QStringLiteral("sweepButton"))->click();
        });
        QVERIFY(!window.boardModel()->queueSpec(0, -1, tinyKgSpec(QStringLiteral("kg")), 1));
        QCOMPARE(runEditors, 2);
        QCOMPARE(nameAgain, QStringLiteral("kg-edited"));
        QVERIFY(window.session()->orchestrator()->sweeps()->sweeps().isEmpty());
    }

    // "Sweep…" is a choice for a new run, a program's too; never in the edit of a queued run.
    void sweepChoiceOnlyForNewRuns()
    {
        QTemporaryDir dir;
        QString error;
        const ModelCatalogue catalogue = ModelCatalogue::fromJson(trainyard::test::validationCatalogueJson(), &error);
        SpecDialogs dialogs(nullptr, catalogue, nullptr); // it keeps a reference to the catalogue
        QJsonObject asked;
        dialogs.setSweepHandler([&](const QJsonObject &base) {
            asked = base;
            return true;
        });
        MainWindow window;
        window.useScriptedPrompts();
        QVERIFY(window.openFile(writeExperiment(dir)));
        const ExperimentDocument *document = window.boardModel()->document();

        const auto buttonIn = [](QWidget *editor) {
            return editor->findChild<QPushButton *>(QStringLiteral("sweepButton")) != nullptr;
        };
        bool program = false;
        onNextModal("trainyard::ProgramEditorDialog", [&](QWidget *editor) {
            program = buttonIn(editor);
            editor->findChild<QPushButton *>(QStringLiteral("sweepButton"))->click();
        });
        QFile script(dir.filePath(QStringLiteral("train.py"))); // the editor refuses a script that is not there
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.close();
        QJsonObject spec = pythonScriptRunSpec(script.fileName());
        int repeat = 1;
        QVERIFY(!dialogs.edit(&spec, &repeat, true, document, QString()));
        QVERIFY(program);
        QVERIFY(asked.contains(QStringLiteral("program"))); // the sweep editor would open on it

        bool edit = true;
        onNextModal("trainyard::RunEditorDialog", [&](QWidget *editor) {
            edit = buttonIn(editor);
            static_cast<QDialog *>(editor)->reject();
        });
        spec = tinyKgSpec(QStringLiteral("kg"));
        QVERIFY(!dialogs.edit(&spec, &repeat, false, document, QString(), QStringLiteral("kg")));
        QVERIFY(!edit);
    }
};

QTEST_MAIN(TestSweepApp)
#include "tst_sweepapp.moc"
