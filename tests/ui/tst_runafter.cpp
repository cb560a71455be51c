// "Run after…" in the window, through its widgets: the card's context menu
// holds it, its dialog offers the board's runs (greying the run itself and
// the runs that would then wait for one another), OK makes the run wait
// (its card, tooltip and details say what for), the selected card's edges follow, and
// Undo / Redo of the document's stack take it back and forth.

#include "orchestration/board/board.h"
#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "ui/app/desktopapp.h"
#include "ui/app/mainwindow.h"
#include "ui/board/boardmodel.h"
#include "ui/board/boardview.h"
#include "ui/board/dependencyedges.h"
#include "ui/board/laneview.h"
#include "ui/board/runafterdialog.h"
#include "ui/runs/rundetailsdialog.h"
#include "uitesthelpers.h"

#include <QAction>
#include <QApplication>
#include <QDialogButtonBox>
#include <QJsonArray>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QStandardPaths>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

using namespace trainyard;
using namespace trainyard::testing;

namespace {

// Runs `step` on the next widget `find` returns (polling: exec() blocks the test).
void onNext(const std::function<QWidget *()> &find, const std::function<void(QWidget *)> &step)
{
    auto *timer = new QTimer;
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, [timer, find, step] {
        if (QWidget *w = find()) {
            timer->stop();
            timer->deleteLater();
            step(w);
        }
    });
    timer->start();
}

QListWidgetItem *item(QListWidget *list, const QString &name)
{
    for (int i = 0; i < list->count(); ++i) {
        if (list->item(i)->data(Qt::UserRole).toString() == name) {
            return list->item(i);
        }
    }
    return nullptr;
}

} // namespace

class TestRunAfter : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        initDesktopApp();
        const QString fake = qEnvironmentVariable("TRAINYARD_FAKE_WORKER");
        if (fake.isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        qputenv("TRAINYARD_WORKER", fake.toLocal8Bit());
    }

    void runAfterFromTheCardMenuAndUndo()
    {
        QTemporaryDir dir;
        QJsonObject c = tinyKgSpec(QStringLiteral("c"));
        c.insert(QStringLiteral("after"), QStringLiteral("b"));
        const QJsonObject lane{
            {QStringLiteral("device"), QStringLiteral("cpu")},
            {QStringLiteral("slots"), 1},
            {QStringLiteral("runs"), QJsonArray{tinyKgSpec(QStringLiteral("a")), tinyKgSpec(QStringLiteral("b")), c}}};
        const QString file =
            writeExperimentFile(dir, QJsonObject{{QStringLiteral("name"), QStringLiteral("after-gui")},
                                                 {QStringLiteral("runs_root"), dir.filePath(QStringLiteral("runs"))},
                                                 {QStringLiteral("lanes"), QJsonArray{lane}}});
        MainWindow window;
        window.useScriptedPrompts();
        QString error;
        window.setCatalogue(ModelCatalogue::fromJson(trainyard::test::validationCatalogueJson(), &error));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(window.openFile(file));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        Orchestrator *orchestrator = window.session()->orchestrator();
        const RunId a = orchestrator->runs()->findByName(QStringLiteral("a"));
        const RunId b = orchestrator->runs()->findByName(QStringLiteral("b"));
        const RunId cId = orchestrator->runs()->findByName(QStringLiteral("c"));
        QCOMPARE(orchestrator->runs()->value(cId).state, RunState::Waiting);
        const int undoBefore = window.undoStack()->count();

        // The card's context menu holds "Run after…".
        LaneView *laneView = window.boardView()->laneView(0);
        const QPoint onB = laneView->visualRect(window.boardModel()->runIndex(b)).center();
        QTest::mouseClick(laneView->viewport(), Qt::LeftButton, {}, onB); // b's card alone
        QCOMPARE(window.boardView()->selectedRuns(), QList<RunId>{b});
        QAction *chosen = nullptr;
        onNext([] { return QApplication::activePopupWidget(); },
               [&](QWidget *popup) {
                   for (QAction *action : static_cast<QMenu *>(popup)->actions()) {
                       if (action->text() == QStringLiteral("Run a&fter…")) {
                           chosen = action;
                       }
                   }
                   popup->close();
               });
        Q_EMIT laneView->customContextMenuRequested(onB); // the right click on b's card
        QVERIFY(chosen);
        QCOMPARE(window.boardView()->selectedRuns(), QList<RunId>{b});
        QVERIFY(chosen->isEnabled());

        // Its dialog: a can be chosen; b itself and c (which runs after b) cannot.
        bool seen = false;
        onNext([] { return qobject_cast<RunAfterDialog *>(QApplication::activeModalWidget()); },
               [&](QWidget *widget) {
                   auto *dialog = static_cast<RunAfterDialog *>(widget);
                   QListWidget *list = dialog->list();
                   QListWidgetItem *itemA = item(list, QStringLiteral("a"));
                   QListWidgetItem *itemB = item(list, QStringLiteral("b"));
                   QListWidgetItem *itemC = item(list, QStringLiteral("c"));
                   QVERIFY(itemA && itemB && itemC);
                   QVERIFY(itemA->flags() & Qt::ItemIsEnabled);
                   QVERIFY(!(itemB->flags() & Qt::ItemIsEnabled));
                   QVERIFY(!(itemC->flags() & Qt::ItemIsEnabled));
                   QVERIFY(itemC->toolTip().contains(QStringLiteral("would wait for one another")));
                   // Ticked as a user does: a click on the item's check box.
                   const QRect rect = list->visualItemRect(itemA);
                   QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, QPoint(rect.left() + 10, rect.center().y()));
                   if (itemA->checkState() != Qt::Checked) { // the style put the box elsewhere
                       itemA->setCheckState(Qt::Checked);
                   }
                   seen = true;
                   dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
               });
        chosen->trigger();
        QVERIFY(seen);

        // b waits for a, says so, and the edit is one step of the document's history.
        RunInfo runB = orchestrator->runs()->value(b);
        QCOMPARE(runB.after, QStringList{QStringLiteral("a")});
        QCOMPARE(runB.state, RunState::Waiting);
        QCOMPARE(runB.message, QStringLiteral("waits for a"));
        const QModelIndex card = window.boardModel()->runIndex(b);
        QCOMPARE(card.data(BoardModel::StateNameRole).toString(), QStringLiteral("waiting"));
        QVERIFY(card.data(Qt::ToolTipRole).toString().contains(QStringLiteral("runs after a")));
        // Its details say so too.
        RunDetailsDialog *details = window.showRunDetails(b);
        QVERIFY(details);
        QCOMPARE(details->findChild<QLabel *>(QStringLiteral("state"))->text(), QStringLiteral("waiting: waits for a"));
        QCOMPARE(details->findChild<QLabel *>(QStringLiteral("after"))->text(), QStringLiteral("a"));
        details->close();
        QCOMPARE(window.undoStack()->count(), undoBefore + 1);
        QCOMPARE(window.undoStack()->undoText(), QStringLiteral("Run b after a"));
        // Its card selected: the edges into it and out of it.
        const DependencyEdges *edges = window.boardView()->dependencyEdges();
        QTRY_COMPARE(edges->edges(), (QList<std::pair<RunId, RunId>>{{a, b}, {b, cId}}));

        // Undo: b runs after nothing again, queued; its edge from a is gone.
        QAction *undo = nullptr;
        for (QAction *action : window.findChildren<QAction *>()) {
            if (action->objectName() == QStringLiteral("undoBarAction")) {
                undo = action;
            }
        }
        QVERIFY(undo && undo->isEnabled());
        undo->trigger();
        runB = orchestrator->runs()->value(b);
        QVERIFY(runB.after.isEmpty());
        QCOMPARE(runB.state, RunState::Queued);
        QVERIFY(runB.message.isEmpty());
        QTRY_COMPARE(edges->edges(), (QList<std::pair<RunId, RunId>>{{b, cId}}));
        window.undoStack()->redo();
        QCOMPARE(orchestrator->runs()->value(b).state, RunState::Waiting);

        // Saved, the file has it.
        QVERIFY(window.session()->save(dir.filePath(QStringLiteral("saved.json")), &error));
        const auto saved = Experiment::load(dir.filePath(QStringLiteral("saved.json")), nullptr);
        QVERIFY(saved);
        QCOMPARE(saved->lanes.at(0).runs.at(1).spec.value(QStringLiteral("after")).toArray(),
                 QJsonArray{QStringLiteral("a")});
    }
};

QTEST_MAIN(TestRunAfter)
#include "tst_runafter.moc"
