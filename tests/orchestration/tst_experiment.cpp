// Experiment files: validation messages naming the JSON path and the
// expected value, defaults, repeats, save/load, the built-in demo.

#include "experiment.h"
#include "testutil.h"

#include <QTemporaryDir>
#include <QTest>

using namespace trainyard;
using namespace trainyard::test;

namespace {
QStringList errorsOf(const QByteArray &json)
{
    QStringList errors;
    const auto doc = QJsonDocument::fromJson(json);
    const auto ex = Experiment::fromJson(doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array()), &errors);
    if (ex)
        return {};
    return errors;
}
} // namespace

class TestExperiment : public QObject
{
    Q_OBJECT

private slots:
    void validationNamesPathAndExpectation_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("message");
        const QByteArray run = R"({"name":"r","model":{"type":"transe"}})";
        QTest::newRow("slots") << QByteArray(R"({"name":"e","lanes":[{"device":"cpu"},{"device":"cpu","slots":-3}]})")
                               << QStringLiteral("lanes[1].slots: expected an integer ≥ 1, got -3");
        QTest::newRow("device") << QByteArray(R"({"name":"e","lanes":[{"device":"gpu1"}]})")
                                << QStringLiteral("lanes[0].device: expected \"cpu\" or \"cuda:N\", got \"gpu1\"");
        QTest::newRow("no lanes") << QByteArray(R"({"name":"e"})")
                                  << QStringLiteral("lanes: expected an array of lanes, got nothing");
        QTest::newRow("name") << QByteArray(R"({"name":"../etc","lanes":[]})")
                              << QStringLiteral("name: expected a name of 1–100 letters, digits or ._+@- not starting with '.', got \"../etc\"");
        QTest::newRow("unknown top key") << QByteArray(R"({"name":"e","lanes":[],"lanez":1})")
                                         << QStringLiteral("(top level): unknown key \"lanez\" (expected one of name, runs_root, lanes)");
        QTest::newRow("unknown run key")
            << QByteArray(R"({"name":"e","lanes":[{"device":"cpu","runs":[{"name":"r","model":{"type":"x"},"optimiser":"adam"}]}]})")
            << QStringLiteral("lanes[0].runs[0]: unknown key \"optimiser\" (expected one of name, model, data, train, eval, checkpoint, report, repeat)");
        QTest::newRow("missing model") << QByteArray(R"({"name":"e","lanes":[{"device":"cpu","runs":[{"name":"r"}]}]})")
                                       << QStringLiteral("lanes[0].runs[0].model: missing (expected an object with a \"type\")");
        QTest::newRow("repeat") << QByteArray(R"({"name":"e","lanes":[{"device":"cpu","runs":[{"name":"r","model":{"type":"x"},"repeat":0}]}]})")
                                << QStringLiteral("lanes[0].runs[0].repeat: expected an integer from 1 to 1000, got 0");
        QTest::newRow("lr") << QByteArray(R"({"name":"e","lanes":[{"device":"cpu","runs":[{"name":"r","model":{"type":"x"},"train":{"lr":-1}}]}]})")
                            << QStringLiteral("lanes[0].runs[0].train.lr: expected a number > 0, got -1");
        QTest::newRow("epochs") << QByteArray(R"({"name":"e","lanes":[{"device":"cpu","runs":[{"name":"r","model":{"type":"x"},"train":{"epochs":2.5}}]}]})")
                                << QStringLiteral("lanes[0].runs[0].train.epochs: expected an integer ≥ 1, got 2.5");
        QTest::newRow("max_steps") << QByteArray(R"({"name":"e","lanes":[{"device":"cpu","runs":[{"name":"r","model":{"type":"x"},"train":{"max_steps":"10"}}]}]})")
                                   << QStringLiteral("lanes[0].runs[0].train.max_steps: expected an integer ≥ 1 or null, got \"10\"");
        QTest::newRow("data kind") << QByteArray(R"({"name":"e","lanes":[{"device":"cpu","runs":[{"name":"r","model":{"type":"x"},"data":{"kind":"csv"}}]}]})")
                                   << QStringLiteral("lanes[0].runs[0].data.kind: expected one of kg, idx, synthetic-kg, synthetic-images, got \"csv\"");
        QTest::newRow("split") << QByteArray(R"({"name":"e","lanes":[{"device":"cpu","runs":[{"name":"r","model":{"type":"x"},"eval":{"split":"train"}}]}]})")
                               << QStringLiteral("lanes[0].runs[0].eval.split: expected \"valid\" or \"test\", got \"train\"");
        QTest::newRow("run not object") << QByteArray(R"({"name":"e","lanes":[{"device":"cpu","runs":[3]}]})")
                                        << QStringLiteral("lanes[0].runs[0]: expected a run spec object, got 3");
        QTest::newRow("duplicate names")
            << QByteArray(R"({"name":"e","lanes":[{"device":"cpu","runs":[{"name":"r-2","model":{"type":"x"}}]},{"device":"cpu","runs":[{"name":"r","model":{"type":"x"},"repeat":2}]}]})")
            << QStringLiteral("lanes[1].runs[0].name: run name \"r-2\" is already used by lanes[0].runs[0]");
        QTest::newRow("unsafe run name")
            << QByteArray(R"({"name":"e","lanes":[{"device":"cpu","runs":[{"name":"../../x","model":{"type":"x"}}]}]})")
            << QStringLiteral("lanes[0].runs[0].name: expected a name of 1–100 letters, digits or ._+@- not starting with '.', got \"../../x\"");
        Q_UNUSED(run);
    }

    void validationNamesPathAndExpectation()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, message);
        const QStringList errors = errorsOf(json);
        QVERIFY2(errors.contains(message), qPrintable(errors.join(QLatin1Char('\n'))));
    }

    void everyProblemIsReported()
    {
        const QStringList errors = errorsOf(R"({"name":"e","lanes":[{"device":"tpu","slots":0,"runs":[{"model":{}}]}]})");
        QCOMPARE(errors.size(), 3);
    }

    void defaultsAndRepeatExpansion()
    {
        const auto ex = Experiment::fromJson(QJsonDocument::fromJson(
            R"({"name":"e","lanes":[{"device":"cuda:1","runs":[{"model":{"type":"transe"},"repeat":2}]}]})").object(), nullptr);
        QVERIFY(ex);
        QCOMPARE(ex->lanes.at(0).slotCount, 1);
        const QJsonObject spec = ex->lanes.at(0).runs.at(0).spec;
        QCOMPARE(spec.value(QStringLiteral("name")).toString(), QStringLiteral("transe")); // from model.type
        QCOMPARE(ex->runCount(), 2);
        const QJsonObject second = expandRepeat(spec, 1, 2);
        QCOMPARE(second.value(QStringLiteral("name")).toString(), QStringLiteral("transe-2"));
        QCOMPARE(second.value(QStringLiteral("train")).toObject().value(QStringLiteral("seed")).toInt(), 2);
        QCOMPARE(expandRepeat(spec, 0, 1).value(QStringLiteral("name")).toString(), QStringLiteral("transe"));
    }

    void fileErrorsNameFileLineAndColumn()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("broken.json"));
        QVERIFY(writeFile(path, "{\n  \"name\": \"e\",\n  \"lanes\": [,]\n}\n"));
        QStringList errors;
        QVERIFY(!Experiment::load(path, &errors));
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors.first().startsWith(path + QStringLiteral(":3:")), qPrintable(errors.first()));
        QVERIFY(!Experiment::load(dir.filePath(QStringLiteral("missing.json")), &errors));
        QVERIFY(errors.first().contains(QStringLiteral("cannot open")));
        QVERIFY(writeFile(path, R"({"name":"e","lanes":[{"device":"cpu","slots":-3}]})"));
        QVERIFY(!Experiment::load(path, &errors));
        QCOMPARE(errors.first(), path + QStringLiteral(": lanes[0].slots: expected an integer ≥ 1, got -3"));
    }

    void saveAndLoadRoundTrip()
    {
        QTemporaryDir dir;
        const Experiment ex = experiment(experimentJson(
            QStringLiteral("round"), QStringLiteral("/tmp/somewhere"),
            {lane(QStringLiteral("cuda:0"), 2, {withRepeat(fakeSpec(QStringLiteral("a")), 3), fakeSpec(QStringLiteral("b"))}),
             lane(QStringLiteral("cpu"), 1, {})}));
        const QString path = dir.filePath(QStringLiteral("e.json"));
        QString error;
        QVERIFY2(ex.save(path, &error), qPrintable(error));
        QStringList errors;
        const auto back = Experiment::load(path, &errors);
        QVERIFY2(back, qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(back->toJson(), ex.toJson());
        QCOMPARE(back->lanes.at(0).runs.at(0).repeat, 3);
        QCOMPARE(back->runsRoot, QStringLiteral("/tmp/somewhere"));
        QCOMPARE(back->effectiveRunsRoot(), QStringLiteral("/tmp/somewhere"));
    }

    void demoIsTheSeedsExperiment()
    {
        const Experiment demo = Experiment::demo();
        QCOMPARE(demo.name, QStringLiteral("demo"));
        QCOMPARE(demo.lanes.size(), 4);
        QCOMPARE(demo.runCount(), 10);
        const QStringList devices{QStringLiteral("cuda:0"), QStringLiteral("cuda:1"), QStringLiteral("cuda:2"), QStringLiteral("cuda:3")};
        const QStringList types{QStringLiteral("transe"), QStringLiteral("transh"), QStringLiteral("sacn"), QStringLiteral("mnist-cnn")};
        const QList<int> repeats{2, 3, 4, 1};
        for (int l = 0; l < 4; ++l) {
            QCOMPARE(demo.lanes.at(l).device, devices.at(l));
            QCOMPARE(demo.lanes.at(l).runs.size(), 1);
            QCOMPARE(demo.lanes.at(l).runs.at(0).repeat, repeats.at(l));
            QCOMPARE(demo.lanes.at(l).runs.at(0).spec.value(QStringLiteral("model")).toObject().value(QStringLiteral("type")).toString(),
                     types.at(l));
        }
        // Generated data and Fashion-MNIST: nothing to download.
        QCOMPARE(demo.lanes.at(3).runs.at(0).spec.value(QStringLiteral("data")).toObject().value(QStringLiteral("kind")).toString(),
                 QStringLiteral("idx"));
        QVERIFY(demo.effectiveRunsRoot().endsWith(QStringLiteral("/demo")));
    }

    void runNamesCannotLeaveTheRoot()
    {
        QVERIFY(isSafeRunName(QStringLiteral("transe-1")));
        QVERIFY(isSafeRunName(QStringLiteral("a.b_c+d@e")));
        for (const char *bad : {"", ".", "..", "../x", "a/b", ".hidden", "a b", "a\\b"})
            QVERIFY2(!isSafeRunName(QString::fromLatin1(bad)), bad);
        QVERIFY(!isSafeRunName(QString(101, QLatin1Char('a'))));
    }
};

QTEST_GUILESS_MAIN(TestExperiment)
#include "tst_experiment.moc"
