// The board's item model over a real Session (no worker is started: the
// runs stay queued): structure under QAbstractItemModelTester, drag and drop
// through mimeData/dropMimeData, undo/redo of every edit, and drops through
// the board's views with QTest mouse events.

#include "orchestration/board/board.h"
#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/document/experimentdocument.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runspec/runspecview.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "ui/board/boardcontroller.h"
#include "ui/board/boardmodel.h"
#include "ui/board/boardview.h"
#include "ui/board/cardtext.h"
#include "ui/board/laneview.h"
#include "ui/common/mimetypes.h"
#include "ui/common/runcolors.h"
#include "ui/palette/modelpalettemodel.h"
#include "ui/palette/presetstore.h"
#include "uitesthelpers.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QDrag>
#include <QJsonDocument>
#include <QMimeData>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUndoStack>
#include <QUrl>

using namespace trainyard;
using namespace trainyard::testing;

class TestBoardModel : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<Session> m_session;
    std::unique_ptr<ExperimentDocument> m_document;
    std::unique_ptr<BoardController> m_controller;
    QUndoStack *m_undo = nullptr;
    std::unique_ptr<BoardModel> m_model;
    std::unique_ptr<QAbstractItemModelTester> m_tester;

    Orchestrator *orchestrator() const { return m_session->orchestrator(); }
    QStringList laneNames(int lane) const
    {
        QStringList names;
        const QModelIndex parent = m_model->index(lane, 0);
        for (int row = 0; row < m_model->rowCount(parent); ++row) {
            names.append(m_model->index(row, 0, parent).data().toString());
        }
        return names;
    }
    QMimeData *cards(const QStringList &names) const
    {
        QModelIndexList indexes;
        for (const QString &n : names) {
            indexes.append(m_model->runIndex(orchestrator()->runs()->findByName(n)));
        }
        return m_model->mimeData(indexes);
    }

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        m_session = std::make_unique<Session>();
        QStringList errors;
        QVERIFY2(m_session->open(twoLaneExperiment(m_dir.path() + QStringLiteral("/runs")), QString(), &errors),
                 qPrintable(errors.join(QLatin1Char('\n'))));
        m_document = std::make_unique<ExperimentDocument>(m_session.get());
        m_controller = std::make_unique<BoardController>();
        m_controller->setDocument(m_document.get());
        m_undo = m_controller->undoStack();
        m_model = std::make_unique<BoardModel>(m_controller.get());
        m_tester = std::make_unique<QAbstractItemModelTester>(m_model.get(),
                                                              QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_model->setDocument(m_document.get(), nullptr);
    }

    void cleanup()
    {
        m_tester.reset();
        m_model.reset();
        m_controller.reset();
        m_document.reset();
        m_undo = nullptr;
        m_session->close(false);
        m_session.reset();
    }

    void structure()
    {
        QCOMPARE(m_model->rowCount(), 2);
        QCOMPARE(laneNames(0), (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}));
        QCOMPARE(laneNames(1), QStringList{QStringLiteral("d")});
        const QModelIndex a = m_model->runIndex(orchestrator()->runs()->findByName(QStringLiteral("a")));
        QCOMPARE(a.parent(), m_model->index(0, 0));
        QCOMPARE(a.data(BoardModel::StateNameRole).toString(), QStringLiteral("queued"));
        QCOMPARE(a.data(BoardModel::ModelTypeRole).toString(), QStringLiteral("transe"));
        QCOMPARE(m_model->index(0, 0).data(BoardModel::DeviceRole).toString(), QStringLiteral("cpu"));
        QVERIFY(m_model->flags(a) & Qt::ItemIsDragEnabled);
        QVERIFY(m_model->flags(m_model->index(1, 0)) & Qt::ItemIsDropEnabled);
    }

    // a card's tooltip lists the hyperparameters its spec sets.
    void cardTooltipListsTheHyperparameters()
    {
        const QModelIndex a = m_model->runIndex(orchestrator()->runs()->findByName(QStringLiteral("a")));
        const QStringList lines = a.data(Qt::ToolTipRole).toString().split(QLatin1Char('\n'));
        QCOMPARE(lines.value(0), QStringLiteral("a (queued)"));
        QCOMPARE(lines.value(1), QStringLiteral("transe")); // the card's second line, whole
        QCOMPARE(lines.value(2), QStringLiteral("model.type = transe"));
        QCOMPARE(lines.value(3), QStringLiteral("model.dim = 8"));
        QVERIFY(lines.contains(QStringLiteral("train.lr = 0.01")));
        QVERIFY(lines.contains(QStringLiteral("train.batch_size = 64")));
        QVERIFY(lines.contains(QStringLiteral("data.entities = 40")));
        QVERIFY(!lines.contains(QStringLiteral("name = a")));

        // A long spec is cut, and says where the rest is.
        RunInfo run;
        run.name = QStringLiteral("wide");
        QJsonObject model{{QStringLiteral("type"), QStringLiteral("x")}};
        for (int i = 0; i < 19; ++i) {
            model.insert(QStringLiteral("k%1").arg(i, 2, 10, QLatin1Char('0')), i);
        }
        run.spec = QJsonObject{{QStringLiteral("model"), model}};
        const QStringList wide = CardText::toolTip(run).split(QLatin1Char('\n'));
        QCOMPARE(wide.size(), 1 + 1 + 14 + 1); // name and state, "x", 14 keys, the rest
        QCOMPARE(wide.last(), QStringLiteral("… 6 more in its details (Ctrl+I)"));
    }

    void moveWithinLaneAndUndo()
    {
        // Drop "a" between "b" and "c" (row 2 in the list as it is before the move).
        std::unique_ptr<QMimeData> data(cards({QStringLiteral("a")}));
        QVERIFY(m_model->dropMimeData(data.get(), Qt::MoveAction, 2, 0, m_model->index(0, 0)));
        QCOMPARE(laneNames(0), (QStringList{QStringLiteral("b"), QStringLiteral("a"), QStringLiteral("c")}));
        m_undo->undo();
        QCOMPARE(laneNames(0), (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}));
        m_undo->redo();
        QCOMPARE(laneNames(0), (QStringList{QStringLiteral("b"), QStringLiteral("a"), QStringLiteral("c")}));
    }

    void moveToOtherLane()
    {
        std::unique_ptr<QMimeData> data(cards({QStringLiteral("b"), QStringLiteral("c")}));
        // Dropped onto card "d": they go before it.
        const QModelIndex d = m_model->runIndex(orchestrator()->runs()->findByName(QStringLiteral("d")));
        QVERIFY(m_model->dropMimeData(data.get(), Qt::MoveAction, -1, 0, d));
        QCOMPARE(laneNames(0), QStringList{QStringLiteral("a")});
        QCOMPARE(laneNames(1), (QStringList{QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d")}));
        QCOMPARE(orchestrator()->runs()->value(orchestrator()->runs()->findByName(QStringLiteral("b"))).lane, 1);
        // One drop is one undo step.
        m_undo->undo();
        QCOMPARE(laneNames(0), (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}));
        QCOMPARE(laneNames(1), QStringList{QStringLiteral("d")});
    }

    void copyDropDuplicates()
    {
        std::unique_ptr<QMimeData> data(cards({QStringLiteral("a")}));
        QVERIFY(m_model->dropMimeData(data.get(), Qt::CopyAction, -1, 0, m_model->index(1, 0)));
        QCOMPARE(laneNames(0).size(), 3);
        QCOMPARE(laneNames(1).size(), 2);
        const QString copy = laneNames(1).at(1);
        QVERIFY2(copy != QLatin1String("a") && copy.startsWith(QLatin1String("a")), qPrintable(copy));
        QCOMPARE(
            orchestrator()->runs()->value(orchestrator()->runs()->findByName(copy)).spec.value(QLatin1String("model")),
            orchestrator()
                ->runs()
                ->value(orchestrator()->runs()->findByName(QStringLiteral("a")))
                .spec.value(QLatin1String("model")));
        m_undo->undo();
        QCOMPARE(laneNames(1), QStringList{QStringLiteral("d")});
    }

    void paletteDropQueuesWithEditorHook()
    {
        QString error;
        const ModelCatalogue catalogue = ModelCatalogue::fromJson(catalogueJson(), &error);
        QVERIFY2(!catalogue.isEmpty(), qPrintable(error));
        QTemporaryDir presetDir;
        PresetStore presets(presetDir.path() + QStringLiteral("/presets.json"));
        ModelPaletteModel palette(&presets);
        palette.setCatalogue(catalogue);
        const QModelIndex kg = palette.index(0, 0);
        const QModelIndex transe = palette.index(0, 0, kg);
        QCOMPARE(transe.data().toString(), QStringLiteral("transe"));
        std::unique_ptr<QMimeData> data(palette.mimeData({transe}));
        QVERIFY(data->hasFormat(runSpecMimeType()));

        // The hook (the run editor in the app) changes the spec and asks for 2 repeats.
        int hookCalls = 0;
        m_model->setSpecEditor([&](QJsonObject *spec, int *repeat) {
            ++hookCalls;
            QJsonObject model = spec->value(QLatin1String("model")).toObject();
            model.insert(QStringLiteral("dim"), 16);
            spec->insert(QStringLiteral("model"), model);
            spec->insert(QStringLiteral("name"), QStringLiteral("dropped"));
            *repeat = 2;
            return true;
        });
        QSignalSpy queued(m_model.get(), &BoardModel::runsQueued);
        QVERIFY(m_model->canDropMimeData(data.get(), Qt::CopyAction, 1, 0, m_model->index(0, 0)));
        QVERIFY(m_model->dropMimeData(data.get(), Qt::CopyAction, 1, 0, m_model->index(0, 0)));
        QCOMPARE(hookCalls, 1);
        QCOMPARE(queued.count(), 1);
        QCOMPARE(laneNames(0), (QStringList{QStringLiteral("a"), QStringLiteral("dropped-1"),
                                            QStringLiteral("dropped-2"), QStringLiteral("b"), QStringLiteral("c")}));
        const RunInfo run =
            orchestrator()->runs()->value(orchestrator()->runs()->findByName(QStringLiteral("dropped-2")));
        QCOMPARE(run.spec.value(QLatin1String("model")).toObject().value(QLatin1String("dim")).toInt(), 16);
        QCOMPARE(run.repeatCount, 2);
        m_undo->undo();
        QCOMPARE(laneNames(0), (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}));
        m_undo->redo();
        QCOMPARE(laneNames(0).size(), 5);

        // A cancelled editor queues nothing.
        m_model->setSpecEditor([](QJsonObject *, int *) { return false; });
        QVERIFY(!m_model->dropMimeData(data.get(), Qt::CopyAction, -1, 0, m_model->index(1, 0)));
        QCOMPARE(laneNames(1), QStringList{QStringLiteral("d")});
    }

    // a drop whose name (the model's, a preset's) another run has
    // was renamed by the board behind the editor's back, and the undo entry
    // named the old name. The editor now gets a free name to show, and the
    // history names the run that was queued.
    void aDropGetsAFreeNameBeforeTheEditor()
    {
        QString error;
        const ModelCatalogue catalogue = ModelCatalogue::fromJson(catalogueJson(), &error);
        QTemporaryDir presetDir;
        PresetStore presets(presetDir.path() + QStringLiteral("/presets.json"));
        ModelPaletteModel palette(&presets);
        palette.setCatalogue(catalogue);
        const QModelIndex transe = palette.index(0, 0, palette.index(0, 0));
        std::unique_ptr<QMimeData> data(palette.mimeData({transe}));
        QStringList shown;
        m_model->setSpecEditor([&](QJsonObject *spec, int *) {
            shown << RunSpecView(*spec).effectiveName();
            return true;
        });
        for (int i = 0; i < 3; ++i) {
            QVERIFY(m_model->dropMimeData(data.get(), Qt::CopyAction, -1, 0, m_model->index(1, 0)));
        }
        QCOMPARE(shown,
                 (QStringList{QStringLiteral("transe"), QStringLiteral("transe-2"), QStringLiteral("transe-3")}));
        QCOMPARE(laneNames(1), (QStringList{QStringLiteral("d"), QStringLiteral("transe"), QStringLiteral("transe-2"),
                                            QStringLiteral("transe-3")}));
        QCOMPARE(m_undo->undoText(), QStringLiteral("Queue transe-3"));
    }

    // .py files from a file manager: a program run of `python3 FILE` each,
    // in its folder, through the editor hook; anything else is refused.
    void droppedPythonScriptsBecomeProgramRuns()
    {
        QMimeData files;
        files.setUrls({QUrl::fromLocalFile(m_dir.filePath(QStringLiteral("train.py"))),
                       QUrl::fromLocalFile(m_dir.filePath(QStringLiteral("other.py")))});
        QStringList edited;
        m_model->setSpecEditor([&](QJsonObject *spec, int *) {
            edited << RunSpecView(*spec).programArgv().join(QLatin1Char(' '));
            return true;
        });
        QVERIFY(m_model->canDropMimeData(&files, Qt::CopyAction, -1, 0, m_model->index(1, 0)));
        QVERIFY(m_model->dropMimeData(&files, Qt::CopyAction, -1, 0, m_model->index(1, 0)));
        QCOMPARE(edited, (QStringList{QStringLiteral("python3 ") + m_dir.filePath(QStringLiteral("train.py")),
                                      QStringLiteral("python3 ") + m_dir.filePath(QStringLiteral("other.py"))}));
        QCOMPARE(laneNames(1), (QStringList{QStringLiteral("d"), QStringLiteral("train"), QStringLiteral("other")}));
        const RunInfo run = orchestrator()->runs()->value(orchestrator()->runs()->findByName(QStringLiteral("train")));
        QCOMPARE(RunSpecView(run.spec).programCwd(), QDir(m_dir.path()).absolutePath());

        QMimeData text;
        text.setUrls({QUrl::fromLocalFile(m_dir.filePath(QStringLiteral("notes.txt")))});
        QVERIFY(!m_model->canDropMimeData(&text, Qt::CopyAction, -1, 0, m_model->index(1, 0)));
        QMimeData remote;
        remote.setUrls({QUrl(QStringLiteral("https://example.org/train.py"))});
        QVERIFY(!m_model->canDropMimeData(&remote, Qt::CopyAction, -1, 0, m_model->index(1, 0)));
    }

    void removeAndUndo()
    {
        QVERIFY(m_document->removeRun(orchestrator()->runs()->findByName(QStringLiteral("b"))));
        QCOMPARE(laneNames(0), (QStringList{QStringLiteral("a"), QStringLiteral("c")}));
        m_undo->undo();
        QCOMPARE(laneNames(0), (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}));
    }

    void rejectsForeignAndBrokenDrops()
    {
        QSignalSpy failed(m_model.get(), &BoardModel::editFailed);
        QMimeData foreign;
        foreign.setData(runCardsMimeType(), R"({"board": "elsewhere", "runs": [1]})");
        QVERIFY(!m_model->dropMimeData(&foreign, Qt::MoveAction, -1, 0, m_model->index(1, 0)));
        QCOMPARE(failed.count(), 1);
        QMimeData empty;
        empty.setData(runSpecMimeType(), "{}");
        QVERIFY(!m_model->dropMimeData(&empty, Qt::CopyAction, -1, 0, m_model->index(1, 0)));
        QMimeData text;
        text.setText(QStringLiteral("hello"));
        QVERIFY(!m_model->canDropMimeData(&text, Qt::CopyAction, -1, 0, m_model->index(1, 0)));
        // Nowhere to go: no lane.
        std::unique_ptr<QMimeData> data(cards({QStringLiteral("a")}));
        QVERIFY(!m_model->canDropMimeData(data.get(), Qt::MoveAction, -1, 0, QModelIndex()));
        QCOMPARE(laneNames(0).size(), 3);
    }

    void laneEditsAreUndoable()
    {
        orchestrator()->board()->addLane(QStringLiteral("cpu"), 2);
        QCOMPARE(m_model->rowCount(), 3);
        QCOMPARE(m_model->index(2, 0).data(BoardModel::SlotsRole).toInt(), 2);
        std::unique_ptr<QMimeData> data(cards({QStringLiteral("d")}));
        QVERIFY(m_model->dropMimeData(data.get(), Qt::MoveAction, 0, 0, m_model->index(2, 0)));
        QCOMPARE(laneNames(2), QStringList{QStringLiteral("d")});
        QCOMPARE(laneNames(1), QStringList());
    }

    // The same drops, made with the mouse on the board's views.
    void mouseDragMovesCardToOtherLane()
    {
        RunColors colors;
        BoardView view(m_model.get(), &colors);
        view.resize(900, 600);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        LaneView *from = view.laneView(0);
        LaneView *to = view.laneView(1);
        QVERIFY(from && to);
        const QModelIndex b = m_model->runIndex(orchestrator()->runs()->findByName(QStringLiteral("b")));
        const QPoint start = from->visualRect(b).center();
        const QPoint target = to->viewport()->rect().center() + QPoint(0, 100); // below "d": the end

        // Press and move with the mouse through the window system's path:
        // the view starts the drag itself. The offscreen platform's drag ends
        // at once (it has no drag and drop), so the test plays the window
        // system's part of the drop: enter, move and drop events on the
        // target lane at the mouse position.
        QWindow *window = view.windowHandle();
        const QPoint startInWindow = from->viewport()->mapTo(&view, start);
        QMimeData dragged;
        connect(from, &LaneView::dragStarted, this, [&](const QMimeData *data) {
            for (const QString &format : data->formats()) {
                dragged.setData(format, data->data(format));
            }
        });
        QTest::mousePress(window, Qt::LeftButton, {}, startInWindow);
        QTest::mouseMove(window, startInWindow + QPoint(0, 5));
        QTest::mouseMove(window, startInWindow + QPoint(30, 30));
        QTest::mouseRelease(window, Qt::LeftButton, {}, startInWindow + QPoint(30, 30));
        QVERIFY2(dragged.hasFormat(runCardsMimeType()), "the lane view did not start a drag of the card");

        QDragEnterEvent enter(target, Qt::CopyAction | Qt::MoveAction, &dragged, Qt::LeftButton, Qt::NoModifier);
        enter.setDropAction(Qt::MoveAction);
        QCoreApplication::sendEvent(to->viewport(), &enter);
        QVERIFY(enter.isAccepted());
        QDragMoveEvent move(target, Qt::CopyAction | Qt::MoveAction, &dragged, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(to->viewport(), &move);
        QVERIFY(move.isAccepted());
        QCOMPARE(move.dropAction(), Qt::MoveAction);
        QDropEvent drop(QPointF(target), Qt::CopyAction | Qt::MoveAction, &dragged, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(to->viewport(), &drop);
        QVERIFY(drop.isAccepted());
        QCOMPARE(laneNames(1), (QStringList{QStringLiteral("d"), QStringLiteral("b")}));
        QCOMPARE(laneNames(0), (QStringList{QStringLiteral("a"), QStringLiteral("c")}));
        m_undo->undo();
        QCOMPARE(laneNames(0), (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}));
    }

    void dropEventsOnLaneView()
    {
        // A drop as the window system delivers it (enter, move, drop), with Ctrl held: a copy.
        RunColors colors;
        BoardView view(m_model.get(), &colors);
        view.resize(900, 600);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        LaneView *to = view.laneView(1);
        std::unique_ptr<QMimeData> data(cards({QStringLiteral("a")}));
        const QPointF pos = to->viewport()->rect().center();
        QDragEnterEvent enter(pos.toPoint(), Qt::CopyAction | Qt::MoveAction, data.get(), Qt::LeftButton,
                              Qt::ControlModifier);
        QCoreApplication::sendEvent(to->viewport(), &enter);
        QVERIFY(enter.isAccepted());
        QCOMPARE(enter.dropAction(), Qt::CopyAction);
        QDropEvent drop(pos, Qt::CopyAction | Qt::MoveAction, data.get(), Qt::LeftButton, Qt::ControlModifier);
        QCoreApplication::sendEvent(to->viewport(), &drop);
        QVERIFY(drop.isAccepted());
        QCOMPARE(laneNames(0).size(), 3);
        QCOMPARE(laneNames(1).size(), 2);
    }
};

QTEST_MAIN(TestBoardModel)
#include "tst_boardmodel.moc"
