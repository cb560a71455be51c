// The open experiment through SessionController, without a window: opening
// a file (and failing to), a new board, the title with its unsaved-edits "*",
// saving, and closing with the views told first. Closing while runs train is
// in tst_mainwindow (it needs the worker).

#include "orchestration/board/board.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/document/experimentdocument.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "ui/app/sessioncontroller.h"
#include "ui/board/boardcontroller.h"
#include "ui/common/prompts.h"
#include "uitesthelpers.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QPointer>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace trainyard;
using namespace trainyard::testing;

namespace {

QString writeExperiment(const QTemporaryDir &dir)
{
    const QJsonObject experiment{
        {QStringLiteral("name"), QStringLiteral("session-test")},
        {QStringLiteral("runs_root"), dir.filePath(QStringLiteral("runs"))},
        {QStringLiteral("lanes"),
         QJsonArray{QJsonObject{
             {QStringLiteral("device"), QStringLiteral("cpu")},
             {QStringLiteral("runs"), QJsonArray{tinyKgSpec(QStringLiteral("a")), tinyKgSpec(QStringLiteral("b"))}}}}}};
    return writeExperimentFile(dir, experiment);
}

} // namespace

class TestSessionController : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        qRegisterMetaType<ExperimentDocument *>(); // for QSignalSpy on sessionOpened
    }

    void opensAFileAndTitlesIt()
    {
        QTemporaryDir dir;
        const QString path = writeExperiment(dir);
        QVERIFY(!path.isEmpty());
        BoardController board;
        SessionController sessions(&board);
        QSignalSpy opened(&sessions, &SessionController::sessionOpened);
        QSignalSpy used(&sessions, &SessionController::fileUsed);
        QSignalSpy titles(&sessions, &SessionController::titleChanged);
        QCOMPARE(sessions.title(), QStringLiteral("no experiment (not saved) — Trainyard"));
        QCOMPARE(sessions.finishCountText(), QString());

        QVERIFY(sessions.openFile(path));
        QVERIFY(sessions.session());
        QCOMPARE(opened.count(), 1);
        QCOMPARE(opened.at(0).at(0).value<ExperimentDocument *>(), sessions.document());
        // The board controller edits the new board.
        QCOMPARE(board.document(), sessions.document());
        QCOMPARE(used.count(), 1);
        QCOMPARE(used.at(0).at(0).toString(), QFileInfo(path).absoluteFilePath());
        QCOMPARE(sessions.title(), QStringLiteral("session-test (experiment.json) — Trainyard"));
        QVERIFY(!titles.isEmpty());
        QCOMPARE(titles.last().at(0).toString(), sessions.title());
        QCOMPARE(sessions.finishCountText(), QStringLiteral("0 of 2 finished"));
    }

    // A file with program runs opens only once trusted: the chooser sees
    // every command line; refused, nothing opens; trusted, it opens and is
    // not asked about again; edited, it is asked about again.
    void programRunsAskForTrust()
    {
        QTemporaryDir dir;
        const auto write = [&](const QString &command) {
            const QJsonObject run{{QStringLiteral("name"), QStringLiteral("script")},
                                  {QStringLiteral("program"),
                                   QJsonObject{{QStringLiteral("argv"),
                                                QJsonArray{QStringLiteral("sh"), QStringLiteral("-c"), command}}}}};
            return writeExperimentFile(
                dir, QJsonObject{{QStringLiteral("name"), QStringLiteral("programs")},
                                 {QStringLiteral("runs_root"), dir.filePath(QStringLiteral("runs"))},
                                 {QStringLiteral("lanes"),
                                  QJsonArray{QJsonObject{{QStringLiteral("device"), QStringLiteral("cpu")},
                                                         {QStringLiteral("runs"), QJsonArray{run}}}}}});
        };
        const QString path = write(QStringLiteral("echo one"));
        BoardController board;
        SessionController sessions(&board);
        QSignalSpy failed(&sessions, &SessionController::openFailed);
        QVERIFY(!sessions.openFile(path)); // nobody to ask: not opened
        QVERIFY(!sessions.session());
        QVERIFY(failed.last().at(0).toString().contains(QStringLiteral("not trusted")));

        QStringList asked;
        bool answer = false;
        ScriptedPrompts prompts;
        sessions.setPrompts(&prompts);
        prompts.trusts = [&](const QString &file, const QStringList &commands) {
            asked = commands;
            Q_UNUSED(file);
            return answer;
        };
        QVERIFY(!sessions.openFile(path));
        QCOMPARE(asked.size(), 1);
        QVERIFY2(asked.first().endsWith(QStringLiteral("sh -c 'echo one'")), qPrintable(asked.first()));
        // The question says what trust covers and where it stops.
        QVERIFY2(prompts.trustAbout.contains(QStringLiteral("Trust covers this version of the file"))
                     && prompts.trustAbout.contains(QStringLiteral("does not cover what those commands start")),
                 qPrintable(prompts.trustAbout));
        QVERIFY(!sessions.session());

        answer = true;
        QVERIFY(sessions.openFile(path));
        QVERIFY(sessions.session());
        asked.clear();
        QVERIFY(sessions.closeSession());
        QVERIFY(sessions.openFile(path));
        QVERIFY(asked.isEmpty()); // this version is trusted now

        QVERIFY(sessions.closeSession());
        write(QStringLiteral("echo two"));
        answer = false;
        QVERIFY(!sessions.openFile(path));
        QVERIFY2(!asked.isEmpty() && asked.first().endsWith(QStringLiteral("'echo two'")),
                 qPrintable(asked.join(QLatin1Char('|'))));
    }

    // A cluster's worker is a command too: the app asks before opening,
    // showing it; refused, nothing opens.
    void clusterWorkerAsksForTrust()
    {
        QTemporaryDir dir;
        const QJsonObject run{{QStringLiteral("name"), QStringLiteral("r")},
                              {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("fake")}}}};
        const QString path = writeExperimentFile(
            dir, QJsonObject{{QStringLiteral("name"), QStringLiteral("cluster-worker")},
                             {QStringLiteral("runs_root"), dir.filePath(QStringLiteral("runs"))},
                             {QStringLiteral("clusters"),
                              QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("c")},
                                                     {QStringLiteral("worker"), QStringLiteral("/opt/x/evil")}}}},
                             {QStringLiteral("lanes"),
                              QJsonArray{QJsonObject{{QStringLiteral("device"), QStringLiteral("slurm:c/debug")},
                                                     {QStringLiteral("runs"), QJsonArray{run}}}}}});
        BoardController board;
        SessionController sessions(&board);
        QSignalSpy failed(&sessions, &SessionController::openFailed);
        QVERIFY(!sessions.openFile(path));
        QVERIFY(failed.last().at(0).toString().contains(QStringLiteral("not trusted")));
        QStringList asked;
        ScriptedPrompts prompts;
        sessions.setPrompts(&prompts);
        prompts.trusts = [&](const QString &, const QStringList &commands) {
            asked = commands;
            return false;
        };
        QVERIFY(!sessions.openFile(path));
        QVERIFY(!sessions.session());
        QCOMPARE(asked, QStringList{QStringLiteral("(cluster c, every worker job) /opt/x/evil")});
    }

    void editsMarkTheTitleUntilSaved()
    {
        QTemporaryDir dir;
        BoardController board;
        SessionController sessions(&board);
        QVERIFY(sessions.openFile(writeExperiment(dir)));
        QSignalSpy titles(&sessions, &SessionController::titleChanged);
        QSignalSpy saved(&sessions, &SessionController::saved);
        QVERIFY(sessions.document()->removeRun(
            sessions.session()->orchestrator()->runs()->findByName(QStringLiteral("a"))));
        QCOMPARE(sessions.title(), QStringLiteral("session-test* (experiment.json) — Trainyard"));
        QCOMPARE(titles.last().at(0).toString(), sessions.title());
        board.undoStack()->undo();
        QCOMPARE(sessions.title(), QStringLiteral("session-test (experiment.json) — Trainyard"));
        board.undoStack()->redo();

        // Save as another file: clean, and the title names the new file.
        const QString copy = dir.filePath(QStringLiteral("copy.json"));
        QVERIFY(sessions.saveTo(copy));
        QCOMPARE(saved.count(), 1);
        QCOMPARE(saved.at(0).at(0).toString(), copy);
        QVERIFY(sessions.document()->isClean());
        QCOMPARE(sessions.title(), QStringLiteral("session-test (copy.json) — Trainyard"));
        QCOMPARE(titles.last().at(0).toString(), sessions.title());
        QCOMPARE(sessions.finishCountText(), QStringLiteral("0 of 1 finished"));
        // What was saved opens again as it was.
        QVERIFY(sessions.openFile(copy));
        QCOMPARE(sessions.session()->orchestrator()->dispatcher()->totalCount(), 1);
        QVERIFY(sessions.document()->isClean());
        QCOMPARE(board.undoStack()->count(), 0);
    }

    // The edit history belongs to the open experiment: made on open, gone
    // on close, never the history of another board.
    void eachOpenExperimentHasItsOwnHistory()
    {
        QTemporaryDir dir;
        BoardController board;
        SessionController sessions(&board);
        QVERIFY(!sessions.document());
        QVERIFY(sessions.openFile(writeExperiment(dir)));
        QPointer<ExperimentDocument> first = sessions.document();
        QVERIFY(first);
        QCOMPARE(first->session(), sessions.session());
        QCOMPARE(board.undoStack(), first->undoStack());
        QVERIFY(sessions.document()->removeRun(
            sessions.session()->orchestrator()->runs()->findByName(QStringLiteral("a"))));
        QCOMPARE(first->undoStack()->count(), 1);
        QVERIFY(!first->isClean());

        QVERIFY(sessions.closeSession()); // no prompts: the edit is discarded
        QVERIFY(!first);                  // the document went with the close
        QVERIFY(!sessions.document());
        QVERIFY(!board.undoStack()); // no document, no history

        QVERIFY(sessions.openFile(dir.filePath(QStringLiteral("experiment.json"))));
        QVERIFY(sessions.document());
        QCOMPARE(board.undoStack(), sessions.document()->undoStack());
        QCOMPARE(board.undoStack()->count(), 0);
        QVERIFY(sessions.document()->isClean());
    }

    void failuresAreReported()
    {
        QTemporaryDir dir;
        BoardController board;
        SessionController sessions(&board);
        QSignalSpy openFailed(&sessions, &SessionController::openFailed);
        QSignalSpy saveFailed(&sessions, &SessionController::saveFailed);
        QVERIFY(!sessions.saveTo(dir.filePath(QStringLiteral("x.json")))); // nothing open
        QVERIFY(sessions.openFile(writeExperiment(dir)));
        QVERIFY(!sessions.saveTo(QStringLiteral("/nonexistent-dir/x.json")));
        QCOMPARE(saveFailed.count(), 1);
        QVERIFY(!saveFailed.at(0).at(0).toString().isEmpty());

        // The open experiment is closed before the next one is tried.
        QVERIFY(!sessions.openFile(dir.filePath(QStringLiteral("missing.json"))));
        QCOMPARE(openFailed.count(), 1);
        QVERIFY2(openFailed.at(0).at(0).toString().startsWith(QLatin1String("The experiment could not be opened:")),
                 qPrintable(openFailed.at(0).at(0).toString()));
        QVERIFY(!sessions.session());
        QVERIFY(!board.document());
        QCOMPARE(sessions.title(), QStringLiteral("no experiment (not saved) — Trainyard"));
    }

    void newExperimentIsOneCpuLane()
    {
        BoardController board;
        SessionController sessions(&board);
        QVERIFY(sessions.newExperiment());
        Orchestrator *orchestrator = sessions.session()->orchestrator();
        QCOMPARE(orchestrator->board()->laneCount(), 1);
        QCOMPARE(orchestrator->laneDevices()->lane(0).device.toString(), QStringLiteral("cpu"));
        QCOMPARE(orchestrator->dispatcher()->totalCount(), 0);
        QVERIFY2(sessions.title().startsWith(QLatin1String("untitled-")), qPrintable(sessions.title()));
        QVERIFY(sessions.title().endsWith(QStringLiteral(" (not saved) — Trainyard")));
    }

    // Save As left the experiment "untitled-…" (and its runs
    // folder too), and nothing could rename it.
    void saveAsNamesAnUntitledExperimentAndItsFolder()
    {
        QTemporaryDir dir;
        BoardController board;
        SessionController sessions(&board);
        QVERIFY(sessions.newExperiment());
        Session *session = sessions.session();
        const QString oldRoot = session->runsRoot();
        QVERIFY(sessions.document()->queueSpec(0, -1, tinyKgSpec(QStringLiteral("a")), 1));
        QFile marker(oldRoot + QStringLiteral("/a-was-here"));
        QVERIFY(marker.open(QIODevice::WriteOnly)); // what a past run left in the folder
        marker.close();
        QVERIFY(sessions.saveTo(dir.filePath(QStringLiteral("kg-copy.json"))));
        QCOMPARE(session->name(), QStringLiteral("kg-copy"));
        QVERIFY2(session->runsRoot().endsWith(QLatin1String("/kg-copy")), qPrintable(session->runsRoot()));
        QVERIFY(!QFileInfo::exists(oldRoot));
        QVERIFY(QFileInfo::exists(session->runsRoot() + QStringLiteral("/a-was-here")));
        const RunInfo run =
            session->orchestrator()->runs()->value(session->orchestrator()->runs()->findByName(QStringLiteral("a")));
        QCOMPARE(run.runDir, session->runsRoot() + QStringLiteral("/a"));
        QVERIFY(sessions.title().startsWith(QLatin1String("kg-copy (kg-copy.json)")));

        // A saved experiment keeps its name on Save As; Rename changes it.
        QVERIFY(sessions.saveTo(dir.filePath(QStringLiteral("other.json"))));
        QCOMPARE(session->name(), QStringLiteral("kg-copy"));
        QVERIFY(sessions.rename(QStringLiteral("kg-final")));
        QVERIFY(session->runsRoot().endsWith(QLatin1String("/kg-final")));
        QSignalSpy failed(&sessions, &SessionController::renameFailed);
        QVERIFY(!sessions.rename(QStringLiteral("../escape")));
        QCOMPARE(failed.count(), 1);
        QCOMPARE(session->name(), QStringLiteral("kg-final"));
        const QString root = session->runsRoot();
        sessions.closeWithoutAsking();
        QDir(root).removeRecursively();
    }

    void closingTellsTheViewsFirst()
    {
        QTemporaryDir dir;
        BoardController board;
        SessionController sessions(&board);
        int asked = 0;
        ScriptedPrompts prompts;
        sessions.setPrompts(&prompts);
        prompts.close = [&] {
            ++asked;
            return SessionController::CloseChoice::Cancel;
        };
        QVERIFY(sessions.openFile(writeExperiment(dir)));
        QVERIFY(sessions.document()->removeRun(
            sessions.session()->orchestrator()->runs()->findByName(QStringLiteral("a"))));
        Session *open = sessions.session();
        bool sawItOpen = false;
        connect(&sessions, &SessionController::sessionAboutToClose, this, [&](ExperimentDocument *document) {
            // Still open, and its board still edited, while the views let go.
            sawItOpen =
                document->session() == open && sessions.session() == open && board.document() == sessions.document();
        });
        QSignalSpy closed(&sessions, &SessionController::sessionClosed);
        // Nothing trains: the chooser is not asked.
        QVERIFY(sessions.closeSession());
        QCOMPARE(asked, 0);
        QVERIFY(sawItOpen);
        QCOMPARE(closed.count(), 1);
        QVERIFY(!sessions.session());
        QVERIFY(!board.document());
        QCOMPARE(board.undoStack(), nullptr); // the history went with the document
        QVERIFY(sessions.closeSession());     // nothing open: nothing to do
        QCOMPARE(closed.count(), 1);
    }

    // Quit with the title showing "NAME*" lost the
    // edits without asking. Every close asks first while the board has
    // unsaved edits, and a "Save" that did not save keeps the session open.
    void unsavedEditsAreAskedAboutBeforeClosing()
    {
        QTemporaryDir dir;
        const QString path = writeExperiment(dir);
        BoardController board;
        SessionController sessions(&board);
        QVERIFY(sessions.openFile(path));
        int asked = 0;
        SessionController::UnsavedChoice answer = SessionController::UnsavedChoice::Cancel;
        ScriptedPrompts prompts;
        sessions.setPrompts(&prompts);
        prompts.unsaved = [&] {
            ++asked;
            return answer;
        };

        // A clean board closes without the question.
        QVERIFY(sessions.closeSession());
        QCOMPARE(asked, 0);
        QVERIFY(sessions.openFile(path));

        QVERIFY(sessions.document()->addLane(QStringLiteral("cpu"), 1));
        QVERIFY(!sessions.document()->isClean());
        QVERIFY(!sessions.closeSession()); // Cancel
        QCOMPARE(asked, 1);
        QVERIFY(sessions.session());
        QCOMPARE(sessions.session()->orchestrator()->board()->laneCount(), 2);

        answer = SessionController::UnsavedChoice::Save; // ... but nothing was saved
        QVERIFY(!sessions.closeSession());
        QCOMPARE(asked, 2);
        QVERIFY(sessions.session());

        // Opening another file asks too; a chooser that saves lets it close.
        prompts.unsaved = [&] {
            ++asked;
            sessions.saveTo(path);
            return SessionController::UnsavedChoice::Save;
        };
        QVERIFY(sessions.openFile(path));
        QCOMPARE(asked, 3);
        QCOMPARE(sessions.session()->orchestrator()->board()->laneCount(), 2); // the saved edit, read back

        QVERIFY(sessions.document()->addLane(QStringLiteral("cpu"), 1));
        prompts.unsaved = [&] {
            ++asked;
            return SessionController::UnsavedChoice::Discard;
        };
        QVERIFY(sessions.closeSession());
        QCOMPARE(asked, 4);
        QVERIFY(!sessions.session());
        QVERIFY(sessions.openFile(path));
        QCOMPARE(sessions.session()->orchestrator()->board()->laneCount(), 2); // the discarded lane is gone
    }
};

QTEST_MAIN(TestSessionController)
#include "tst_sessioncontroller.moc"
