// The model palette under QAbstractItemModelTester: groups per task, the
// drag payload, saved presets, and the worker's published presets.

#include "orchestration/catalogue/modelcatalogue.h"
#include "ui/common/mimetypes.h"
#include "ui/editors/runeditordialog.h"
#include "ui/palette/modelpalettemodel.h"
#include "ui/palette/presetstore.h"
#include "uitesthelpers.h"

#include <QAbstractItemModelTester>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLineEdit>
#include <QMimeData>
#include <QTemporaryDir>
#include <QTest>

using namespace trainyard;
using namespace trainyard::testing;

class TestModelPaletteModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void paletteModelAndDragPayload()
    {
        QTemporaryDir dir;
        PresetStore presets(dir.path() + QStringLiteral("/presets.json"));
        ModelPaletteModel model(&presets);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        // Without a worker's catalogue there are still programs to run.
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("Programs"));
        QString error;
        model.setCatalogue(ModelCatalogue::fromJson(catalogueJson(), &error));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("Knowledge graphs"));
        QCOMPARE(model.index(1, 0).data().toString(), QStringLiteral("Images"));
        QCOMPARE(model.index(2, 0).data().toString(), QStringLiteral("Programs"));
        // Its entry drags a program run, edited after the drop.
        const QModelIndex program = model.index(0, 0, model.index(2, 0));
        QCOMPARE(program.data().toString(), QStringLiteral("Program…"));
        std::unique_ptr<QMimeData> programData(model.mimeData({program}));
        QVERIFY(programData);
        QVERIFY(QJsonDocument::fromJson(programData->data(runSpecMimeType()))
                    .object()
                    .value(QLatin1String("spec"))
                    .toObject()
                    .contains(QLatin1String("program")));
        QVERIFY(!(model.flags(model.index(0, 0)) & Qt::ItemIsDragEnabled));
        const QModelIndex mlp = model.index(0, 0, model.index(1, 0));
        QCOMPARE(mlp.data().toString(), QStringLiteral("mlp"));
        QVERIFY(model.flags(mlp) & Qt::ItemIsDragEnabled);
        std::unique_ptr<QMimeData> data(model.mimeData({mlp}));
        QVERIFY(data);
        const QJsonObject payload = QJsonDocument::fromJson(data->data(runSpecMimeType())).object();
        QCOMPARE(payload.value(QLatin1String("spec"))
                     .toObject()
                     .value(QLatin1String("model"))
                     .toObject()
                     .value(QLatin1String("type"))
                     .toString(),
                 QStringLiteral("mlp"));
        QCOMPARE(payload.value(QLatin1String("repeat")).toInt(), 1);
        QVERIFY(!model.mimeData({model.index(0, 0)}));

        // A saved preset appears in its own group, survives a reload, and drags its repeat count.
        QJsonObject spec = payload.value(QLatin1String("spec")).toObject();
        spec.insert(QStringLiteral("name"), QStringLiteral("wide-mlp"));
        QVERIFY(presets.save(Preset{QStringLiteral("wide mlp"), spec, 5}, &error));
        QCOMPARE(model.rowCount(), 4);
        PresetStore again(presets.path());
        QCOMPARE(again.presets().size(), 1);
        const QModelIndex preset = model.index(0, 0, model.index(3, 0));
        QCOMPARE(preset.data().toString(), QStringLiteral("wide mlp"));
        QCOMPARE(preset.data(ModelPaletteModel::RepeatRole).toInt(), 5);
        QVERIFY(presets.remove(QStringLiteral("wide mlp"), &error));
        QCOMPARE(model.rowCount(), 3);
    }

    void publishedPresetsOfTheRealWorker()
    {
        const QString worker = realWorker();
        if (worker.isEmpty()) {
            QSKIP(kNoRealWorker);
        }
        ModelCatalogue c;
        QString error;
        QVERIFY2(ModelCatalogueLoader::loadNow(worker, &c, &error), qPrintable(error));

        // The published presets reach the palette as complete specs.
        QVERIFY(!c.presets().isEmpty());
        ModelPaletteModel palette(nullptr);
        palette.setCatalogue(c);
        bool found = false;
        QJsonObject umls;
        for (int g = 0; g < palette.rowCount(); ++g) {
            const QModelIndex group = palette.index(g, 0);
            if (group.data().toString() != QLatin1String("Published configurations")) {
                continue;
            }
            found = palette.rowCount(group) == c.presets().size();
            for (int r = 0; r < palette.rowCount(group); ++r) {
                if (palette.index(r, 0, group).data().toString() == QStringLiteral("TransE · UMLS")) {
                    umls = palette.index(r, 0, group).data(ModelPaletteModel::SpecRole).toJsonObject();
                }
            }
        }
        QVERIFY(found);
        // "TransE · UMLS" dropped: a name the editor takes, and the dataset's
        // folder asked for (the data does not come with Trainyard) rather
        // than left silently empty.
        QCOMPARE(umls.value(QLatin1String("name")).toString(), QStringLiteral("transe-umls"));
        RunEditorDialog editor(c, umls, 1);
        QCOMPARE(editor.findChild<QLineEdit *>(QStringLiteral("name"))->text(), QStringLiteral("transe-umls"));
        QVERIFY2(editor.problem().startsWith(QLatin1String("data.path: no folder given")),
                 qPrintable(editor.problem()));
        QVERIFY(!editor.canAccept());
        QCOMPARE(ModelPaletteModel::runName(QStringLiteral("Conv-TransE · FB15k-237")),
                 QStringLiteral("conv-transe-fb15k-237"));
    }
};

QTEST_MAIN(TestModelPaletteModel)
#include "tst_modelpalettemodel.moc"
