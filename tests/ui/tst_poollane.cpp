// A GPU pool lane in the window: its header has a row per GPU (the runs on
// each, who else holds it, memory in GiB) that follows the inventory and the
// runs; its cards say their GPUs and why they wait; drops, Duplicate, Edit
// and undo work on it as on any lane; the device questions offer pools.
// GPUs are DeviceInventory::setFakeGpus's, runs trainyard-fake-worker's.

#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/devices/device.h"
#include "orchestration/devices/deviceinventory.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/document/experimentdocument.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"
#include "tests/orchestration/testutil.h"
#include "ui/app/desktopapp.h"
#include "ui/app/mainwindow.h"
#include "ui/board/boardcontroller.h"
#include "ui/board/boardmodel.h"
#include "ui/board/boardview.h"
#include "ui/board/cardtext.h"
#include "ui/board/devicechoices.h"
#include "ui/board/laneheader.h"
#include "ui/board/lanemenu.h"
#include "ui/board/lanestatus.h"
#include "ui/palette/modelpalettemodel.h"
#include "ui/palette/presetstore.h"
#include "uitesthelpers.h"

#include <QAction>
#include <QInputDialog>
#include <QMimeData>
#include <QScopeGuard>
#include <QStandardPaths>
#include <QTest>
#include <QUndoStack>

using namespace trainyard;
using namespace trainyard::testing;

namespace {

constexpr qint64 GiB = 1024LL * 1024 * 1024;

// Four 80 GiB GPUs; bob's python holds 14.2 GiB of GPU 3.
QList<DeviceInfo> fourGpus()
{
    QList<DeviceInfo> gpus;
    for (int i = 0; i < 4; ++i) {
        DeviceInfo d;
        d.id = QStringLiteral("cuda:%1").arg(i);
        d.name = QStringLiteral("NVIDIA H100 80GB HBM3");
        d.isGpu = true;
        d.index = i;
        d.memoryTotal = 80 * GiB;
        d.memoryUsed = 0;
        d.utilization = 10 * i;
        d.temperature = 40 + i;
        gpus << d;
    }
    GpuProcess bob;
    bob.pid = 999999;
    bob.memoryBytes = qint64(14.2 * GiB);
    bob.owner = GpuProcess::Owner::OtherUser;
    bob.user = QStringLiteral("bob");
    bob.name = QStringLiteral("python");
    gpus[3].processes << bob;
    gpus[3].memoryUsed = bob.memoryBytes;
    return gpus;
}

QStringList names(std::initializer_list<const char *> list)
{
    QStringList out;
    for (const char *n : list) {
        out << QString::fromUtf8(n);
    }
    return out;
}

QAction *action(const QWidget &window, const QString &text)
{
    for (QAction *a : window.findChildren<QAction *>()) {
        if (a->text() == text) {
            return a;
        }
    }
    return nullptr;
}

} // namespace

class TestPoolLane : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;

    Orchestrator *orchestrator() const { return m_window->session()->orchestrator(); }
    LaneHeader *header(int lane) const { return m_window->boardView()->laneHeader(lane); }
    RunInfo run(const QString &name) const
    {
        return orchestrator()->runs()->value(orchestrator()->runs()->findByName(name));
    }
    QStringList laneNames(int lane) const
    {
        QStringList names;
        for (RunId id : orchestrator()->laneDevices()->lane(lane).runs) {
            names << orchestrator()->runs()->value(id).name;
        }
        return names;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        initDesktopApp();
        if (test::fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
    }

    // Lane 0 a "cuda:*" pool of one slot per GPU (p0..p3), lane 1 a fixed "cuda:0".
    void init()
    {
        QJsonArray pool;
        for (int i = 0; i < 4; ++i) {
            pool << test::fakeSpec(QStringLiteral("p%1").arg(i), 100000, 20);
        }
        const QString file = writeExperimentFile(
            m_dir, test::experimentJson(
                       QStringLiteral("pool"),
                       m_dir.filePath(QStringLiteral("runs-%1").arg(QLatin1String(QTest::currentTestFunction()))),
                       {test::lane(QStringLiteral("cuda:*"), 1, pool),
                        test::lane(QStringLiteral("cuda:0"), 1, QJsonArray())}));
        m_window = std::make_unique<MainWindow>();
        m_window->useScriptedPrompts();
        m_window->setEditorEnabled(false);
        QVERIFY(m_window->openFile(file));
        m_window->session()->devices()->setPollInterval(0); // the test says what the GPUs hold
        orchestrator()->supervisor()->setWorkerProgram(test::fakeWorker());
        m_window->resize(1200, 900);
        m_window->show();
    }

    void cleanup()
    {
        if (m_window && m_window->session()) {
            orchestrator()->dispatcher()->killAll();
            QTRY_COMPARE_WITH_TIMEOUT(orchestrator()->dispatcher()->activeCount(), 0, 10000);
        }
        m_window.reset();
    }

    // A row per GPU once the inventory has them, the header as tall as they
    // need; GiB, who else holds a GPU; a run's name on its GPU when it starts
    // and its share once NVML shows its memory.
    void aRowPerGpuFollowsTheInventoryAndTheRuns()
    {
        QVERIFY(header(0)->gpuRowTexts().isEmpty()); // no GPU yet
        m_window->session()->devices()->setFakeGpus(fourGpus());
        QTRY_COMPARE(header(0)->gpuRowTexts().size(), 4);
        QVERIFY(header(1)->gpuRowTexts().isEmpty()); // a fixed GPU keeps its one device
        QTRY_VERIFY(header(0)->height() > header(1)->height() + 80);
        const QModelIndex lane = m_window->boardModel()->laneIndex(0);
        QCOMPARE(lane.data(BoardModel::DeviceNameRole).toString(), QStringLiteral("4 × NVIDIA H100 80GB HBM3"));
        QStringList rows = header(0)->gpuRowTexts();
        QCOMPARE(rows.at(0), QStringLiteral("GPU 0 · NVIDIA H100 80GB HBM3 · 0% · 40°C · 0.0/80.0 GiB"));
        QCOMPARE(rows.at(3), QStringLiteral("GPU 3 · NVIDIA H100 80GB HBM3 · 30% · 43°C · 14.2/80.0 GiB · "
                                            "others: user bob, python, 14.2 GiB"));
        QCOMPARE(LaneStatus::memoryText(0, 80 * GiB), QStringLiteral("0.0/80.0 GiB")); // not "0.0/86G"

        QVERIFY(orchestrator()->runActions()->startRun(run(QStringLiteral("p0")).id));
        QTRY_VERIFY(isActive(run(QStringLiteral("p0")).state) && !run(QStringLiteral("p0")).device.isEmpty());
        const RunInfo p0 = run(QStringLiteral("p0"));
        const int gpu = p0.device.cudaIndex();
        QVERIFY2(gpu >= 0 && gpu < 3, qPrintable(p0.device.toString())); // never the busy GPU 3
        QTRY_VERIFY2(header(0)->gpuRowTexts().at(gpu).endsWith(QStringLiteral(" · p0")),
                     qPrintable(header(0)->gpuRowTexts().join(QLatin1Char('\n'))));
        rows = header(0)->gpuRowTexts();
        QCOMPARE(rows.filter(QStringLiteral("p0")).size(), 1);
        // Its card says its GPU.
        QVERIFY(CardText::detailLine(p0).contains(p0.device.toString()));

        // NVML sees its 10 GiB: the row's memory and the run's share in the bar.
        QTRY_VERIFY(run(QStringLiteral("p0")).pid > 0);
        QList<DeviceInfo> gpus = fourGpus();
        GpuProcess mine;
        mine.pid = run(QStringLiteral("p0")).pid;
        mine.runPid = mine.pid;
        mine.owner = GpuProcess::Owner::Run;
        mine.memoryBytes = 10 * GiB;
        gpus[gpu].processes << mine;
        gpus[gpu].memoryUsed = 10 * GiB;
        m_window->session()->devices()->setFakeGpus(gpus);
        QTRY_VERIFY(header(0)->gpuRowTexts().at(gpu).contains(QStringLiteral("10.0/80.0 GiB · p0")));
        const QVariantMap row = lane.data(BoardModel::GpuRowsRole).toList().at(gpu).toMap();
        const QVariantMap share = row.value(QStringLiteral("runs")).toList().value(0).toMap();
        QCOMPARE(share.value(QStringLiteral("name")).toString(), QStringLiteral("p0"));
        QCOMPARE(share.value(QStringLiteral("bytes")).toLongLong(), 10 * GiB);
        QCOMPARE(row.value(QStringLiteral("othersBytes")).toLongLong(), 0);
    }

    // Three start (one a GPU), the fourth waits for GPU 3, which bob holds: its card says so.
    void aQueuedCardOfAPoolSaysWhyItWaits()
    {
        m_window->session()->devices()->setFakeGpus(fourGpus());
        orchestrator()->dispatcher()->startAll();
        QTRY_VERIFY(isActive(run(QStringLiteral("p2")).state));
        QStringList devices;
        for (const char *name : {"p0", "p1", "p2"}) {
            devices << run(QString::fromLatin1(name)).device.toString();
        }
        devices.sort();
        QCOMPARE(devices, (QStringList{QStringLiteral("cuda:0"), QStringLiteral("cuda:1"), QStringLiteral("cuda:2")}));
        QTRY_VERIFY(run(QStringLiteral("p3")).message.startsWith(QStringLiteral("waits: ")));
        const RunInfo p3 = run(QStringLiteral("p3"));
        QCOMPARE(p3.state, RunState::Queued);
        QVERIFY2(p3.message.contains(QStringLiteral("user bob, python, 14.2 GiB")), qPrintable(p3.message));
        const QModelIndex card = m_window->boardModel()->runIndex(p3.id);
        QCOMPARE(CardText::statusLine(card.data(BoardModel::RunInfoRole).value<RunInfo>()), p3.message);
        // Each GPU's row names its run.
        const QStringList rows = header(0)->gpuRowTexts();
        for (const char *name : {"p0", "p1", "p2"}) {
            const int gpu = run(QString::fromLatin1(name)).device.cudaIndex();
            QVERIFY2(rows.at(gpu).endsWith(QStringLiteral(" · ") + QString::fromLatin1(name)),
                     qPrintable(rows.at(gpu)));
        }
    }

    // A model from the palette dropped on the pool, a duplicate and an edit
    // there, each undone and redone as on any lane.
    void dropDuplicateEditAndUndoOnAPool()
    {
        QString error;
        const ModelCatalogue catalogue = ModelCatalogue::fromJson(catalogueJson(), &error);
        QVERIFY2(!catalogue.isEmpty(), qPrintable(error));
        PresetStore presets(m_dir.filePath(QStringLiteral("presets.json")));
        ModelPaletteModel palette(&presets);
        palette.setCatalogue(catalogue);
        const QModelIndex transe = palette.index(0, 0, palette.index(0, 0));
        std::unique_ptr<QMimeData> data(palette.mimeData({transe}));
        BoardModel *model = m_window->boardModel();
        QUndoStack *undo = model->controller()->undoStack();
        QVERIFY(model->dropMimeData(data.get(), Qt::CopyAction, 1, 0, model->laneIndex(0)));
        QCOMPARE(laneNames(0).size(), 5);
        QCOMPARE(laneNames(0).at(0), QStringLiteral("p0"));
        const QString dropped = laneNames(0).at(1);
        QVERIFY(dropped.startsWith(QStringLiteral("transe")));
        undo->undo();
        QCOMPARE(laneNames(0), names({"p0", "p1", "p2", "p3"}));
        undo->redo();
        QCOMPARE(laneNames(0).at(1), dropped);

        QVERIFY(model->document()->duplicateRun(run(QStringLiteral("p1")).id, 0, -1));
        QCOMPARE(laneNames(0).last(), QStringLiteral("p1-2"));
        QCOMPARE(run(QStringLiteral("p1-2")).lane, 0);
        undo->undo();
        QVERIFY(!laneNames(0).contains(QStringLiteral("p1-2")));

        QJsonObject spec = run(QStringLiteral("p2")).spec;
        spec.insert(QStringLiteral("resources"), QJsonObject{{QStringLiteral("gpu_memory"), QStringLiteral("30GiB")}});
        QVERIFY(model->document()->editRun(run(QStringLiteral("p2")).id, spec));
        QCOMPARE(run(QStringLiteral("p2"))
                     .spec.value(QLatin1String("resources"))
                     .toObject()
                     .value(QLatin1String("gpu_memory")),
                 QJsonValue(QStringLiteral("30GiB")));
        undo->undo();
        QVERIFY(!run(QStringLiteral("p2")).spec.contains(QLatin1String("resources")));
        undo->redo();
        QVERIFY(run(QStringLiteral("p2")).spec.contains(QLatin1String("resources")));
    }

    // "Device…" and "Add lane…" offer All GPUs and the halves; undoable.
    void theDeviceQuestionsOfferPools()
    {
        m_window->session()->devices()->setFakeGpus(fourGpus());
        BoardController *controller = m_window->boardModel()->controller();
        LaneMenu menu(1, controller, m_window->boardModel(), action(*m_window, QStringLiteral("Add &lane…")),
                      m_window.get());
        QAction *device = nullptr;
        for (QAction *a : menu.actions()) {
            device = a->text() == QStringLiteral("Device…") ? a : device;
        }
        QVERIFY(device);
        QStringList offered;
        QString current;
        onNextModal("QInputDialog", [&](QWidget *w) {
            auto *dialog = static_cast<QInputDialog *>(w);
            const auto close = qScopeGuard([dialog] { dialog->done(QDialog::Accepted); });
            offered = dialog->comboBoxItems();
            current = dialog->textValue();
            dialog->setTextValue(QStringLiteral("All GPUs (cuda:*)"));
        });
        device->trigger();
        QCOMPARE(offered, names({"cpu", "cuda:0", "cuda:1", "cuda:2", "cuda:3", "All GPUs (cuda:*)",
                                 "GPUs 0–1 (cuda:0-1)", "GPUs 2–3 (cuda:2-3)"}));
        QCOMPARE(current, QStringLiteral("cuda:0"));
        QCOMPARE(orchestrator()->laneDevices()->lane(1).device.toString(), QStringLiteral("cuda:*"));
        QTRY_COMPARE(header(1)->gpuRowTexts().size(), 4);
        controller->undo();
        QCOMPARE(orchestrator()->laneDevices()->lane(1).device.toString(), QStringLiteral("cuda:0"));
        QTRY_VERIFY(header(1)->gpuRowTexts().isEmpty());

        onNextModal("QInputDialog", [&](QWidget *w) {
            auto *dialog = static_cast<QInputDialog *>(w);
            const auto close = qScopeGuard([dialog] { dialog->done(QDialog::Accepted); });
            dialog->setTextValue(QStringLiteral("GPUs 2–3 (cuda:2-3)"));
        });
        action(*m_window, QStringLiteral("Add &lane…"))->trigger();
        QCOMPARE(orchestrator()->board()->laneCount(), 3);
        QCOMPARE(orchestrator()->laneDevices()->lane(2).device.toString(), QStringLiteral("cuda:2-3"));
        QTRY_COMPARE(header(2)->gpuRowTexts().size(), 2);
        controller->undo();
        QCOMPARE(orchestrator()->board()->laneCount(), 2);
        // Typed devices pass as they are.
        QCOMPARE(devicechoices::device(QStringLiteral(" cuda:0,2 ")), QStringLiteral("cuda:0,2"));
    }
};

QTEST_MAIN(TestPoolLane)
#include "tst_poollane.moc"
