// A run folder that holds results is history: Retry,
// Start of an ended run, Undo of a removal and `trainyard run
// --retry-failed` resume from the run's checkpoint where it did not finish,
// else start a new attempt that keeps the old folder, byte for byte, as
// NAME.attempt-N. Core tests with the fake worker, `trainyard run` as a
// process, and the window's Retry and Undo.
//
// Each test function's first comment line ("Fault: ... | User sees: ... |
// Kept: ...") feeds docs/reliability.md.

#include "metrics/metricstore.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/dispatch/startplanner.h"
#include "orchestration/document/experimentdocument.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"
#include "tests/helpers/buildprograms.h"
#include "tests/orchestration/testutil.h"
#include "ui/app/desktopapp.h"
#include "ui/app/mainwindow.h"
#include "ui/board/boardcontroller.h"
#include "ui/board/boardview.h"
#include "ui/board/cardtext.h"
#include "ui/common/prompts.h"
#include "ui/plot/plotwidget.h"
#include "ui/runs/runtablemodel.h"

#include <QDir>
#include <QDirIterator>
#include <QProcess>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace trainyard;
using namespace trainyard::test;

namespace {

// Every file under `dir` (relative path -> bytes).
QMap<QString, QByteArray> snapshot(const QString &dir)
{
    QMap<QString, QByteArray> files;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        files.insert(QDir(dir).relativeFilePath(path), readFile(path));
    }
    return files;
}

// The steps of the metric lines of a metrics.jsonl, in file order.
QList<int> metricSteps(const QString &path)
{
    QList<int> steps;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return steps;
    }
    while (!f.atEnd()) {
        const QJsonObject o = QJsonDocument::fromJson(f.readLine()).object();
        if (o.value(QLatin1String("type")).toString() == QLatin1String("metric")) {
            steps.append(o.value(QLatin1String("step")).toInt());
        }
    }
    return steps;
}

// `count` steps from `from` on.
QList<int> range(int from, int count)
{
    QList<int> out;
    for (int i = 0; i < count; ++i) {
        out.append(from + i);
    }
    return out;
}

} // namespace

class TestHistory : public QObject
{
    Q_OBJECT

private:
    // A session on one CPU lane holding `spec`, the fake worker set.
    std::unique_ptr<Session> open(const QString &root, const QJsonObject &spec)
    {
        auto session = std::make_unique<Session>();
        QStringList errors;
        if (!session->open(
                experiment(experimentJson(QStringLiteral("history"), root, {lane(QStringLiteral("cpu"), 1, {spec})})),
                QString(), &errors)) {
            qWarning("%s", qPrintable(errors.join(QLatin1Char('\n'))));
            return nullptr;
        }
        session->orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
        return session;
    }

    // Starts `id` alone and waits until it has ended.
    static bool runToEnd(Orchestrator *orch, RunId id)
    {
        QString error;
        if (!orch->runActions()->startRun(id, &error)) {
            qWarning("%s", qPrintable(error));
            return false;
        }
        return QTest::qWaitFor([&] { return isTerminal(orch->runs()->value(id).state); }, 15000);
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        QStandardPaths::setTestModeEnabled(true);
        initDesktopApp();
    }

    // Fault: Retry of a finished run (twice) | User sees: the run trains again from step 1 in its folder; the runs table lists NAME.attempt-1 and NAME.attempt-2, finished | Kept: the earlier attempts' metrics.jsonl, checkpoints, worker.log and status.json byte for byte under NAME.attempt-N; the notes in every folder
    void retryOfAFinishedRunKeepsItAsAnAttempt()
    {
        QTemporaryDir dir;
        const QString root = dir.filePath(QStringLiteral("runs"));
        auto s = open(root, fakeSpec(QStringLiteral("done"), 30, 2));
        QVERIFY(s);
        Orchestrator *orch = s->orchestrator();
        const RunId id = orch->runs()->findByName(QStringLiteral("done"));
        RunStore store(root);
        RunNotes notes;
        notes.note = QStringLiteral("the baseline");
        QVERIFY(store.writeNotes(QStringLiteral("done"), notes));
        QVERIFY(runToEnd(orch, id));
        QCOMPARE(orch->runs()->value(id).state, RunState::Finished);
        const QString folder = store.runDir(QStringLiteral("done"));
        const QMap<QString, QByteArray> first = snapshot(folder);
        QVERIFY(first.contains(QStringLiteral("checkpoints/fake.ckpt")));
        QCOMPARE(metricSteps(folder + QStringLiteral("/metrics.jsonl")), range(1, 30));
        QVERIFY(!orch->startPlanner()->resumesOnRetry(id)); // it finished: its checkpoint is its end
        QCOMPARE(orch->startPlanner()->attemptKeptOnRetry(id), QStringLiteral("done.attempt-1"));

        QSignalSpy archived(orch->supervisor(), &Supervisor::attemptArchived);
        QVERIFY(orch->runActions()->retryRun(id));
        QVERIFY(runToEnd(orch, id));
        QCOMPARE(orch->runs()->value(id).state, RunState::Finished);
        QCOMPARE(archived.count(), 1);
        QCOMPARE(archived.at(0).at(1).toString(), store.runDir(QStringLiteral("done.attempt-1")));
        QCOMPARE(snapshot(store.runDir(QStringLiteral("done.attempt-1"))), first);
        // The new attempt in NAME, from step 1, with the run's notes.
        QCOMPARE(metricSteps(folder + QStringLiteral("/metrics.jsonl")), range(1, 30));
        QCOMPARE(store.readNotes(QStringLiteral("done")), notes);
        const QMap<QString, QByteArray> second = snapshot(folder);

        QVERIFY(orch->runActions()->retryRun(id));
        QVERIFY(runToEnd(orch, id));
        QCOMPARE(snapshot(store.runDir(QStringLiteral("done.attempt-1"))), first);
        QCOMPARE(snapshot(store.runDir(QStringLiteral("done.attempt-2"))), second);
        QStringList names;
        for (const RunRecord &run : store.readHistory()) {
            names << run.info.name + QLatin1Char(' ') + run.stateName();
        }
        QCOMPARE(names, (QStringList{QStringLiteral("done finished"), QStringLiteral("done.attempt-1 finished"),
                                     QStringLiteral("done.attempt-2 finished")}));
    }

    // Fault: Retry of a finished run whose folder cannot be renamed (the runs root made immutable with chattr +i) | User sees: the run fails at once: "not started: its earlier results in … could not be kept as an attempt (…); nothing in the folder was changed" | Kept: the whole folder byte for byte, status.json still "finished"
    void aRetryThatCannotKeepTheAttemptChangesNothing()
    {
        QTemporaryDir dir;
        const QString root = dir.filePath(QStringLiteral("runs"));
        auto s = open(root, fakeSpec(QStringLiteral("kept"), 20, 2));
        QVERIFY(s);
        Orchestrator *orch = s->orchestrator();
        const RunId id = orch->runs()->findByName(QStringLiteral("kept"));
        QVERIFY(runToEnd(orch, id));
        QCOMPARE(orch->runs()->value(id).state, RunState::Finished);
        const QString folder = RunStore(root).runDir(QStringLiteral("kept"));
        const QMap<QString, QByteArray> before = snapshot(folder);

        // Only an immutable folder stops root's rename; elsewhere skip.
        if (QProcess::execute(QStringLiteral("chattr"), {QStringLiteral("+i"), root}) != 0) {
            QSKIP("chattr +i is not possible here (needs root and a file system that supports it)");
        }
        const auto unlock = qScopeGuard([&] {
            QProcess::execute(QStringLiteral("chattr"), {QStringLiteral("-i"), root});
        });
        QString error;
        QVERIFY(orch->runActions()->retryRun(id, true, &error));
        QVERIFY(!orch->runActions()->startRun(id, &error));
        QCOMPARE(orch->runs()->value(id).state, RunState::Failed);
        QVERIFY2(orch->runs()->value(id).message.contains(QStringLiteral("could not be kept as an attempt")),
                 qPrintable(orch->runs()->value(id).message));
        QCOMPARE(snapshot(folder), before);
        QVERIFY(!QFileInfo::exists(root + QStringLiteral("/kept.attempt-1")));
        s->metrics()->flush();
        const MetricSeries *loss = s->metrics()->series(id, QStringLiteral("loss"));
        QVERIFY(loss && loss->size() == 20); // its curve is still there
    }

    // Fault: Retry of a run that failed after a checkpoint | User sees: it resumes from its checkpoint ("resumed from step 10"), no question, no new attempt | Kept: metrics.jsonl only grows (the first attempt's bytes are its start), checkpoints/
    void retryOfAFailedRunWithACheckpointResumes()
    {
        QTemporaryDir dir;
        const QString root = dir.filePath(QStringLiteral("runs"));
        auto s = open(root, fakeSpec(QStringLiteral("f"), 30, 2, QStringLiteral("fail"), 12));
        QVERIFY(s);
        Orchestrator *orch = s->orchestrator();
        const RunId id = orch->runs()->findByName(QStringLiteral("f"));
        QVERIFY(runToEnd(orch, id));
        QCOMPARE(orch->runs()->value(id).state, RunState::Failed);
        const QString metrics = orch->runs()->value(id).runDir + QStringLiteral("/metrics.jsonl");
        const QByteArray before = readFile(metrics);
        QVERIFY(orch->startPlanner()->resumesOnRetry(id));
        QVERIFY(orch->startPlanner()->attemptKeptOnRetry(id).isEmpty());
        QVERIFY(orch->runActions()->retryRun(id));
        QVERIFY(runToEnd(orch, id));
        const QByteArray after = readFile(metrics);
        QVERIFY(after.size() > before.size());
        QVERIFY(after.startsWith(before));
        QVERIFY(after.contains("resumed from step 10"));
        QCOMPARE(metricSteps(metrics), range(1, 11) + range(11, 1)); // failed again at step 12, from 10
        QVERIFY(!QFileInfo::exists(root + QStringLiteral("/f.attempt-1")));
    }

    // Fault: `trainyard run --retry-failed` on an experiment whose run failed after a checkpoint (a fault of its first start only; the spec unchanged) | User sees: the run resumes from its checkpoint and finishes; exit status 0 | Kept: checkpoints/ and metrics.jsonl (it only grows: steps 1-11, then 11-40)
    void retryFailedOnTheCommandLineResumes()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("exp.json"));
        const QString root = dir.filePath(QStringLiteral("runs"));
        const auto write = [&](const QString &behaviour) {
            return writeFile(
                file, QJsonDocument(experimentJson(QStringLiteral("retry"), root,
                                                   {lane(QStringLiteral("cpu"), 1,
                                                         {fakeSpec(QStringLiteral("p"), 40, 2, behaviour, 12)})}))
                          .toJson());
        };
        const auto trainyard = [&](const QStringList &args) {
            QProcess process;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("TRAINYARD_WORKER"), fakeWorker());
            process.setProcessEnvironment(env);
            process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
            process.start(buildProgram("TRAINYARD_BIN"), QStringList{QStringLiteral("run")} + args + QStringList{file});
            if (!process.waitForFinished(30000)) {
                return -1;
            }
            return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        };
        QVERIFY(write(QStringLiteral("fail-once")));
        QCOMPARE(trainyard({}), 1); // the run failed
        const QString folder = RunStore(root).runDir(QStringLiteral("p"));
        QVERIFY(QFileInfo::exists(folder + QStringLiteral("/checkpoints/fake.ckpt")));
        const QByteArray before = readFile(folder + QStringLiteral("/metrics.jsonl"));

        // The same spec: fake-worker's "fail-once" trains on when resumed.
        QCOMPARE(trainyard({QStringLiteral("--retry-failed")}), 0);
        const QByteArray after = readFile(folder + QStringLiteral("/metrics.jsonl"));
        QVERIFY(after.startsWith(before));
        QVERIFY(after.contains("resumed from step 10"));
        QCOMPARE(metricSteps(folder + QStringLiteral("/metrics.jsonl")), range(1, 11) + range(11, 30));
        QVERIFY(QFileInfo::exists(folder + QStringLiteral("/checkpoints/fake.ckpt")));
        QCOMPARE(readJsonFile(folder + QStringLiteral("/status.json")).value(QLatin1String("state")).toString(),
                 QStringLiteral("finished"));
        QVERIFY(!QFileInfo::exists(root + QStringLiteral("/p.attempt-1")));
    }

    // Fault: a fresh start over folders that must not be emptied: one holding results (a run re-added under an old name), one that is a link, one with only spec.json and notes.json | User sees: the run starts in a new folder | Kept: the results under NAME.attempt-1, the link's target untouched, the notes
    void aFreshStartNeverEmptiesAFolderWithResults()
    {
        QTemporaryDir dir;
        const QString root = dir.filePath(QStringLiteral("runs"));
        RunStore store(root);
        QVERIFY(store.ensureRoot(nullptr));
        // Results of an earlier run of that name (no status: it looks queued).
        QVERIFY(QDir().mkpath(root + QStringLiteral("/old/checkpoints")));
        QVERIFY(writeFile(root + QStringLiteral("/old/worker.log"), "first output\n"));
        QVERIFY(writeFile(root + QStringLiteral("/old/checkpoints/fake.ckpt"), "3 0.1\n"));
        const QMap<QString, QByteArray> old = snapshot(root + QStringLiteral("/old"));
        QVERIFY(store.hasResults(QStringLiteral("old")));
        QVERIFY(!store.clearRunDir(QStringLiteral("old")));
        QCOMPARE(snapshot(root + QStringLiteral("/old")), old);
        // Nothing but Trainyard's and the user's files: no results.
        QVERIFY(store.prepareRunDir(QStringLiteral("fresh"), fakeSpec(QStringLiteral("fresh")), nullptr));
        QVERIFY(store.writeNotes(QStringLiteral("fresh"), RunNotes{{}, QStringLiteral("keep")}));
        QVERIFY(!store.hasResults(QStringLiteral("fresh")));
        // A link is never renamed through.
        QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("elsewhere"))));
        QVERIFY(QFile::link(dir.filePath(QStringLiteral("elsewhere")), root + QStringLiteral("/link")));
        QString error;
        QVERIFY(!store.archiveRunDir(QStringLiteral("link"), nullptr, &error));
        QVERIFY2(error.contains(QStringLiteral("symbolic link")), qPrintable(error));
        // Near the 100-character limit the attempt's name is longer, and read.
        const QString longName(100, QLatin1Char('x'));
        QVERIFY(QDir().mkpath(store.runDir(longName)));
        QVERIFY(writeFile(store.runDir(longName) + QStringLiteral("/metrics.jsonl"),
                          R"({"type":"metric","step":1,"wall":1,"loss":0.5})"
                          "\n"));
        QVERIFY(writeFile(store.runDir(longName) + QStringLiteral("/spec.json"), "{}"));
        QString archived;
        QVERIFY(store.archiveRunDir(longName, &archived, &error));
        QCOMPARE(archived, longName + QStringLiteral(".attempt-1"));
        QCOMPARE(RunStore::attemptNumber(archived), 1);
        QVERIFY(store.runNames().contains(archived));

        auto s = open(root, fakeSpec(QStringLiteral("old"), 10, 2));
        QVERIFY(s);
        Orchestrator *orch = s->orchestrator();
        const RunId id = orch->runs()->findByName(QStringLiteral("old"));
        QCOMPARE(orch->runs()->value(id).state, RunState::Queued);
        QVERIFY(runToEnd(orch, id));
        QCOMPARE(orch->runs()->value(id).state, RunState::Finished);
        QCOMPARE(snapshot(root + QStringLiteral("/old.attempt-1")), old);
        QCOMPARE(metricSteps(root + QStringLiteral("/old/metrics.jsonl")), range(1, 10));

        QVERIFY(store.clearRunDir(QStringLiteral("fresh")));
        QCOMPARE(store.readNotes(QStringLiteral("fresh")).note, QStringLiteral("keep"));
        QVERIFY(!QFileInfo::exists(root + QStringLiteral("/fresh/spec.json")));
    }

    // Fault: two experiments share a runs root and a run name x (TransE dim 16, then dim 32, the real worker); then x's spec edited after it finished (dim 64, more epochs); then only its report and eval intervals, then the file moved | User sees: `trainyard check` and the window's card say x's folder holds another spec's results ("model.dim: 16 there, 32 here") kept as x.attempt-1 when it starts, Start and Start all ask first; `trainyard run` trains each spec; an interval change or a moved file is the same spec ("nothing was started") | Kept: each earlier spec's folder, finished, under x.attempt-N; its spec.json names what trained it
    void aDifferentSpecUnderTheSameNameIsANewAttempt()
    {
        const QString worker = qEnvironmentVariable("TRAINYARD_WORKER");
        if (worker.isEmpty() || !QFileInfo(worker).isExecutable()) {
            QSKIP("TRAINYARD_WORKER is not set or not executable");
        }
        QTemporaryDir dir;
        const QString root = dir.filePath(QStringLiteral("runs"));
        const auto write = [&](const QString &file, const QString &name, int dim, int epochs,
                               const QJsonObject &report = {}) {
            QJsonObject spec = tinyKg(QStringLiteral("x"));
            spec.insert(QStringLiteral("model"),
                        QJsonObject{{QStringLiteral("type"), QStringLiteral("transe")}, {QStringLiteral("dim"), dim}});
            spec.insert(QStringLiteral("train"),
                        QJsonObject{{QStringLiteral("epochs"), epochs}, {QStringLiteral("batch_size"), 64}});
            if (!report.isEmpty()) {
                spec.insert(QStringLiteral("report"), report);
                spec.insert(QStringLiteral("eval"), QJsonObject{{QStringLiteral("every_epochs"), 1}});
            }
            return writeFile(
                dir.filePath(file),
                QJsonDocument(experimentJson(name, root, {lane(QStringLiteral("cpu"), 1, {spec})})).toJson());
        };
        QString out;
        const auto trainyard = [&](const QString &command, const QString &file) {
            QProcess process;
            process.start(buildProgram("TRAINYARD_BIN"), {command, dir.filePath(file)});
            if (!process.waitForFinished(60000)) {
                return -1;
            }
            out = QString::fromUtf8(process.readAllStandardOutput() + process.readAllStandardError());
            return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        };
        const auto specOf = [&](const QString &folder) {
            const QJsonObject spec = readJsonFile(root + QLatin1Char('/') + folder + QStringLiteral("/spec.json"));
            return qMakePair(spec.value(QStringLiteral("model")).toObject().value(QStringLiteral("dim")).toInt(),
                             spec.value(QStringLiteral("train")).toObject().value(QStringLiteral("epochs")).toInt());
        };
        const auto finished = [&](const QString &folder) {
            return readJsonFile(root + QLatin1Char('/') + folder + QStringLiteral("/status.json"))
                       .value(QStringLiteral("state"))
                       .toString()
                   == QLatin1String("finished");
        };

        QVERIFY(write(QStringLiteral("one.json"), QStringLiteral("expone"), 16, 2));
        QVERIFY(write(QStringLiteral("two.json"), QStringLiteral("exptwo"), 32, 2));
        QCOMPARE(trainyard(QStringLiteral("run"), QStringLiteral("one.json")), 0);
        QCOMPARE(specOf(QStringLiteral("x")), qMakePair(16, 2));
        const QMap<QString, QByteArray> first = snapshot(root + QStringLiteral("/x"));

        // check says so before anything starts; run trains dim 32.
        QCOMPARE(trainyard(QStringLiteral("check"), QStringLiteral("two.json")), 0);
        QVERIFY2(out.contains(QStringLiteral("x: new attempt: its folder holds another spec's results (model.dim: 16 "
                                             "there, 32 here); they are kept as x.attempt-1 when it starts")),
                 qPrintable(out));
        QCOMPARE(snapshot(root + QStringLiteral("/x")), first);
        QCOMPARE(trainyard(QStringLiteral("run"), QStringLiteral("two.json")), 0);
        QVERIFY2(!out.contains(QStringLiteral("nothing was started")), qPrintable(out));
        QCOMPARE(specOf(QStringLiteral("x")), qMakePair(32, 2));
        QVERIFY(finished(QStringLiteral("x")));
        QCOMPARE(snapshot(root + QStringLiteral("/x.attempt-1")), first);

        // The finished run's spec edited: more epochs is a new attempt too.
        QVERIFY(write(QStringLiteral("two.json"), QStringLiteral("exptwo"), 64, 3));
        QCOMPARE(trainyard(QStringLiteral("run"), QStringLiteral("two.json")), 0);
        QCOMPARE(specOf(QStringLiteral("x")), qMakePair(64, 3));
        QVERIFY(finished(QStringLiteral("x")));
        QCOMPARE(specOf(QStringLiteral("x.attempt-2")), qMakePair(32, 2));
        QVERIFY(finished(QStringLiteral("x.attempt-2")));

        // How often it reports and evaluates: the same spec, its result stands.
        QVERIFY(write(QStringLiteral("two.json"), QStringLiteral("exptwo"), 64, 3,
                      QJsonObject{{QStringLiteral("every_steps"), 5}}));
        QCOMPARE(trainyard(QStringLiteral("run"), QStringLiteral("two.json")), 0);
        QVERIFY2(out.contains(QStringLiteral("nothing was started: every run of exptwo had finished already")),
                 qPrintable(out));
        QVERIFY(!QFileInfo::exists(root + QStringLiteral("/x.attempt-3")));
        // The file moved (its paths name the same folders): the same spec.
        QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("moved"))));
        QVERIFY(
            QFile::rename(dir.filePath(QStringLiteral("two.json")), dir.filePath(QStringLiteral("moved/two.json"))));
        QCOMPARE(trainyard(QStringLiteral("run"), QStringLiteral("moved/two.json")), 0);
        QVERIFY2(out.contains(QStringLiteral("nothing was started")), qPrintable(out));
        QVERIFY(!QFileInfo::exists(root + QStringLiteral("/x.attempt-3")));

        // The window: the card says why, Start asks before the new attempt.
        QVERIFY(write(QStringLiteral("two.json"), QStringLiteral("exptwo"), 128, 3));
        const QMap<QString, QByteArray> third = snapshot(root + QStringLiteral("/x"));
        MainWindow window;
        window.useScriptedPrompts();
        window.setEditorEnabled(false);
        QVERIFY(window.openFile(dir.filePath(QStringLiteral("two.json"))));
        Orchestrator *orch = window.session()->orchestrator();
        const RunId id = orch->runs()->findByName(QStringLiteral("x"));
        QCOMPARE(orch->runs()->value(id).state, RunState::Queued);
        QVERIFY2(CardText::statusLine(orch->runs()->value(id))
                     .contains(QStringLiteral("another spec's results (model.dim: 64 there, 128 here)")),
                 qPrintable(orch->runs()->value(id).message));
        QStringList asked;
        window.useScriptedPrompts()->attempts = [&](const QString &question) {
            asked << question;
            return false;
        };
        window.boardView()->selectRuns({id});
        window.startSelected();
        QCOMPARE(asked.size(), 1);
        QVERIFY2(asked.at(0).contains(QStringLiteral("x: its folder holds another spec's results (model.dim: 64 there, "
                                                     "128 here). Start starts attempt 4; attempt 3 is kept as "
                                                     "x.attempt-3")),
                 qPrintable(asked.at(0)));
        QCOMPARE(orch->runs()->value(id).state, RunState::Queued);
        // Start all asks too, naming it.
        QStringList problems;
        window.useScriptedPrompts()->start = [&](const QStringList &told) {
            problems = told;
            return false;
        };
        window.startAll();
        QTRY_VERIFY_WITH_TIMEOUT(!problems.isEmpty(), 15000);
        QVERIFY2(problems.join(QLatin1Char('\n'))
                     .contains(QStringLiteral("x: new attempt: its folder holds another spec's results (model.dim: 64 "
                                              "there, 128 here); they are kept as x.attempt-3 when it starts")),
                 qPrintable(problems.join(QLatin1Char('\n'))));
        QCOMPARE(orch->runs()->value(id).state, RunState::Queued);
        QCOMPARE(snapshot(root + QStringLiteral("/x")), third);
    }

    // Fault: beside a finished run y, folders named like its attempts: y.attempt-1 a link to a folder elsewhere, y.attempt-2 a plain file, y.attempt-3 another run's results; an experiment naming a run y.attempt-4; then y with another spec started | User sees: the name y.attempt-4 refused at load ("ending in .attempt-N"); y says its folder is kept as y.attempt-4, trains, and the runs table lists no link or file as an attempt | Kept: the link (never followed) and what it points to, the file, y.attempt-3 and the first y under y.attempt-4, byte for byte
    void foldersNamedLikeAttemptsAreNeverTaken()
    {
        QTemporaryDir dir;
        const QString root = dir.filePath(QStringLiteral("runs"));
        RunStore store(root);
        {
            auto s = open(root, fakeSpec(QStringLiteral("y"), 10, 2));
            QVERIFY(s);
            const RunId id = s->orchestrator()->runs()->findByName(QStringLiteral("y"));
            QVERIFY(runToEnd(s->orchestrator(), id));
            QCOMPARE(s->orchestrator()->runs()->value(id).state, RunState::Finished);
        }
        const QMap<QString, QByteArray> first = snapshot(root + QStringLiteral("/y"));
        const QString elsewhere = dir.filePath(QStringLiteral("elsewhere"));
        QVERIFY(QDir().mkpath(elsewhere));
        QVERIFY(writeFile(elsewhere + QStringLiteral("/precious"), "not a run's\n"));
        QVERIFY(QFile::link(elsewhere, root + QStringLiteral("/y.attempt-1")));
        QVERIFY(writeFile(root + QStringLiteral("/y.attempt-2"), "a file\n"));
        QVERIFY(QDir().mkpath(root + QStringLiteral("/y.attempt-3")));
        QVERIFY(writeFile(root + QStringLiteral("/y.attempt-3/metrics.jsonl"),
                          R"({"type":"metric","step":1,"wall":1,"loss":0.5})"
                          "\n"));
        const QMap<QString, QByteArray> third = snapshot(root + QStringLiteral("/y.attempt-3"));

        QStringList errors;
        QVERIFY(!Experiment::fromJson(
            experimentJson(QStringLiteral("history"), root,
                           {lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("y.attempt-4"))})}),
            &errors));
        QVERIFY2(errors.join(QLatin1Char('\n')).contains(QStringLiteral("ending in .attempt-N")),
                 qPrintable(errors.join(QLatin1Char('\n'))));

        auto s = open(root, fakeSpec(QStringLiteral("y"), 12, 2));
        QVERIFY(s);
        Orchestrator *orch = s->orchestrator();
        const RunId id = orch->runs()->findByName(QStringLiteral("y"));
        QCOMPARE(orch->runs()->value(id).state, RunState::Queued);
        QVERIFY2(orch->runs()->value(id).message.contains(QStringLiteral("kept as y.attempt-4 when it starts")),
                 qPrintable(orch->runs()->value(id).message));
        QVERIFY(runToEnd(orch, id));
        QCOMPARE(orch->runs()->value(id).state, RunState::Finished);
        QCOMPARE(snapshot(root + QStringLiteral("/y.attempt-4")), first);
        QCOMPARE(metricSteps(root + QStringLiteral("/y/metrics.jsonl")), range(1, 12));
        QVERIFY(QFileInfo(root + QStringLiteral("/y.attempt-1")).isSymLink());
        QCOMPARE(QDir(elsewhere).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
                 QStringList{QStringLiteral("precious")});
        QCOMPARE(readFile(elsewhere + QStringLiteral("/precious")), QByteArray("not a run's\n"));
        QCOMPARE(readFile(root + QStringLiteral("/y.attempt-2")), QByteArray("a file\n"));
        QCOMPARE(snapshot(root + QStringLiteral("/y.attempt-3")), third);
        const QStringList names = store.runNames();
        QVERIFY2(!names.contains(QStringLiteral("y.attempt-1")) && !names.contains(QStringLiteral("y.attempt-2")),
                 qPrintable(names.join(QLatin1Char(' '))));
    }

    // Fault: Remove of a finished run, Undo, then Start | User sees: the run back finished, with its message, times, curve (sparkline) and colour (its id); Start starts a new attempt | Kept: its folder (Remove never touches it); on Start its files under NAME.attempt-1, none shorter
    void undoOfRemovePutsAFinishedRunBackAsItWas()
    {
        QTemporaryDir dir;
        const QString root = dir.filePath(QStringLiteral("runs"));
        auto s = open(root, fakeSpec(QStringLiteral("kept"), 25, 2));
        QVERIFY(s);
        Orchestrator *orch = s->orchestrator();
        ExperimentDocument document(s.get());
        BoardController controller;
        controller.setDocument(&document);
        const RunId id = orch->runs()->findByName(QStringLiteral("kept"));
        QVERIFY(runToEnd(orch, id));
        s->metrics()->flush();
        const RunInfo before = orch->runs()->value(id);
        QCOMPARE(before.state, RunState::Finished);
        const MetricSeries *loss = s->metrics()->series(id, QStringLiteral("loss"));
        QVERIFY(loss);
        const std::size_t points = loss->size();
        QCOMPARE(points, std::size_t(25));
        const QMap<QString, QByteArray> files = snapshot(before.runDir);

        QVERIFY(document.removeRuns({id}));
        QVERIFY(!orch->runs()->contains(id));
        QCOMPARE(snapshot(before.runDir), files);
        controller.undo();
        const RunId back = orch->runs()->findByName(QStringLiteral("kept"));
        QCOMPARE(back, id); // the same id: the same colour, the same plot key
        const RunInfo after = orch->runs()->value(back);
        QCOMPARE(after.state, RunState::Finished);
        QCOMPARE(after.message, before.message);
        QCOMPARE(after.exitCode, before.exitCode);
        QCOMPARE(after.started, before.started);
        QCOMPARE(after.ended, before.ended);
        QCOMPARE(after.step, before.step);
        QCOMPARE(after.lane, before.lane);
        loss = s->metrics()->series(back, QStringLiteral("loss"));
        QVERIFY(loss);
        QCOMPARE(loss->size(), points);
        QCOMPARE(orch->dispatcher()->finishedCount(), 1);

        // Start: a new attempt, the old folder kept whole.
        QVERIFY(runToEnd(orch, back));
        QCOMPARE(orch->runs()->value(back).state, RunState::Finished);
        const QMap<QString, QByteArray> kept = snapshot(root + QStringLiteral("/kept.attempt-1"));
        QCOMPARE(kept, files);
        QCOMPARE(metricSteps(before.runDir + QStringLiteral("/metrics.jsonl")), range(1, 25));
    }

    // Fault: Edit of a queued run, the run trained, then Retry (queued again) and Undo of the edit | User sees: "… has run since this edit; duplicate it to change its spec"; the entry leaves the undo history | Kept: the spec the run trained with (its attempt's spec.json says the same)
    void undoOfAnEditIsRefusedOnceTheRunHasRun()
    {
        QTemporaryDir dir;
        const QString root = dir.filePath(QStringLiteral("runs"));
        auto s = open(root, fakeSpec(QStringLiteral("e"), 10, 2));
        QVERIFY(s);
        Orchestrator *orch = s->orchestrator();
        ExperimentDocument document(s.get());
        BoardController controller;
        controller.setDocument(&document);
        QStringList failures;
        connect(&controller, &BoardController::editFailed, this, [&](const QString &m) { failures << m; });
        const RunId id = orch->runs()->findByName(QStringLiteral("e"));
        QJsonObject spec = orch->runs()->value(id).spec;
        QJsonObject train = spec.value(QLatin1String("train")).toObject();
        train.insert(QStringLiteral("seed"), 99);
        spec.insert(QStringLiteral("train"), train);
        QVERIFY(document.editRun(id, spec));
        QVERIFY(runToEnd(orch, id));
        QVERIFY(orch->runActions()->retryRun(id)); // queued again (nothing dispatches)
        QCOMPARE(orch->runs()->value(id).state, RunState::Queued);
        controller.undo();
        QCOMPARE(failures.size(), 1);
        QVERIFY2(failures.at(0).contains(QStringLiteral("has run since this edit")), qPrintable(failures.at(0)));
        QCOMPARE(orch->runs()->value(id).spec, spec);
        QVERIFY(!controller.undoStack()->canUndo());
    }

    // Fault: Retry in the window on a finished run's card; Cancel, then OK | User sees: a question "kept finished. Retry starts attempt 2; attempt 1 is kept as kept.attempt-1 …"; Cancel leaves the run finished; OK trains it again, and the runs table lists kept.attempt-1 with its curve | Kept: after Cancel everything; after OK the first attempt's files under kept.attempt-1
    void retryInTheWindowAsksBeforeANewAttempt()
    {
        QTemporaryDir dir;
        const QString root = dir.filePath(QStringLiteral("runs"));
        const QString file = dir.filePath(QStringLiteral("exp.json"));
        QVERIFY(writeFile(file, QJsonDocument(experimentJson(QStringLiteral("window-retry"), root,
                                                             {lane(QStringLiteral("cpu"), 1,
                                                                   {fakeSpec(QStringLiteral("kept"), 20, 2),
                                                                    fakeSpec(QStringLiteral("stopped"), 400, 5)})}))
                                    .toJson()));
        MainWindow window;
        window.useScriptedPrompts();
        window.setEditorEnabled(false);
        QVERIFY(window.openFile(file));
        Orchestrator *orch = window.session()->orchestrator();
        orch->supervisor()->setWorkerProgram(fakeWorker());
        const RunId id = orch->runs()->findByName(QStringLiteral("kept"));
        QVERIFY(runToEnd(orch, id));
        QCOMPARE(orch->runs()->value(id).state, RunState::Finished);
        const QString folder = orch->runs()->value(id).runDir;
        const QMap<QString, QByteArray> files = snapshot(folder);

        QStringList asked;
        bool answer = false;
        window.useScriptedPrompts()->attempts = [&](const QString &question) {
            asked << question;
            return answer;
        };
        window.boardView()->selectRuns({id});
        window.retrySelected();
        QCOMPARE(asked.size(), 1);
        QVERIFY2(asked.at(0).contains(QStringLiteral("kept finished. Retry starts attempt 2; attempt 1 is kept as "
                                                     "kept.attempt-1")),
                 qPrintable(asked.at(0)));
        QCOMPARE(orch->runs()->value(id).state, RunState::Finished);
        QCOMPARE(snapshot(folder), files);
        QVERIFY(!QFileInfo::exists(root + QStringLiteral("/kept.attempt-1")));

        answer = true;
        window.retrySelected();
        QCOMPARE(asked.size(), 2);
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(id).state, RunState::Finished, 15000);
        QCOMPARE(snapshot(root + QStringLiteral("/kept.attempt-1")), files);

        // The earlier attempt is a row of the runs table, and plots.
        window.runTable()->refreshHistory();
        window.runTable()->waitForHistory();
        int row = -1;
        for (int r = 0; r < window.runTable()->rowCount(); ++r) {
            if (window.runTable()->index(r, 0).data(RunTableModel::RunDirRole).toString()
                == root + QStringLiteral("/kept.attempt-1")) {
                row = r;
            }
        }
        QVERIFY(row >= 0);
        QCOMPARE(window.runTable()->pastRun(row)->info.name, QStringLiteral("kept.attempt-1"));
        QCOMPARE(window.runTable()->pastRun(row)->stateName(), QStringLiteral("finished"));
        QVERIFY(window.togglePastRunPlot(row));

        // A stopped run with a checkpoint resumes without asking.
        const RunId stopped = orch->runs()->findByName(QStringLiteral("stopped"));
        QVERIFY(orch->runActions()->startRun(stopped));
        QTRY_VERIFY_WITH_TIMEOUT(
            QFileInfo::exists(orch->runs()->value(stopped).runDir + QStringLiteral("/checkpoints/fake.ckpt")), 15000);
        QVERIFY(orch->runActions()->stopRun(stopped));
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(stopped).state, RunState::Stopped, 15000);
        window.boardView()->selectRuns({stopped});
        window.retrySelected();
        QCOMPARE(asked.size(), 2);
        QTRY_VERIFY_WITH_TIMEOUT(readFile(orch->runs()->value(stopped).runDir + QStringLiteral("/metrics.jsonl"))
                                     .contains("resumed from step"),
                                 15000);
        window.close();
    }
};

QTEST_MAIN(TestHistory)
#include "tst_history.moc"
