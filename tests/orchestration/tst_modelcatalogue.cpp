// The worker's catalogue as the core holds it: parsing --list-models, what a
// parameter accepts and how messages describe it, the loader (real worker,
// a missing one, one that fails, hangs or answers garbage) and the cache
// (served without the worker; a stale, corrupt or foreign cache file is
// rebuilt; failures are never cached).

#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/catalogue/modelcataloguecache.h"
#include "orchestration/runspec/runspecview.h"
#include "testcatalogue.h"
#include "testutil.h"

#include <QDir>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace trainyard;
using namespace trainyard::test;

namespace {

// A stand-in worker: a shell script that answers --list-models with
// `answer` (a file it cats, so tests can change the answer without changing
// the script), counts its runs in runs.txt and can be made to fail or hang.
class ScriptWorker
{
public:
    explicit ScriptWorker(const QString &dir, const QByteArray &body = QByteArray())
        : m_dir(dir)
    {
        writeFile(answerPath(), catalogueJson());
        write(body.isEmpty() ? QByteArray("cat \"") + answerPath().toUtf8() + "\"\n" : body);
    }

    QString program() const { return m_dir + QStringLiteral("/trainyard-worker"); }
    QString answerPath() const { return m_dir + QStringLiteral("/answer.json"); }
    int runs() const
    {
        QFile f(m_dir + QStringLiteral("/runs.txt"));
        return f.open(QIODevice::ReadOnly) ? int(f.readAll().count('\n')) : 0;
    }
    // A rebuilt worker: other bytes, so another size (and time).
    void rebuild() { write(m_body + "# rebuilt\n"); }

private:
    void write(const QByteArray &body)
    {
        m_body = body;
        writeFile(program(), "#!/bin/sh\necho run >> \"" + m_dir.toUtf8() + "/runs.txt\"\n" + body);
        QFile::setPermissions(program(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    }

    QString m_dir;
    QByteArray m_body;
};

// Parameters as the real worker writes them (both bounds, an exclusive
// minimum, nullable). Out of the test class: moc's tokenizer does not
// follow raw strings.
QByteArray workerStyleRanges()
{
    return R"({"models": [{"type": "m"}], "train": [
        {"name": "lr", "type": "float", "default": 0.001, "min": 0.0, "max": 1000.0, "min_exclusive": true},
        {"name": "max_seconds", "type": "float", "default": null, "min": 0.0, "max": 1e9, "min_exclusive": true, "nullable": true},
        {"name": "weight_decay", "type": "float", "default": 0.0, "min": 0.0, "max": 1.0},
        {"name": "amp", "type": "string", "default": "off", "choices": ["off", "bf16"]},
        {"name": "channels_last", "type": "bool", "default": false}]})";
}

// Loads with `loader` asynchronously, as the desktop app does.
bool loadAsync(ModelCatalogueLoader &loader, const QString &program, ModelCatalogue *catalogue, QString *error)
{
    QSignalSpy loaded(&loader, &ModelCatalogueLoader::loaded);
    QSignalSpy failed(&loader, &ModelCatalogueLoader::failed);
    loader.load(program);
    // Never before load() returns, so a caller may connect just before it.
    if (loaded.count() + failed.count() != 0) {
        return false;
    }
    if (!QTest::qWaitFor([&] { return loaded.count() + failed.count() > 0; }, 20000)) {
        return false;
    }
    if (!failed.isEmpty()) {
        *error = failed.first().first().toString();
        return false;
    }
    *catalogue = loaded.first().first().value<ModelCatalogue>();
    return true;
}

} // namespace

class TestModelCatalogue : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parsesTheWorkerFormat()
    {
        QString error;
        const ModelCatalogue c = ModelCatalogue::fromJson(catalogueJson(), &error);
        QVERIFY2(!c.isEmpty(), qPrintable(error));
        QCOMPARE(c.models().size(), 2);
        QCOMPARE(c.tasks(), (QStringList{QStringLiteral("kg"), QStringLiteral("image")}));
        const CatalogueModel *transe = c.model(QStringLiteral("transe"));
        QVERIFY(transe);
        QCOMPARE(transe->params.size(), 3);
        QCOMPARE(transe->params.at(0).maximum.toInt(), 4096);
        QCOMPARE(transe->params.at(1).choices.size(), 2);
        QCOMPARE(c.dataKindsForTask(QStringLiteral("kg")).size(), 2);
        QCOMPARE(c.dataKindsForTask(QStringLiteral("image")).size(), 1);

        // Defaults: params, the model's section overrides, its preferred data kind.
        const QJsonObject spec = c.defaultSpec(QStringLiteral("transe"), QStringLiteral("t"));
        QCOMPARE(spec.value(QLatin1String("name")).toString(), QStringLiteral("t"));
        QCOMPARE(spec.value(QLatin1String("model")).toObject().value(QLatin1String("dim")).toInt(), 100);
        QCOMPARE(spec.value(QLatin1String("train")).toObject().value(QLatin1String("epochs")).toInt(), 50);
        QCOMPARE(spec.value(QLatin1String("train")).toObject().value(QLatin1String("optimizer")).toString(),
                 QStringLiteral("adam"));
        QVERIFY(spec.value(QLatin1String("train")).toObject().value(QLatin1String("max_steps")).isNull());
        QCOMPARE(spec.value(QLatin1String("data")).toObject().value(QLatin1String("kind")).toString(),
                 QStringLiteral("synthetic-kg"));
        QCOMPARE(spec.value(QLatin1String("data")).toObject().value(QLatin1String("entities")).toInt(), 200);
        // mlp has no preferred kind: the first of its task.
        QCOMPARE(c.defaultSpec(QStringLiteral("mlp"), QStringLiteral("m"))
                     .value(QLatin1String("data"))
                     .toObject()
                     .value(QLatin1String("kind"))
                     .toString(),
                 QStringLiteral("synthetic-images"));
    }

    // the run details and the runs table show every
    // hyperparameter a run trained with, the ones its spec left out too.
    void resolveFillsWhatTheSpecLeavesOut()
    {
        QString error;
        const ModelCatalogue c = ModelCatalogue::fromJson(catalogueJson(), &error);
        QVERIFY2(!c.isEmpty(), qPrintable(error));
        const QJsonObject spec = QJsonDocument::fromJson(R"({"name": "r", "model": {"type": "transe", "dim": 8},
            "train": {"lr": 0.5, "seed": 3}, "custom": 1})")
                                     .object();
        const QJsonObject resolved = c.resolve(spec);
        const auto at = [&resolved](const char *section, const char *key) {
            return resolved.value(QLatin1String(section)).toObject().value(QLatin1String(key));
        };
        QCOMPARE(resolved.value(QLatin1String("name")).toString(), QStringLiteral("r"));
        QCOMPARE(at("model", "dim").toInt(), 8);     // the spec's
        QCOMPARE(at("model", "norm").toInt(), 1);    // the model's default
        QCOMPARE(at("train", "lr").toDouble(), 0.5); // the spec's over the model's 0.001
        QCOMPARE(at("train", "epochs").toInt(), 50); // the model's section default
        QCOMPARE(at("train", "optimizer").toString(), QStringLiteral("adam"));
        QVERIFY(at("train", "max_steps").isNull());
        QCOMPARE(at("eval", "every_epochs").toInt(), 10);
        QCOMPARE(at("data", "kind").toString(), QStringLiteral("synthetic-kg")); // the model's kind
        QCOMPARE(at("data", "entities").toInt(), 200);
        QCOMPARE(resolved.value(QLatin1String("custom")).toInt(), 1); // kept, never dropped

        // Another data kind: its keys, not the model's data defaults.
        QJsonObject kg = spec;
        kg.insert(QStringLiteral("data"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("kg")},
                                                      {QStringLiteral("path"), QStringLiteral("/d/UMLS")}});
        const QJsonObject data = c.resolve(kg).value(QLatin1String("data")).toObject();
        QCOMPARE(data.value(QLatin1String("path")).toString(), QStringLiteral("/d/UMLS"));
        QVERIFY(!data.contains(QLatin1String("entities")));

        // A model the catalogue does not know: the spec as it is.
        QJsonObject unknown = spec;
        unknown.insert(QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("nope")}});
        QCOMPARE(c.resolve(unknown), unknown);
        QCOMPARE(ModelCatalogue().resolve(spec), spec);
    }

    void badInputNamesTheKey_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not json") << QByteArray("{nope") << QStringLiteral("not JSON");
        QTest::newRow("array") << QByteArray("[]") << QStringLiteral("expected a JSON object");
        QTest::newRow("no models") << QByteArray(R"({"models": []})")
                                   << QStringLiteral("models: expected a non-empty array");
        QTest::newRow("model type") << QByteArray(R"({"models": [{"task": "kg"}]})")
                                    << QStringLiteral("models[0].type");
        QTest::newRow("param type") << QByteArray(
            R"({"models": [{"type": "x", "params": [{"name": "a", "type": "complex"}]}]})")
                                    << QStringLiteral("models[0].params[0].type: expected one of");
        QTest::newRow("train section") << QByteArray(R"({"models": [{"type": "x"}], "train": {"a": 1}})")
                                       << QStringLiteral("train: expected an array");
    }

    void badInputNamesTheKey()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, expected);
        QString error;
        QVERIFY(ModelCatalogue::fromJson(json, &error).isEmpty());
        QVERIFY2(error.contains(expected), qPrintable(error));
    }

    // The run spec's top level is the catalogue document's: one list.
    void specKeysAreTheDocumentsSections()
    {
        QCOMPARE(ModelCatalogue::specKeys(),
                 (QStringList{QStringLiteral("name"), QStringLiteral("model"), QStringLiteral("data"),
                              QStringLiteral("train"), QStringLiteral("eval"), QStringLiteral("checkpoint"),
                              QStringLiteral("report")}));
        QCOMPARE(validationCatalogue().sectionNames(), ModelCatalogue::specSectionNames());
    }

    void paramsSayWhatTheyAccept_data()
    {
        QTest::addColumn<QString>("section");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("expectation");
        QTest::addColumn<QJsonArray>("good");
        QTest::addColumn<QJsonArray>("bad");
        QTest::newRow("int min") << QStringLiteral("train") << QStringLiteral("epochs")
                                 << QStringLiteral("an integer ≥ 1") << QJsonArray{1, 1e6}
                                 << QJsonArray{0, 2.5, QStringLiteral("3"), QJsonValue(), true};
        QTest::newRow("nullable") << QStringLiteral("train") << QStringLiteral("max_steps")
                                  << QStringLiteral("an integer ≥ 1 or null") << QJsonArray{QJsonValue(), 7}
                                  << QJsonArray{0, QStringLiteral("10")};
        QTest::newRow("exclusive min") << QStringLiteral("train") << QStringLiteral("lr")
                                       << QStringLiteral("a number > 0") << QJsonArray{1e-9, 5}
                                       << QJsonArray{0, -1, QStringLiteral("0.1")};
        QTest::newRow("two choices") << QStringLiteral("eval") << QStringLiteral("split")
                                     << QStringLiteral("\"valid\" or \"test\"")
                                     << QJsonArray{QStringLiteral("valid"), QStringLiteral("test")}
                                     << QJsonArray{QStringLiteral("train"), 1};
        QTest::newRow("three choices") << QStringLiteral("train") << QStringLiteral("optimizer")
                                       << QStringLiteral("\"adam\", \"sgd\" or \"adagrad\"")
                                       << QJsonArray{QStringLiteral("sgd")} << QJsonArray{QStringLiteral("lbfgs")};
        QTest::newRow("int choices") << QStringLiteral("model") << QStringLiteral("norm") << QStringLiteral("1 or 2")
                                     << QJsonArray{1, 2.0} << QJsonArray{3, 1.5, QStringLiteral("1")};
        QTest::newRow("int range") << QStringLiteral("model") << QStringLiteral("dim")
                                   << QStringLiteral("an integer from 1 to 4096") << QJsonArray{1, 4096}
                                   << QJsonArray{4097, 0};
    }

    void paramsSayWhatTheyAccept()
    {
        QFETCH(QString, section);
        QFETCH(QString, name);
        QFETCH(QString, expectation);
        QFETCH(QJsonArray, good);
        QFETCH(QJsonArray, bad);
        const ModelCatalogue &c = validationCatalogue();
        const QList<ParamInfo> params =
            section == QLatin1String("model") ? c.model(QStringLiteral("transe"))->params : c.section(section);
        const ParamInfo *p = nullptr;
        for (const ParamInfo &candidate : params) {
            p = candidate.name == name ? &candidate : p;
        }
        QVERIFY(p);
        QCOMPARE(p->expectation(), expectation);
        for (const QJsonValue &v : std::as_const(good)) {
            QVERIFY2(p->accepts(v), QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact).constData());
        }
        for (const QJsonValue &v : std::as_const(bad)) {
            QVERIFY2(!p->accepts(v), QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact).constData());
        }
    }

    void rangesOfTheWorkersKind()
    {
        // As the real worker writes them: both bounds, an exclusive minimum.
        QString error;
        const ModelCatalogue c = ModelCatalogue::fromJson(workerStyleRanges(), &error);
        QVERIFY2(!c.isEmpty(), qPrintable(error));
        const QList<ParamInfo> train = c.section(QStringLiteral("train"));
        QCOMPARE(train.at(0).expectation(), QStringLiteral("a number in (0, 1000]"));
        QCOMPARE(train.at(1).expectation(), QStringLiteral("a number in (0, 1000000000] or null"));
        QCOMPARE(train.at(2).expectation(), QStringLiteral("a number in [0, 1]"));
        QCOMPARE(train.at(3).expectation(), QStringLiteral("\"off\" or \"bf16\""));
        QCOMPARE(train.at(4).expectation(), QStringLiteral("true or false"));
        QVERIFY(train.at(0).accepts(1000.0) && !train.at(0).accepts(1000.5) && !train.at(0).accepts(0.0));
        QVERIFY(train.at(1).accepts(QJsonValue()) && !train.at(2).accepts(QJsonValue()));
        QVERIFY(train.at(4).accepts(true) && !train.at(4).accepts(0));
    }

    void realWorkerCatalogue()
    {
        const QString worker = qEnvironmentVariable("TRAINYARD_WORKER");
        if (worker.isEmpty() || !QFileInfo(worker).isExecutable()) {
            QSKIP("TRAINYARD_WORKER is not set to an executable trainyard-worker");
        }
        QTemporaryDir dir;
        ModelCatalogueCache cache(dir.path());
        ModelCatalogueLoader loader(&cache);
        ModelCatalogue c;
        QString error;
        QVERIFY2(loadAsync(loader, worker, &c, &error), qPrintable(error));
        for (const char *type : {"transe", "transh", "conv-transe", "sacn", "mnist-cnn", "mlp"}) {
            QVERIFY2(c.model(QString::fromLatin1(type)), type);
        }
        QVERIFY(c.dataKind(QStringLiteral("synthetic-kg")));
        QVERIFY(!c.section(QStringLiteral("train")).isEmpty());
        QCOMPARE(c.sectionNames(), ModelCatalogue::specSectionNames());
        QVERIFY(!c.presets().isEmpty());
        // Cached: the next start reads the file, not the worker.
        QVERIFY(QFileInfo::exists(cache.entryPath(worker)));
        ModelCatalogueCache again(dir.path());
        QVERIFY(again.find(worker));
        QCOMPARE(again.find(worker)->modelTypes(), c.modelTypes());

        // Recipes: resolved as the worker resolves them, the spec's own keys winning.
        const CatalogueModel *transe = c.model(QStringLiteral("transe"));
        QVERIFY(transe->recipe(QStringLiteral("small")) && transe->recipe(QStringLiteral("large-sparse")));
        const QJsonObject autoSpec{
            {QStringLiteral("model"),
             QJsonObject{{QStringLiteral("type"), QStringLiteral("transe")}, {QStringLiteral("dim"), 32}}}};
        const QJsonObject unchosen = c.resolve(autoSpec);
        QCOMPARE(RunSpecView(unchosen).model().value(QStringLiteral("recipe")).toString(), QStringLiteral("auto"));
        QCOMPARE(RunSpecView(unchosen).model().value(QStringLiteral("loss")).toString(), QStringLiteral("softmax"));
        QVERIFY(!c.recipeOf(autoSpec));
        const QJsonObject small = c.resolve(autoSpec, QStringLiteral("small"));
        QCOMPARE(c.recipeOf(autoSpec, QStringLiteral("small"))->name, QStringLiteral("small"));
        QCOMPARE(RunSpecView(small).model().value(QStringLiteral("recipe")).toString(), QStringLiteral("small"));
        QCOMPARE(RunSpecView(small).model().value(QStringLiteral("loss")).toString(), QStringLiteral("margin"));
        QCOMPARE(RunSpecView(small).model().value(QStringLiteral("dim")).toInt(), 32);
        QCOMPARE(RunSpecView(small).section(QStringLiteral("train")).value(QStringLiteral("epochs")).toInt(), 300);
        // A named recipe wins over a choice; "none" is the defaults.
        QJsonObject named = autoSpec;
        named.insert(QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("transe")},
                                                          {QStringLiteral("recipe"), QStringLiteral("none")}});
        QVERIFY(!c.recipeOf(named, QStringLiteral("small")));
        QCOMPARE(
            RunSpecView(c.resolve(named, QStringLiteral("small"))).model().value(QStringLiteral("loss")).toString(),
            QStringLiteral("softmax"));
        // A new run leaves what the recipes set to them; a model without recipes is whole.
        const QJsonObject fresh = c.newRunSpec(QStringLiteral("transe"), QStringLiteral("t"));
        QVERIFY(!RunSpecView(fresh).model().contains(QStringLiteral("loss")));
        QVERIFY(!RunSpecView(fresh).section(QStringLiteral("train")).contains(QStringLiteral("epochs")));
        QVERIFY(RunSpecView(fresh).section(QStringLiteral("train")).contains(QStringLiteral("seed")));
        QCOMPARE(RunSpecView(fresh).model().value(QStringLiteral("recipe")).toString(), QStringLiteral("auto"));
        QCOMPARE(c.newRunSpec(QStringLiteral("sacn"), QStringLiteral("s")),
                 c.defaultSpec(QStringLiteral("sacn"), QStringLiteral("s")));

        ModelCatalogue blocking;
        QVERIFY(!ModelCatalogueLoader::loadNow(QStringLiteral("/nonexistent/trainyard-worker"), &blocking, &error));
        QVERIFY2(error.contains(QLatin1String("/nonexistent/trainyard-worker")), qPrintable(error));
    }

    void cacheServesWithoutTheWorker()
    {
        QTemporaryDir dir;
        ScriptWorker worker(dir.path());
        const QString cacheDir = dir.filePath(QStringLiteral("cache"));
        ModelCatalogue c;
        QString error;
        {
            ModelCatalogueCache cache(cacheDir);
            ModelCatalogueLoader loader(&cache);
            QVERIFY2(loadAsync(loader, worker.program(), &c, &error), qPrintable(error));
            QCOMPARE(worker.runs(), 1);
            QCOMPARE(c.modelTypes(), (QStringList{QStringLiteral("transe"), QStringLiteral("mlp")}));
            QVERIFY(QFileInfo::exists(cache.entryPath(worker.program())));
            // In memory: even without the file.
            QVERIFY(QFile::remove(cache.entryPath(worker.program())));
            QVERIFY2(loader.loadBlocking(worker.program(), &error), qPrintable(error));
            QCOMPARE(worker.runs(), 1);
            QVERIFY2(loadAsync(loader, worker.program(), &c, &error), qPrintable(error));
            QCOMPARE(worker.runs(), 1);
        }
        {
            // A new process (a new cache object) reads the file.
            ModelCatalogueCache cache(cacheDir);
            ModelCatalogueLoader loader(&cache);
            QVERIFY2(loader.loadBlocking(worker.program(), &error), qPrintable(error));
            QCOMPARE(worker.runs(), 2); // the file was removed above
            ModelCatalogueCache third(cacheDir);
            ModelCatalogueLoader thirdLoader(&third);
            QVERIFY2(thirdLoader.loadBlocking(worker.program(), &error), qPrintable(error));
            QCOMPARE(worker.runs(), 2);
        }
        // A symbolic link to the worker is the same worker.
        QVERIFY(QFile::link(worker.program(), dir.filePath(QStringLiteral("link-to-worker"))));
        ModelCatalogueCache cache(cacheDir);
        QVERIFY(cache.find(dir.filePath(QStringLiteral("link-to-worker"))));
        // Without a directory: memory only, nothing written.
        ModelCatalogueCache memoryOnly{QString()};
        ModelCatalogueLoader memoryLoader(&memoryOnly);
        QVERIFY2(memoryLoader.loadBlocking(worker.program(), &error), qPrintable(error));
        QCOMPARE(worker.runs(), 3);
        QVERIFY(memoryOnly.entryPath(worker.program()).isEmpty());
        QVERIFY2(memoryLoader.loadBlocking(worker.program(), &error), qPrintable(error));
        QCOMPARE(worker.runs(), 3);
    }

    void staleCacheIsRebuilt()
    {
        QTemporaryDir dir;
        ScriptWorker worker(dir.path());
        const QString cacheDir = dir.filePath(QStringLiteral("cache"));
        QString error;
        ModelCatalogueCache cache(cacheDir);
        ModelCatalogueLoader loader(&cache);
        QVERIFY2(loader.loadBlocking(worker.program(), &error), qPrintable(error));
        QCOMPARE(worker.runs(), 1);
        const QString entry = cache.entryPath(worker.program());

        // The worker is rebuilt and now lists one model more.
        QByteArray answer = catalogueJson();
        answer.replace(R"({"type": "mlp")", R"({"type": "cnn", "task": "image"}, {"type": "mlp")");
        QVERIFY(writeFile(worker.answerPath(), answer));
        worker.rebuild();
        QCOMPARE(cache.entryPath(worker.program()), entry); // one file per worker path
        const auto fresh = loader.loadBlocking(worker.program(), &error);
        QVERIFY2(fresh, qPrintable(error));
        QCOMPARE(worker.runs(), 2);
        QVERIFY(fresh->model(QStringLiteral("cnn")));
        // ... and the file on disk holds the new one for the next process.
        ModelCatalogueCache next(cacheDir);
        const auto fromDisk = next.find(worker.program());
        QVERIFY(fromDisk);
        QVERIFY(fromDisk->model(QStringLiteral("cnn")));

        // A file of the old build is dropped, not served: nothing there now.
        worker.rebuild();
        ModelCatalogueCache afterRebuild(cacheDir);
        QVERIFY(!afterRebuild.find(worker.program()));
        QVERIFY(!QFileInfo::exists(entry));
    }

    void corruptCacheIsRebuilt_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::newRow("garbage") << QByteArray("\x01\x02not json");
        QTest::newRow("truncated") << QByteArray("{\"format\": 1, \"worker\": \"");
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("other format") << QByteArray(R"({"format": 99})");
        QTest::newRow("no catalogue") << QByteArray("KEY");
    }

    void corruptCacheIsRebuilt()
    {
        QFETCH(QByteArray, bytes);
        QTemporaryDir dir;
        ScriptWorker worker(dir.path());
        const QString cacheDir = dir.filePath(QStringLiteral("cache"));
        QString error;
        {
            ModelCatalogueCache cache(cacheDir);
            ModelCatalogueLoader loader(&cache);
            QVERIFY2(loader.loadBlocking(worker.program(), &error), qPrintable(error));
        }
        ModelCatalogueCache cache(cacheDir);
        const QString entry = cache.entryPath(worker.program());
        if (bytes == "KEY") {
            // The right key, but what it holds is no catalogue.
            QJsonObject o = readJsonFile(entry);
            o.insert(QStringLiteral("catalogue"), QJsonObject{{QStringLiteral("models"), QJsonArray()}});
            bytes = QJsonDocument(o).toJson();
        }
        QVERIFY(writeFile(entry, bytes));
        ModelCatalogueLoader loader(&cache);
        ModelCatalogue c;
        QVERIFY2(loadAsync(loader, worker.program(), &c, &error), qPrintable(error));
        QCOMPARE(worker.runs(), 2);
        QCOMPARE(c.models().size(), 2);
        QCOMPARE(readJsonFile(entry).value(QStringLiteral("format")).toInt(), 1);
        QVERIFY(ModelCatalogueCache(cacheDir).find(worker.program()));
    }

    void failuresNameTheProgramAndAreNotCached_data()
    {
        QTest::addColumn<QByteArray>("script");
        QTest::addColumn<QString>("message");
        QTest::newRow("exit status") << QByteArray("echo boom >&2\nexit 3\n")
                                     << QStringLiteral("--list-models exited with status 3: boom");
        QTest::newRow("garbage") << QByteArray("echo '{nope'\n") << QStringLiteral(" --list-models output is not JSON");
        QTest::newRow("no models") << QByteArray("echo '{\"models\": []}'\n")
                                   << QStringLiteral("--list-models: models: expected a non-empty array");
        QTest::newRow("hangs") << QByteArray("exec sleep 30\n")
                               << QStringLiteral("--list-models did not answer within 0.5 s");
    }

    void failuresNameTheProgramAndAreNotCached()
    {
        QFETCH(QByteArray, script);
        QFETCH(QString, message);
        QTemporaryDir dir;
        ScriptWorker worker(dir.path(), script);
        const QString cacheDir = dir.filePath(QStringLiteral("cache"));
        ModelCatalogueCache cache(cacheDir);
        for (bool async : {false, true}) {
            ModelCatalogueLoader loader(&cache);
            loader.setTimeout(500);
            QString error;
            ModelCatalogue c;
            const bool ok = async ? loadAsync(loader, worker.program(), &c, &error)
                                  : bool(loader.loadBlocking(worker.program(), &error));
            QVERIFY(!ok);
            QVERIFY2(error.startsWith(worker.program()), qPrintable(error));
            QVERIFY2(error.contains(message), qPrintable(error));
        }
        QCOMPARE(worker.runs(), 2); // asked again: a failure is not remembered
        QVERIFY(!QFileInfo::exists(cacheDir));
    }

    void missingWorker()
    {
        QTemporaryDir dir;
        const QString cacheDir = dir.filePath(QStringLiteral("cache"));
        ModelCatalogueCache cache(cacheDir);
        const QString program = dir.filePath(QStringLiteral("no-such/trainyard-worker"));
        QVERIFY(!cache.find(program));
        QVERIFY(cache.entryPath(program).isEmpty());
        for (bool async : {false, true}) {
            ModelCatalogueLoader loader(&cache);
            QString error;
            ModelCatalogue c;
            const bool ok = async ? loadAsync(loader, program, &c, &error) : bool(loader.loadBlocking(program, &error));
            QVERIFY(!ok);
            QVERIFY2(error.contains(QStringLiteral("Cannot start the worker ") + program), qPrintable(error));
        }
        QVERIFY(!QFileInfo::exists(cacheDir));
    }
};

QTEST_GUILESS_MAIN(TestModelCatalogue)
#include "tst_modelcatalogue.moc"
