// The open experiment as one document: its one undo history and clean
// state, its edits, and the change signals the views follow, over a real
// Session (no worker: a launch that fails is the state change).
#include "orchestration/document/experimentdocument.h"

#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"
#include "uitesthelpers.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace trainyard;
using namespace trainyard::testing;

class TestExperimentDocument : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<ExperimentDocument> m_document;

    RunId id(const QString &name) const { return m_document->findRun(name); }

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        auto session = std::make_unique<Session>();
        QStringList errors;
        QVERIFY2(session->open(twoLaneExperiment(m_dir.path() + QStringLiteral("/runs-")
                                                 + QLatin1String(QTest::currentTestFunction())),
                               QString(), &errors),
                 qPrintable(errors.join(QLatin1Char('\n'))));
        m_document = std::make_unique<ExperimentDocument>(std::move(session));
    }

    void cleanup()
    {
        std::unique_ptr<Session> session = m_document->takeSession();
        m_document.reset();
        session->close(false);
    }

    void anEditMakesItUncleanAndUndoMakesItCleanAgain()
    {
        QSignalSpy clean(m_document.get(), &ExperimentDocument::cleanChanged);
        QSignalSpy edited(m_document.get(), &ExperimentDocument::edited);
        QVERIFY(m_document->isClean()); // as opened
        QVERIFY(m_document->removeRun(id(QStringLiteral("a"))));
        QVERIFY(!m_document->hasRun(id(QStringLiteral("a"))));
        QVERIFY(!m_document->isClean());
        QCOMPARE(clean.count(), 1);
        QCOMPARE(clean.last().at(0).toBool(), false);
        QCOMPARE(edited.count(), 1);
        QCOMPARE(m_document->undoStack()->count(), 1);
        // Undo back to the opened state: clean again.
        m_document->undo();
        QVERIFY(m_document->hasRun(id(QStringLiteral("a"))));
        QVERIFY(m_document->isClean());
        QCOMPARE(clean.last().at(0).toBool(), true);
        m_document->redo();
        QVERIFY(!m_document->isClean());
    }

    void markSavedMovesTheCleanState()
    {
        QSignalSpy clean(m_document.get(), &ExperimentDocument::cleanChanged);
        QVERIFY(m_document->addLane(QStringLiteral("cpu"), 1));
        QCOMPARE(m_document->laneCount(), 3);
        m_document->markSaved();
        QVERIFY(m_document->isClean());
        QCOMPARE(clean.last().at(0).toBool(), true);
        // Undo leaves the saved state, redo returns to it.
        m_document->undo();
        QCOMPARE(m_document->laneCount(), 2);
        QVERIFY(!m_document->isClean());
        m_document->redo();
        QVERIFY(m_document->isClean());
        // A recovered board: edits no file has.
        m_document->markUnsaved();
        QVERIFY(!m_document->isClean());
        QCOMPARE(clean.last().at(0).toBool(), false);
    }

    void aRefusedEditSaysWhyAndLeavesNoStep()
    {
        QSignalSpy failed(m_document.get(), &ExperimentDocument::editFailed);
        QVERIFY(!m_document->queueSpec(9, -1, tinyKgSpec(QStringLiteral("x")), 1));
        QCOMPARE(failed.count(), 1);
        QCOMPARE(m_document->undoStack()->count(), 0);
        QVERIFY(m_document->isClean());
    }

    void viewsHearEditsAndRunStateChanges()
    {
        QSignalSpy added(m_document.get(), &ExperimentDocument::runAdded);
        QSignalSpy moved(m_document.get(), &ExperimentDocument::runMoved);
        QSignalSpy changed(m_document.get(), &ExperimentDocument::runChanged);
        QList<RunId> queued;
        QVERIFY(m_document->queueSpec(1, -1, tinyKgSpec(QStringLiteral("q")), 1, &queued));
        QCOMPARE(added.count(), 1);
        QCOMPARE(m_document->run(queued.first()).name, QStringLiteral("q"));
        QCOMPARE(m_document->lane(1).runs.last(), queued.first());
        QVERIFY(m_document->moveRun(queued.first(), 0, 0));
        QCOMPARE(moved.count(), 1);
        QCOMPARE(m_document->position(queued.first()), 0);
        // A run whose launch fails: its state changes, and runChanged names it.
        const RunId a = id(QStringLiteral("a"));
        changed.clear();
        m_document->session()->orchestrator()->supervisor()->setWorkerProgram(
            m_dir.filePath(QStringLiteral("no-such-worker")));
        m_document->startRun(a);
        QTRY_COMPARE_WITH_TIMEOUT(m_document->run(a).state, RunState::Failed, 5000);
        bool named = false;
        for (const QList<QVariant> &args : std::as_const(changed)) {
            named = named || args.at(0).value<RunId>() == a;
        }
        QVERIFY(named);
    }
};

QTEST_MAIN(TestExperimentDocument)
#include "tst_experimentdocument.moc"
