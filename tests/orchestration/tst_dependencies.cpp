// Runs that run after other runs (docs/experiment-format.md#after, #rounds,
// #inputs): the file's checks (unknown names, cycles, folders a lane cannot
// read, {after.NAME.FIELD}) and `trainyard check` refusing them; rounds
// expanded and written back; on a board with fake workers a run waits until
// its predecessors finished, a failed or stopped one keeps it waiting and a
// Retry releases it; edits of `after`; what a program and a worker run get
// from their predecessors; and a board closed and opened again in the
// middle of a round.

#include "orchestration/board/board.h"
#include "orchestration/dependencies/dependencies.h"
#include "orchestration/dependencies/runinputs.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/dispatch/startplanner.h"
#include "orchestration/experiment/rounds.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"
#include "tests/helpers/buildprograms.h"
#include "testutil.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace trainyard;
using namespace trainyard::test;

namespace {

QJsonObject after(QJsonObject spec, const QJsonValue &names)
{
    spec.insert(QStringLiteral("after"), names);
    return spec;
}

QJsonArray names(const QStringList &list)
{
    return QJsonArray::fromStringList(list);
}

QStringList problemsOf(const QJsonObject &json)
{
    QStringList errors;
    Experiment::fromJson(json, &errors);
    return errors;
}

QString sourceDir()
{
    return qEnvironmentVariable("TRAINYARD_SOURCE_DIR");
}

// A program run of tests/programs/inputs.py writing what it got to `out`.
QJsonObject inputsRun(const QString &name, const QString &out, int steps, const QStringList &args = {})
{
    QJsonArray argv{QStringLiteral("python3"), sourceDir() + QStringLiteral("/tests/programs/inputs.py"), out,
                    QString::number(steps)};
    for (const QString &a : args) {
        argv.append(a);
    }
    return QJsonObject{{QStringLiteral("name"), name},
                       {QStringLiteral("program"), QJsonObject{{QStringLiteral("argv"), argv}}}};
}

QJsonObject roundsEntry(const QString &name, int count, const QJsonArray &clients, const QJsonObject &aggregate)
{
    return QJsonObject{{QStringLiteral("rounds"), QJsonObject{{QStringLiteral("name"), name},
                                                              {QStringLiteral("count"), count},
                                                              {QStringLiteral("clients"), clients},
                                                              {QStringLiteral("aggregate"), aggregate}}}};
}

} // namespace

class TestDependencies : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_counter = 0;

    std::unique_ptr<Session> open(const QJsonArray &lanes, const QString &root = QString())
    {
        auto session = std::make_unique<Session>();
        const QString runs = root.isEmpty() ? m_dir.filePath(QStringLiteral("exp%1").arg(++m_counter)) : root;
        QStringList errors;
        if (!session->open(experiment(experimentJson(QStringLiteral("deps"), runs, lanes)), QString(), &errors)) {
            qWarning("%s", qPrintable(errors.join(QLatin1Char('\n'))));
        }
        session->orchestrator()->supervisor()->setWorkerProgram(fakeWorker());
        session->orchestrator()->supervisor()->setStopTimeout(2000);
        return session;
    }

    static RunInfo run(Session *s, const QString &name)
    {
        return s->orchestrator()->runs()->value(s->orchestrator()->runs()->findByName(name));
    }
    static RunId id(Session *s, const QString &name) { return s->orchestrator()->runs()->findByName(name); }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // ---- the file -----------------------------------------------------------

    void fileRefusesUnknownNamesAndCyclesWithTheirPaths()
    {
        const QJsonObject a = fakeSpec(QStringLiteral("a")), b = fakeSpec(QStringLiteral("b"));
        // An unknown name, in a list and alone.
        QStringList errors =
            problemsOf(experimentJson(QStringLiteral("x"), QString(),
                                      {lane(QStringLiteral("cpu"), 1,
                                            {a, after(b, names({QStringLiteral("a"), QStringLiteral("nope")})),
                                             after(fakeSpec(QStringLiteral("c")), QStringLiteral("gone"))})}));
        QVERIFY2(errors.contains(QStringLiteral(
                     "lanes[0].runs[1].after[1]: no run, repeat group, rounds or sweep is named \"nope\"")),
                 qPrintable(errors.join(QLatin1Char('\n'))));
        QVERIFY(errors.contains(
            QStringLiteral("lanes[0].runs[2].after: no run, repeat group, rounds or sweep is named \"gone\"")));
        QCOMPARE(errors.size(), 2);
        // Runs that would wait for one another, across lanes, and one that waits for itself.
        errors = problemsOf(experimentJson(
            QStringLiteral("x"), QString(),
            {lane(QStringLiteral("cpu"), 1, {after(a, names({QStringLiteral("c")})), after(b, QStringLiteral("a"))}),
             lane(QStringLiteral("cpu"), 1,
                  {after(fakeSpec(QStringLiteral("c")), QStringLiteral("b")),
                   after(fakeSpec(QStringLiteral("d")), QStringLiteral("d"))})}));
        QVERIFY2(errors.contains(QStringLiteral("lanes[0].runs[0].after: its runs would wait for one another: a → c "
                                                "→ b → a (each runs after the next)")),
                 qPrintable(errors.join(QLatin1Char('\n'))));
        QVERIFY(errors.contains(QStringLiteral(
            "lanes[1].runs[1].after: its runs would wait for one another: d → d (each runs after the next)")));
        QCOMPARE(errors.size(), 2);
        // Not a list of names.
        errors = problemsOf(experimentJson(QStringLiteral("x"), QString(),
                                           {lane(QStringLiteral("cpu"), 1, {a, after(b, QJsonArray{1, 2})})}));
        QVERIFY2(errors.value(0).startsWith(QStringLiteral("lanes[0].runs[1].after[0]: expected a run name, got 1")),
                 qPrintable(errors.join(QLatin1Char('\n'))));
        // A repeat group's name, rounds' name and a sweep's name are names.
        QJsonObject base = fakeSpec(QStringLiteral("base"));
        base.remove(QStringLiteral("name"));
        QJsonObject sweep{
            {QStringLiteral("name"), QStringLiteral("s")},
            {QStringLiteral("base"), base},
            {QStringLiteral("objective"), QJsonObject{{QStringLiteral("metric"), QStringLiteral("valid/mrr")},
                                                      {QStringLiteral("mode"), QStringLiteral("max")}}},
            {QStringLiteral("space"),
             QJsonObject{{QStringLiteral("train.lr"), QJsonObject{{QStringLiteral("values"), QJsonArray{0.1, 0.2}}}}}}};
        QJsonObject json = experimentJson(
            QStringLiteral("x"), QString(),
            {lane(
                QStringLiteral("cpu"), 1,
                {withRepeat(fakeSpec(QStringLiteral("g")), 3),
                 roundsEntry(QStringLiteral("fed"), 2, {fakeSpec(QStringLiteral("c1"))}, fakeSpec(QStringLiteral("m"))),
                 after(a, names({QStringLiteral("g"), QStringLiteral("fed"), QStringLiteral("s")}))})});
        json.insert(QStringLiteral("sweeps"), QJsonArray{sweep});
        errors = problemsOf(json);
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
    }

    void fileChecksAfterPlaceholdersAndLanes()
    {
        const QJsonObject pre = inputsRun(QStringLiteral("pre"), QStringLiteral("/tmp/o"), 1);
        // {after.NAME.FIELD} must name a run of its "after"; the program itself is never one.
        QStringList errors =
            problemsOf(experimentJson(QStringLiteral("x"), QString(),
                                      {lane(QStringLiteral("cpu"), 1,
                                            {pre,
                                             inputsRun(QStringLiteral("use"), QStringLiteral("/tmp/o"), 1,
                                                       {QStringLiteral("--from={after.pre.checkpoint}")}),
                                             after(inputsRun(QStringLiteral("bad"), QStringLiteral("/tmp/o"), 1,
                                                             {QStringLiteral("{after.pre.weights}")}),
                                                   QStringLiteral("pre"))})}));
        QVERIFY2(errors.contains(QStringLiteral("lanes[0].runs[1].program.argv[4]: {after.pre.checkpoint} names "
                                                "\"pre\", which is not in its \"after\"")),
                 qPrintable(errors.join(QLatin1Char('\n'))));
        QVERIFY(errors.contains(
            QStringLiteral("lanes[0].runs[2].program.argv[4]: {after.pre.weights}: expected {after.NAME.FIELD}, NAME "
                           "a run it runs after and FIELD one of checkpoint, dir")));
        QCOMPARE(errors.size(), 2);
        // A worker run starts only from a worker's checkpoint.
        QJsonObject worker = fakeSpec(QStringLiteral("ft"));
        worker.insert(QStringLiteral("train"),
                      QJsonObject{{QStringLiteral("init_from"), QStringLiteral("{after.pre.checkpoint}")}});
        errors =
            problemsOf(experimentJson(QStringLiteral("x"), QString(),
                                      {lane(QStringLiteral("cpu"), 1, {pre, after(worker, QStringLiteral("pre"))})}));
        QCOMPARE(errors,
                 QStringList{QStringLiteral("lanes[0].runs[1].train.init_from: {after.pre.checkpoint}: \"pre\" is a "
                                            "program run; a worker run starts only from a worker's checkpoint")});
        // A lane whose runs cannot read the folders of the run it runs after.
        QJsonObject json = experimentJson(
            QStringLiteral("x"), m_dir.filePath(QStringLiteral("here")),
            {lane(QStringLiteral("slurm:far/gpu"), 1, {fakeSpec(QStringLiteral("a"))}),
             lane(QStringLiteral("cpu"), 1, {after(fakeSpec(QStringLiteral("b")), QStringLiteral("a"))})});
        json.insert(
            QStringLiteral("clusters"),
            QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("far")},
                                   {QStringLiteral("reach"), QStringLiteral("ssh")},
                                   {QStringLiteral("host"), QStringLiteral("login.example.org")},
                                   {QStringLiteral("worker"), QStringLiteral("/opt/trainyard/bin/trainyard-worker")},
                                   {QStringLiteral("runs_root"), QStringLiteral("/scratch/runs")}}});
        errors = problemsOf(json);
        QVERIFY2(errors
                     == QStringList{QStringLiteral("lanes[1].runs[0].after: \"a\" runs on lane 1 (slurm:far/gpu), "
                                                   "whose run folders (cluster far) lane 2 (cpu) cannot read")},
                 qPrintable(errors.join(QLatin1Char('\n'))));
        // A host's run gets no inputs there: refused on its lanes, even two of one host.
        json = experimentJson(
            QStringLiteral("x"), m_dir.filePath(QStringLiteral("here")),
            {lane(QStringLiteral("ssh:lab/cpu"), 1, {fakeSpec(QStringLiteral("a"))}),
             lane(QStringLiteral("ssh:lab/cpu"), 1, {after(fakeSpec(QStringLiteral("b")), QStringLiteral("a"))})});
        json.insert(
            QStringLiteral("hosts"),
            QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("lab")},
                                   {QStringLiteral("host"), QStringLiteral("gpu1.lab.example")},
                                   {QStringLiteral("runs_root"), QStringLiteral("/scratch/runs")},
                                   {QStringLiteral("worker"), QStringLiteral("/opt/ty/bin/trainyard-worker")}}});
        errors = problemsOf(json);
        QVERIFY2(errors
                     == QStringList{QStringLiteral("lanes[1].runs[0].after: \"a\" and lane 2 (ssh:lab/cpu): runs after "
                                                   "other runs are not supported on a lane of a host over ssh yet "
                                                   "(host lab)")},
                 qPrintable(errors.join(QLatin1Char('\n'))));
    }

    void roundsExpandAndAreWrittenBackAsOneEntry()
    {
        const QJsonObject json =
            experimentJson(QStringLiteral("x"), QString(),
                           {lane(QStringLiteral("cpu"), 2,
                                 {fakeSpec(QStringLiteral("pre")),
                                  roundsEntry(QStringLiteral("fed"), 3,
                                              {fakeSpec(QStringLiteral("c1")), fakeSpec(QStringLiteral("c2"))},
                                              fakeSpec(QStringLiteral("avg")))})});
        QStringList errors;
        const auto ex = Experiment::fromJson(json, &errors);
        QVERIFY2(ex, qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(ex->runCount(), 1 + 3 * 3);
        const QList<ExperimentRun> &runs = ex->lanes.at(0).runs;
        QCOMPARE(runs.size(), 10);
        const auto nameOf = [](const ExperimentRun &r) { return r.spec.value(QStringLiteral("name")).toString(); };
        const auto afterOf = [](const ExperimentRun &r) {
            return r.spec.value(QStringLiteral("after")).toVariant().toStringList();
        };
        QCOMPARE(nameOf(runs.at(1)), QStringLiteral("fed-r1-c1"));
        QCOMPARE(afterOf(runs.at(1)), QStringList());
        QCOMPARE(nameOf(runs.at(3)), QStringLiteral("fed-r1-avg"));
        QCOMPARE(afterOf(runs.at(3)), (QStringList{QStringLiteral("fed-r1-c1"), QStringLiteral("fed-r1-c2")}));
        QVERIFY(runs.at(3).aggregate);
        QCOMPARE(nameOf(runs.at(5)), QStringLiteral("fed-r2-c2"));
        QCOMPARE(afterOf(runs.at(5)), QStringList{QStringLiteral("fed-r1-avg")});
        QCOMPARE(runs.at(5).round, 2);
        QCOMPARE(runs.at(5).spec.value(QStringLiteral("train")).toObject().value(QStringLiteral("seed")).toInt(), 8);
        QCOMPARE(runs.at(9).path, QStringLiteral("lanes[0].runs[1].rounds"));

        // Through a board and back: the same one entry.
        RunRegistry registry;
        RunStore store(m_dir.filePath(QStringLiteral("rounds")));
        Board board(&registry, &store);
        board.setExperiment(*ex);
        const RunInfo c = registry.value(registry.findByName(QStringLiteral("fed-r3-c1")));
        QCOMPARE(c.rounds, QStringLiteral("fed"));
        QCOMPARE(c.round, 3);
        QCOMPARE(c.roundCount, 3);
        QCOMPARE(c.after, QStringList{QStringLiteral("fed-r2-avg")});
        QCOMPARE(c.state, RunState::Waiting);
        QVERIFY(!c.spec.contains(QStringLiteral("after"))); // spec.json is the worker's
        const QJsonObject saved = board.toExperiment(QStringLiteral("x"), QString()).toJson();
        const QJsonArray savedRuns =
            saved.value(QStringLiteral("lanes")).toArray().at(0).toObject().value(QStringLiteral("runs")).toArray();
        QCOMPARE(savedRuns.size(), 2);
        QCOMPARE(savedRuns.at(1).toObject().value(QStringLiteral("rounds")).toObject().value(QStringLiteral("count")),
                 QJsonValue(3));
        // One member changed: the rounds are written run by run, each with its "after".
        QVERIFY(board.setRunAfter(registry.findByName(QStringLiteral("fed-r2-c1")), {QStringLiteral("pre")}));
        const QJsonArray edited = board.toExperiment(QStringLiteral("x"), QString())
                                      .toJson()
                                      .value(QStringLiteral("lanes"))
                                      .toArray()
                                      .at(0)
                                      .toObject()
                                      .value(QStringLiteral("runs"))
                                      .toArray();
        QCOMPARE(edited.size(), 10);
        QCOMPARE(edited.at(4).toObject().value(QStringLiteral("after")), QJsonValue(names({QStringLiteral("pre")})));
        QCOMPARE(edited.at(6).toObject().value(QStringLiteral("after")),
                 QJsonValue(names({QStringLiteral("fed-r2-c1"), QStringLiteral("fed-r2-c2")})));
        // ... and read back as the same runs.
        QVERIFY(problemsOf(board.toExperiment(QStringLiteral("x"), QString()).toJson()).isEmpty());
    }

    // The example as shipped: five rounds of two clients and an average.
    void theFederatedExampleIsValid()
    {
        if (sourceDir().isEmpty()) {
            QSKIP("TRAINYARD_SOURCE_DIR is not set");
        }
        QStringList errors;
        const auto ex = Experiment::load(sourceDir() + QStringLiteral("/examples/federated/federated.json"), &errors);
        QVERIFY2(ex, qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(ex->runCount(), 15);
        QCOMPARE(ex->lanes.at(0).runs.at(14).spec.value(QStringLiteral("name")).toString(),
                 QStringLiteral("fed-r5-average"));
        QCOMPARE(ex->lanes.at(0).runs.at(3).spec.value(QStringLiteral("after")).toArray(),
                 names({QStringLiteral("fed-r1-average")}));
    }

    void checkCommandRefusesWithThePath()
    {
        if (qEnvironmentVariableIsEmpty("TRAINYARD_BIN")) {
            QSKIP("built without the trainyard program");
        }
        const QJsonObject spec{
            {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("mlp")}}},
            {QStringLiteral("data"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("synthetic-images")}}}};
        QJsonObject a = spec, b = spec;
        a.insert(QStringLiteral("name"), QStringLiteral("a"));
        b.insert(QStringLiteral("name"), QStringLiteral("b"));
        const QString file = m_dir.filePath(QStringLiteral("cycle.json"));
        QVERIFY(writeFile(
            file, QJsonDocument(experimentJson(QStringLiteral("cycle"), m_dir.filePath(QStringLiteral("cycle-runs")),
                                               {lane(QStringLiteral("cpu"), 1,
                                                     {after(a, QStringLiteral("b")),
                                                      after(b, names({QStringLiteral("a"), QStringLiteral("z")}))})}))
                      .toJson()));
        const ProcessOutcome out = runProcess(buildProgram("TRAINYARD_BIN"), {QStringLiteral("check"), file},
                                              QProcessEnvironment::systemEnvironment(), 60000);
        QCOMPARE(out.exitCode, 2);
        QVERIFY2(out.err.contains(QStringLiteral("lanes[0].runs[1].after[1]: no run, repeat group, rounds or sweep "
                                                 "is named \"z\"")),
                 qPrintable(out.all()));
        QVERIFY2(out.err.contains(QStringLiteral("lanes[0].runs[0].after: its runs would wait for one another: a → b "
                                                 "→ a")),
                 qPrintable(out.all()));
        QVERIFY(!QFileInfo::exists(m_dir.filePath(QStringLiteral("cycle-runs")))); // nothing started
    }

    // ---- the board ----------------------------------------------------------

    void waitsUntilEveryPredecessorFinished()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        // Slots for all: only `after` holds "b" back.
        auto s = open(
            {lane(QStringLiteral("cpu"), 4,
                  {fakeSpec(QStringLiteral("a"), 30, 10), withRepeat(fakeSpec(QStringLiteral("g"), 10, 10), 2),
                   after(fakeSpec(QStringLiteral("b"), 5, 5), names({QStringLiteral("a"), QStringLiteral("g")}))})});
        Orchestrator *orch = s->orchestrator();
        QCOMPARE(run(s.get(), QStringLiteral("b")).state, RunState::Waiting);
        QCOMPARE(run(s.get(), QStringLiteral("b")).message, QStringLiteral("waits for a, g-1, g-2"));
        QCOMPARE(orch->dependencies()->predecessors(id(s.get(), QStringLiteral("b"))),
                 (QList<RunId>{id(s.get(), QStringLiteral("a")), id(s.get(), QStringLiteral("g-1")),
                               id(s.get(), QStringLiteral("g-2"))}));
        QCOMPARE(orch->dependencies()->dependents(id(s.get(), QStringLiteral("a"))),
                 QList<RunId>{id(s.get(), QStringLiteral("b"))});
        // Start refuses a waiting run, saying what it waits for.
        QString why;
        QVERIFY(!orch->runActions()->startRun(id(s.get(), QStringLiteral("b")), &why));
        QCOMPARE(why, QStringLiteral("b waits for a, g-1, g-2"));
        // When b starts, everything it runs after has finished.
        bool early = false, started = false;
        connect(orch->runs(), &RunRegistry::changed, this, [&](RunId changed) {
            const RunInfo r = orch->runs()->value(changed);
            if (r.name != QLatin1String("b") || r.state != RunState::Starting) {
                return;
            }
            started = true;
            for (const QString &n : {QStringLiteral("a"), QStringLiteral("g-1"), QStringLiteral("g-2")}) {
                early = early || run(s.get(), n).state != RunState::Finished;
            }
        });
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 20000);
        QVERIFY(started);
        QVERIFY(!early);
        QCOMPARE(orch->dispatcher()->finishedCount(), 4);
        QVERIFY2(!run(s.get(), QStringLiteral("b")).message.startsWith(QStringLiteral("waits")),
                 qPrintable(run(s.get(), QStringLiteral("b")).message));
    }

    void aFailedPredecessorKeepsItsDependentsWaiting()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        auto s = open({lane(QStringLiteral("cpu"), 2,
                            {fakeSpec(QStringLiteral("a"), 20, 5, QStringLiteral("fail"), 3),
                             after(fakeSpec(QStringLiteral("b")), QStringLiteral("a")),
                             after(fakeSpec(QStringLiteral("c")), QStringLiteral("b"))})});
        Orchestrator *orch = s->orchestrator();
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        // Nothing more can start: the board is idle with two runs waiting.
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 20000);
        QCOMPARE(run(s.get(), QStringLiteral("a")).state, RunState::Failed);
        const RunInfo b = run(s.get(), QStringLiteral("b"));
        QCOMPARE(b.state, RunState::Waiting);
        QVERIFY2(b.message.startsWith(QStringLiteral("waits for a, which failed: ")), qPrintable(b.message));
        QCOMPARE(run(s.get(), QStringLiteral("c")).state, RunState::Waiting);
        QCOMPARE(run(s.get(), QStringLiteral("c")).message, QStringLiteral("waits for b"));
        QCOMPARE(orch->dispatcher()->finishedCount(), 0);
        // A waiting run can be cancelled: its own "after" is nobody's business then.
        QVERIFY(orch->runActions()->stopRun(id(s.get(), QStringLiteral("c"))));
        QCOMPARE(run(s.get(), QStringLiteral("c")).state, RunState::Cancelled);
    }

    void retryOfAFailedPredecessorReleasesItsDependents()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        auto s = open({lane(QStringLiteral("cpu"), 2,
                            {fakeSpec(QStringLiteral("a"), 20, 10, QStringLiteral("fail-once"), 8),
                             after(fakeSpec(QStringLiteral("b"), 10), QStringLiteral("a"))})});
        Orchestrator *orch = s->orchestrator();
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 20000);
        QCOMPARE(run(s.get(), QStringLiteral("a")).state, RunState::Failed);
        QCOMPARE(run(s.get(), QStringLiteral("b")).state, RunState::Waiting);
        const RunId a = id(s.get(), QStringLiteral("a"));
        QVERIFY(orch->startPlanner()->resumesOnRetry(a)); // it checkpointed at step 5
        // As the app's Retry: back to the queue and started now, with nothing
        // else being dispatched; its dependents start once it finished.
        QVERIFY(!orch->dispatcher()->isDispatching());
        QVERIFY(orch->runActions()->retryRun(a));
        QCOMPARE(run(s.get(), QStringLiteral("b")).message, QStringLiteral("waits for a"));
        QVERIFY(orch->runActions()->startRun(a));
        QTRY_COMPARE_WITH_TIMEOUT(run(s.get(), QStringLiteral("b")).state, RunState::Finished, 20000);
        QCOMPARE(run(s.get(), QStringLiteral("a")).state, RunState::Finished);
        QVERIFY(run(s.get(), QStringLiteral("b")).started >= run(s.get(), QStringLiteral("a")).ended);
    }

    void aStoppedPredecessorKeepsThemWaitingUntilItResumesAndFinishes()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        auto s = open({lane(
            QStringLiteral("cpu"), 2,
            {fakeSpec(QStringLiteral("a"), 400, 10), after(fakeSpec(QStringLiteral("b")), QStringLiteral("a"))})});
        Orchestrator *orch = s->orchestrator();
        const RunId a = id(s.get(), QStringLiteral("a"));
        orch->dispatcher()->startAll();
        QTRY_VERIFY_WITH_TIMEOUT(orch->runs()->value(a).step >= 10, 10000);
        QVERIFY(orch->runActions()->stopRun(a));
        QTRY_COMPARE_WITH_TIMEOUT(orch->runs()->value(a).state, RunState::Stopped, 10000);
        QVERIFY2(run(s.get(), QStringLiteral("b")).message.startsWith(QStringLiteral("waits for a, which was stopped")),
                 qPrintable(run(s.get(), QStringLiteral("b")).message));
        QCOMPARE(run(s.get(), QStringLiteral("b")).state, RunState::Waiting);
        QVERIFY(orch->runActions()->resumeRun(a));
        QTRY_COMPARE_WITH_TIMEOUT(run(s.get(), QStringLiteral("b")).state, RunState::Finished, 30000);
    }

    void editsOfAfterRefuseCyclesAndUnknownNames()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        auto s = open({lane(QStringLiteral("cpu"), 1,
                            {fakeSpec(QStringLiteral("a")), after(fakeSpec(QStringLiteral("b")), QStringLiteral("a")),
                             fakeSpec(QStringLiteral("c"))})});
        Dependencies *deps = s->orchestrator()->dependencies();
        const RunId a = id(s.get(), QStringLiteral("a")), c = id(s.get(), QStringLiteral("c"));
        QString why;
        QVERIFY(!deps->setAfter(a, {QStringLiteral("b")}, &why));
        QCOMPARE(why, QStringLiteral("a.after: \"b\" runs after a already; they would wait for one another"));
        QVERIFY(deps->wouldCycle(a, QStringLiteral("b")));
        QVERIFY(!deps->wouldCycle(c, QStringLiteral("b")));
        QVERIFY(!deps->setAfter(c, {QStringLiteral("nobody")}, &why));
        QCOMPARE(why, QStringLiteral("c.after: no run, repeat group, rounds or sweep is named \"nobody\""));
        QCOMPARE(run(s.get(), QStringLiteral("c")).state, RunState::Queued);
        QVERIFY(deps->setAfter(c, {QStringLiteral("b")}, &why));
        QCOMPARE(run(s.get(), QStringLiteral("c")).state, RunState::Waiting);
        QCOMPARE(run(s.get(), QStringLiteral("c")).message, QStringLiteral("waits for b"));
        // Saved with it, and without: queued again.
        const QJsonObject saved = s->experiment().toJson();
        QCOMPARE(saved.value(QStringLiteral("lanes"))
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(QStringLiteral("runs"))
                     .toArray()
                     .at(2)
                     .toObject()
                     .value(QStringLiteral("after")),
                 QJsonValue(names({QStringLiteral("b")})));
        QVERIFY(deps->setAfter(c, {}, &why));
        QCOMPARE(run(s.get(), QStringLiteral("c")).state, RunState::Queued);
        QVERIFY(run(s.get(), QStringLiteral("c")).message.isEmpty());
    }

    // ---- inputs -------------------------------------------------------------

    void aProgramGetsItsPredecessorsFoldersCheckpointsAndSummaries()
    {
        if (fakeWorker().isEmpty() || sourceDir().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER or TRAINYARD_SOURCE_DIR is not set");
        }
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty()) {
            QSKIP("python3 is not installed");
        }
        const QString preOut = m_dir.filePath(QStringLiteral("pre.json"));
        const QString useOut = m_dir.filePath(QStringLiteral("use.json"));
        auto s = open(
            {lane(QStringLiteral("cpu"), 2,
                  {inputsRun(QStringLiteral("pre"), preOut, 5),
                   after(inputsRun(QStringLiteral("use"), useOut, 2,
                                   {QStringLiteral("{after.pre.checkpoint}"), QStringLiteral("--dir={after.pre.dir}")}),
                         QStringLiteral("pre"))})});
        Orchestrator *orch = s->orchestrator();
        const RunId use = id(s.get(), QStringLiteral("use"));
        // Before it can start, its command line shows the placeholders (as the trust list does).
        QVERIFY(orch->startPlanner()->commandLine(use).contains(QStringLiteral("{after.pre.checkpoint}")));
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 60000);
        QCOMPARE(run(s.get(), QStringLiteral("use")).state, RunState::Finished);
        const RunInfo pre = run(s.get(), QStringLiteral("pre"));
        const QString checkpoint = pre.runDir + QStringLiteral("/checkpoints/step-5.txt");
        QCOMPARE(pre.checkpoint, checkpoint);

        const QJsonObject got = readJsonFile(useOut);
        // argv: the values in place.
        QCOMPARE(got.value(QStringLiteral("argv")).toVariant().toStringList(),
                 (QStringList{checkpoint, QStringLiteral("--dir=") + pre.runDir}));
        QVERIFY(run(s.get(), QStringLiteral("use")).command.contains(checkpoint));
        // TRAINYARD_INPUTS: RUN_DIR/inputs.json.
        const QJsonArray file =
            got.value(QStringLiteral("inputs_file")).toObject().value(QStringLiteral("inputs")).toArray();
        QCOMPARE(file.size(), 1);
        const QJsonObject entry = file.at(0).toObject();
        QCOMPARE(entry.value(QStringLiteral("name")).toString(), QStringLiteral("pre"));
        QCOMPARE(entry.value(QStringLiteral("dir")).toString(), pre.runDir);
        QCOMPARE(entry.value(QStringLiteral("checkpoint")).toString(), checkpoint);
        const QJsonObject summary = entry.value(QStringLiteral("summary")).toObject();
        QCOMPARE(summary.value(QStringLiteral("state")).toString(), QStringLiteral("finished"));
        QCOMPARE(summary.value(QStringLiteral("step")).toInt(), 5);
        QCOMPARE(summary.value(QStringLiteral("loss")).toDouble(), 0.2);
        QCOMPARE(summary.value(QStringLiteral("test/accuracy")).toDouble(), 0.55);
        QCOMPARE(summary.value(QStringLiteral("best")).toDouble(), 1.25); // its run.summary
        QCOMPARE(readJsonFile(run(s.get(), QStringLiteral("use")).runDir + QStringLiteral("/inputs.json")),
                 got.value(QStringLiteral("inputs_file")).toObject());
        // run.inputs (the Python module) reads the same.
        const QJsonObject mine = got.value(QStringLiteral("inputs")).toArray().at(0).toObject();
        QCOMPARE(mine.value(QStringLiteral("name")).toString(), QStringLiteral("pre"));
        QCOMPARE(mine.value(QStringLiteral("after")).toString(), QStringLiteral("pre"));
        QCOMPARE(mine.value(QStringLiteral("checkpoint")).toString(), checkpoint);
        QCOMPARE(mine.value(QStringLiteral("summary")).toObject(), summary);
        // The run that runs after nothing gets none.
        QVERIFY(readJsonFile(preOut).value(QStringLiteral("inputs_file")).isNull());
        QCOMPARE(readJsonFile(preOut).value(QStringLiteral("inputs")).toArray().size(), 0);
    }

    void aWorkerRunStartsFromItsPredecessorsCheckpoint()
    {
        const QString worker = qEnvironmentVariable("TRAINYARD_WORKER");
        if (worker.isEmpty() || !QFileInfo(worker).isExecutable()) {
            QSKIP("TRAINYARD_WORKER is not set: the real worker is needed");
        }
        QJsonObject pre{
            {QStringLiteral("name"), QStringLiteral("pre")},
            {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("mlp")}}},
            {QStringLiteral("data"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("synthetic-images")},
                                                 {QStringLiteral("samples"), 300}}},
            {QStringLiteral("train"), QJsonObject{{QStringLiteral("epochs"), 1}}},
            {QStringLiteral("eval"), QJsonObject{{QStringLiteral("every_epochs"), 0}}}};
        QJsonObject ft = pre;
        ft.insert(QStringLiteral("name"), QStringLiteral("ft"));
        ft.insert(QStringLiteral("train"),
                  QJsonObject{{QStringLiteral("epochs"), 1},
                              {QStringLiteral("init_from"), QStringLiteral("{after.pre.checkpoint}")}});
        auto s = open({lane(QStringLiteral("cpu"), 1, {pre, after(ft, QStringLiteral("pre"))})});
        s->orchestrator()->supervisor()->setWorkerProgram(worker);
        QSignalSpy idle(s->orchestrator()->dispatcher(), &Dispatcher::idle);
        s->orchestrator()->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 120000);
        const RunInfo p = run(s.get(), QStringLiteral("pre")), f = run(s.get(), QStringLiteral("ft"));
        QCOMPARE(f.state, RunState::Finished);
        QVERIFY(p.checkpoint.startsWith(p.runDir + QStringLiteral("/checkpoints/")));
        // spec.json holds the path; the worker says it started from it.
        QCOMPARE(readJsonFile(f.runDir + QStringLiteral("/spec.json"))
                     .value(QStringLiteral("train"))
                     .toObject()
                     .value(QStringLiteral("init_from"))
                     .toString(),
                 p.checkpoint);
        bool said = false;
        for (const QJsonObject &line : metricsLines(f.runDir, QStringLiteral("log"))) {
            said = said
                   || line.value(QStringLiteral("text"))
                          .toString()
                          .startsWith(QStringLiteral("model initialised from ") + p.checkpoint);
        }
        QVERIFY(said);
    }

    // ---- closed and opened again --------------------------------------------

    void reopenedInTheMiddleOfARoundGoesOnInOrder()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        const QString root = m_dir.filePath(QStringLiteral("midround"));
        const QJsonArray lanes{
            lane(QStringLiteral("cpu"), 2,
                 {roundsEntry(QStringLiteral("fed"), 3,
                              {fakeSpec(QStringLiteral("c1"), 60, 20), fakeSpec(QStringLiteral("c2"), 60, 20)},
                              fakeSpec(QStringLiteral("avg"), 5, 5))})};
        {
            auto first = open(lanes, root);
            first->orchestrator()->dispatcher()->startAll();
            QTRY_VERIFY_WITH_TIMEOUT(run(first.get(), QStringLiteral("fed-r2-c1")).step >= 5, 20000);
            QCOMPARE(run(first.get(), QStringLiteral("fed-r1-avg")).state, RunState::Finished);
            QCOMPARE(run(first.get(), QStringLiteral("fed-r2-avg")).state, RunState::Waiting);
            first->close(/*leaveRunning=*/true);
        }
        auto second = open(lanes, root);
        Orchestrator *orch = second->orchestrator();
        // From the file (the rounds), the run folders and the state file.
        QCOMPARE(run(second.get(), QStringLiteral("fed-r1-avg")).state, RunState::Finished);
        const RunInfo c1 = run(second.get(), QStringLiteral("fed-r2-c1"));
        QVERIFY2(c1.reattached || c1.state == RunState::Finished, qPrintable(runStateName(c1.state)));
        QCOMPARE(run(second.get(), QStringLiteral("fed-r2-avg")).state, RunState::Waiting);
        QVERIFY(
            run(second.get(), QStringLiteral("fed-r2-avg")).message.startsWith(QStringLiteral("waits for fed-r2-c")));
        QCOMPARE(run(second.get(), QStringLiteral("fed-r3-c1")).message, QStringLiteral("waits for fed-r2-avg"));
        QCOMPARE(run(second.get(), QStringLiteral("fed-r3-c1")).round, 3);
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 60000);
        QCOMPARE(orch->dispatcher()->finishedCount(), 9);
        // Each round after the one before: its clients after the last
        // aggregate, its aggregate after its clients.
        for (int k = 1; k <= 3; ++k) {
            const auto name = [k](const char *member) {
                return QStringLiteral("fed-r%1-%2").arg(k).arg(QLatin1String(member));
            };
            const RunInfo avg = run(second.get(), name("avg"));
            for (const char *client : {"c1", "c2"}) {
                const RunInfo c = run(second.get(), name(client));
                QCOMPARE(c.state, RunState::Finished);
                QVERIFY2(avg.started >= c.ended, qPrintable(name(client)));
                if (k > 1) {
                    QVERIFY(c.started >= run(second.get(), QStringLiteral("fed-r%1-avg").arg(k - 1)).ended);
                }
            }
        }
        // Written back as the one entry it was.
        QCOMPARE(second->experiment()
                     .toJson()
                     .value(QStringLiteral("lanes"))
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(QStringLiteral("runs"))
                     .toArray()
                     .size(),
                 1);
    }
};

QTEST_GUILESS_MAIN(TestDependencies)
#include "tst_dependencies.moc"
