// RunSpecView: every value where the run spec puts it (docs/models.md), and empty / nullopt (never
// a crash or a made-up value) where a spec lacks it or holds the wrong type.

#include "orchestration/experiment/experiment.h"
#include "orchestration/runspec/runspecview.h"
#include "testutil.h"

#include <QTest>

using namespace trainyard;
using namespace trainyard::test;

class TestRunSpecView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readsTheFixedKeys()
    {
        const QJsonObject spec = QJsonDocument::fromJson(R"({
            "name": "transe-umls",
            "model": {"type": "transe", "dim": 100},
            "data": {"kind": "kg", "path": "/data/kg/UMLS"},
            "train": {"epochs": 50, "max_steps": null, "batch_size": 512, "optimizer": "adam", "lr": 0.001, "seed": 3},
            "eval": {"every_epochs": 10, "split": "valid"},
            "report": {"every_steps": 10},
            "repeat": 2})")
                                     .object();
        const RunSpecView view(spec);
        QCOMPARE(view.json(), spec);
        QCOMPARE(view.name(), QStringLiteral("transe-umls"));
        QCOMPARE(view.effectiveName(), QStringLiteral("transe-umls"));
        QCOMPARE(view.modelType(), QStringLiteral("transe"));
        QCOMPARE(view.model().value(QStringLiteral("dim")).toInt(), 100);
        QCOMPARE(view.dataKind(), QStringLiteral("kg"));
        QCOMPARE(view.dataPath(), QStringLiteral("/data/kg/UMLS"));
        QCOMPARE(view.dataSummary(), QStringLiteral("kg: UMLS"));
        QCOMPARE(view.epochs(), std::optional<qint64>(50));
        QCOMPARE(view.maxSteps(), std::optional<qint64>()); // null: no limit
        QCOMPARE(view.batchSize(), std::optional<qint64>(512));
        QCOMPARE(view.optimizer(), QStringLiteral("adam"));
        QCOMPARE(view.learningRate(), std::optional<double>(0.001));
        QCOMPARE(view.seed(), std::optional<qint64>(3));
        QCOMPARE(view.evalEveryEpochs(), std::optional<qint64>(10));
        QCOMPARE(view.evalSplit(), QStringLiteral("valid"));
        QCOMPARE(view.reportEverySteps(), std::optional<qint64>(10));
        QCOMPARE(view.section(QStringLiteral("checkpoint")), QJsonObject());
        QCOMPARE(view.repeat(), 2);
    }

    void missingOrMistypedReadsAsEmpty()
    {
        const RunSpecView empty{QJsonObject()};
        QVERIFY(empty.name().isEmpty());
        QVERIFY(empty.modelType().isEmpty());
        QVERIFY(empty.effectiveName().isEmpty());
        QVERIFY(empty.dataKind().isEmpty());
        QVERIFY(empty.dataSummary().isEmpty());
        QVERIFY(!empty.seed());
        QVERIFY(!empty.epochs());
        QVERIFY(!empty.learningRate());
        QCOMPARE(empty.repeat(), 1);

        const QJsonObject wrong = QJsonDocument::fromJson(R"({"name": 7, "model": "transe", "data": {"kind": 3},
            "train": {"seed": 1.5, "epochs": "10", "lr": "fast"}, "repeat": 0})")
                                      .object();
        const RunSpecView view(wrong);
        QVERIFY(view.name().isEmpty());
        QVERIFY(view.modelType().isEmpty());
        QVERIFY(view.dataKind().isEmpty());
        QVERIFY(!view.seed());
        QVERIFY(!view.epochs());
        QVERIFY(!view.learningRate());
        QCOMPARE(view.repeat(), 1);
    }

    // one flattened order of hyperparameters for the runs
    // table's columns, the cards' tooltips and the run details.
    void flattenedKeysInTheReadersOrder()
    {
        const QJsonObject spec = QJsonDocument::fromJson(R"({
            "train": {"lr": 0.001, "batch_size": 1000000, "max_steps": null, "amp": false},
            "report": {"every_steps": 10},
            "model": {"dim": 100, "type": "transe", "layers": [64, 32]},
            "data": {"path": "/d", "kind": "kg"},
            "name": "r", "zeta": "x"})")
                                     .object();
        QStringList keys;
        QStringList values;
        for (const RunSpecView::Param &p : RunSpecView(spec).flattened()) {
            keys << p.key;
            values << RunSpecView::valueText(p.value);
        }
        QCOMPARE(keys,
                 (QStringList{QStringLiteral("name"), QStringLiteral("model.type"), QStringLiteral("model.dim"),
                              QStringLiteral("model.layers"), QStringLiteral("data.kind"), QStringLiteral("data.path"),
                              QStringLiteral("train.amp"), QStringLiteral("train.batch_size"),
                              QStringLiteral("train.lr"), QStringLiteral("train.max_steps"),
                              QStringLiteral("report.every_steps"), QStringLiteral("zeta")}));
        QCOMPARE(values, (QStringList{QStringLiteral("r"), QStringLiteral("transe"), QStringLiteral("100"),
                                      QStringLiteral("[64,32]"), QStringLiteral("kg"), QStringLiteral("/d"),
                                      QStringLiteral("false"), QStringLiteral("1000000"), QStringLiteral("0.001"),
                                      QStringLiteral("null"), QStringLiteral("10"), QStringLiteral("x")}));
    }

    void nameFallsBackToTheModelTypeAsWithDefaultsDoes()
    {
        QJsonObject spec = fakeSpec(QStringLiteral("x"));
        spec.remove(QStringLiteral("name"));
        QCOMPARE(RunSpecView(spec).effectiveName(), QStringLiteral("fake"));
        QCOMPARE(RunSpecView(withDefaults(spec)).name(), RunSpecView(spec).effectiveName());
        QCOMPARE(RunSpecView(spec).dataSummary(), QStringLiteral("synthetic-kg"));
        // A repeat's spec: the view reads what expandRepeat wrote.
        const RunSpecView second(expandRepeat(withRepeat(fakeSpec(QStringLiteral("r")), 3), 1, 3));
        QCOMPARE(second.name(), QStringLiteral("r-2"));
        QCOMPARE(second.seed(), std::optional<qint64>(8));
        QCOMPARE(second.repeat(), 1);
    }
};

QTEST_GUILESS_MAIN(TestRunSpecView)
#include "tst_runspecview.moc"
