// The model catalog (parsing --list-models), the palette model under
// QAbstractItemModelTester with its drag payload, presets, and the run
// editor built from the catalog.

#include "mimetypes.h"
#include "modelcatalog.h"
#include "modelpalettemodel.h"
#include "presetstore.h"
#include "runeditordialog.h"
#include "uitesthelpers.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLineEdit>
#include <QMimeData>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace trainyard;
using namespace trainyard::testing;

class TestModelCatalog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parsesTheWorkerFormat()
    {
        QString error;
        const ModelCatalog c = ModelCatalog::fromJson(catalogJson(), &error);
        QVERIFY2(!c.isEmpty(), qPrintable(error));
        QCOMPARE(c.models().size(), 2);
        QCOMPARE(c.tasks(), (QStringList{QStringLiteral("kg"), QStringLiteral("image")}));
        const ModelInfo *transe = c.model(QStringLiteral("transe"));
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
                     .value(QLatin1String("data")).toObject().value(QLatin1String("kind")).toString(),
                 QStringLiteral("synthetic-images"));
    }

    void badInputNamesTheKey_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not json") << QByteArray("{nope") << QStringLiteral("not JSON");
        QTest::newRow("array") << QByteArray("[]") << QStringLiteral("expected a JSON object");
        QTest::newRow("no models") << QByteArray(R"({"models": []})") << QStringLiteral("models: expected a non-empty array");
        QTest::newRow("model type") << QByteArray(R"({"models": [{"task": "kg"}]})") << QStringLiteral("models[0].type");
        QTest::newRow("param type")
            << QByteArray(R"({"models": [{"type": "x", "params": [{"name": "a", "type": "complex"}]}]})")
            << QStringLiteral("models[0].params[0].type: expected one of");
        QTest::newRow("train section") << QByteArray(R"({"models": [{"type": "x"}], "train": {"a": 1}})")
                                       << QStringLiteral("train: expected an array");
    }

    void badInputNamesTheKey()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, expected);
        QString error;
        QVERIFY(ModelCatalog::fromJson(json, &error).isEmpty());
        QVERIFY2(error.contains(expected), qPrintable(error));
    }

    void paletteModelAndDragPayload()
    {
        QTemporaryDir dir;
        PresetStore presets(dir.path() + QStringLiteral("/presets.json"));
        ModelPaletteModel model(&presets);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        QString error;
        model.setCatalog(ModelCatalog::fromJson(catalogJson(), &error));
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("Knowledge graphs"));
        QCOMPARE(model.index(1, 0).data().toString(), QStringLiteral("Images"));
        QVERIFY(!(model.flags(model.index(0, 0)) & Qt::ItemIsDragEnabled));
        const QModelIndex mlp = model.index(0, 0, model.index(1, 0));
        QCOMPARE(mlp.data().toString(), QStringLiteral("mlp"));
        QVERIFY(model.flags(mlp) & Qt::ItemIsDragEnabled);
        std::unique_ptr<QMimeData> data(model.mimeData({mlp}));
        QVERIFY(data);
        const QJsonObject payload = QJsonDocument::fromJson(data->data(runSpecMimeType())).object();
        QCOMPARE(payload.value(QLatin1String("spec")).toObject().value(QLatin1String("model")).toObject()
                     .value(QLatin1String("type")).toString(),
                 QStringLiteral("mlp"));
        QCOMPARE(payload.value(QLatin1String("repeat")).toInt(), 1);
        QVERIFY(!model.mimeData({model.index(0, 0)}));

        // A saved preset appears in its own group, survives a reload, and drags its repeat count.
        QJsonObject spec = payload.value(QLatin1String("spec")).toObject();
        spec.insert(QStringLiteral("name"), QStringLiteral("wide-mlp"));
        QVERIFY(presets.save(Preset{QStringLiteral("wide mlp"), spec, 5}, &error));
        QCOMPARE(model.rowCount(), 3);
        PresetStore again(presets.path());
        QCOMPARE(again.presets().size(), 1);
        const QModelIndex preset = model.index(0, 0, model.index(2, 0));
        QCOMPARE(preset.data().toString(), QStringLiteral("wide mlp"));
        QCOMPARE(preset.data(ModelPaletteModel::RepeatRole).toInt(), 5);
        QVERIFY(presets.remove(QStringLiteral("wide mlp"), &error));
        QCOMPARE(model.rowCount(), 2);
    }

    void runEditorEditsAndValidates()
    {
        QString error;
        const ModelCatalog c = ModelCatalog::fromJson(catalogJson(), &error);
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

    void realWorkerCatalog()
    {
        const QString worker = qEnvironmentVariable("TRAINYARD_WORKER");
        if (worker.isEmpty() || !QFileInfo(worker).isExecutable()) {
            QSKIP("TRAINYARD_WORKER is not set to an executable trainyard-worker");
        }
        ModelCatalogLoader loader;
        QSignalSpy loaded(&loader, &ModelCatalogLoader::loaded);
        QSignalSpy failed(&loader, &ModelCatalogLoader::failed);
        loader.load(worker);
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() + failed.count() > 0, 20000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        const ModelCatalog c = loaded.first().first().value<ModelCatalog>();
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
                                 qPrintable(QStringLiteral("%1: %2.%3").arg(QLatin1String(type), QLatin1String(section), it.key())));
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
            QVERIFY(editor.spec().value(QLatin1String("train")).toObject().value(QLatin1String("max_seconds")).isNull());
            budget->setText(QStringLiteral("160"));
            QVERIFY2(editor.validate(&error), qPrintable(error));
            QCOMPARE(editor.spec().value(QLatin1String("train")).toObject().value(QLatin1String("max_seconds")).toDouble(), 160.0);
        }

        // The published presets reach the palette as complete specs.
        QVERIFY(!c.presets().isEmpty());
        ModelPaletteModel palette(nullptr);
        palette.setCatalog(c);
        bool found = false;
        for (int g = 0; g < palette.rowCount(); ++g) {
            const QModelIndex group = palette.index(g, 0);
            if (group.data().toString() != QLatin1String("Published configurations")) {
                continue;
            }
            found = palette.rowCount(group) == c.presets().size();
        }
        QVERIFY(found);

        ModelCatalog blocking;
        QString error;
        QVERIFY(!ModelCatalogLoader::loadNow(QStringLiteral("/nonexistent/trainyard-worker"), &blocking, &error));
        QVERIFY2(error.contains(QLatin1String("/nonexistent/trainyard-worker")), qPrintable(error));
    }
};

QTEST_MAIN(TestModelCatalog)
#include "tst_modelcatalog.moc"
