// `trainyard status` end to end, as a user runs it: the built `trainyard`
// binary on run folders written by hand (nothing holds the experiment), and
// asking a `trainyard run` that holds it (the fake worker).

#include "tests/helpers/buildprograms.h"
#include "testutil.h"

#include "orchestration/ingest/metricsserver.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/controlserver.h"
#include "protocol/protocol.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace trainyard;
using namespace trainyard::test;

namespace {

struct Result
{
    int status = -1;
    QByteArray out;
    QByteArray err;
};

Result runStatus(const QStringList &args)
{
    QProcess p;
    p.start(buildProgram("TRAINYARD_BIN"), QStringList{QStringLiteral("status")} + args);
    Result r;
    if (!p.waitForFinished(30000) || p.exitStatus() != QProcess::NormalExit) {
        return r;
    }
    r.status = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

// The printed line of run `name` split at its runs of spaces (empty when none).
QStringList lineOf(const QByteArray &out, const QString &name)
{
    for (const QByteArray &line : out.split('\n')) {
        const QStringList cells = QString::fromUtf8(line).split(QStringLiteral("  "), Qt::SkipEmptyParts);
        if (!cells.isEmpty() && cells.first().trimmed() == name) {
            QStringList trimmed;
            for (const QString &cell : cells) {
                trimmed << cell.trimmed();
            }
            return trimmed;
        }
    }
    return {};
}

QJsonObject runOf(const QByteArray &json, const QString &name)
{
    for (const QJsonValue &run : QJsonDocument::fromJson(json).object().value(QStringLiteral("runs")).toArray()) {
        if (run.toObject().value(QStringLiteral("name")).toString() == name) {
            return run.toObject();
        }
    }
    return {};
}

QByteArray line(const nlohmann::json &message)
{
    return QByteArray::fromStdString(protocol::encode(message));
}

} // namespace

class TestStatusCommand : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_counter = 0;

    QString writeExperiment(const QJsonArray &lanes, QString *runsRoot)
    {
        const QString name = QStringLiteral("s%1").arg(++m_counter);
        *runsRoot = m_dir.filePath(name + QStringLiteral("-runs"));
        const QString path = m_dir.filePath(name + QStringLiteral(".json"));
        writeFile(path, QJsonDocument(experimentJson(name, *runsRoot, lanes)).toJson());
        return path;
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
    }

    // Nothing holds the experiment: each run's folder says its last known
    // state; a run without one never started. A message's control
    // characters never reach the terminal.
    void lastKnownStatesFromTheFolders()
    {
        QString root;
        const QString file =
            writeExperiment({lane(QStringLiteral("cpu"), 1, {withRepeat(fakeSpec(QStringLiteral("a"), 12), 2)}),
                             lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("b"), 12)})},
                            &root);
        const RunStore store(root);
        QString error;
        QVERIFY2(store.prepareRunDir(QStringLiteral("a-1"), fakeSpec(QStringLiteral("a-1"), 12), &error),
                 qPrintable(error));
        auto first = protocol::metric(6, 1, 0.9, 0.1);
        first["total_steps"] = 12;
        auto last = protocol::metric(12, 2, 0.5, 0.2);
        last["total_steps"] = 12;
        QVERIFY(writeFile(store.runDir(QStringLiteral("a-1")) + QStringLiteral("/metrics.jsonl"),
                          line(first) + line(last) + line(protocol::done("finished", 0, 0.3))));
        RunInfo failed;
        failed.name = QStringLiteral("a-2");
        failed.state = RunState::Failed;
        failed.exitCode = 1;
        failed.message = QStringLiteral("exit 1: \x1b[31mboom\x1b[0m\nsecond line");
        QVERIFY2(store.prepareRunDir(QStringLiteral("a-2"), fakeSpec(QStringLiteral("a-2"), 12), &error),
                 qPrintable(error));
        failed.runDir = store.runDir(QStringLiteral("a-2"));
        QVERIFY2(store.writeStatus(failed, &error), qPrintable(error));

        const Result r = runStatus({file});
        QCOMPARE(r.status, 0);
        QVERIFY2(r.out.startsWith("NAME"), r.out.constData());
        QVERIFY2(r.out.split('\n').first().simplified() == "NAME STATE PROGRESS LANE GPUS WHERE REASON",
                 r.out.constData());
        QCOMPARE(lineOf(r.out, QStringLiteral("a-1")),
                 QStringList({QStringLiteral("a-1"), QStringLiteral("finished"), QStringLiteral("12/12 100%"),
                              QStringLiteral("cpu"), QStringLiteral("-"), QStringLiteral("-"), QStringLiteral("-")}));
        QCOMPARE(lineOf(r.out, QStringLiteral("a-2")).value(1), QStringLiteral("failed"));
        QCOMPARE(lineOf(r.out, QStringLiteral("a-2")).last(), QStringLiteral("exit 1: \\x1b[31mboom\\x1b[0m"));
        QVERIFY2(!r.out.contains('\x1b'), r.out.constData());
        QCOMPARE(lineOf(r.out, QStringLiteral("b")).value(1), QStringLiteral("never started"));
        QCOMPARE(lineOf(r.out, QStringLiteral("b")).value(3), QStringLiteral("cpu 2")); // as the board titles it

        // The same as JSON, for scripts.
        const Result j = runStatus({QStringLiteral("--json"), file});
        QCOMPARE(j.status, 0);
        QJsonParseError parseError{};
        const QJsonObject doc = QJsonDocument::fromJson(j.out, &parseError).object();
        QCOMPARE(parseError.error, QJsonParseError::NoError);
        QCOMPARE(doc.value(QStringLiteral("live")).toBool(true), false);
        QCOMPARE(doc.value(QStringLiteral("runs")).toArray().size(), 3);
        const QJsonObject a1 = runOf(j.out, QStringLiteral("a-1"));
        QCOMPARE(a1.value(QStringLiteral("state")).toString(), QStringLiteral("finished"));
        QCOMPARE(a1.value(QStringLiteral("step")).toInteger(), 12);
        QCOMPARE(a1.value(QStringLiteral("total_steps")).toInteger(), 12);
        QCOMPARE(runOf(j.out, QStringLiteral("a-2")).value(QStringLiteral("reason")).toString(),
                 QStringLiteral("exit 1: \x1b[31mboom\x1b[0m"));
        // Read only: the run never started has no folder, the others are as they were.
        QVERIFY(!QFileInfo::exists(store.runDir(QStringLiteral("b"))));
        QVERIFY(!QFileInfo::exists(root + QStringLiteral("/.trainyard.lock")));
    }

    void aBadFileOrCommandLineIsExit2()
    {
        const QString garbage = m_dir.filePath(QStringLiteral("garbage.json"));
        QVERIFY(writeFile(garbage, "{\"name\": \"x\", \"lanes\": [oops"));
        Result r = runStatus({garbage});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(garbage.toUtf8()), r.err.constData());
        QVERIFY(r.out.isEmpty());
        r = runStatus({m_dir.filePath(QStringLiteral("missing.json"))});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("missing.json"), r.err.constData());
        r = runStatus({});
        QCOMPARE(r.status, 2);
        r = runStatus({QStringLiteral("--help")});
        QCOMPARE(r.status, 0);
        QVERIFY2(r.out.trimmed().split('\n').last().startsWith("Exit status: 0 printed"), r.out.constData());
    }

    // Something listens on the experiment's control socket but will not
    // say (here: a server that takes no requests): the folders' lines,
    // a warning, exit 1.
    void aHolderThatDoesNotAnswerIsExit1()
    {
        QString root;
        const QString file =
            writeExperiment({lane(QStringLiteral("cpu"), 1, {fakeSpec(QStringLiteral("q"), 10)})}, &root);
        QString error;
        const QString metricsSocket = MetricsServer::defaultSocketPath(root, &error); // the runs root's
        QVERIFY2(!metricsSocket.isEmpty(), qPrintable(error));
        ControlServer server; // no handler: "this Trainyard takes no requests"
        QVERIFY2(server.listen(ControlServer::socketPathFor(metricsSocket), &error), qPrintable(error));
        QProcess p;
        p.start(buildProgram("TRAINYARD_BIN"), {QStringLiteral("status"), file});
        QTRY_COMPARE_WITH_TIMEOUT(p.state(), QProcess::NotRunning, 15000); // the server answers meanwhile
        QCOMPARE(p.exitCode(), 1);
        const QByteArray out = p.readAllStandardOutput();
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(err.contains("did not answer (this Trainyard takes no requests)"), err.constData());
        QCOMPARE(lineOf(out, QStringLiteral("q")).value(1), QStringLiteral("never started"));
    }

    // `trainyard run` holds the experiment: it is asked. Its running run
    // shows its progress and process, the one behind it in the full lane
    // and the one after it say why they wait.
    void theHoldingTrainyardIsAsked()
    {
        QString root;
        QJsonObject after = fakeSpec(QStringLiteral("c3"), 10);
        after.insert(QStringLiteral("after"), QJsonArray{QStringLiteral("c1")});
        const QString file = writeExperiment(
            {lane(QStringLiteral("cpu"), 1,
                  {fakeSpec(QStringLiteral("c1"), 4000, 5), fakeSpec(QStringLiteral("c2"), 10), after})},
            &root);
        QProcess run;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TRAINYARD_WORKER"), fakeWorker());
        run.setProcessEnvironment(env);
        run.start(buildProgram("TRAINYARD_BIN"), {QStringLiteral("run"), file});
        QByteArray out;
        QTRY_VERIFY_WITH_TIMEOUT((out += run.readAllStandardOutput()).contains("c1: running"), 10000);

        // Steps reported: the progress says how far of how many.
        Result j;
        QTRY_VERIFY_WITH_TIMEOUT((j = runStatus({QStringLiteral("--json"), file}),
                                  runOf(j.out, QStringLiteral("c1")).value(QStringLiteral("step")).toInteger(-1) > 0),
                                 10000);
        QCOMPARE(j.status, 0);
        QVERIFY(QJsonDocument::fromJson(j.out).object().value(QStringLiteral("live")).toBool());
        const QJsonObject c1 = runOf(j.out, QStringLiteral("c1"));
        QCOMPARE(c1.value(QStringLiteral("state")).toString(), QStringLiteral("running"));
        QVERIFY2(c1.value(QStringLiteral("progress")).toString().contains(QStringLiteral("/4000 ")),
                 qPrintable(c1.value(QStringLiteral("progress")).toString()));
        QCOMPARE(c1.value(QStringLiteral("lane")).toString(), QStringLiteral("cpu"));
        QVERIFY(c1.value(QStringLiteral("where")).toString().startsWith(QStringLiteral("pid ")));
        const QJsonObject c2 = runOf(j.out, QStringLiteral("c2"));
        QCOMPARE(c2.value(QStringLiteral("state")).toString(), QStringLiteral("queued"));
        QCOMPARE(c2.value(QStringLiteral("reason")).toString(), QStringLiteral("lane full (1 of 1 slots busy)"));
        const QJsonObject c3 = runOf(j.out, QStringLiteral("c3"));
        QCOMPARE(c3.value(QStringLiteral("state")).toString(), QStringLiteral("waiting"));
        QVERIFY2(c3.value(QStringLiteral("reason")).toString().contains(QStringLiteral("c1")),
                 qPrintable(c3.value(QStringLiteral("reason")).toString()));

        // The table says the same.
        const Result t = runStatus({file});
        QCOMPARE(t.status, 0);
        QCOMPARE(lineOf(t.out, QStringLiteral("c1")).value(1), QStringLiteral("running"));
        QCOMPARE(lineOf(t.out, QStringLiteral("c2")).last(), QStringLiteral("lane full (1 of 1 slots busy)"));

        run.terminate(); // a graceful stop, as Ctrl+C
        QVERIFY(run.waitForFinished(30000));
    }
};

QTEST_GUILESS_MAIN(TestStatusCommand)
#include "tst_statuscommand.moc"
