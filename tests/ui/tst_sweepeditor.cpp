// The sweep editor driven through its widgets: modes, values, method,
// lanes; the sweep JSON it produces, and a bad one refused with
// SweepSpec::fromJson's message.

#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/runspec/runspecview.h"
#include "ui/sweep/sweepeditordialog.h"
#include "uitesthelpers.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QtTest>

using namespace trainyard;

namespace {

template <class W>
W *child(const QWidget &dialog, const QString &name)
{
    W *w = dialog.findChild<W *>(name);
    if (!w) {
        qWarning() << "no widget" << name;
    }
    return w;
}

void setMode(const QWidget &dialog, const QString &key, const QString &mode)
{
    auto *box = child<QComboBox>(dialog, QStringLiteral("sweepMode:") + key);
    QVERIFY(box);
    box->setCurrentIndex(box->findText(mode));
    QCOMPARE(box->currentText(), mode);
}

void type(const QWidget &dialog, const QString &name, const QString &text)
{
    auto *edit = child<QLineEdit>(dialog, name);
    QVERIFY(edit);
    edit->selectAll();
    QTest::keyClicks(edit, text);
}

} // namespace

class TestSweepEditor : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void buildsGridSweep()
    {
        SweepEditorDialog dialog(testing::tinyKgSpec(QStringLiteral("transe")),
                                 {QStringLiteral("1: cpu"), QStringLiteral("2: cpu")});
        QVERIFY(dialog.keys().contains(QStringLiteral("train.lr")));
        QVERIFY(dialog.keys().contains(QStringLiteral("model.dim")));
        QVERIFY(!dialog.keys().contains(QStringLiteral("model.type"))); // the sweep's, not searchable
        QVERIFY(!dialog.keys().contains(QStringLiteral("name")));
        // Every key fixed: no space yet, said as the form's state.
        QVERIFY(!dialog.canAccept());
        QCOMPARE(child<QLabel>(dialog, QStringLiteral("sweepError"))->text(),
                 QStringLiteral("No key is swept yet: set a key's mode to values, range or log range."));

        setMode(dialog, QStringLiteral("train.lr"), QStringLiteral("values"));
        type(dialog, QStringLiteral("sweepValues:train.lr"), QStringLiteral("0.01, 0.003, 0.001"));
        setMode(dialog, QStringLiteral("model.dim"), QStringLiteral("range"));
        type(dialog, QStringLiteral("sweepLow:model.dim"), QStringLiteral("8"));
        type(dialog, QStringLiteral("sweepHigh:model.dim"), QStringLiteral("32"));
        type(dialog, QStringLiteral("sweepStep:model.dim"), QStringLiteral("8"));
        QVERIFY2(dialog.canAccept(), qPrintable(dialog.problem()));
        QCOMPARE(dialog.sizeText(), QStringLiteral("Grid: 12 configurations"));
        QCOMPARE(child<QLabel>(dialog, QStringLiteral("sweepGridSize"))->text(), dialog.sizeText());

        type(dialog, QStringLiteral("sweepName"), QStringLiteral("lr-dim"));
        child<QCheckBox>(dialog, QStringLiteral("sweepLane:1"))->setChecked(false);
        auto *rule = child<QComboBox>(dialog, QStringLiteral("sweepStopping"));
        rule->setCurrentIndex(rule->findText(QStringLiteral("ASHA")));
        child<QSpinBox>(dialog, QStringLiteral("sweepTrials"))->setValue(10);
        QVERIFY2(dialog.canAccept(), qPrintable(dialog.problem()));
        QCOMPARE(dialog.sizeText(), QStringLiteral("Grid: 12 configurations, the first 10 run"));

        const QJsonObject json = dialog.json();
        QCOMPARE(json.value(QStringLiteral("name")).toString(), QStringLiteral("lr-dim"));
        QCOMPARE(json.value(QStringLiteral("method")).toString(), QStringLiteral("grid"));
        QCOMPARE(json.value(QStringLiteral("trials")).toInt(), 10);
        QCOMPARE(json.value(QStringLiteral("lanes")).toArray(), (QJsonArray{0}));
        const QJsonObject space = json.value(QStringLiteral("space")).toObject();
        QCOMPARE(space.keys(), (QStringList{QStringLiteral("model.dim"), QStringLiteral("train.lr")}));
        QCOMPARE(space.value(QStringLiteral("train.lr")).toObject().value(QStringLiteral("values")).toArray(),
                 (QJsonArray{0.01, 0.003, 0.001}));
        const QJsonObject dim = space.value(QStringLiteral("model.dim")).toObject();
        QCOMPARE(dim.value(QStringLiteral("range")).toArray(), (QJsonArray{8, 32}));
        QCOMPARE(dim.value(QStringLiteral("step")).toDouble(), 8.0);
        QCOMPARE(dim.value(QStringLiteral("int")).toBool(), true);
        const QJsonObject stopping = json.value(QStringLiteral("early_stopping")).toObject();
        QCOMPARE(stopping.value(QStringLiteral("rule")).toString(), QStringLiteral("asha"));
        QCOMPARE(stopping.value(QStringLiteral("max")).toDouble(), 2.0); // the base's epochs
        QCOMPARE(json.value(QStringLiteral("objective")).toObject().value(QStringLiteral("metric")).toString(),
                 QStringLiteral("valid/mrr"));
        QVERIFY(!json.value(QStringLiteral("base")).toObject().contains(QStringLiteral("repeat")));
        QVERIFY(!json.value(QStringLiteral("base")).toObject().contains(QStringLiteral("name")));

        // The validated spec is what the runner gets.
        const SweepSpec spec = dialog.spec();
        QCOMPARE(spec.name, QStringLiteral("lr-dim"));
        QCOMPARE(spec.trialCount(), 10);
        QCOMPARE(spec.lanes, (QList<int>{0}));
        QCOMPARE(spec.stopping.rule, SweepStopping::Rule::Asha);
        QCOMPARE(spec.toJson().value(QStringLiteral("space")).toObject().size(), 2);
    }

    void randomWithLogRange()
    {
        SweepEditorDialog dialog(testing::tinyKgSpec(QStringLiteral("transe")), {QStringLiteral("1: cpu")});
        setMode(dialog, QStringLiteral("train.lr"), QStringLiteral("log range"));
        type(dialog, QStringLiteral("sweepLow:train.lr"), QStringLiteral("0.0001"));
        type(dialog, QStringLiteral("sweepHigh:train.lr"), QStringLiteral("0.1"));
        auto *method = child<QComboBox>(dialog, QStringLiteral("sweepMethod"));
        method->setCurrentIndex(method->findText(QStringLiteral("random")));
        child<QSpinBox>(dialog, QStringLiteral("sweepTrials"))->setValue(20);
        child<QSpinBox>(dialog, QStringLiteral("sweepSeed"))->setValue(7);
        QVERIFY2(dialog.canAccept(), qPrintable(dialog.problem()));
        QCOMPARE(dialog.sizeText(), QStringLiteral("Random: 20 trials"));
        const QJsonObject lr =
            dialog.json().value(QStringLiteral("space")).toObject().value(QStringLiteral("train.lr")).toObject();
        QCOMPARE(lr.value(QStringLiteral("log_uniform")).toArray(), (QJsonArray{0.0001, 0.1}));
        QVERIFY(!lr.contains(QStringLiteral("int")));
        QCOMPARE(dialog.spec().seed, std::uint64_t(7));
        QVERIFY(dialog.spec().space.first().isLogarithmic());
    }

    // Given the worker's catalogue, the editor checks what `trainyard check`
    // checks of the file: here a key of the base this (small) worker does not read.
    void checksAgainstTheCatalogue()
    {
        QString error;
        const ModelCatalogue catalogue = ModelCatalogue::fromJson(testing::catalogueJson(), &error);
        QVERIFY2(!catalogue.isEmpty(), qPrintable(error));
        const QJsonObject base = testing::tinyKgSpec(QStringLiteral("transe"));
        SweepEditorDialog loose(base, {QStringLiteral("1: cpu")});
        SweepEditorDialog checked(base, {QStringLiteral("1: cpu")}, &catalogue);
        for (SweepEditorDialog *dialog : {&loose, &checked}) {
            setMode(*dialog, QStringLiteral("train.lr"), QStringLiteral("log range"));
            type(*dialog, QStringLiteral("sweepLow:train.lr"), QStringLiteral("0.001"));
            type(*dialog, QStringLiteral("sweepHigh:train.lr"), QStringLiteral("0.1"));
            auto *method = child<QComboBox>(*dialog, QStringLiteral("sweepMethod"));
            method->setCurrentIndex(method->findText(QStringLiteral("random")));
            child<QSpinBox>(*dialog, QStringLiteral("sweepTrials"))->setValue(5);
        }
        QVERIFY2(loose.canAccept(), qPrintable(loose.problem()));
        QVERIFY(!checked.canAccept());
        QStringList errors;
        SweepSpec::fromJson(checked.json(), QStringLiteral("sweep"), 1, errors, &catalogue);
        QVERIFY(!errors.isEmpty());
        QCOMPARE(checked.problem(), errors.first());
        QVERIFY2(checked.problem().startsWith(QStringLiteral("sweep.base.data.relations: unknown key")),
                 qPrintable(checked.problem()));
    }

    // Opened before the worker answered --list-models, the catalogue is
    // empty: the editor checks as without one, not "train.lr: unknown key".
    void aCatalogueNotReadYetChecksNothing()
    {
        const ModelCatalogue notRead;
        QVERIFY(notRead.isEmpty());
        SweepEditorDialog dialog(testing::tinyKgSpec(QStringLiteral("transe")), {QStringLiteral("cpu")}, &notRead);
        setMode(dialog, QStringLiteral("train.lr"), QStringLiteral("values"));
        type(dialog, QStringLiteral("sweepValues:train.lr"), QStringLiteral("0.01, 0.001"));
        QVERIFY2(dialog.canAccept(), qPrintable(dialog.problem()));
    }

    // A new run's spec leaves what the recipes set to "auto": those keys are offered all the same.
    void offersTheKeysARecipeSets()
    {
        QString error;
        const ModelCatalogue catalogue = ModelCatalogue::fromJson(testing::recipeCatalogueJson(), &error);
        QVERIFY2(!catalogue.isEmpty(), qPrintable(error));
        QJsonObject base = catalogue.newRunSpec(QStringLiteral("transe"), QStringLiteral("t"));
        QVERIFY(!RunSpecView(base).model().contains(QStringLiteral("dim")));
        SweepEditorDialog dialog(base, {QStringLiteral("1: cpu")}, &catalogue);
        for (const char *key : {"model.dim", "model.loss", "train.lr", "train.batch_size", "train.negatives"}) {
            QVERIFY2(dialog.keys().contains(QLatin1String(key)), key);
        }
        QVERIFY(child<QLabel>(dialog, QStringLiteral("sweepKey:train.lr"))->text().contains(QStringLiteral("recipe")));
        setMode(dialog, QStringLiteral("train.lr"), QStringLiteral("values"));
        type(dialog, QStringLiteral("sweepValues:train.lr"), QStringLiteral("0.01, 0.001"));
        setMode(dialog, QStringLiteral("model.dim"), QStringLiteral("values"));
        type(dialog, QStringLiteral("sweepValues:model.dim"), QStringLiteral("64, 128"));
        QVERIFY2(dialog.canAccept(), qPrintable(dialog.problem()));
        QCOMPARE(dialog.sizeText(), QStringLiteral("Grid: 4 configurations"));
        // A fixed one stays the recipe's: the base does not gain it.
        const QJsonObject sweepBase = dialog.json().value(QStringLiteral("base")).toObject();
        QVERIFY(!RunSpecView(sweepBase).section(QStringLiteral("train")).contains(QStringLiteral("batch_size")));
        QCOMPARE(dialog.spec().trialValues(3).value(QStringLiteral("model.dim")).toInt(), 128);
    }

    void refusesWithTheFileMessage()
    {
        SweepEditorDialog dialog(testing::tinyKgSpec(QStringLiteral("transe")), {QStringLiteral("1: cpu")});
        setMode(dialog, QStringLiteral("train.lr"), QStringLiteral("log range"));
        type(dialog, QStringLiteral("sweepLow:train.lr"), QStringLiteral("0"));
        type(dialog, QStringLiteral("sweepHigh:train.lr"), QStringLiteral("0.1"));
        auto *method = child<QComboBox>(dialog, QStringLiteral("sweepMethod"));
        method->setCurrentIndex(method->findText(QStringLiteral("random")));
        child<QSpinBox>(dialog, QStringLiteral("sweepTrials"))->setValue(5);
        QVERIFY(!dialog.canAccept());
        // The message is SweepSpec::fromJson's own, with the JSON path.
        QStringList errors;
        SweepSpec::fromJson(dialog.json(), QStringLiteral("sweep"), 1, errors);
        QVERIFY(!errors.isEmpty());
        QCOMPARE(dialog.problem(), errors.first());
        QVERIFY2(dialog.problem().contains(QStringLiteral("sweep.space.train.lr")), qPrintable(dialog.problem()));
        QVERIFY2(dialog.problem().contains(QStringLiteral("above 0")), qPrintable(dialog.problem()));
        auto *error = child<QLabel>(dialog, QStringLiteral("sweepError"));
        QCOMPARE(error->text(), dialog.problem());
        QVERIFY(!child<QPushButton>(dialog, QStringLiteral("sweepAccept"))->isEnabled());
        dialog.accept(); // refused: stays open
        QCOMPARE(dialog.result(), 0);

        // Fixed again: accepted.
        type(dialog, QStringLiteral("sweepLow:train.lr"), QStringLiteral("0.001"));
        QVERIFY2(dialog.canAccept(), qPrintable(dialog.problem()));
        QVERIFY(error->isHidden());

        // Empty values: refused too.
        setMode(dialog, QStringLiteral("model.dim"), QStringLiteral("values"));
        type(dialog, QStringLiteral("sweepValues:model.dim"), QStringLiteral(" "));
        QVERIFY(!dialog.canAccept());
        QVERIFY2(dialog.problem().startsWith(QStringLiteral("sweep.space.model.dim")), qPrintable(dialog.problem()));
    }

    void programConfigKeys()
    {
        const QJsonObject base{
            {QStringLiteral("name"), QStringLiteral("script")},
            {QStringLiteral("program"),
             QJsonObject{{QStringLiteral("argv"), QJsonArray{QStringLiteral("python3"), QStringLiteral("train.py")}}}}};
        SweepEditorDialog dialog(base, {QStringLiteral("1: cpu")});
        QVERIFY(dialog.findChild<QPushButton *>(QStringLiteral("sweepAddConfig")));
        QVERIFY(!dialog.keys().contains(QStringLiteral("program.argv")));
        QVERIFY(dialog.addConfigKey(QStringLiteral("depth")));
        QVERIFY(!dialog.addConfigKey(QStringLiteral("depth")));
        QVERIFY(dialog.keys().contains(QStringLiteral("config.depth")));
        type(dialog, QStringLiteral("sweepValues:config.depth"), QStringLiteral("2, 4, 8"));
        type(dialog, QStringLiteral("sweepObjective"), QStringLiteral("valid/acc"));
        QVERIFY2(dialog.canAccept(), qPrintable(dialog.problem()));
        QCOMPARE(dialog.sizeText(), QStringLiteral("Grid: 3 configurations"));
        QCOMPARE(dialog.spec().trialValues(1).value(QStringLiteral("config.depth")).toInt(), 4);
    }
};

QTEST_MAIN(TestSweepEditor)
#include "tst_sweepeditor.moc"
