// The board's edits through BoardController over a real Session (no worker
// is started: the runs stay queued): undo and redo of every edit, the macros
// that make an edit of several runs one step, refused edits, and the clean
// state the window title shows.

#include "orchestration/board/board.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/document/experimentdocument.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runspec/runspecview.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"
#include "ui/board/boardcontroller.h"
#include "uitesthelpers.h"

#include <QAction>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <algorithm>

using namespace trainyard;
using namespace trainyard::testing;

class TestBoardController : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<Session> m_session;
    std::unique_ptr<ExperimentDocument> m_document;
    std::unique_ptr<BoardController> m_controller;

    Orchestrator *orchestrator() const { return m_session->orchestrator(); }
    QUndoStack *undo() const { return m_controller->undoStack(); }
    RunId id(const QString &name) const { return orchestrator()->runs()->findByName(name); }
    QStringList laneNames(int lane) const
    {
        QStringList names;
        for (RunId run : orchestrator()->laneDevices()->lane(lane).runs) {
            names.append(orchestrator()->runs()->value(run).name);
        }
        return names;
    }
    // A run that has run: its launch fails (no such worker), which ends it as failed.
    void failRun(const QString &name)
    {
        orchestrator()->supervisor()->setWorkerProgram(m_dir.filePath(QStringLiteral("no-such-worker")));
        orchestrator()->runActions()->startRun(id(name)); // refused when the launch fails at once
        QTRY_COMPARE_WITH_TIMEOUT(orchestrator()->runs()->value(id(name)).state, RunState::Failed, 5000);
    }
    QJsonObject withDim(const QString &name, int dim) const
    {
        QJsonObject spec = orchestrator()->runs()->value(id(name)).spec;
        QJsonObject model = spec.value(QLatin1String("model")).toObject();
        model.insert(QStringLiteral("dim"), dim);
        spec.insert(QStringLiteral("model"), model);
        return spec;
    }
    int dimOf(const QString &name) const
    {
        return orchestrator()
            ->runs()
            ->value(id(name))
            .spec.value(QLatin1String("model"))
            .toObject()
            .value(QLatin1String("dim"))
            .toInt();
    }
    static QStringList names(std::initializer_list<const char *> list)
    {
        QStringList out;
        for (const char *n : list) {
            out.append(QString::fromLatin1(n));
        }
        return out;
    }

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        m_session = std::make_unique<Session>();
        QStringList errors;
        QVERIFY2(m_session->open(twoLaneExperiment(m_dir.path() + QStringLiteral("/runs-")
                                                   + QLatin1String(QTest::currentTestFunction())),
                                 QString(), &errors),
                 qPrintable(errors.join(QLatin1Char('\n'))));
        m_document = std::make_unique<ExperimentDocument>(m_session.get());
        m_controller = std::make_unique<BoardController>();
        m_controller->setDocument(m_document.get());
    }

    void cleanup()
    {
        m_controller.reset();
        m_document.reset();
        m_session->close(false);
        m_session.reset();
    }

    void queueSpecAndUndo()
    {
        QList<RunId> queued;
        QVERIFY(m_document->queueSpec(0, 1, tinyKgSpec(QStringLiteral("q")), 2, &queued));
        QCOMPARE(queued.size(), 2);
        QCOMPARE(orchestrator()->runs()->value(queued.at(1)).name, QStringLiteral("q-2"));
        QCOMPARE(laneNames(0), names({"a", "q-1", "q-2", "b", "c"}));
        QCOMPARE(undo()->count(), 1);
        undo()->undo();
        QCOMPARE(laneNames(0), names({"a", "b", "c"}));
        undo()->redo();
        QCOMPARE(laneNames(0), names({"a", "q-1", "q-2", "b", "c"}));
        // The end of the lane.
        QVERIFY(m_document->queueSpec(1, -1, tinyKgSpec(QStringLiteral("e")), 1));
        QCOMPARE(laneNames(1), names({"d", "e"}));
    }

    // a name another run has was changed behind the user's back
    // ("transe-nations-2" queued as "transe-nations-2-2"). The board
    // refuses it, and nothing is queued or put in the history.
    void aTakenNameIsRefusedNotChanged()
    {
        QSignalSpy failed(m_controller.get(), &BoardController::editFailed);
        QVERIFY(!m_document->queueSpec(1, -1, tinyKgSpec(QStringLiteral("a")), 1));
        QCOMPARE(failed.count(), 1);
        QVERIFY2(failed.at(0).at(0).toString().contains(QStringLiteral("\"a\" is already used")),
                 qPrintable(failed.at(0).at(0).toString()));
        QCOMPARE(laneNames(1), names({"d"}));
        QCOMPARE(undo()->count(), 0);
        // With repeats, each repeat's name: "b-1" is free, "b-2" is not.
        QVERIFY(m_document->queueSpec(1, -1, tinyKgSpec(QStringLiteral("b-2")), 1));
        QVERIFY(!m_document->queueSpec(1, -1, tinyKgSpec(QStringLiteral("b")), 2));
        QCOMPARE(laneNames(1), names({"d", "b-2"}));
        QCOMPARE(undo()->undoText(), QStringLiteral("Queue b-2"));
        QVERIFY(m_document->queueSpec(1, -1, tinyKgSpec(QStringLiteral("e")), 3));
        QCOMPARE(undo()->undoText(), QStringLiteral("Queue e ×3"));
    }

    // Duplicate ×3 of a held run started the copies at once while
    // the original stayed held. The copies are held as it is.
    void duplicatesOfAHeldRunAreHeld()
    {
        const QString fake = qEnvironmentVariable("TRAINYARD_FAKE_WORKER");
        if (fake.isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        // A long run keeps the dispatching going (lane 1 has a free slot after it).
        orchestrator()->supervisor()->setWorkerProgram(fake);
        QJsonObject slow{
            {QStringLiteral("name"), QStringLiteral("slow")},
            {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("fake")},
                                                  {QStringLiteral("steps"), 3000},
                                                  {QStringLiteral("step_ms"), 10}}},
            {QStringLiteral("data"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("synthetic-kg")}}}};
        QVERIFY(m_document->queueSpec(0, 0, slow, 1));
        orchestrator()->dispatcher()->startAll();
        QVERIFY(orchestrator()->dispatcher()->isDispatching());
        const RunId held = orchestrator()->board()->addHeldRun(1, tinyKgSpec(QStringLiteral("h"))).value(0);
        QVERIFY(held && orchestrator()->runs()->value(held).held);
        QVERIFY(m_document->duplicateRuns({held}, 3));
        QCOMPARE(laneNames(1).mid(laneNames(1).indexOf(QStringLiteral("h"))),
                 names({"h", "h-copy-1", "h-copy-2", "h-copy-3"}));
        // Lane 1's slot is free once "d" ended: a copy that is not held would start then, in the
        // dispatcher's pass after its runEnded.
        QSignalSpy ended(orchestrator()->dispatcher(), &Dispatcher::runEnded);
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(orchestrator()->runs()->value(id(QStringLiteral("d"))).state), 10000);
        QTRY_VERIFY(std::any_of(ended.cbegin(), ended.cend(), [&](const QList<QVariant> &args) {
            return args.at(0).value<RunId>() == id(QStringLiteral("d"));
        }));
        for (const char *copy : {"h", "h-copy-1", "h-copy-2", "h-copy-3"}) {
            const RunInfo run = orchestrator()->runs()->value(id(QString::fromLatin1(copy)));
            QCOMPARE(run.state, RunState::Queued);
            QVERIFY2(run.held, copy);
        }
        QVERIFY(orchestrator()->dispatcher()->isDispatching());
        // Undone and redone, still held.
        undo()->undo();
        QCOMPARE(id(QStringLiteral("h-copy-1")), RunId(0));
        undo()->redo();
        QVERIFY(orchestrator()->runs()->value(id(QStringLiteral("h-copy-2"))).held);
        orchestrator()->dispatcher()->stopAll();
        QTRY_VERIFY_WITH_TIMEOUT(orchestrator()->dispatcher()->activeCount() == 0, 10000);
    }

    void moveRunAndUndo()
    {
        QVERIFY(m_document->moveRun(id(QStringLiteral("c")), 1, 0));
        QCOMPARE(laneNames(0), names({"a", "b"}));
        QCOMPARE(laneNames(1), names({"c", "d"}));
        undo()->undo();
        QCOMPARE(laneNames(0), names({"a", "b", "c"}));
        QCOMPARE(laneNames(1), names({"d"}));
        undo()->redo();
        QCOMPARE(laneNames(1), names({"c", "d"}));
        // Where it already is: nothing to undo.
        QVERIFY(m_document->moveRun(id(QStringLiteral("c")), 1, 0));
        QCOMPARE(undo()->count(), 1);
    }

    void duplicateRunAndUndo()
    {
        QVERIFY(m_document->duplicateRun(id(QStringLiteral("a")), 1, 1));
        QCOMPARE(laneNames(1).size(), 2);
        const QString copy = laneNames(1).at(1);
        QVERIFY2(copy != QLatin1String("a") && copy.startsWith(QLatin1String("a")), qPrintable(copy));
        QCOMPARE(undo()->undoText(), QStringLiteral("Duplicate a as %1").arg(copy)); // the name it got
        undo()->undo();
        QCOMPARE(laneNames(1), names({"d"}));
        undo()->redo();
        QCOMPARE(laneNames(1), (QStringList{QStringLiteral("d"), copy}));
        // A new sample: its seed differs from the original's (and stays the same on redo).
        const RunId copyId = id(copy);
        const auto seedOf = [this](RunId run) {
            return RunSpecView(orchestrator()->runs()->value(run).spec).seed().value_or(-1);
        };
        QVERIFY(seedOf(copyId) != seedOf(id(QStringLiteral("a"))));
    }

    void removeRunAndUndo()
    {
        QVERIFY(m_document->removeRun(id(QStringLiteral("b"))));
        QCOMPARE(laneNames(0), names({"a", "c"}));
        undo()->undo();
        // Back where it was, under its name (with a new id).
        QCOMPARE(laneNames(0), names({"a", "b", "c"}));
        undo()->redo();
        QCOMPARE(laneNames(0), names({"a", "c"}));
        QVERIFY(!m_document->removeRun(id(QStringLiteral("b")))); // no such run any more
        QCOMPARE(undo()->count(), 1);
    }

    void editRunAndUndo()
    {
        QJsonObject spec = orchestrator()->runs()->value(id(QStringLiteral("d"))).spec;
        QJsonObject model = spec.value(QLatin1String("model")).toObject();
        model.insert(QStringLiteral("dim"), 32);
        spec.insert(QStringLiteral("model"), model);
        QVERIFY(m_document->editRun(id(QStringLiteral("d")), spec));
        auto dim = [this] {
            return orchestrator()
                ->runs()
                ->value(id(QStringLiteral("d")))
                .spec.value(QLatin1String("model"))
                .toObject()
                .value(QLatin1String("dim"))
                .toInt();
        };
        QCOMPARE(dim(), 32);
        undo()->undo();
        QCOMPARE(dim(), 8);
        undo()->redo();
        QCOMPARE(dim(), 32);
    }

    void editingARunThatHasRunQueuesANewRun()
    {
        failRun(QStringLiteral("a"));
        QVERIFY(m_document->editRun(id(QStringLiteral("a")), withDim(QStringLiteral("a"), 32)));
        // The failed run keeps its spec (its folder and curves are what it was); the edit is a new queued run after it.
        QCOMPARE(laneNames(0), names({"a", "a-2", "b", "c"}));
        QCOMPARE(dimOf(QStringLiteral("a")), 8);
        QCOMPARE(orchestrator()->runs()->value(id(QStringLiteral("a"))).state, RunState::Failed);
        QCOMPARE(dimOf(QStringLiteral("a-2")), 32);
        QCOMPARE(orchestrator()->runs()->value(id(QStringLiteral("a-2"))).state, RunState::Queued);
        QCOMPARE(undo()->count(), 1);
        QCOMPARE(undo()->undoText(), QStringLiteral("Edit a as a-2")); // the new run's name
        m_controller->undo();
        QCOMPARE(laneNames(0), names({"a", "b", "c"}));
        m_controller->redo();
        QCOMPARE(laneNames(0), names({"a", "a-2", "b", "c"}));
    }

    // A lane's name is an undoable edit; removing a named lane and undoing
    // it brings the name back; another lane's name is refused.
    void renameLaneAndUndo()
    {
        QVERIFY(m_document->addLane(QStringLiteral("cpu"), 1));
        QCOMPARE(orchestrator()->board()->laneTitle(2), QStringLiteral("cpu 3"));
        QVERIFY(m_document->renameLane(2, QStringLiteral("spare")));
        QCOMPARE(orchestrator()->laneDevices()->lane(2).title, QStringLiteral("spare"));
        QCOMPARE(undo()->undoText(), QStringLiteral("Rename lane cpu 3 to spare"));
        QSignalSpy failed(m_controller.get(), &BoardController::editFailed);
        QVERIFY(!m_document->renameLane(0, QStringLiteral("spare")));
        QCOMPARE(failed.count(), 1);
        QVERIFY(m_document->removeLane(2));
        undo()->undo();
        QCOMPARE(orchestrator()->laneDevices()->lane(2).name, QStringLiteral("spare"));
        undo()->undo();
        QCOMPARE(orchestrator()->laneDevices()->lane(2).title, QStringLiteral("cpu 3"));
        QVERIFY(m_document->renameLane(0, QStringLiteral("first")));
        QCOMPARE(orchestrator()->board()->toExperiment(QStringLiteral("x"), QString()).lanes.at(0).name,
                 QStringLiteral("first"));
    }

    void anUndoTheBoardRefusesLeavesTheHistory()
    {
        QVERIFY(m_document->removeRun(id(QStringLiteral("c"))));
        QVERIFY(m_document->editRun(id(QStringLiteral("a")), withDim(QStringLiteral("a"), 32)));
        QCOMPARE(undo()->count(), 2);
        failRun(QStringLiteral("a"));
        QSignalSpy failed(m_controller.get(), &BoardController::editFailed);
        // "a" has run since its edit: the edit cannot be taken back. The entry
        // goes instead of staying on top, and the one under it is next.
        m_controller->undo();
        QCOMPARE(failed.count(), 1);
        QCOMPARE(dimOf(QStringLiteral("a")), 32);
        QCOMPARE(undo()->count(), 1);
        QCOMPARE(undo()->undoText(), QStringLiteral("Remove c"));
        QVERIFY(!undo()->canRedo());
        m_controller->undo();
        QCOMPARE(laneNames(0), names({"a", "b", "c"}));
    }

    void undoActionsKeepTheirTextOnToolBars()
    {
        QAction *menuUndo = m_controller->createUndoAction(this, true);
        QAction *barUndo = m_controller->createUndoAction(this, false);
        QVERIFY(!menuUndo->isEnabled());
        QVERIFY(m_document->removeRun(id(QStringLiteral("b"))));
        QVERIFY(menuUndo->isEnabled() && barUndo->isEnabled());
        QCOMPARE(menuUndo->text(), QStringLiteral("&Undo Remove b"));
        QCOMPARE(barUndo->text(), QStringLiteral("&Undo"));
        QCOMPARE(barUndo->toolTip(), QStringLiteral("Undo Remove b"));
        barUndo->trigger();
        QCOMPARE(laneNames(0), names({"a", "b", "c"}));
        QVERIFY(!barUndo->isEnabled());
    }

    void laneEditsAndUndo()
    {
        QVERIFY(m_document->addLane(QStringLiteral("cpu"), 3));
        QCOMPARE(orchestrator()->board()->laneCount(), 3);
        QCOMPARE(orchestrator()->laneDevices()->lane(2).slotCount, 3);
        undo()->undo();
        QCOMPARE(orchestrator()->board()->laneCount(), 2);
        undo()->redo();
        QCOMPARE(orchestrator()->board()->laneCount(), 3);

        QVERIFY(m_document->editLane(1, QStringLiteral("cpu"), 4));
        QCOMPARE(orchestrator()->laneDevices()->lane(1).slotCount, 4);
        undo()->undo();
        QCOMPARE(orchestrator()->laneDevices()->lane(1).slotCount, 1);
        undo()->redo();
        QCOMPARE(orchestrator()->laneDevices()->lane(1).slotCount, 4);

        // The new lane is empty: it can go, and come back where it was.
        QVERIFY(m_document->removeLane(2));
        QCOMPARE(orchestrator()->board()->laneCount(), 2);
        undo()->undo();
        QCOMPARE(orchestrator()->board()->laneCount(), 3);
        QCOMPARE(orchestrator()->laneDevices()->lane(2).slotCount, 3);
        QVERIFY(!m_document->removeLane(7));
    }

    void refusedEditsSayWhyAndLeaveNoStep()
    {
        QSignalSpy failed(m_controller.get(), &BoardController::editFailed);
        // Lane 1 holds "d".
        QVERIFY(!m_document->removeLane(1));
        QCOMPARE(failed.count(), 1);
        QVERIFY2(failed.at(0).at(0).toString().contains(QLatin1String("still holds runs")),
                 qPrintable(failed.at(0).at(0).toString()));
        QCOMPARE(orchestrator()->board()->laneCount(), 2);
        QCOMPARE(undo()->count(), 0);
        // No such lane for a new run.
        QVERIFY(!m_document->queueSpec(9, -1, tinyKgSpec(QStringLiteral("x")), 1));
        QCOMPARE(failed.count(), 2);
        QCOMPARE(undo()->count(), 0);
        // A refusal does not stick: the next edit works.
        QVERIFY(m_document->removeRun(id(QStringLiteral("d"))));
        QCOMPARE(undo()->count(), 1);
    }

    // Without a document the window's Undo and Redo are off and do nothing;
    // given one again they follow its history.
    void withoutADocumentUndoIsOff()
    {
        QVERIFY(m_document->removeRun(id(QStringLiteral("a"))));
        QAction *undoAction = m_controller->createUndoAction(this, true);
        QVERIFY(undoAction->isEnabled());
        m_controller->setDocument(nullptr);
        QCOMPARE(undo(), nullptr);
        QVERIFY(!undoAction->isEnabled());
        QCOMPARE(undoAction->text(), QStringLiteral("&Undo"));
        m_controller->undo();
        QCOMPARE(m_document->undoStack()->count(), 1); // nothing reached the document
        QCOMPARE(m_document->undoStack()->index(), 1);
        m_controller->setDocument(m_document.get());
        QVERIFY(undoAction->isEnabled());
        QCOMPARE(undoAction->text(), QStringLiteral("&Undo Remove a"));
        undoAction->trigger();
        QCOMPARE(laneNames(0), names({"a", "b", "c"}));
    }

    void moveRunsIsOneStep()
    {
        // "a" and "b" dropped before "d": positions count the lane before the move.
        QVERIFY(m_document->moveRuns({id(QStringLiteral("a")), id(QStringLiteral("b"))}, 1, 0));
        QCOMPARE(laneNames(0), names({"c"}));
        QCOMPARE(laneNames(1), names({"a", "b", "d"}));
        QCOMPARE(undo()->count(), 1);
        QCOMPARE(undo()->undoText(), QStringLiteral("Move runs"));
        undo()->undo();
        QCOMPARE(laneNames(0), names({"a", "b", "c"}));
        QCOMPARE(laneNames(1), names({"d"}));
        // Within a lane: "a" and "b" dropped at row 3 (after "c") end up after it.
        QVERIFY(m_document->moveRuns({id(QStringLiteral("a")), id(QStringLiteral("b"))}, 0, 3));
        QCOMPARE(laneNames(0), names({"c", "a", "b"}));
        undo()->undo();
        QCOMPARE(laneNames(0), names({"a", "b", "c"}));
    }

    void copyRunsIsOneStep()
    {
        QVERIFY(m_document->copyRuns({id(QStringLiteral("a")), id(QStringLiteral("c"))}, 1, 0));
        QCOMPARE(laneNames(1).size(), 3);
        QVERIFY(laneNames(1).at(0).startsWith(QLatin1String("a")));
        QVERIFY(laneNames(1).at(1).startsWith(QLatin1String("c")));
        QCOMPARE(laneNames(1).at(2), QStringLiteral("d"));
        QCOMPARE(undo()->count(), 1);
        QCOMPARE(undo()->undoText(), QStringLiteral("Duplicate runs"));
        undo()->undo();
        QCOMPARE(laneNames(1), names({"d"}));
        QCOMPARE(laneNames(0), names({"a", "b", "c"}));
    }

    void duplicateRunsPutsEachCopyAfterItself()
    {
        QVERIFY(m_document->duplicateRuns({id(QStringLiteral("a")), id(QStringLiteral("d"))}));
        const QStringList first = laneNames(0);
        QCOMPARE(first.size(), 4);
        QCOMPARE(first.at(0), QStringLiteral("a"));
        QVERIFY2(first.at(1).startsWith(QLatin1String("a")) && first.at(1) != QLatin1String("a"),
                 qPrintable(first.at(1)));
        QCOMPARE(first.at(2), QStringLiteral("b"));
        QCOMPARE(laneNames(1).size(), 2);
        QCOMPARE(undo()->count(), 1);
        QCOMPARE(undo()->undoText(), QStringLiteral("Duplicate"));
        undo()->undo();
        QCOMPARE(laneNames(0), names({"a", "b", "c"}));
        QCOMPARE(laneNames(1), names({"d"}));
        undo()->redo();
        QCOMPARE(laneNames(0).size(), 4);
        QCOMPARE(laneNames(1).size(), 2);
    }

    // Duplicate ×3 gave three unrelated runs: the copies are one repeat
    // group, as a file's "repeat" makes (plotted as their mean with a band,
    // saved as one entry).
    void duplicateTimesNGivesEachCopyItsSeed()
    {
        QVERIFY(m_document->duplicateRuns({id(QStringLiteral("a"))}, 3));
        QCOMPARE(laneNames(0), names({"a", "a-copy-1", "a-copy-2", "a-copy-3", "b", "c"}));
        QSet<qint64> seeds;
        for (const QString &name : laneNames(0).mid(0, 4)) {
            seeds.insert(RunSpecView(orchestrator()->runs()->value(id(name)).spec).seed().value_or(-1));
        }
        QCOMPARE(seeds.size(), 4);
        for (int k = 0; k < 3; ++k) {
            const RunInfo copy = orchestrator()->runs()->value(id(QStringLiteral("a-copy-%1").arg(k + 1)));
            QCOMPARE(copy.group, QStringLiteral("a-copy"));
            QCOMPARE(copy.repeatIndex, k);
            QCOMPARE(copy.repeatCount, 3);
        }
        const Experiment saved = m_document->experiment();
        QCOMPARE(saved.lanes.at(0).runs.size(), 4); // a, the group, b, c
        QCOMPARE(saved.lanes.at(0).runs.at(1).repeat, 3);
        QCOMPARE(saved.lanes.at(0).runs.at(1).spec.value(QLatin1String("name")).toString(), QStringLiteral("a-copy"));
        QCOMPARE(undo()->count(), 1);
        QCOMPARE(undo()->undoText(), QStringLiteral("Duplicate ×3"));
        undo()->undo();
        QCOMPARE(laneNames(0), names({"a", "b", "c"}));
        // Again: a name no run or group has.
        QVERIFY(m_document->duplicateRuns({id(QStringLiteral("a"))}, 2));
        QVERIFY(m_document->duplicateRuns({id(QStringLiteral("a"))}, 2));
        QCOMPARE(laneNames(0), names({"a", "a-copy-3-1", "a-copy-3-2", "a-copy-1", "a-copy-2", "b", "c"}));
    }

    // A run dropped between a group's repeats made Save write three lines
    // instead of the group: it is saved as one entry with "repeat", the run
    // after it, and opens as the group again.
    void repeatsWithARunBetweenThemSaveAsTheirGroup()
    {
        QVERIFY(m_document->queueSpec(1, -1, tinyKgSpec(QStringLiteral("g")), 3));
        QVERIFY(m_document->moveRun(id(QStringLiteral("d")), 1, 2));
        QCOMPARE(laneNames(1), names({"g-1", "g-2", "d", "g-3"}));
        const Experiment saved = m_document->experiment();
        const QList<ExperimentRun> &runs = saved.lanes.at(1).runs;
        QCOMPARE(runs.size(), 2);
        QCOMPARE(runs.at(0).spec.value(QLatin1String("name")).toString(), QStringLiteral("g"));
        QCOMPARE(runs.at(0).repeat, 3);
        QCOMPARE(runs.at(1).spec.value(QLatin1String("name")).toString(), QStringLiteral("d"));
        // Reopened: the group again, with its three repeats.
        QStringList errors;
        const auto reopened = Experiment::fromJson(saved.toJson(), &errors);
        QVERIFY2(reopened, qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(reopened->lanes.at(1).runs.at(0).repeat, 3);
        // An edited repeat is its own run again; the others stay runs of their own too.
        QVERIFY(m_document->editRun(id(QStringLiteral("g-3")), withDim(QStringLiteral("g-3"), 7)));
        QCOMPARE(m_document->experiment().lanes.at(1).runs.size(), 4);
    }

    void removeRunsIsOneStep()
    {
        QVERIFY(m_document->removeRuns({id(QStringLiteral("a")), id(QStringLiteral("c")), id(QStringLiteral("d"))}));
        QCOMPARE(laneNames(0), names({"b"}));
        QCOMPARE(laneNames(1), QStringList());
        QCOMPARE(undo()->count(), 1);
        QCOMPARE(undo()->undoText(), QStringLiteral("Remove"));
        undo()->undo();
        QCOMPARE(laneNames(0), names({"a", "b", "c"}));
        QCOMPARE(laneNames(1), names({"d"}));
    }

    void cleanStateFollowsSaveUndoAndNewBoards()
    {
        // The clean state is the document's (its own test has more); edits through the controller move it.
        QSignalSpy clean(m_document.get(), &ExperimentDocument::cleanChanged);
        QVERIFY(m_document->isClean()); // as opened
        QVERIFY(m_document->removeRun(id(QStringLiteral("a"))));
        QVERIFY(!m_document->isClean());
        QCOMPARE(clean.count(), 1);
        QCOMPARE(clean.last().at(0).toBool(), false);
        m_document->markSaved();
        QVERIFY(m_document->isClean());
        QCOMPARE(clean.last().at(0).toBool(), true);
        // Undo leaves the saved state, redo returns to it.
        undo()->undo();
        QVERIFY(!m_document->isClean());
        undo()->redo();
        QVERIFY(m_document->isClean());
        // An edit after the save.
        QVERIFY(m_document->addLane(QStringLiteral("cpu"), 1));
        QVERIFY(!m_document->isClean());
        // Without a document there is no history, and Undo is off.
        QAction *undoAction = m_controller->createUndoAction(this, true);
        QVERIFY(undoAction->isEnabled());
        m_controller->setDocument(nullptr);
        QCOMPARE(undo(), nullptr);
        QVERIFY(!undoAction->isEnabled());
        // Another document starts a clean, empty history.
        ExperimentDocument next(m_session.get());
        m_controller->setDocument(&next);
        QVERIFY(next.isClean());
        QCOMPARE(undo()->count(), 0);
        QVERIFY(!undoAction->isEnabled());
        m_controller->setDocument(nullptr);
    }
};

QTEST_MAIN(TestBoardController)
#include "tst_boardcontroller.moc"
