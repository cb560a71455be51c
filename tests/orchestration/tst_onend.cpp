// The experiment file's on_end commands (experiment/onend.h): their shape
// and placeholders, the trust list, and OnEndCommands running them as runs
// end: a local run, runs that ended while Trainyard was away or after it
// reattached to them, a batch job's end (the fake launcher, as a cluster's
// or a host's launcher reports one), the experiment's end, and a command
// that hangs. Each run is a tiny program (sh) or the fake launcher's; a few
// seconds in all.

#include "metrics/metricstore.h"
#include "orchestration/board/board.h"
#include "orchestration/devices/deviceinventory.h"
#include "orchestration/experiment/onend.h"
#include "orchestration/experiment/trustlist.h"
#include "orchestration/ingest/metricsserver.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/onendcommands.h"
#include "tests/orchestration/fakelauncher.h"
#include "tests/orchestration/testutil.h"

#include <QTemporaryDir>

using namespace trainyard;
using namespace trainyard::test;

namespace {

QJsonArray strings(const QStringList &list)
{
    return QJsonArray::fromStringList(list);
}

// A program run of `sh -c SCRIPT` named `name`, with `onEnd` when given.
QJsonObject shRun(const QString &name, const QString &script, const QStringList &onEnd = {})
{
    QJsonObject spec{
        {QStringLiteral("name"), name},
        {QStringLiteral("program"),
         QJsonObject{{QStringLiteral("argv"), strings({QStringLiteral("sh"), QStringLiteral("-c"), script})}}}};
    if (!onEnd.isEmpty()) {
        spec.insert(QStringLiteral("on_end"), strings(onEnd));
    }
    return spec;
}

// Each argument on a line of its own, between <>: what the command got, element by element.
const QStringList kPrintArgs{QStringLiteral("printf"), QStringLiteral("<%s>\\n")};

} // namespace

class TestOnEnd : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;

    QStringList errorsOf(const QJsonObject &json)
    {
        QStringList errors;
        Experiment::fromJson(json, &errors);
        return errors;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_tmp.isValid()); }

    // Every placeholder, inside an element or as one; {{ }} are braces; a
    // value is put in once, never read again for placeholders.
    void placeholdersAreSubstituted()
    {
        const QHash<QString, QString> values{{QStringLiteral("name"), QStringLiteral("b{state}")},
                                             {QStringLiteral("state"), QStringLiteral("failed")},
                                             {QStringLiteral("folder"), QStringLiteral("/runs/b x")}};
        QStringList out;
        QString error;
        QVERIFY(onend::substitute({QStringLiteral("curl"), QStringLiteral("-d"), QStringLiteral("{name} {state}"),
                                   QStringLiteral("{folder}"), QStringLiteral("{{name}}"), QStringLiteral("{}")},
                                  values, &out, &error));
        QCOMPARE(out, (QStringList{QStringLiteral("curl"), QStringLiteral("-d"), QStringLiteral("b{state} failed"),
                                   QStringLiteral("/runs/b x"), QStringLiteral("{name}"), QStringLiteral("{}")}));
        QVERIFY(!onend::substitute({QStringLiteral("x"), QStringLiteral("{nope}")}, values, &out, &error));
        QVERIFY2(error.contains(QStringLiteral("{nope}")), qPrintable(error));
    }

    // A run named like an option is one argument where the template put
    // it, and nothing splits or reads it: after "--" it is no option.
    void aNameLikeAnOptionStaysOneArgument()
    {
        QStringList out;
        QString error;
        QVERIFY(onend::substitute(
            {QStringLiteral("notify"), QStringLiteral("--"), QStringLiteral("{name}"),
             QStringLiteral("{name} {state}")},
            {{QStringLiteral("name"), QStringLiteral("-x")}, {QStringLiteral("state"), QStringLiteral("failed")}}, &out,
            &error));
        QCOMPARE(out, (QStringList{QStringLiteral("notify"), QStringLiteral("--"), QStringLiteral("-x"),
                                   QStringLiteral("-x failed")}));
    }

    // `trainyard check` and every load say what is wrong, with the path.
    void itsShapeIsChecked()
    {
        const auto file = [](const QJsonValue &runOnEnd, const QJsonValue &topOnEnd) {
            QJsonObject run = shRun(QStringLiteral("a"), QStringLiteral("true"));
            if (!runOnEnd.isUndefined()) {
                run.insert(QStringLiteral("on_end"), runOnEnd);
            }
            QJsonObject top = experimentJson(QStringLiteral("shape"), QStringLiteral("/tmp/x"),
                                             {lane(QStringLiteral("cpu"), 1, {run})});
            if (!topOnEnd.isUndefined()) {
                top.insert(QStringLiteral("on_end"), topOnEnd);
            }
            return top;
        };
        QVERIFY(errorsOf(file(strings({QStringLiteral("notify-send"), QStringLiteral("{name} {state}")}),
                              strings({QStringLiteral("mail"), QStringLiteral("{finished}/{total}")})))
                    .isEmpty());
        const QString all =
            (errorsOf(file(QStringLiteral("notify-send {name}"), QJsonValue::Undefined))
             + errorsOf(file(QJsonArray(), QJsonValue::Undefined))
             + errorsOf(file(QJsonArray{QStringLiteral("x"), 3}, QJsonValue::Undefined))
             + errorsOf(file(strings({QStringLiteral("x"), QStringLiteral("{nmae}")}), QJsonValue::Undefined))
             + errorsOf(file(strings({QStringLiteral("{folder}/notify")}), QJsonValue::Undefined))
             + errorsOf(file(QJsonValue::Undefined, strings({QStringLiteral("x"), QStringLiteral("{name}")}))))
                .join(QLatin1Char('\n'));
        for (const QString &expected :
             {QStringLiteral("lanes[0].runs[0].on_end: expected a non-empty list of strings"),
              QStringLiteral("got \"notify-send {name}\""), QStringLiteral("got an array"),
              QStringLiteral("lanes[0].runs[0].on_end[1]: expected a string without NUL characters, got 3"),
              QStringLiteral("lanes[0].runs[0].on_end[1]: unknown placeholder {nmae} (expected one of {name}, "
                             "{state}, {folder}, {experiment}"),
              QStringLiteral("lanes[0].runs[0].on_end[0]: the program itself cannot be a placeholder ({folder})"),
              QStringLiteral("on_end[1]: unknown placeholder {name} (expected one of {experiment}, {finished}, "
                             "{failed}, {total}, {folder}")}) {
            QVERIFY2(all.contains(expected), qPrintable(QStringLiteral("%1\nnot in:\n%2").arg(expected, all)));
        }
        // A sweep's base or a lane has no on_end of its own.
        QJsonObject onLane = file(QJsonValue::Undefined, QJsonValue::Undefined);
        QJsonArray lanes = onLane.value(QStringLiteral("lanes")).toArray();
        QJsonObject l = lanes.at(0).toObject();
        l.insert(QStringLiteral("on_end"), strings({QStringLiteral("x")}));
        lanes[0] = l;
        onLane.insert(QStringLiteral("lanes"), lanes);
        QVERIFY2(errorsOf(onLane).join(QLatin1Char('\n')).contains(QStringLiteral("lanes[0]: unknown key \"on_end\"")),
                 qPrintable(errorsOf(onLane).join(QLatin1Char('\n'))));
    }

    // A command like any other: an untrusted file with on_end (and no
    // program run) is refused, naming it; Session::load refuses it too.
    void anUntrustedOnEndIsRefused()
    {
        QJsonObject json = experimentJson(
            QStringLiteral("untrusted"), m_tmp.filePath(QStringLiteral("untrusted")),
            {lane(
                QStringLiteral("cpu"), 1,
                {QJsonObject{
                    {QStringLiteral("name"), QStringLiteral("w")},
                    {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("fake")}}},
                    {QStringLiteral("data"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("synthetic-kg")}}},
                    {QStringLiteral("on_end"), strings({QStringLiteral("notify-send"), QStringLiteral("{name}")})}}})});
        json.insert(QStringLiteral("on_end"), strings({QStringLiteral("mail"), QStringLiteral("{experiment}")}));
        const QString path = m_tmp.filePath(QStringLiteral("untrusted.json"));
        QVERIFY(writeFile(path, QJsonDocument(json).toJson()));
        QStringList errors;
        const auto ex = Experiment::load(path, &errors);
        QVERIFY2(ex, qPrintable(errors.join(QLatin1Char('\n'))));
        QCOMPARE(ex->commandLines(), (QStringList{QStringLiteral("(when w ends) notify-send '{name}'"),
                                                  QStringLiteral("(when every run has ended) mail '{experiment}'")}));
        TrustList trust(m_tmp.filePath(QStringLiteral("trusted.json")));
        const QString refusal = trust.refusal(*ex);
        QVERIFY2(refusal.contains(QStringLiteral("(when w ends) notify-send")), qPrintable(refusal));
        Session session;
        QVERIFY(!session.load(path, &errors));
        QVERIFY2(errors.join(QLatin1Char('\n')).contains(QStringLiteral("mail")),
                 qPrintable(errors.join(QLatin1Char('\n'))));
        // Trusted, it runs; the file written back keeps both.
        QVERIFY(trust.trust(*ex));
        QVERIFY(trust.refusal(*ex).isEmpty());
        QStringList opened;
        QVERIFY2(session.open(*ex, path, &opened), qPrintable(opened.join(QLatin1Char('\n'))));
        const QJsonObject saved = session.experiment().toJson();
        QCOMPARE(saved.value(QStringLiteral("on_end")).toArray(), json.value(QStringLiteral("on_end")).toArray());
        QCOMPARE(saved[QStringLiteral("lanes")][0][QStringLiteral("runs")][0][QStringLiteral("on_end")].toArray(),
                 strings({QStringLiteral("notify-send"), QStringLiteral("{name}")}));
    }

    // A local run that fails and one that finishes: each one's command with
    // its values, in its folder's on_end.log; the experiment's once, when
    // the board is idle; spec.json (the worker's) never has the key.
    void itRunsForLocalRunsAndTheExperiment()
    {
        QJsonObject json =
            experimentJson(QStringLiteral("local"), m_tmp.filePath(QStringLiteral("local")),
                           {lane(QStringLiteral("cpu"), 2,
                                 {shRun(QStringLiteral("-x"), QStringLiteral("exit 3"),
                                        kPrintArgs
                                            + QStringList{QStringLiteral("{name} {state}"), QStringLiteral("--"),
                                                          QStringLiteral("{name}"), QStringLiteral("{folder}"),
                                                          QStringLiteral("{experiment}")}),
                                  shRun(QStringLiteral("ok"), QStringLiteral("true"),
                                        kPrintArgs + QStringList{QStringLiteral("{state}")}),
                                  shRun(QStringLiteral("quiet"), QStringLiteral("true"))})});
        json.insert(
            QStringLiteral("on_end"),
            strings(kPrintArgs
                    + QStringList{QStringLiteral("{experiment}"), QStringLiteral("{finished}"),
                                  QStringLiteral("{failed}"), QStringLiteral("{total}"), QStringLiteral("{folder}")}));
        Session session;
        QStringList errors;
        QVERIFY2(session.open(experiment(json), QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        Orchestrator *orch = session.orchestrator();
        QSignalSpy ended(orch->onEnd(), &OnEndCommands::ended);
        QSignalSpy problems(orch->onEnd(), &OnEndCommands::problem);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 3, 10000);
        QCOMPARE(problems.count(), 0);

        const QString x = session.runsRoot() + QStringLiteral("/-x");
        const QString xLog = QString::fromUtf8(readFile(x + QStringLiteral("/on_end.log")));
        QVERIFY2(xLog.contains(QStringLiteral("<-x failed>\n<-->\n<-x>\n<%1>\n<local>\n").arg(x)), qPrintable(xLog));
        QVERIFY2(xLog.contains(QStringLiteral("on_end of -x (failed)")) && xLog.endsWith(QStringLiteral("== exit 0\n")),
                 qPrintable(xLog));
        const QString okLog = QString::fromUtf8(readFile(session.runsRoot() + QStringLiteral("/ok/on_end.log")));
        QVERIFY2(okLog.contains(QStringLiteral("<finished>\n")), qPrintable(okLog));
        QVERIFY(!QFile::exists(session.runsRoot() + QStringLiteral("/quiet/on_end.log")));
        const QString all = QString::fromUtf8(readFile(session.runsRoot() + QStringLiteral("/on_end.log")));
        QVERIFY2(all.contains(QStringLiteral("<local>\n<2>\n<1>\n<3>\n<%1>\n").arg(session.runsRoot())),
                 qPrintable(all));
        QVERIFY(!readJsonFile(x + QStringLiteral("/spec.json")).contains(QStringLiteral("on_end")));
    }

    // A command that hangs is killed at its deadline and reported; the
    // run's outcome and the board never wait for it.
    void aHangingCommandIsKilledAndReported()
    {
        const QJsonObject json = experimentJson(
            QStringLiteral("hang"), m_tmp.filePath(QStringLiteral("hang")),
            {lane(QStringLiteral("cpu"), 1,
                  {shRun(QStringLiteral("h"), QStringLiteral("true"), {QStringLiteral("sleep"), QStringLiteral("30")}),
                   shRun(QStringLiteral("next"), QStringLiteral("true"))})});
        Session session;
        QStringList errors;
        QVERIFY2(session.open(experiment(json), QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        Orchestrator *orch = session.orchestrator();
        orch->onEnd()->setTimeoutMs(300);
        QSignalSpy idle(orch->dispatcher(), &Dispatcher::idle);
        QSignalSpy problems(orch->onEnd(), &OnEndCommands::problem);
        orch->dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 10000);
        QCOMPARE(orch->dispatcher()->finishedCount(), 2); // "next" ran while the command hung
        QTRY_COMPARE_WITH_TIMEOUT(problems.count(), 1, 5000);
        const QString problem = problems.at(0).at(0).toString();
        QVERIFY2(problem.contains(QStringLiteral("on_end of h (finished): still running after 0.3 s: killed")),
                 qPrintable(problem));
        QVERIFY2(readFile(session.runsRoot() + QStringLiteral("/h/on_end.log")).contains("killed"),
                 qPrintable(problem));
        QCOMPARE(orch->onEnd()->runningCount(), 0);
    }

    // Left running, runs end while Trainyard is away or after it comes
    // back: the next session runs the command of the one found ended at
    // its opening, and of the one it reattached to when that ends.
    void itRunsForReattachedRuns()
    {
        const QStringList print = kPrintArgs + QStringList{QStringLiteral("{name} {state}")};
        const Experiment ex =
            experiment(experimentJson(QStringLiteral("again"), m_tmp.filePath(QStringLiteral("again")),
                                      {lane(QStringLiteral("cpu"), 2,
                                            {shRun(QStringLiteral("r"), QStringLiteral("sleep 2"), print),
                                             shRun(QStringLiteral("gone"), QStringLiteral("sleep 0.2"), print)})}));
        qint64 gonePid = 0;
        {
            Session first;
            QStringList errors;
            QVERIFY2(first.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
            first.orchestrator()->dispatcher()->startAll();
            const QList<RunId> ids = first.orchestrator()->board()->runIds();
            QTRY_VERIFY_WITH_TIMEOUT(first.orchestrator()->runs()->value(ids.value(0)).pid > 0
                                         && first.orchestrator()->runs()->value(ids.value(1)).pid > 0,
                                     5000);
            gonePid = first.orchestrator()->runs()->value(ids.value(1)).pid;
            first.close(/*leaveRunning=*/true);
        }
        QTRY_VERIFY_WITH_TIMEOUT(RunStore::processStartTicks(gonePid) <= 0, 5000); // it ended while we were away
        Session second;
        QStringList errors;
        QVERIFY2(second.open(ex, QString(), &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        Orchestrator *orch = second.orchestrator();
        const RunInfo r = orch->runs()->value(orch->board()->runIds().value(0));
        const RunInfo gone = orch->runs()->value(orch->board()->runIds().value(1));
        QVERIFY2(r.reattached && r.state == RunState::Running, qPrintable(runStateName(r.state)));
        QVERIFY2(isTerminal(gone.state), qPrintable(runStateName(gone.state)));
        const QString goneLog = gone.runDir + QStringLiteral("/on_end.log");
        QTRY_VERIFY_WITH_TIMEOUT(readFile(goneLog).contains("== exit"), 5000);
        QVERIFY2(readFile(goneLog).contains(QStringLiteral("<gone %1>\n").arg(runStateName(gone.state)).toUtf8()),
                 readFile(goneLog).constData());
        const QString log = r.runDir + QStringLiteral("/on_end.log");
        QTRY_VERIFY_WITH_TIMEOUT(readFile(log).contains("== exit"), 10000);
        const RunInfo after = orch->runs()->value(r.id);
        QVERIFY2(readFile(log).contains(QStringLiteral("<r %1>\n").arg(runStateName(after.state)).toUtf8()),
                 readFile(log).constData());
    }

    // A batch job's end, as a cluster's (or a host's) launcher reports it,
    // goes the same way: the fake launcher plays it, nothing is started.
    void itRunsForABatchJobsEnd()
    {
        QTemporaryDir dir;
        RunStore store(dir.filePath(QStringLiteral("runs")));
        MetricsServer server;
        QString error;
        QVERIFY2(server.listen(dir.filePath(QStringLiteral("s.sock")), &error), qPrintable(error));
        MetricStore metrics;
        DeviceInventory devices;
        auto owned = std::make_unique<FakeLauncher>();
        FakeLauncher *launcher = owned.get();
        Orchestrator orch(&store, &server, &metrics, &devices, std::move(owned));
        orch.supervisor()->setWorkerProgram(QStringLiteral("/nonexistent/trainyard-worker"));
        QJsonObject spec = fakeSpec(QStringLiteral("job"));
        spec.insert(QStringLiteral("on_end"), strings(kPrintArgs + QStringList{QStringLiteral("{name} {state}")}));
        orch.setExperiment(experiment(
            experimentJson(QStringLiteral("batch"), store.root(), {lane(QStringLiteral("cpu"), 1, {spec})})));
        QSignalSpy ended(orch.onEnd(), &OnEndCommands::ended);
        orch.dispatcher()->startAll();
        QTRY_COMPARE_WITH_TIMEOUT(launcher->starts.size(), 1, 5000);
        const RunId id = launcher->starts.at(0).first;
        launcher->reportStarted(id, 0, QStringLiteral("4242"));
        launcher->reportRunning(id);
        launcher->reportExit(id, 1, 0);
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 5000);
        const RunInfo run = orch.runs()->value(id);
        QVERIFY(isTerminal(run.state));
        const QString log = QString::fromUtf8(readFile(run.runDir + QStringLiteral("/on_end.log")));
        QVERIFY2(log.contains(QStringLiteral("<job %1>\n").arg(runStateName(run.state))), qPrintable(log));
    }
};

QTEST_MAIN(TestOnEnd)
#include "tst_onend.moc"
