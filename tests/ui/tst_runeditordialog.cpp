// The run editor built from the catalogue: editors with the catalogue's ranges,
// validation messages naming the key, the worker's defaults handed back
// unchanged, and the catalogue's check of what the fields cannot show.

#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/runspec/runspecview.h"
#include "ui/editors/runeditordialog.h"
#include "uitesthelpers.h"

#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>

using namespace trainyard;
using namespace trainyard::testing;

class TestRunEditorDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void runEditorEditsAndValidates()
    {
        QString error;
        const ModelCatalogue c = ModelCatalogue::fromJson(catalogueJson(), &error);
        RunEditorDialog editor(c, c.defaultSpec(QStringLiteral("transe"), QStringLiteral("t")), 3);
        QCOMPARE(editor.repeat(), 3);
        auto *dim = qobject_cast<QSpinBox *>(editor.editorFor(QStringLiteral("model.dim")));
        QVERIFY(dim);
        QCOMPARE(dim->maximum(), 4096);
        dim->setValue(64);
        auto *norm = qobject_cast<QComboBox *>(editor.editorFor(QStringLiteral("model.norm")));
        QVERIFY(norm);
        norm->setCurrentText(QStringLiteral("2"));
        auto *maxSteps = qobject_cast<QSpinBox *>(editor.editorFor(QStringLiteral("train.max_steps")));
        QVERIFY(maxSteps);
        QCOMPARE(maxSteps->value(), maxSteps->minimum()); // "none"
        QVERIFY2(editor.validate(&error), qPrintable(error));
        QJsonObject spec = editor.spec();
        QCOMPARE(spec.value(QLatin1String("model")).toObject().value(QLatin1String("dim")).toInt(), 64);
        QCOMPARE(spec.value(QLatin1String("model")).toObject().value(QLatin1String("norm")).toInt(), 2);
        QVERIFY(spec.value(QLatin1String("train")).toObject().value(QLatin1String("max_steps")).isNull());

        // Out of range: the message names the key and the range.
        auto *lr = qobject_cast<QLineEdit *>(editor.editorFor(QStringLiteral("train.lr")));
        QVERIFY(lr);
        lr->setText(QStringLiteral("50"));
        QVERIFY(!editor.validate(&error));
        QVERIFY2(error.startsWith(QLatin1String("train.lr: expected a number in [0, 10]")), qPrintable(error));
        lr->setText(QStringLiteral("1e-3"));
        QVERIFY2(editor.validate(&error), qPrintable(error));
        QCOMPARE(editor.spec().value(QLatin1String("train")).toObject().value(QLatin1String("lr")).toDouble(), 1e-3);
    }

    // scrolling the editor over a spin box changed its value
    // (eval every_epochs 25 -> 20). Only a focused editor takes the wheel.
    void theWheelChangesOnlyAFocusedEditor()
    {
        QString error;
        const ModelCatalogue c = ModelCatalogue::fromJson(catalogueJson(), &error);
        RunEditorDialog editor(c, c.defaultSpec(QStringLiteral("transe"), QStringLiteral("t")), 1);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        auto *dim = qobject_cast<QSpinBox *>(editor.editorFor(QStringLiteral("model.dim")));
        QVERIFY(dim);
        auto *norm = qobject_cast<QComboBox *>(editor.editorFor(QStringLiteral("model.norm")));
        QVERIFY(norm);
        const int before = dim->value();
        const int normBefore = norm->currentIndex();
        const auto wheel = [](QWidget *w, int delta) {
            const QPointF at(w->width() / 2.0, w->height() / 2.0);
            QWheelEvent event(at, w->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton, Qt::NoModifier,
                              Qt::NoScrollPhase, false);
            QApplication::sendEvent(w, &event);
        };
        QVERIFY(!dim->hasFocus());
        wheel(dim, -120);
        wheel(norm, -120);
        QCOMPARE(dim->value(), before);
        QCOMPARE(norm->currentIndex(), normBefore);
        QCOMPARE(dim->focusPolicy(), Qt::StrongFocus);
        dim->setFocus();
        QTRY_VERIFY(dim->hasFocus());
        wheel(dim, -120);
        QVERIFY(dim->value() != before); // focused: the user means it
    }

    void keysTheWorkerDoesNotKnowAreRefused()
    {
        // A preset saved with another worker: its model has a key this one lacks.
        QString error;
        const ModelCatalogue c = ModelCatalogue::fromJson(catalogueJson(), &error);
        QJsonObject spec = c.defaultSpec(QStringLiteral("transe"), QStringLiteral("t"));
        QJsonObject model = spec.value(QLatin1String("model")).toObject();
        model.insert(QStringLiteral("dimm"), 3);
        spec.insert(QStringLiteral("model"), model);
        RunEditorDialog editor(c, spec, 1);
        QVERIFY(!editor.validate(&error));
        QVERIFY2(error.startsWith(QLatin1String("model.dimm: unknown key (expected one of type, dim, norm, margin)")),
                 qPrintable(error));
    }

    // a name another run has closed the editor, and the board's
    // refusal threw the edits away. Now the editor refuses it and stays.
    void aTakenNameKeepsTheEditorOpen()
    {
        QString error;
        const ModelCatalogue c = ModelCatalogue::fromJson(catalogueJson(), &error);
        RunEditorDialog editor(c, c.defaultSpec(QStringLiteral("transe"), QStringLiteral("t")), 1);
        editor.setTakenNames({QStringLiteral("b")});
        QVERIFY(editor.canAccept());
        auto *name = editor.findChild<QLineEdit *>(QStringLiteral("name"));
        QVERIFY(name);
        name->setText(QStringLiteral("b"));
        QTRY_VERIFY(!editor.canAccept());
        QVERIFY2(editor.problem().contains(QLatin1String("\"b\" is already used")), qPrintable(editor.problem()));
        editor.accept();
        QCOMPARE(editor.result(), int(QDialog::Rejected)); // still open, the edits kept
        name->setText(QStringLiteral("b2"));
        QTRY_VERIFY(editor.canAccept());
    }

    // with repeats, each repeat's name ("t-2") must be free too,
    // and the name field is the one marked.
    void aRepeatsNameTakenIsRefused()
    {
        QString error;
        const ModelCatalogue c = ModelCatalogue::fromJson(catalogueJson(), &error);
        RunEditorDialog editor(c, c.defaultSpec(QStringLiteral("transe"), QStringLiteral("t")), 1);
        editor.setTakenNames({QStringLiteral("t-2")});
        QVERIFY(editor.canAccept()); // "t" alone is free
        auto *repeat = editor.findChild<QSpinBox *>();
        QVERIFY(repeat && repeat->value() == 1);
        repeat->setValue(3);
        QTRY_VERIFY(!editor.canAccept());
        QVERIFY2(editor.problem().contains(QLatin1String("\"t-2\" is already used")), qPrintable(editor.problem()));
        auto *name = editor.findChild<QLineEdit *>(QStringLiteral("name"));
        QVERIFY(name->property("invalid").toBool());
        name->setText(QStringLiteral("u"));
        QTRY_VERIFY(editor.canAccept());
        QVERIFY(!name->property("invalid").toBool());
    }

    // the out-of-range field was not highlighted; the message
    // under thirty fields named a key. Now that field has a red frame and
    // says what it expects in its tooltip, until its value is right again.
    void theOutOfRangeFieldIsMarked()
    {
        QString error;
        const ModelCatalogue c = ModelCatalogue::fromJson(catalogueJson(), &error);
        RunEditorDialog editor(c, c.defaultSpec(QStringLiteral("transe"), QStringLiteral("t")), 1);
        auto *lr = qobject_cast<QLineEdit *>(editor.editorFor(QStringLiteral("train.lr")));
        QVERIFY(lr);
        const QString ownTip = lr->toolTip();
        QVERIFY(ownTip.contains(QLatin1String("Allowed: [0, 10]")));
        QVERIFY(!lr->property("invalid").toBool());
        lr->setText(QStringLiteral("50"));
        QTRY_VERIFY(!editor.canAccept());
        QVERIFY(lr->property("invalid").toBool());
        QVERIFY2(lr->styleSheet().contains(QLatin1String("border: 2px solid")), qPrintable(lr->styleSheet()));
        QVERIFY2(lr->toolTip().startsWith(QLatin1String("expected a number in [0, 10], got \"50\"")),
                 qPrintable(lr->toolTip()));
        // Only that field: another one is left alone.
        QVERIFY(!editor.editorFor(QStringLiteral("model.dim"))->property("invalid").toBool());
        lr->setText(QStringLiteral("0.01"));
        QTRY_VERIFY(editor.canAccept());
        QVERIFY(!lr->property("invalid").toBool());
        QVERIFY(lr->styleSheet().isEmpty());
        QCOMPARE(lr->toolTip(), ownTip);
    }

    // the editor queued a KG run with an empty data path. The
    // worker's own loaders check the data while the user edits.
    void theWorkerChecksTheDataBeforeQueueing()
    {
        const QString worker = realWorker();
        if (worker.isEmpty()) {
            QSKIP(kNoRealWorker);
        }
        ModelCatalogue c;
        QString error;
        QVERIFY2(ModelCatalogueLoader::loadNow(worker, &c, &error), qPrintable(error));
        QJsonObject spec = c.defaultSpec(QStringLiteral("transe"), QStringLiteral("t"));
        spec.insert(QStringLiteral("data"),
                    QJsonObject{{QStringLiteral("kind"), QStringLiteral("kg")}, {QStringLiteral("path"), QString()}});
        RunEditorDialog editor(c, spec, 1);
        editor.setWorkerProgram(worker);
        QTRY_VERIFY_WITH_TIMEOUT(!editor.canAccept() && editor.problem().contains(QLatin1String("data.path")), 20000);
        editor.accept();
        QCOMPARE(editor.result(), int(QDialog::Rejected));

        // A real (tiny) dataset folder: the check passes and Queue is enabled.
        QTemporaryDir dir;
        for (const char *split : {"train", "valid", "test"}) {
            QFile file(dir.filePath(QLatin1String(split) + QLatin1String(".txt")));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("a\tr\tb\nb\tr\tc\n");
        }
        auto *path = qobject_cast<QLineEdit *>(editor.editorFor(QStringLiteral("data.path#line")));
        QVERIFY(path);
        path->setText(dir.path());
        QTRY_VERIFY_WITH_TIMEOUT(editor.canAccept(), 20000);
        QVERIFY(editor.problem().isEmpty());
        editor.accept();
        QCOMPARE(editor.result(), int(QDialog::Accepted));
    }

    // a TransE dropped from the palette leaves the keys its recipe
    // sets to "auto"; the editor shows the recipe the worker chooses for the
    // data and its values, and writes a key only once the user edits it.
    void theRecipeFillsTheFieldsTheSpecLeavesOut()
    {
        const QString worker = realWorker();
        if (worker.isEmpty()) {
            QSKIP(kNoRealWorker);
        }
        ModelCatalogue c;
        QString error;
        QVERIFY2(ModelCatalogueLoader::loadNow(worker, &c, &error), qPrintable(error));
        const QJsonObject spec = c.newRunSpec(QStringLiteral("transe"), QStringLiteral("t")); // synthetic-kg
        RunEditorDialog editor(c, spec, 1);
        editor.setWorkerProgram(worker);
        auto *note = editor.findChild<QLabel *>(QStringLiteral("recipeNote"));
        QVERIFY(note);
        // 200 entities, density 0.8 %: the "small" recipe (margin loss, 300 epochs).
        QTRY_VERIFY_WITH_TIMEOUT(note->text().contains(QLatin1String("\"small\" for this graph (200 entities")), 20000);
        auto *loss = qobject_cast<QComboBox *>(editor.editorFor(QStringLiteral("model.loss")));
        auto *epochs = qobject_cast<QSpinBox *>(editor.editorFor(QStringLiteral("train.epochs")));
        QVERIFY(loss && epochs);
        QCOMPARE(loss->currentText(), QStringLiteral("margin"));
        QCOMPARE(epochs->value(), 300);
        QVERIFY2(editor.validate(&error), qPrintable(error));
        QVERIFY(!RunSpecView(editor.spec()).model().contains(QStringLiteral("loss")));
        QVERIFY(!RunSpecView(editor.spec()).section(QStringLiteral("train")).contains(QStringLiteral("epochs")));
        // The user's value is the spec's.
        epochs->setValue(20);
        QVERIFY2(editor.validate(&error), qPrintable(error));
        QCOMPARE(RunSpecView(editor.spec()).section(QStringLiteral("train")).value(QStringLiteral("epochs")).toInt(),
                 20);
        QVERIFY(!RunSpecView(editor.spec()).model().contains(QStringLiteral("loss")));
        // A named recipe shows its own values; "none" the model's defaults.
        auto *recipe = qobject_cast<QComboBox *>(editor.editorFor(QStringLiteral("model.recipe")));
        QVERIFY(recipe);
        recipe->setCurrentText(QStringLiteral("large-sparse"));
        QTRY_COMPARE(loss->currentText(), QStringLiteral("self_adversarial"));
        QCOMPARE(epochs->value(), 20);
        QVERIFY(note->text().startsWith(QLatin1String("Recipe \"large-sparse\"")));
        recipe->setCurrentText(QStringLiteral("none"));
        QTRY_COMPARE(loss->currentText(), QStringLiteral("softmax"));
        QVERIFY2(editor.validate(&error), qPrintable(error));
        QCOMPARE(RunSpecView(editor.spec()).model().value(QStringLiteral("recipe")).toString(), QStringLiteral("none"));
        QVERIFY(!RunSpecView(editor.spec()).model().contains(QStringLiteral("loss")));
    }

    void realWorkerDefaultsRoundTrip()
    {
        const QString worker = realWorker();
        if (worker.isEmpty()) {
            QSKIP(kNoRealWorker);
        }
        ModelCatalogue c;
        QString loadError;
        QVERIFY2(ModelCatalogueLoader::loadNow(worker, &c, &loadError), qPrintable(loadError));
        for (const char *type : {"transe", "transh", "conv-transe", "sacn", "mnist-cnn", "mlp"}) {
            QVERIFY2(c.model(QString::fromLatin1(type)), type);
            // The editor must hand back the worker's defaults unchanged: the
            // worker's ranges reach 1e12, beyond a spin box's int (a clamp
            // bug once turned every such default into 0).
            const QJsonObject defaults = c.defaultSpec(QString::fromLatin1(type), QStringLiteral("t"));
            RunEditorDialog editor(c, defaults, 1);
            QString error;
            QVERIFY2(editor.validate(&error), qPrintable(error));
            const QJsonObject edited = editor.spec();
            for (const char *section : {"train", "eval", "checkpoint", "report"}) {
                const QJsonObject want = defaults.value(QLatin1String(section)).toObject();
                const QJsonObject got = edited.value(QLatin1String(section)).toObject();
                for (auto it = want.begin(); it != want.end(); ++it) {
                    if (it.value().isDouble()) {
                        QVERIFY2(got.value(it.key()).toDouble() == it.value().toDouble(),
                                 qPrintable(QStringLiteral("%1: %2.%3")
                                                .arg(QLatin1String(type), QLatin1String(section), it.key())));
                    }
                }
            }
        }
        QVERIFY(c.dataKind(QStringLiteral("synthetic-kg")));
        QVERIFY(!c.section(QStringLiteral("train")).isEmpty());

        // train.max_seconds: empty is "no limit" (null), a number is kept.
        {
            RunEditorDialog editor(c, c.defaultSpec(QStringLiteral("transe"), QStringLiteral("t")), 1);
            auto *budget = qobject_cast<QLineEdit *>(editor.editorFor(QStringLiteral("train.max_seconds")));
            QVERIFY(budget);
            QVERIFY(budget->text().isEmpty());
            QString error;
            QVERIFY2(editor.validate(&error), qPrintable(error));
            QVERIFY(
                editor.spec().value(QLatin1String("train")).toObject().value(QLatin1String("max_seconds")).isNull());
            budget->setText(QStringLiteral("160"));
            QVERIFY2(editor.validate(&error), qPrintable(error));
            QCOMPARE(
                editor.spec().value(QLatin1String("train")).toObject().value(QLatin1String("max_seconds")).toDouble(),
                160.0);
        }
    }
};

QTEST_MAIN(TestRunEditorDialog)
#include "tst_runeditordialog.moc"
