// How the main window looks and answers the keyboard on a first visit: a
// long message in the status bar, a window that fits a small or scaled
// screen, the actions and keys a keyboard user needs, the run editor's
// paragraphs.

#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/document/experimentdocument.h"
#include "orchestration/records/endnotice.h"
#include "tests/orchestration/testcatalogue.h"
#include "tests/orchestration/testutil.h"
#include "ui/app/desktopapp.h"
#include "ui/app/dialogprompts.h"
#include "ui/app/elidingstatusbar.h"
#include "ui/app/mainwindow.h"
#include "ui/editors/runeditordialog.h"
#include "ui/palette/modelpalette.h"
#include "uitesthelpers.h"

#include <QAction>
#include <QApplication>
#include <QContextMenuEvent>
#include <QDialogButtonBox>
#include <QFile>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QStandardPaths>
#include <QTest>
#include <QToolBar>
#include <QTreeView>

using namespace trainyard;
using namespace trainyard::testing;

namespace {

QAction *action(const QWidget &window, const QString &text)
{
    for (QAction *a : window.findChildren<QAction *>()) {
        if (a->text() == text) {
            return a;
        }
    }
    return nullptr;
}

// The palette view's item of model `type` (through its filter proxy).
QModelIndex paletteItem(QTreeView *view, const QString &type)
{
    const QAbstractItemModel *model = view->model();
    for (int g = 0; g < model->rowCount(); ++g) {
        const QModelIndex group = model->index(g, 0);
        for (int r = 0; r < model->rowCount(group); ++r) {
            if (model->index(r, 0, group).data().toString() == type) {
                return model->index(r, 0, group);
            }
        }
    }
    return {};
}

// The labels of `dialog` that show a "&" as text: one without a buddy
// shows the "&" itself and has no key.
QStringList labelsWithoutBuddy(const QWidget &dialog)
{
    QStringList out;
    for (const QLabel *label : dialog.findChildren<QLabel *>()) {
        const QString text = label->text();
        if (text.contains(QLatin1Char('&')) && !Qt::mightBeRichText(text) && !label->buddy()) {
            out << text;
        }
    }
    return out;
}

} // namespace

class TestWindowLook : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        initDesktopApp();
    }

    // A long message ends in "…" before the finished count, whole in the
    // tooltip; a short one is shown as it is.
    void aLongMessageStopsBeforeThePermanentLabel()
    {
        MainWindow window;
        window.resize(700, 500);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *bar = qobject_cast<ElidingStatusBar *>(window.statusBar());
        QVERIFY(bar);
        auto *count = window.findChild<QLabel *>(QStringLiteral("finishCount"));
        QVERIFY(count);
        count->setText(QStringLiteral("12 of 40 finished"));
        const QString message =
            QStringLiteral("nanny failed: ") + QString(QStringLiteral("a very long reason ")).repeated(20);
        bar->showMessage(message);
        QTRY_VERIFY(count->isVisible() && count->x() > 0 && count->x() < bar->width() - 10);
        QTRY_VERIFY(bar->shownMessage().endsWith(QChar(0x2026)));
        QVERIFY(bar->shownMessage().startsWith(QStringLiteral("nanny failed: a very")));
        QVERIFY2(bar->fontMetrics().horizontalAdvance(bar->shownMessage()) < count->x(),
                 qPrintable(QStringLiteral("%1 px of text, the count at %2")
                                .arg(bar->fontMetrics().horizontalAdvance(bar->shownMessage()))
                                .arg(count->x())));
        QCOMPARE(bar->toolTip(), message);
        bar->showMessage(QStringLiteral("Saved"));
        QCOMPARE(bar->shownMessage(), QStringLiteral("Saved"));
        QVERIFY(bar->toolTip().isEmpty());
    }

    // How a run ended says its state once: "diverged: diverged: …" was read.
    void aRunsEndSaysItsStateOnce()
    {
        QCOMPARE(endnotice::endText(QStringLiteral("nanny"), RunState::Diverged,
                                    QStringLiteral("diverged: loss is nan at step 12")),
                 QStringLiteral("nanny diverged: loss is nan at step 12"));
        QCOMPARE(endnotice::endText(QStringLiteral("nanny"), RunState::Failed, QStringLiteral("exit 3")),
                 QStringLiteral("nanny failed: exit 3"));
        QCOMPARE(endnotice::endText(QStringLiteral("nanny"), RunState::Lost, QString()), QStringLiteral("nanny lost"));
    }

    // At QT_SCALE_FACTOR=2 a 1920x1080 screen is 960x540 of the window's
    // pixels: the window opens within its screen and can be made that small.
    void theWindowFitsASmallScreen()
    {
        MainWindow window;
        QVERIFY(window.openDemo());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QSize room = window.screen()->availableSize();
        QVERIFY2(window.width() <= room.width() && window.height() <= room.height(),
                 qPrintable(QStringLiteral("%1x%2 on a screen of %3x%4")
                                .arg(window.width())
                                .arg(window.height())
                                .arg(room.width())
                                .arg(room.height())));
        const QSize least = window.minimumSizeHint();
        QVERIFY2(least.width() <= 940 && least.height() <= 520,
                 qPrintable(QStringLiteral("at least %1x%2").arg(least.width()).arg(least.height())));
    }

    // Return or Space on a model queues it as a drop does; so do its
    // context menu and the Add run action. Resume is on the tool bar,
    // Save as has a key.
    void theKeyboardQueuesFromThePalette()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.useScriptedPrompts();
        window.setEditorEnabled(false);
        const QString path =
            writeExperimentFile(dir, test::experimentJson(QStringLiteral("keys"), dir.filePath(QStringLiteral("runs")),
                                                          QJsonArray{test::lane(QStringLiteral("cpu"), 1, {})}));
        QVERIFY(window.openFile(path));
        QString error;
        window.setCatalogue(ModelCatalogue::fromJson(test::catalogueJson(), &error));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTreeView *view = window.palette()->view();
        const QModelIndex transe = paletteItem(view, QStringLiteral("transe"));
        QVERIFY(transe.isValid());
        view->setFocus();
        view->setCurrentIndex(transe);
        const auto runs = [&window] { return window.document()->runIds().size(); };
        QCOMPARE(runs(), 0);
        QTest::keyClick(view, Qt::Key_Return);
        QTRY_COMPARE(runs(), 1);
        QTest::keyClick(view, Qt::Key_Space);
        QTRY_COMPARE(runs(), 2);

        // The context menu (the Menu key, Shift+F10): Queue.
        bool menuShown = false;
        QTimer poll;
        poll.setInterval(20);
        connect(&poll, &QTimer::timeout, this, [&] {
            if (auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget())) {
                poll.stop();
                menuShown = true;
                QTest::keyClick(menu, Qt::Key_Q);
            }
        });
        poll.start();
        QContextMenuEvent keyMenu(QContextMenuEvent::Keyboard, QPoint(5, 5), view->mapToGlobal(QPoint(5, 5)));
        QApplication::sendEvent(view, &keyMenu); // the Menu key, Shift+F10: to the focus widget
        QTRY_VERIFY(menuShown);
        QTRY_COMPARE(runs(), 3);

        QAction *addRun = action(window, QStringLiteral("Add ru&n"));
        QVERIFY(addRun && addRun->isEnabled());
        addRun->trigger();
        QTRY_COMPARE(runs(), 4);

        auto *bar = window.findChild<QToolBar *>(QStringLiteral("mainToolBar"));
        QVERIFY(bar);
        QVERIFY(bar->actions().contains(action(window, QStringLiteral("Res&ume"))));
        QAction *saveAs = action(window, QStringLiteral("Save &as…"));
        QVERIFY(saveAs);
        QVERIFY(!saveAs->shortcut().isEmpty());
    }

    // Retry makes a new attempt and keeps the old one: Return confirms it.
    void returnConfirmsANewAttempt()
    {
        QWidget parent;
        DialogPrompts prompts(&parent, [] { return true; });
        QString shownDefault;
        onNextModal("QMessageBox", [&](QWidget *w) {
            auto *box = static_cast<QMessageBox *>(w);
            shownDefault = box->defaultButton() ? box->defaultButton()->text() : QString();
            QTest::keyClick(box, Qt::Key_Return);
        });
        QVERIFY(prompts.startNewAttempts(QStringLiteral("Retry"), QStringLiteral("Retry kg-1? Its folder is kept.")));
        QCOMPARE(shownDefault, QStringLiteral("&Retry"));
    }

    // Every label of the run editor with a key has its field; the buttons
    // the editor adds have keys.
    void theRunEditorsKeys()
    {
        QString error;
        const ModelCatalogue c = ModelCatalogue::fromJson(test::catalogueJson(), &error);
        RunEditorDialog dialog(
            c, QJsonObject{{QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("transe")}}}},
            1);
        QCOMPARE(labelsWithoutBuddy(dialog), QStringList());
        for (QPushButton *b : dialog.findChild<QDialogButtonBox *>()->findChildren<QPushButton *>()) {
            const bool standard = dialog.findChild<QDialogButtonBox *>()->standardButton(b) == QDialogButtonBox::Cancel;
            QVERIFY2(standard || b->text().contains(QLatin1Char('&')), qPrintable(b->text()));
        }
    }

    // The model's description and the recipe's note get the height their
    // wrapped lines need, at the default size, larger, and when the note
    // changes while the dialog is open (the data check answers later).
    void theRunEditorsParagraphsDoNotOverlap()
    {
        const QString about = QStringLiteral("TransE (Bordes et al. 2013): h + r ~ t under the L1 or L2 distance; "
                                             "trained by the recipe that fits the graph, ")
                                  .repeated(3);
        QByteArray json = test::catalogueJson();
        json.replace("\"description\": \"TransE\"", "\"description\": \"" + about.toUtf8() + "\"");
        QString error;
        const ModelCatalogue c = ModelCatalogue::fromJson(json, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        RunEditorDialog dialog(
            c, QJsonObject{{QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("transe")}}}},
            1);
        auto *note = dialog.findChild<QLabel *>(QStringLiteral("recipeNote"));
        QVERIFY(note);
        note->setVisible(true);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        const auto whole = [&dialog] {
            QList<QLabel *> wrapped;
            for (QLabel *l : dialog.findChildren<QLabel *>()) {
                if (l->wordWrap() && l->isVisible() && !l->text().isEmpty()) {
                    if (l->height() < l->heightForWidth(l->width())) {
                        return false; // clipped
                    }
                    wrapped << l;
                }
            }
            for (int i = 0; i < wrapped.size(); ++i) {
                for (int j = i + 1; j < wrapped.size(); ++j) {
                    if (wrapped[i]->parentWidget() == wrapped[j]->parentWidget()
                        && wrapped[i]->geometry().intersects(wrapped[j]->geometry())) {
                        return false; // drawn over each other
                    }
                }
            }
            return wrapped.size() >= 2;
        };
        note->setText(QStringLiteral("Recipe auto: \"small\" for this graph (200 entities, 10 relations): the "
                                     "paper's margin loss over unit-norm entities (L1, dim 100, 32 filtered "
                                     "Bernoulli negatives), row-wise Adagrad, 300 epochs. The fields it sets show "
                                     "its values; a value you change is yours."));
        QTRY_VERIFY(whole());
        dialog.resize(dialog.width() + 300, dialog.height() + 200);
        QTRY_VERIFY(whole());
        dialog.resize(dialog.width() - 400, dialog.height());
        QTRY_VERIFY(whole());
    }
};

QTEST_MAIN(TestWindowLook)
#include "tst_windowlook.moc"
