// The experiment file's JSON Schema (`trainyard schema`) against the checks:
// each object's keys, as the checks' "unknown key" messages name them, are
// the schema's for that object, and back; the worker's catalogue keys per
// model type; the "$schema" key accepted and kept by a save.

#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/experimentschema.h"
#include "orchestration/experiment/keytables.h"
#include "orchestration/session/session.h"
#include "testcatalogue.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace trainyard;
using namespace trainyard::test;

namespace {

QStringList problemsOf(const QByteArray &json)
{
    QStringList errors;
    Experiment::fromJson(QJsonDocument::fromJson(json).object(), &errors, &validationCatalogue());
    return errors;
}

// The property names of the schema's object at `def` ("" for the top level).
QStringList schemaKeys(const QJsonObject &schema, const QString &def)
{
    const QJsonObject o = def.isEmpty() ? schema : schema[QStringLiteral("$defs")][def].toObject();
    return o.value(QStringLiteral("properties")).toObject().keys();
}

QStringList sorted(QStringList list)
{
    list.sort();
    return list;
}

} // namespace

class TestExperimentSchema : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Every table's rule is a JSON object (a typo there would drop it from the schema).
    void rulesAreJsonObjects()
    {
        for (const keytables::Table *t : keytables::all()) {
            for (const keytables::Key &k : t->keys) {
                if (*k.rule) {
                    QJsonParseError error;
                    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray(k.rule), &error);
                    QVERIFY2(doc.isObject(),
                             qPrintable(QStringLiteral("%1.%2: %3")
                                            .arg(QLatin1String(t->kind), QLatin1String(k.name), error.errorString())));
                }
            }
        }
    }

    // The keys a run spec of the worker has are the catalogue's fixed list.
    void modelRunKeysAreTheWorkersSpecKeys()
    {
        QCOMPARE(keytables::modelRun().names().mid(0, ModelCatalogue::specKeys().size()), ModelCatalogue::specKeys());
    }

    // One unknown key in each kind of object: the keys its message lists
    // are the schema's for that object (but "$schema", which it accepts
    // without naming), and the object refuses others.
    void checksAndSchemaAcceptTheSameKeys_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("def");
        const QByteArray model = R"("model":{"type":"x"})";
        const auto run = [](const QByteArray &spec) {
            return R"({"name":"e","lanes":[{"device":"cpu","runs":[)" + spec + "]}]}";
        };
        const auto sweep = [](const QByteArray &more, const QByteArray &inSweep = {}) {
            return R"({"name":"e","lanes":[{"device":"cpu"}],"sweeps":[{"name":"s","base":{"model":{"type":"x"}},)"
                   R"("space":{"train.lr":{"values":[1])"
                   + more + R"(}},"objective":{"metric":"valid/mrr","mode":"max"})" + inSweep + "}]}";
        };
        QTest::newRow("top") << QByteArray(R"({"name":"e","lanes":[],"zz":1})") << "(top level)"
                             << "";
        QTest::newRow("lane") << QByteArray(R"({"name":"e","lanes":[{"device":"cpu","zz":1}]})") << "lanes[0]"
                              << "lane";
        QTest::newRow("cluster") << QByteArray(R"({"name":"e","lanes":[],"clusters":[{"name":"c","zz":1}]})")
                                 << "clusters[0]"
                                 << "cluster";
        QTest::newRow("sbatch") << QByteArray(R"({"name":"e","lanes":[],"clusters":[{"name":"c","sbatch":{"zz":1}}]})")
                                << "clusters[0].sbatch"
                                << "sbatch";
        QTest::newRow("host") << QByteArray(R"({"name":"e","lanes":[],"hosts":[{"name":"h","zz":1}]})") << "hosts[0]"
                              << "host";
        QTest::newRow("model run") << run("{" + model + R"(,"zz":1})") << "lanes[0].runs[0]"
                                   << "model_run";
        QTest::newRow("program run") << run(R"({"program":{"argv":["a"]},"zz":1})") << "lanes[0].runs[0]"
                                     << "program_run";
        QTest::newRow("program") << run(R"({"program":{"argv":["a"],"zz":1}})") << "lanes[0].runs[0].program"
                                 << "program";
        QTest::newRow("program train") << run(R"({"program":{"argv":["a"]},"train":{"zz":1}})")
                                       << "lanes[0].runs[0].train"
                                       << "program_train";
        QTest::newRow("resources") << run("{" + model + R"(,"resources":{"zz":1}})") << "lanes[0].runs[0].resources"
                                   << "resources";
        QTest::newRow("rounds entry") << run(R"({"rounds":{},"zz":1})") << "lanes[0].runs[0]"
                                      << "rounds_entry";
        QTest::newRow("rounds") << run(R"({"rounds":{"zz":1}})") << "lanes[0].runs[0].rounds"
                                << "rounds";
        QTest::newRow("member") << run(R"({"rounds":{"name":"r","count":1,"clients":[{)" + model
                                       + R"(,"zz":1}],"aggregate":{)" + model + "}}}")
                                << "lanes[0].runs[0].rounds.clients[0]"
                                << "model_member";
        QTest::newRow("sweep") << sweep({}, R"(,"zz":1)") << "sweeps[0]"
                               << "sweep";
        QTest::newRow("sweep parameter") << sweep(R"(,"zz":1)") << "sweeps[0].space.train.lr"
                                         << "sweep_parameter";
        QTest::newRow("objective") << QByteArray(R"({"name":"e","lanes":[],"sweeps":[{"objective":{"zz":1}}]})")
                                   << "sweeps[0].objective"
                                   << "objective";
        QTest::newRow("early stopping") << QByteArray(
            R"({"name":"e","lanes":[],"sweeps":[{"early_stopping":{"rule":"asha","zz":1}}]})")
                                        << "sweeps[0].early_stopping"
                                        << "early_stopping";
    }
    void checksAndSchemaAcceptTheSameKeys()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, path);
        QFETCH(QString, def);
        const QStringList problems = problemsOf(json);
        const QRegularExpression re(QRegularExpression::anchoredPattern(
            QRegularExpression::escape(path) + QStringLiteral(": unknown key \"zz\" \\(expected one of (.*)\\)")));
        QStringList listed;
        for (const QString &p : problems) {
            if (const auto m = re.match(p); m.hasMatch()) {
                listed = m.captured(1).split(QStringLiteral(", "));
            }
        }
        QVERIFY2(!listed.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        const QJsonObject schema = experimentSchema(&validationCatalogue());
        QStringList keys = schemaKeys(schema, def);
        keys.removeAll(QStringLiteral("$schema"));
        QCOMPARE(sorted(keys), sorted(listed));
        const QJsonObject o = def.isEmpty() ? schema : schema[QStringLiteral("$defs")][def].toObject();
        QCOMPARE(o.value(QStringLiteral("additionalProperties")), QJsonValue(false));
    }

    // Every table is in the schema with exactly its keys.
    void everyTableIsInTheSchema()
    {
        const QJsonObject schema = experimentSchema(nullptr);
        for (const keytables::Table *t : keytables::all()) {
            const QString kind = QLatin1String(t->kind);
            QCOMPARE(sorted(schemaKeys(schema, kind == QLatin1String("experiment") ? QString() : kind)),
                     sorted(t->accepted()));
        }
    }

    // The worker's keys: a model's parameters under its type, a section's
    // keys; without a catalogue the model is any object with a type.
    void catalogueKeysPerModelType()
    {
        const QJsonObject defs = experimentSchema(&validationCatalogue())[QStringLiteral("$defs")].toObject();
        const QJsonArray branches = defs[QStringLiteral("model")][QStringLiteral("allOf")].toArray();
        QStringList transe;
        for (const QJsonValue &b : branches) {
            if (b[QStringLiteral("if")][QStringLiteral("properties")][QStringLiteral("type")][QStringLiteral("const")]
                == QJsonValue(QStringLiteral("transe"))) {
                transe = b[QStringLiteral("then")][QStringLiteral("properties")].toObject().keys();
                QCOMPARE(b[QStringLiteral("then")][QStringLiteral("additionalProperties")], QJsonValue(false));
            }
        }
        QCOMPARE(transe, (QStringList{QStringLiteral("dim"), QStringLiteral("norm"), QStringLiteral("type")}));
        QCOMPARE(
            defs[QStringLiteral("model")][QStringLiteral("properties")][QStringLiteral("type")][QStringLiteral("enum")]
                .toArray()
                .size(),
            validationCatalogue().models().size());
        QStringList train;
        for (const ParamInfo &p : validationCatalogue().section(QStringLiteral("train"))) {
            train << p.name;
        }
        QCOMPARE(sorted(defs[QStringLiteral("train")][QStringLiteral("properties")].toObject().keys()), sorted(train));
        const QJsonObject open = experimentSchema(nullptr)[QStringLiteral("$defs")].toObject();
        QVERIFY(!open[QStringLiteral("model")].toObject().contains(QStringLiteral("allOf")));
        QCOMPARE(open[QStringLiteral("model")][QStringLiteral("required")],
                 QJsonValue(QJsonArray{QStringLiteral("type")}));
    }

    // "$schema" is for editors: accepted, a string, not listed as a key to use.
    void schemaKeyIsAccepted()
    {
        QCOMPARE(problemsOf(R"({"$schema":"./experiment.schema.json","name":"e","lanes":[]})"), QStringList());
        QCOMPARE(problemsOf(R"({"$schema":1,"name":"e","lanes":[]})"),
                 QStringList{QStringLiteral("$schema: expected the address of a JSON Schema (a string), got 1")});
        const auto ex = Experiment::fromJson(
            QJsonDocument::fromJson(R"({"$schema":"s.json","name":"e","lanes":[]})").object(), nullptr);
        QVERIFY(ex);
        QCOMPARE(ex->toJson().value(QStringLiteral("$schema")), QJsonValue(QStringLiteral("s.json")));
    }

    // The window's Save and Save as (Session::save) write "$schema" back.
    void saveKeepsTheSchemaKey()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString file = tmp.filePath(QStringLiteral("e.json"));
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(R"({"$schema":"/usr/share/trainyard/experiment.schema.json","name":"schemakept","runs_root":"runs",
            "lanes":[{"device":"cpu","runs":[{"name":"r","model":{"type":"x"}}]}]})");
        out.close();
        Session session;
        QStringList errors;
        QVERIFY2(session.load(file, &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        const QString copy = tmp.filePath(QStringLiteral("copy.json"));
        QString error;
        for (const QString &path : {file, copy}) {
            QVERIFY2(session.save(path, &error), qPrintable(error));
            QFile in(path);
            QVERIFY(in.open(QIODevice::ReadOnly));
            QCOMPARE(QJsonDocument::fromJson(in.readAll()).object().value(QStringLiteral("$schema")),
                     QJsonValue(QStringLiteral("/usr/share/trainyard/experiment.schema.json")));
        }
    }
};

QTEST_GUILESS_MAIN(TestExperimentSchema)
#include "tst_experimentschema.moc"
