// RunStore's run history: past runs (spec.json, status.json, the summary of
// metrics.jsonl) as RunRecord values, read through the one reader, and kept
// up to date by reading only what the runs appended.

#include "metrics/metricstore.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/runstore/specidentity.h"
#include "protocol/metricrecord.h"
#include "protocol/protocol.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace trainyard;

namespace {

QByteArray line(const nlohmann::json &message)
{
    return QByteArray::fromStdString(protocol::encode(message));
}

bool writeFile(const QString &path, const QByteArray &bytes, QIODevice::OpenMode mode = QIODevice::WriteOnly)
{
    QFile f(path);
    return f.open(mode) && f.write(bytes) == bytes.size();
}

nlohmann::json eval(std::int64_t step, const char *split, double mrr, double hits10)
{
    auto e = protocol::evalResult(step, split, 0.1 * double(step));
    e["epoch"] = step / 10;
    e["mrr"] = mrr;
    e["hits@10"] = hits10;
    return e;
}

nlohmann::json metric(std::int64_t step, double loss)
{
    auto m = protocol::metric(step, (step - 1) / 10 + 1, loss, 0.1 * double(step));
    m["total_steps"] = 40;
    return m;
}

} // namespace

class TestRunStore : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    // A run folder as a finished worker and orchestrator leave it.
    void makeRun(const RunStore &store, const QString &name, const QByteArray &metrics, const QString &state)
    {
        QString error;
        const QJsonObject model{{QStringLiteral("type"), QStringLiteral("transe")}};
        const QJsonObject spec{{QStringLiteral("name"), name}, {QStringLiteral("model"), model}};
        QVERIFY2(store.prepareRunDir(name, spec, &error), qPrintable(error));
        QVERIFY(writeFile(store.runDir(name) + QStringLiteral("/metrics.jsonl"), metrics));
        if (state.isEmpty()) {
            return;
        }
        RunInfo info;
        info.name = name;
        QVERIFY(runStateFromName(state, &info.state));
        info.exitCode = state == QLatin1String("finished") ? 0 : 1;
        info.device = Device::parse(QStringLiteral("cpu"));
        info.started = QDateTime(QDate(2026, 11, 30), QTime(10, 0), Qt::UTC);
        info.ended = info.started.addSecs(90);
        info.message = QStringLiteral("exit %1").arg(info.exitCode);
        QVERIFY2(store.writeStatus(info, &error), qPrintable(error));
    }

private Q_SLOTS:
    void aFinishedRun()
    {
        const RunStore store(m_dir.filePath(QStringLiteral("finished")));
        QByteArray metrics;
        for (int step = 1; step <= 40; ++step) {
            metrics += line(metric(step, 1.0 / step));
        }
        metrics += line(eval(10, "valid", 0.30, 0.5));
        metrics += line(eval(20, "valid", 0.45, 0.6));
        metrics += line(eval(30, "valid", 0.40, 0.7)); // worse MRR than before: best stays 0.45
        metrics += line(eval(40, "test", 0.42, 0.65));
        metrics += line(protocol::done("finished", 0, 4.5));
        makeRun(store, QStringLiteral("t"), metrics, QStringLiteral("finished"));

        RunRecord run;
        QVERIFY(store.readRun(QStringLiteral("t"), &run));
        QCOMPARE(run.info.name, QStringLiteral("t"));
        QCOMPARE(run.info.runDir, store.runDir(QStringLiteral("t")));
        QCOMPARE(run.info.spec.value(QStringLiteral("model")).toObject().value(QStringLiteral("type")).toString(),
                 QStringLiteral("transe"));
        QVERIFY(run.hasStatus);
        QCOMPARE(run.info.state, RunState::Finished);
        QCOMPARE(run.stateName(), QStringLiteral("finished"));
        QCOMPARE(run.info.exitCode, 0);
        QCOMPARE(run.info.device.toString(), QStringLiteral("cpu"));
        QCOMPARE(run.info.started.secsTo(run.info.ended), qint64(90));
        QCOMPARE(run.info.message, QStringLiteral("exit 0"));
        QCOMPARE(run.info.step, qint64(40));
        QCOMPARE(run.info.epoch, qint64(4));
        QCOMPARE(run.info.loss, 1.0 / 40);
        QCOMPARE(run.info.totalSteps, qint64(40));
        QCOMPARE(run.info.wall, 4.5);
        QVERIFY(run.hasDone);
        QCOMPARE(run.doneStatus, QStringLiteral("finished"));
        QCOMPARE(run.doneExitCode, 0);
        QCOMPARE(run.metricsOffset, qint64(metrics.size()));

        QCOMPARE(run.evals.keys(), (QStringList{QStringLiteral("test/hits@10"), QStringLiteral("test/mrr"),
                                                QStringLiteral("valid/hits@10"), QStringLiteral("valid/mrr")}));
        const RunRecord::Eval valid = run.evals.value(QStringLiteral("valid/mrr"));
        QCOMPARE(valid.last, 0.40);
        QCOMPARE(valid.lastStep, std::int64_t(30));
        QCOMPARE(valid.best, 0.45);
        QCOMPARE(valid.bestStep, std::int64_t(20));
        // The final word is the test split's.
        const RunRecord::Eval *mrr = run.finalEval(QStringLiteral("mrr"));
        QVERIFY(mrr);
        QCOMPARE(mrr->last, 0.42);
        QVERIFY(!run.finalEval(QStringLiteral("accuracy")));
    }

    void stateWithoutStatusJson()
    {
        const RunStore store(m_dir.filePath(QStringLiteral("nostatus")));
        // Interrupted while the orchestrator was away: only the done line tells.
        makeRun(store, QStringLiteral("d"), line(metric(1, 0.9)) + line(protocol::done("diverged", 3, 0.2)), QString());
        // Never ended at all.
        makeRun(store, QStringLiteral("u"), line(metric(1, 0.9)), QString());
        RunRecord d, u;
        QVERIFY(store.readRun(QStringLiteral("d"), &d));
        QVERIFY(!d.hasStatus);
        QCOMPARE(d.stateName(), QStringLiteral("diverged"));
        QCOMPARE(d.info.state, RunState::Diverged);
        QCOMPARE(d.info.exitCode, 3);
        QVERIFY(store.readRun(QStringLiteral("u"), &u));
        QCOMPARE(u.stateName(), QStringLiteral("unknown"));
        QCOMPARE(u.info.exitCode, -1);
        // Without the test split, the split evaluated last has the final word.
        QVERIFY(writeFile(store.runDir(QStringLiteral("u")) + QStringLiteral("/metrics.jsonl"),
                          line(eval(10, "valid", 0.3, 0.5)) + line(eval(20, "train", 0.9, 0.95))
                              + line(eval(30, "valid", 0.35, 0.55)),
                          QIODevice::Append));
        QVERIFY(store.readRun(QStringLiteral("u"), &u));
        QCOMPARE(u.finalEval(QStringLiteral("mrr"))->last, 0.35);
    }

    void historyListsRunFoldersOnly()
    {
        const QString root = m_dir.filePath(QStringLiteral("history"));
        const RunStore store(root);
        makeRun(store, QStringLiteral("b"), line(metric(1, 0.5)), QStringLiteral("failed"));
        makeRun(store, QStringLiteral("a"), line(metric(1, 0.7)), QStringLiteral("finished"));
        QVERIFY(QDir().mkpath(root + QStringLiteral("/empty")));   // neither spec.json nor status.json
        QVERIFY(QDir().mkpath(root + QStringLiteral("/.hidden"))); // no run name
        QVERIFY(QFile::link(root + QStringLiteral("/a"), root + QStringLiteral("/link"))); // links are not followed
        QVERIFY(writeFile(root + QStringLiteral("/.trainyard-state.json"), "{}"));
        QCOMPARE(store.runNames(), (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("empty")}));
        const QList<RunRecord> runs = store.readHistory();
        QCOMPARE(runs.size(), 2);
        QCOMPARE(runs.at(0).info.name, QStringLiteral("a"));
        QCOMPARE(runs.at(0).stateName(), QStringLiteral("finished"));
        QCOMPARE(runs.at(1).info.name, QStringLiteral("b"));
        QCOMPARE(runs.at(1).stateName(), QStringLiteral("failed"));
        QCOMPARE(runs.at(1).info.loss, 0.5);
        RunRecord none;
        QVERIFY(!store.readRun(QStringLiteral("empty"), &none));
        QVERIFY(!store.readRun(QStringLiteral("../history/a"), &none));
        QCOMPARE(RunStore(m_dir.filePath(QStringLiteral("nothing-here"))).readHistory().size(), 0);
    }

    // A second look reads only what was appended; a replaced file starts over.
    void historyIsReadIncrementally()
    {
        const RunStore store(m_dir.filePath(QStringLiteral("incremental")));
        const QByteArray first = line(metric(1, 0.9)) + line(eval(1, "valid", 0.2, 0.3));
        makeRun(store, QStringLiteral("r"), first, QString());
        QList<RunRecord> runs = store.readHistory();
        QCOMPARE(runs.size(), 1);
        QCOMPARE(runs.at(0).metricsOffset, qint64(first.size()));
        QCOMPARE(runs.at(0).stateName(), QStringLiteral("unknown"));

        const QString metrics = store.runDir(QStringLiteral("r")) + QStringLiteral("/metrics.jsonl");
        const QByteArray more =
            line(metric(2, 0.8)) + line(eval(2, "valid", 0.1, 0.2)) + line(protocol::done("stopped", 4, 0.3));
        // The part already read changes behind our back (same length): read
        // again from the start, the best MRR would become 0.9.
        QByteArray changed = first;
        changed.replace("\"mrr\":0.2", "\"mrr\":0.9");
        QCOMPARE(changed.size(), first.size());
        QVERIFY(changed != first);
        QVERIFY(writeFile(metrics, changed + more));
        store.readHistory(&runs);
        QCOMPARE(runs.size(), 1);
        const RunRecord &r = runs.at(0);
        QCOMPARE(r.metricsOffset, qint64(first.size() + more.size()));
        QCOMPARE(r.info.step, qint64(2));
        QCOMPARE(r.info.loss, 0.8);
        QCOMPARE(r.evals.value(QStringLiteral("valid/mrr")).last, 0.1);
        QCOMPARE(r.evals.value(QStringLiteral("valid/mrr")).best, 0.2); // kept from the first read
        QCOMPARE(r.stateName(), QStringLiteral("stopped"));

        // Retried: the folder starts again with a shorter file.
        QVERIFY(writeFile(metrics, line(metric(1, 0.95))));
        store.readHistory(&runs);
        QCOMPARE(runs.at(0).info.loss, 0.95);
        QVERIFY(runs.at(0).evals.isEmpty());
        QVERIFY(!runs.at(0).hasDone);

        // Results are never cleared; kept as an earlier attempt, the folder
        // stays in the history under its new name.
        QVERIFY(!store.clearRunDir(QStringLiteral("r")));
        QVERIFY(QFile::exists(metrics));
        QString archived;
        QVERIFY(store.archiveRunDir(QStringLiteral("r"), &archived));
        QCOMPARE(archived, QStringLiteral("r.attempt-1"));
        store.readHistory(&runs);
        QCOMPARE(runs.size(), 1);
        QCOMPARE(runs.at(0).info.name, QStringLiteral("r.attempt-1"));
        QCOMPARE(runs.at(0).info.loss, 0.95);

        // A run folder that went away leaves the history.
        QVERIFY(QDir(store.runDir(archived)).removeRecursively());
        store.readHistory(&runs);
        QVERIFY(runs.isEmpty());
    }

    // A run of the open experiment, for its details: the registry's record
    // and the metric store's evaluations, summarised as a past run's are.
    void aLiveRunFromTheMetricStore()
    {
        MetricStore metrics;
        RunInfo info;
        info.id = 3;
        info.name = QStringLiteral("live");
        info.state = RunState::Running;
        metrics.add(3, QStringLiteral("loss"), 1, 0.1, 2.0);
        metrics.add(3, QStringLiteral("valid/mrr"), 10, 1.0, 0.3);
        metrics.add(3, QStringLiteral("valid/mrr"), 20, 2.0, 0.5);
        metrics.add(3, QStringLiteral("valid/mrr"), 30, 3.0, 0.4);
        metrics.add(4, QStringLiteral("valid/mrr"), 10, 1.0, 0.9); // another run's
        // An eval line's epoch says when, not how well (as from the file; the
        // details listed "valid/epoch" among a live run's metrics).
        metrics.add(3, QStringLiteral("valid/epoch"), 30, 3.0, 3);
        metrics.add(3, QStringLiteral("samples_per_s"), 10, 1.0, 100);
        metrics.add(3, QStringLiteral("samples_per_s"), 20, 2.0, 300);
        metrics.add(3, QStringLiteral("mem_bytes"), 10, 1.0, 2048);
        metrics.add(3, QStringLiteral("mem_bytes"), 20, 2.0, 1024);
        const RunRecord run = RunRecord::live(info, metrics);
        QCOMPARE(run.usage.meanSamplesPerSecond(), 200.0);
        QCOMPARE(run.usage.lastSamplesPerSecond, 300.0);
        QCOMPARE(run.usage.peakMemBytes, 2048.0);
        QCOMPARE(run.info.name, QStringLiteral("live"));
        QCOMPARE(run.stateName(), QStringLiteral("running"));
        QCOMPARE(run.evals.keys(), QStringList{QStringLiteral("valid/mrr")});
        const RunRecord::Eval mrr = run.evals.value(QStringLiteral("valid/mrr"));
        QCOMPARE(mrr.last, 0.4);
        QCOMPARE(mrr.lastStep, std::int64_t(30));
        QCOMPARE(mrr.best, 0.5);
        QCOMPARE(mrr.bestStep, std::int64_t(20));
    }

    // a run's tags and note live in its folder's notes.json, set
    // before it starts if need be, and outlive a fresh start or a retry.
    void notesAreKeptInTheRunFolder()
    {
        const RunStore store(m_dir.filePath(QStringLiteral("notes")));
        const QString name = QStringLiteral("n");
        QVERIFY(store.readNotes(name).isEmpty());
        RunNotes notes;
        notes.tags = RunNotes::parseTags(QStringLiteral(" baseline,lr  sweep,, baseline "));
        QCOMPARE(notes.tags, (QStringList{QStringLiteral("baseline"), QStringLiteral("lr sweep")}));
        QCOMPARE(notes.tagsText(), QStringLiteral("baseline, lr sweep"));
        notes.note = QStringLiteral("the one with the warm-up\nsecond line");

        // Not started yet: the folder is made for the notes alone, and a
        // folder with nothing but notes is no run of the history.
        QString error;
        QVERIFY2(store.writeNotes(name, notes, &error), qPrintable(error));
        QVERIFY(QFile::exists(store.runDir(name) + QStringLiteral("/notes.json")));
        QCOMPARE(store.readNotes(name), notes);
        QVERIFY(store.readHistory().isEmpty());

        // Its start clears the folder but for the notes.
        QVERIFY(store.clearRunDir(name));
        QVERIFY(store.prepareRunDir(name, QJsonObject{{QStringLiteral("name"), name}}, &error));
        QCOMPARE(store.readNotes(name), notes);
        RunRecord run;
        QVERIFY(store.readRun(name, &run));
        QCOMPARE(run.notes, notes);

        // Edited later, read again by the history.
        notes.tags = {QStringLiteral("best")};
        QVERIFY(store.writeNotes(name, notes, &error));
        QList<RunRecord> runs = store.readHistory();
        QCOMPARE(runs.size(), 1);
        QCOMPARE(runs.at(0).notes.tags, QStringList{QStringLiteral("best")});

        // No notes: no file.
        QVERIFY(store.writeNotes(name, RunNotes{}, &error));
        QVERIFY(!QFile::exists(store.runDir(name) + QStringLiteral("/notes.json")));
        QVERIFY(store.readNotes(name).isEmpty());

        // A link planted as notes.json is neither followed nor written through.
        const QString target = m_dir.filePath(QStringLiteral("elsewhere.json"));
        QVERIFY(writeFile(target, R"({"tags": ["planted"], "note": "x"})"));
        QVERIFY(QFile::link(target, store.runDir(name) + QStringLiteral("/notes.json")));
        QVERIFY(store.readNotes(name).isEmpty());
        QVERIFY(!store.writeNotes(name, notes, &error));
        QVERIFY2(error.contains(QStringLiteral("symbolic link")), qPrintable(error));
        QVERIFY(!store.writeNotes(QStringLiteral("../out"), notes));
    }

    // what a run was, after the fact: status.json keeps the host
    // and the worker's command line; the state file keeps the command line
    // of a run left training, for the session that reattaches it.
    void statusKeepsHostAndCommand()
    {
        const RunStore store(m_dir.filePath(QStringLiteral("command")));
        makeRun(store, QStringLiteral("c"), QByteArray(), QString());
        RunInfo info;
        info.name = QStringLiteral("c");
        info.state = RunState::Finished;
        info.exitCode = 0;
        info.host = QStringLiteral("node-7");
        info.command = {QStringLiteral("/opt/trainyard-worker"),
                        QStringLiteral("--spec"),
                        store.runDir(QStringLiteral("c")) + QStringLiteral("/spec.json"),
                        QStringLiteral("--device"),
                        QStringLiteral("cpu"),
                        QStringLiteral("--threads"),
                        QStringLiteral("2")};
        QString error;
        QVERIFY2(store.writeStatus(info, &error), qPrintable(error));
        RunInfo read;
        QVERIFY(store.readStatus(QStringLiteral("c"), &read));
        QCOMPARE(read.host, QStringLiteral("node-7"));
        QCOMPARE(read.command, info.command);
        RunRecord run;
        QVERIFY(store.readRun(QStringLiteral("c"), &run));
        QCOMPARE(run.info.host, QStringLiteral("node-7"));
        QCOMPARE(run.info.command, info.command);

        RunStore::LiveWorker live;
        live.pid = 4242;
        live.token = QStringLiteral("t");
        live.command = info.command;
        QVERIFY(store.writeState({{QStringLiteral("c"), live}}, QStringLiteral("/tmp/s.sock")));
        QCOMPARE(store.readState().value(QStringLiteral("c")).command, info.command);
    }

    void specAndRoot()
    {
        const RunStore store(m_dir.filePath(QStringLiteral("spec")));
        makeRun(store, QStringLiteral("s"), QByteArray(), QString());
        QCOMPARE(store.readSpec(QStringLiteral("s")).value(QStringLiteral("name")).toString(), QStringLiteral("s"));
        QVERIFY(store.readSpec(QStringLiteral("missing")).isEmpty());

        Experiment ex;
        ex.name = QStringLiteral("e");
        ex.runsRoot = QStringLiteral("runs");
        QCOMPARE(RunStore::rootFor(ex, QStringLiteral("/data/exp/e.json")), QStringLiteral("/data/exp/runs"));
        ex.runsRoot = QStringLiteral("/abs/runs");
        QCOMPARE(RunStore::rootFor(ex, QStringLiteral("/data/exp/e.json")), QStringLiteral("/abs/runs"));
        ex.runsRoot = QStringLiteral("~/runs");
        QCOMPARE(RunStore::rootFor(ex, QStringLiteral("/data/exp/e.json")), QDir::homePath() + QStringLiteral("/runs"));
        ex.runsRoot.clear();
        QCOMPARE(RunStore::rootFor(ex, QStringLiteral("/data/exp/e.json")), ex.effectiveRunsRoot());
    }

    // What "the same spec" compares (specidentity): the training, not its
    // intervals, name or placement; paths as resolved; a placeholder
    // against the value it became.
    void theSameSpec()
    {
        const QJsonObject base{
            {QStringLiteral("name"), QStringLiteral("x")},
            {QStringLiteral("model"),
             QJsonObject{{QStringLiteral("type"), QStringLiteral("transe")}, {QStringLiteral("dim"), 16}}},
            {QStringLiteral("train"), QJsonObject{{QStringLiteral("epochs"), 10}, {QStringLiteral("seed"), 1}}},
            {QStringLiteral("eval"), QJsonObject{{QStringLiteral("every_epochs"), 5}}},
            {QStringLiteral("report"), QJsonObject{{QStringLiteral("every_steps"), 10}}}};
        QVERIFY(specidentity::difference(base, base).isEmpty());
        QJsonObject other = base;
        other.insert(QStringLiteral("name"), QStringLiteral("renamed"));
        other.insert(QStringLiteral("report"), QJsonObject{{QStringLiteral("every_steps"), 1}});
        other.insert(QStringLiteral("checkpoint"), QJsonObject{{QStringLiteral("every_steps"), 7}});
        other.remove(QStringLiteral("eval"));
        other.insert(QStringLiteral("resources"), QJsonObject{{QStringLiteral("gpus"), 1}});
        QVERIFY2(specidentity::difference(base, other).isEmpty(), qPrintable(specidentity::difference(base, other)));
        other.insert(QStringLiteral("eval"), QJsonObject{{QStringLiteral("split"), QStringLiteral("test")}});
        QCOMPARE(specidentity::difference(base, other),
                 QStringLiteral("eval: absent there, {\"split\":\"test\"} here"));
        other = base;
        other.insert(QStringLiteral("train"), QJsonObject{{QStringLiteral("epochs"), 30}, {QStringLiteral("seed"), 1}});
        QCOMPARE(specidentity::difference(base, other), QStringLiteral("train.epochs: 10 there, 30 here"));

        // A program: the folder its cwd resolves to; its argv's placeholder
        // matches what the folder's spec holds.
        const auto program = [](const QString &cwd, const QString &arg) {
            return QJsonObject{{QStringLiteral("program"),
                                QJsonObject{{QStringLiteral("argv"),
                                             QJsonArray{QStringLiteral("python3"), QStringLiteral("train.py"), arg}},
                                            {QStringLiteral("cwd"), cwd}}}};
        };
        const QJsonObject held = program(QStringLiteral("/home/me/exp/src"), QStringLiteral("/ckpt/a.pt"));
        QVERIFY(specidentity::difference(
                    held, program(QStringLiteral("/home/me/exp/./src/"), QStringLiteral("{after.pre.checkpoint}")))
                    .isEmpty());
        QCOMPARE(
            specidentity::difference(held, program(QStringLiteral("/home/me/other"), QStringLiteral("/ckpt/a.pt"))),
            QStringLiteral("program.cwd: \"/home/me/exp/src\" there, \"/home/me/other\" here"));
    }
};

QTEST_GUILESS_MAIN(TestRunStore)
#include "tst_runstore.moc"
