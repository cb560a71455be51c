// The board in the window: lanes share its width, their titles
// tell them apart and take a name the user sets (undoable, saved in the
// file), and the dialogs that ask about lanes are as wide as their titles.

#include "orchestration/board/board.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "ui/app/desktopapp.h"
#include "ui/app/mainwindow.h"
#include "ui/board/boardcontroller.h"
#include "ui/board/boardmodel.h"
#include "ui/board/boardview.h"
#include "ui/board/laneheader.h"
#include "ui/board/lanemenu.h"
#include "ui/board/laneview.h"
#include "ui/common/inputdialogs.h"
#include "uitesthelpers.h"

#include <QAction>
#include <QComboBox>
#include <QInputDialog>
#include <QLineEdit>
#include <QScopeGuard>
#include <QScrollBar>
#include <QStandardPaths>
#include <QTest>
#include <QUndoStack>

using namespace trainyard;
using namespace trainyard::testing;

namespace {

// `lanes` CPU lanes, empty.
QString writeExperiment(const QTemporaryDir &dir, int lanes)
{
    QJsonArray array;
    for (int i = 0; i < lanes; ++i) {
        array.append(QJsonObject{{QStringLiteral("device"), QStringLiteral("cpu")},
                                 {QStringLiteral("runs"), QJsonArray{tinyKgSpec(QStringLiteral("r%1").arg(i))}}});
    }
    return writeExperimentFile(dir, QJsonObject{{QStringLiteral("name"), QStringLiteral("lanes")},
                                                {QStringLiteral("runs_root"), dir.filePath(QStringLiteral("runs"))},
                                                {QStringLiteral("lanes"), array}});
}

QAction *action(const MainWindow &window, const QString &text)
{
    for (QAction *a : window.findChildren<QAction *>()) {
        if (a->text() == text) {
            return a;
        }
    }
    return nullptr;
}

} // namespace

class TestBoardView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        initDesktopApp();
    }

    // lanes had a fixed width of 270 pixels; most of a wide
    // window was grey. They share the board's width now, up to a maximum,
    // and a narrow window scrolls them sideways.
    void lanesShareTheBoardsWidth()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.useScriptedPrompts();
        window.setEditorEnabled(false);
        QVERIFY(window.openFile(writeExperiment(dir, 4)));
        window.resize(1600, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        BoardView *board = window.boardView();
        QCOMPARE(board->laneCount(), 4);
        const auto laneWidth = [board](int i) { return board->laneView(i)->parentWidget()->width(); };
        QTRY_VERIFY(laneWidth(0) > 300);
        const int viewport = board->viewport()->width();
        for (int i = 1; i < 4; ++i) {
            QVERIFY(std::abs(laneWidth(i) - laneWidth(0)) <= 2); // alike
        }
        // Together they fill the board, or each is as wide as a lane gets.
        const int right = board->laneView(3)->parentWidget()->geometry().right();
        QVERIFY2(right >= viewport - 20 || laneWidth(0) >= 500,
                 qPrintable(QStringLiteral("lanes end at %1 of %2").arg(right).arg(viewport)));
        QVERIFY(laneWidth(0) <= 520);
        // The cards follow their lane's width.
        const QModelIndex card = window.boardModel()->index(0, 0, window.boardModel()->index(0, 0));
        QTRY_VERIFY(board->laneView(0)->visualRect(card).width() >= board->laneView(0)->viewport()->width() - 4);
        QVERIFY(!board->horizontalScrollBar()->isVisible());

        // Narrow: at their minimum, scrolled sideways.
        window.resize(window.minimumSizeHint().width(), 700);
        QTRY_VERIFY2(board->horizontalScrollBar()->isVisible(),
                     qPrintable(QStringLiteral("board %1 px wide").arg(board->viewport()->width())));
        QVERIFY(laneWidth(0) >= 250);
    }

    // every CPU lane was titled "cpu". The titles tell lanes apart,
    // and "Rename…" in a lane's menu names one: undoable, saved in the file.
    void laneTitlesAndRename()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.useScriptedPrompts();
        window.setEditorEnabled(false);
        const QString file = writeExperiment(dir, 2);
        QVERIFY(window.openFile(file));
        window.show();
        BoardView *board = window.boardView();
        QCOMPARE(board->laneHeader(0)->title(), QStringLiteral("cpu"));
        QCOMPARE(board->laneHeader(1)->title(), QStringLiteral("cpu 2"));

        BoardController *controller = window.boardModel()->controller();
        LaneMenu menu(1, controller, window.boardModel(), action(window, QStringLiteral("Add &lane…")), &window);
        QAction *rename = nullptr;
        for (QAction *a : menu.actions()) {
            rename = a->text() == QStringLiteral("Rename…") ? a : rename;
        }
        QVERIFY(rename);
        bool asked = false;
        onNextModal("QInputDialog", [&](QWidget *w) {
            auto *dialog = static_cast<QInputDialog *>(w);
            const auto close = qScopeGuard([dialog] { dialog->done(QDialog::Accepted); });
            asked = dialog->textValue() == QLatin1String("cpu 2");
            dialog->setTextValue(QStringLiteral("big batch"));
        });
        rename->trigger();
        QVERIFY(asked);
        QCOMPARE(board->laneHeader(1)->title(), QStringLiteral("big batch · cpu"));
        QCOMPARE(controller->undoStack()->undoText(), QStringLiteral("Rename lane cpu 2 to big batch"));
        controller->undo();
        QCOMPARE(board->laneHeader(1)->title(), QStringLiteral("cpu 2"));
        controller->redo();
        QCOMPARE(board->laneHeader(1)->title(), QStringLiteral("big batch · cpu"));

        // Saved as the lane's "name", read back as it.
        QVERIFY(window.saveTo(file));
        QStringList errors;
        const auto saved = Experiment::load(file, &errors);
        QVERIFY2(saved, qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(saved->lanes.at(1).name, QStringLiteral("big batch"));
        QCOMPARE(saved->lanes.at(0).name, QString());
    }

    // "Add la…inyard": the window manager cut the title of a
    // dialog sized for its field ("Add lane — Trainyard"). The dialog is
    // as wide as its title needs; the lane it adds is titled apart.
    void addLaneDialogFitsItsTitle()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.useScriptedPrompts();
        window.setEditorEnabled(false);
        QVERIFY(window.openFile(writeExperiment(dir, 2)));
        window.show();
        QAction *addLane = action(window, QStringLiteral("Add &lane…"));
        QVERIFY(addLane);
        int width = 0;
        int needed = 0;
        QString title;
        onNextModal("QInputDialog", [&](QWidget *w) {
            auto *dialog = static_cast<QInputDialog *>(w);
            const auto close = qScopeGuard([dialog] { dialog->done(QDialog::Accepted); });
            title = dialog->windowTitle();
            width = dialog->width();
            QFont bold = dialog->font();
            bold.setBold(true);
            needed = QFontMetrics(bold).horizontalAdvance(QStringLiteral("Add lane — Trainyard"));
            dialog->setTextValue(QStringLiteral("cpu"));
        });
        addLane->trigger();
        QCOMPARE(title, QStringLiteral("Add lane"));
        QVERIFY2(width >= needed + 100,
                 qPrintable(QStringLiteral("%1 px for a title of %2 px").arg(width).arg(needed)));
        QCOMPARE(width >= inputdialogs::titleWidth(&window, title), true);
        QCOMPARE(window.boardView()->laneCount(), 3);
        QCOMPARE(window.boardView()->laneHeader(2)->title(), QStringLiteral("cpu 3"));
    }
};

QTEST_MAIN(TestBoardView)
#include "tst_boardview.moc"
