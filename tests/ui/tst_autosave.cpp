// Autosave and recovery: an edited board is written to its copy soon after
// each edit, the copy goes when the board is saved, and after a crash the
// copy is offered when the experiment is opened again (nothing a
// crash could take). Also what the next start opens.

#include "orchestration/board/board.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/document/experimentdocument.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "ui/app/autosave.h"
#include "ui/app/sessioncontroller.h"
#include "ui/board/boardcontroller.h"
#include "ui/common/prompts.h"
#include "uitesthelpers.h"

#include <QFile>
#include <QJsonArray>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace trainyard;
using namespace trainyard::testing;

namespace {

QString writeExperiment(const QTemporaryDir &dir)
{
    const QJsonObject experiment{
        {QStringLiteral("name"), QStringLiteral("autosave-test")},
        {QStringLiteral("runs_root"), QStringLiteral("runs")}, // relative to the file
        {QStringLiteral("lanes"),
         QJsonArray{QJsonObject{{QStringLiteral("device"), QStringLiteral("cpu")},
                                {QStringLiteral("runs"), QJsonArray{tinyKgSpec(QStringLiteral("a"))}}}}}};
    return writeExperimentFile(dir, experiment);
}

} // namespace

class TestAutosave : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void anEditIsKeptUntilSaved()
    {
        QTemporaryDir dir;
        const QString path = writeExperiment(dir);
        BoardController board;
        SessionController sessions(&board);
        Autosave autosave(&sessions, &board);
        QVERIFY(sessions.openFile(path));
        const QString copy = Autosave::pathFor(path, QString());
        QVERIFY(!QFile::exists(copy)); // nothing to keep yet
        QVERIFY(sessions.document()->addLane(QStringLiteral("cpu"), 2));
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(copy), 5000); // on its own, a moment after the edit
        const auto kept = Experiment::load(copy, nullptr);
        QVERIFY(kept);
        QCOMPARE(kept->lanes.size(), 2);
        QVERIFY(sessions.saveTo(path));
        QVERIFY(!QFile::exists(copy));
        // Undone back to the file: nothing unsaved, no copy.
        QVERIFY(sessions.document()->addLane(QStringLiteral("cpu"), 1));
        autosave.writeNow();
        QVERIFY(QFile::exists(copy));
        board.undo();
        QVERIFY(!QFile::exists(copy));
        sessions.closeWithoutAsking();
    }

    void aCrashedBoardIsOfferedOnOpen_data()
    {
        QTest::addColumn<bool>("recover");
        QTest::newRow("recover") << true;
        QTest::newRow("discard") << false;
    }

    void aCrashedBoardIsOfferedOnOpen()
    {
        QFETCH(bool, recover);
        QTemporaryDir dir;
        const QString path = writeExperiment(dir);
        const QString copy = Autosave::pathFor(path, QString());
        {
            BoardController board;
            SessionController sessions(&board);
            Autosave autosave(&sessions, &board);
            QVERIFY(sessions.openFile(path));
            QVERIFY(sessions.document()->addLane(QStringLiteral("cpu"), 3));
            autosave.writeNow();
            // A crash leaves the copy behind; a clean close would take it.
            QVERIFY(QFile::copy(copy, copy + QStringLiteral(".crash")));
            sessions.closeWithoutAsking();
        }
        QVERIFY(QFile::rename(copy + QStringLiteral(".crash"), copy));
        QVERIFY(!Autosave::recoverable(path).isEmpty());

        BoardController board;
        SessionController sessions(&board);
        Autosave autosave(&sessions, &board);
        QString askedFor;
        ScriptedPrompts prompts;
        sessions.setPrompts(&prompts);
        prompts.recovery = [&](const QString &name, const QDateTime &savedAt) {
            askedFor = name;
            return savedAt.isValid() && recover;
        };
        QVERIFY(sessions.openFile(path));
        QCOMPARE(askedFor, QStringLiteral("autosave-test"));
        Orchestrator *orchestrator = sessions.session()->orchestrator();
        if (recover) {
            QCOMPARE(orchestrator->board()->laneCount(), 2);
            QCOMPARE(orchestrator->laneDevices()->lane(1).slotCount, 3);
            QVERIFY(!sessions.document()->isClean()); // still to be saved
            QVERIFY(sessions.title().contains(QLatin1Char('*')));
            // The relative runs root still means the folder beside the file.
            QCOMPARE(sessions.session()->runsRoot(), dir.filePath(QStringLiteral("runs")));
        } else {
            QCOMPARE(orchestrator->board()->laneCount(), 1);
            QVERIFY(sessions.document()->isClean());
            QVERIFY(!QFile::exists(copy));
        }
        sessions.closeWithoutAsking();
    }

    void aNewBoardIsOfferedAtStart()
    {
        BoardController board;
        SessionController sessions(&board);
        Autosave autosave(&sessions, &board);
        QVERIFY(sessions.newExperiment());
        const QString name = sessions.session()->name();
        QVERIFY(sessions.document()->addLane(QStringLiteral("cpu"), 1));
        autosave.writeNow();
        QCOMPARE(Autosave::newestUnsavedCopy(), Autosave::pathFor(QString(), name));
        // The next start (SessionController::openAtStart) asks, and recovers it.
        QString askedFor;
        ScriptedPrompts prompts;
        sessions.setPrompts(&prompts);
        prompts.recovery = [&](const QString &experiment, const QDateTime &) {
            askedFor = experiment;
            return true;
        };
        QVERIFY(sessions.openAtStart());
        QCOMPARE(askedFor, name);
        QCOMPARE(sessions.session()->name(), name);
        QCOMPARE(sessions.session()->orchestrator()->board()->laneCount(), 2);
        QVERIFY(!sessions.document()->isClean());
        sessions.document()->markSaved(); // as Discard would: the copy goes
        QVERIFY(Autosave::newestUnsavedCopy().isEmpty());
        sessions.closeWithoutAsking();
    }

    void theNextStartOpensTheLastExperiment()
    {
        QTemporaryDir dir;
        const QString path = writeExperiment(dir);
        BoardController board;
        SessionController sessions(&board);
        QVERIFY(sessions.openFile(path));
        QCOMPARE(SessionController::startupFile(), QFileInfo(path).absoluteFilePath());
        QVERIFY(sessions.openDemo());
        QCOMPARE(SessionController::startupFile(), QString()); // the demo
        sessions.closeWithoutAsking();
    }
};

QTEST_MAIN(TestAutosave)
#include "tst_autosave.moc"
