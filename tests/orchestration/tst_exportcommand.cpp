// `trainyard export` end to end, as a user runs it: the built `trainyard`
// binary on run folders written by hand and by trained (fake) workers.

#include "testcatalogue.h"
#include "tests/helpers/buildprograms.h"
#include "testutil.h"

#include "orchestration/launch/launcher.h"
#include "orchestration/runstore/runstore.h"
#include "protocol/protocol.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace trainyard;
using namespace trainyard::test;

namespace {

QByteArray line(const nlohmann::json &message)
{
    return QByteArray::fromStdString(protocol::encode(message));
}

struct Result
{
    int status = -1;
    QByteArray out;
    QByteArray err;
};

Result runExport(const QStringList &args, const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(buildProgram("TRAINYARD_BIN"), QStringList{QStringLiteral("export")} + args);
    Result r;
    if (!p.waitForFinished(30000) || p.exitStatus() != QProcess::NormalExit) {
        return r;
    }
    r.status = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace

class TestExportCommand : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    // An experiment file with runs "a" (repeat 2: a-1, a-2) and "b", its
    // runs root "runs" beside it (relative, as users write it).
    QString writeExperiment(const QString &name, int steps = 12)
    {
        const QString path = m_dir.filePath(name + QStringLiteral(".json"));
        QJsonObject json = experimentJson(
            name, QStringLiteral("%1-runs").arg(name),
            {lane(QStringLiteral("cpu"), 2,
                  {withRepeat(fakeSpec(QStringLiteral("a"), steps, 1), 2), fakeSpec(QStringLiteral("b"), steps, 1)})});
        writeFile(path, QJsonDocument(json).toJson());
        return path;
    }

private Q_SLOTS:
    void handWrittenFolders()
    {
        const QString file = writeExperiment(QStringLiteral("hand"));
        const RunStore store(m_dir.filePath(QStringLiteral("hand-runs")));
        QString error;
        QVERIFY2(store.prepareRunDir(QStringLiteral("a-1"), fakeSpec(QStringLiteral("a-1")), &error),
                 qPrintable(error));
        auto eval = protocol::evalResult(2, "valid", 0.25);
        eval["epoch"] = 1;
        eval["mrr"] = 0.5;
        QByteArray metrics =
            line(protocol::log("info", "start", 0.0)) + line(protocol::metric(1, 1, 0.9, 0.1))
            + line(protocol::metric(2, 1, 0.8, 0.2)) + line(eval) + "garbage\n" + line(protocol::metric(3, 2, 0.7, 0.3))
            + line(protocol::metric(2, 1, 0.75, 0.35)) // re-reported after a resume: the curve goes on from step 2
            + line(protocol::done("finished", 0, 0.4));
        QVERIFY(writeFile(store.runDir(QStringLiteral("a-1")) + QStringLiteral("/metrics.jsonl"), metrics));

        const Result r = runExport({file});
        QCOMPARE(r.status, 0);
        QCOMPARE(r.out, QByteArray("run,step,epoch,wall,metric,value\n"
                                   "a-1,1,1,0.1,loss,0.9\n"
                                   "a-1,2,1,0.35,loss,0.75\n"
                                   "a-1,2,1,0.25,valid/mrr,0.5\n"));
        // The runs never started are named; the bad line is counted.
        QVERIFY2(r.err.contains("note: run \"a-2\" has no metrics yet"), r.err.constData());
        QVERIFY2(r.err.contains("note: run \"b\" has no metrics yet"), r.err.constData());
        QVERIFY2(r.err.contains("a-1/metrics.jsonl: 1 line(s) skipped"), r.err.constData());
    }

    // An eval line's own epoch is the CSV's, also where the metric lines
    // around its step do not tell one (its step between two epochs).
    // A new run leaves model.dim, train.lr, model.loss to its recipe
    // ("auto"): the summary says what the run trained with, the recipe its
    // log named, as Compare shows it.
    void summaryFillsWhatTheRecipeSet()
    {
        QTemporaryDir dir;
        const QString answer = dir.filePath(QStringLiteral("list-models.json"));
        QVERIFY(writeFile(answer, recipeCatalogueJson()));
        const QString worker = dir.filePath(QStringLiteral("trainyard-worker"));
        QVERIFY(writeFile(worker, "#!/bin/sh\ncat '" + answer.toUtf8() + "'\n"));
        QVERIFY(QFile::setPermissions(worker, QFileDevice::ReadOwner | QFileDevice::ExeOwner));
        QString error;
        const ModelCatalogue catalogue = ModelCatalogue::fromJson(recipeCatalogueJson(), &error);
        QVERIFY2(!catalogue.isEmpty(), qPrintable(error));
        const RunStore store(dir.filePath(QStringLiteral("runs")));
        const QJsonObject spec = catalogue.newRunSpec(QStringLiteral("transe"), QStringLiteral("t"));
        QVERIFY2(store.prepareRunDir(QStringLiteral("t"), spec, &error), qPrintable(error));
        auto chose = protocol::log("info", "recipe small", 0.0);
        chose["recipe"] = "small";
        QVERIFY(writeFile(store.runDir(QStringLiteral("t")) + QStringLiteral("/metrics.jsonl"),
                          line(chose) + line(protocol::metric(1, 1, 0.9, 0.1))));

        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TRAINYARD_WORKER"), worker);
        env.insert(QStringLiteral("XDG_CACHE_HOME"), dir.filePath(QStringLiteral("cache")));
        const Result r = runExport({QStringLiteral("--summary"), store.runDir(QStringLiteral("t"))}, env);
        QVERIFY2(r.status == 0, r.err.constData());
        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        const QList<QByteArray> header = lines.at(0).split(',');
        const QList<QByteArray> row = lines.at(1).split(',');
        QCOMPARE(row.size(), header.size());
        const auto cell = [&](const char *key) { return header.contains(key) ? row.at(header.indexOf(key)) : "?"; };
        QCOMPARE(cell("model.dim"), QByteArray("200"));
        QCOMPARE(cell("train.lr"), QByteArray("0.01"));
        QCOMPARE(cell("model.loss"), QByteArray("margin"));
        QCOMPARE(cell("model.recipe"), QByteArray("small"));
        QCOMPARE(cell("train.seed"), QByteArray("1")); // the spec's own
    }

    void anEvalLineKeepsItsEpoch()
    {
        const QString file = writeExperiment(QStringLiteral("evalepoch"));
        const RunStore store(m_dir.filePath(QStringLiteral("evalepoch-runs")));
        QString error;
        QVERIFY2(store.prepareRunDir(QStringLiteral("a-1"), fakeSpec(QStringLiteral("a-1")), &error),
                 qPrintable(error));
        auto eval = protocol::evalResult(15, "valid", 1.5);
        eval["epoch"] = 1; // epochs completed when it ran
        eval["mrr"] = 0.5;
        const QByteArray metrics = line(protocol::metric(10, 1, 0.9, 1.0)) + line(eval)
                                   + line(protocol::metric(20, 2, 0.8, 2.0)) + line(protocol::done("finished", 0, 2.5));
        QVERIFY(writeFile(store.runDir(QStringLiteral("a-1")) + QStringLiteral("/metrics.jsonl"), metrics));
        const Result r = runExport({QStringLiteral("--runs"), QStringLiteral("a-1"), file});
        QCOMPARE(r.status, 0);
        QCOMPARE(r.out, QByteArray("run,step,epoch,wall,metric,value\n"
                                   "a-1,10,1,1,loss,0.9\n"
                                   "a-1,20,2,2,loss,0.8\n"
                                   "a-1,15,1,1.5,valid/mrr,0.5\n"));
    }

    // A run of the board whose folder exists without metrics is named once,
    // not once for the board and once for its folder.
    void aRunWithoutMetricsIsNotedOnce()
    {
        const QString file = writeExperiment(QStringLiteral("once"));
        const RunStore store(m_dir.filePath(QStringLiteral("once-runs")));
        QString error;
        for (const char *name : {"a-1", "b"}) {
            QVERIFY2(store.prepareRunDir(QLatin1String(name), fakeSpec(QLatin1String(name)), &error),
                     qPrintable(error));
        }
        QVERIFY(writeFile(store.runDir(QStringLiteral("a-1")) + QStringLiteral("/metrics.jsonl"),
                          line(protocol::metric(1, 1, 0.9, 0.1))));
        const Result r = runExport({file});
        QCOMPARE(r.status, 0);
        QCOMPARE(r.err.count("note: run \"b\" has no metrics yet"), 1);
        QCOMPARE(r.err.count("note: run \"a-2\" has no metrics yet"), 1);
    }

    // A script run outside Trainyard (the Python module's
    // ./trainyard-runs/NAME-DATE folder): the run folder itself and the
    // folder of such runs both export, as an experiment's runs do.
    void plainRunFoldersAndRunsRoots()
    {
        const QString root = m_dir.filePath(QStringLiteral("plain/trainyard-runs"));
        const QString first = root + QStringLiteral("/train-20250101-120000");
        QVERIFY(QDir().mkpath(first));
        const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
        const QString source = qEnvironmentVariable("TRAINYARD_SOURCE_DIR");
        if (!python.isEmpty() && !source.isEmpty()) {
            // The module itself writes it, outside Trainyard.
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("PYTHONPATH"), source + QStringLiteral("/python"));
            for (const QString &name : LaunchSpec::runVariableNames()) {
                env.remove(name);
            }
            const ProcessOutcome o =
                runProcess(python,
                           {QStringLiteral("-c"), QStringLiteral("import trainyard\n"
                                                                 "run = trainyard.init(run_dir=%1)\n"
                                                                 "run.log(1, loss=0.5, epoch=1)\n"
                                                                 "run.log(2, loss=0.25, epoch=1)\n"
                                                                 "run.eval('valid', 2, epoch=1, accuracy=0.75)\n")
                                                      .arg(QStringLiteral("'") + first + QStringLiteral("'"))},
                           env, 30000);
            QVERIFY2(o.exitCode == 0, qPrintable(o.all()));
        } else {
            auto eval = protocol::evalResult(2, "valid", 0.3);
            eval["epoch"] = 1;
            eval["accuracy"] = 0.75;
            QVERIFY(writeFile(first + QStringLiteral("/metrics.jsonl"), line(protocol::metric(1, 1, 0.5, 0.1))
                                                                            + line(protocol::metric(2, 1, 0.25, 0.2))
                                                                            + line(eval)));
        }
        const QString second = root + QStringLiteral("/train-20250101-130000");
        QVERIFY(QDir().mkpath(second));
        QVERIFY(writeFile(second + QStringLiteral("/metrics.jsonl"), line(protocol::metric(5, 1, 0.125, 0.5))));

        Result r = runExport({first});
        QVERIFY2(r.status == 0, r.err.constData());
        QList<QByteArray> lines = r.out.split('\n');
        QCOMPARE(lines.value(0), QByteArray("run,step,epoch,wall,metric,value"));
        QVERIFY2(lines.value(1).startsWith("train-20250101-120000,1,1,") && lines.value(1).endsWith(",loss,0.5"),
                 r.out.constData());
        QVERIFY2(lines.value(3).startsWith("train-20250101-120000,2,1,")
                     && lines.value(3).endsWith(",valid/accuracy,0.75"),
                 r.out.constData());
        QCOMPARE(r.out.count('\n'), 4);

        r = runExport({root});
        QVERIFY2(r.status == 0, r.err.constData());
        QVERIFY2(r.out.contains("\ntrain-20250101-120000,1,1,")
                     && r.out.contains("\ntrain-20250101-130000,5,1,0.5,loss,0.125\n"),
                 r.out.constData());
        r = runExport({QStringLiteral("--runs"), QStringLiteral("train-20250101-130000"), root});
        QCOMPARE(r.status, 0);
        QCOMPARE(r.out, QByteArray("run,step,epoch,wall,metric,value\ntrain-20250101-130000,5,1,0.5,loss,0.125\n"));
        r = runExport({QStringLiteral("--summary"), root});
        QCOMPARE(r.status, 0);
        QVERIFY2(r.out.startsWith("run,sweep,trial,state,") && r.out.contains("\ntrain-20250101-130000,,,"),
                 r.out.constData());

        // Nothing in the runs root is followed: a linked run folder is no
        // run, a linked metrics.jsonl is refused, naming it.
        QVERIFY(QFile::link(second, root + QStringLiteral("/linked")));
        r = runExport({root});
        QCOMPARE(r.status, 0);
        QVERIFY2(!r.out.contains("\nlinked,"), r.out.constData());
        const QString third = root + QStringLiteral("/train-20250101-140000");
        QVERIFY(QDir().mkpath(third));
        QVERIFY(QFile::link(second + QStringLiteral("/metrics.jsonl"), third + QStringLiteral("/metrics.jsonl")));
        r = runExport({third});
        QCOMPARE(r.status, 1);
        QVERIFY2(r.err.contains(third.toUtf8() + "/metrics.jsonl is not a regular file (a symbolic link)"),
                 r.err.constData());
        QVERIFY(r.out.isEmpty() || r.out == "run,step,epoch,wall,metric,value\n");

        // A folder that is none of them, and one whose name is no run name: said, naming the path.
        const QString empty = m_dir.filePath(QStringLiteral("plain/empty"));
        QVERIFY(QDir().mkpath(empty + QStringLiteral("/sub")));
        r = runExport({empty});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(empty.toUtf8() + ": neither an experiment file, a runs root nor a run folder"),
                 r.err.constData());
        const QString oddName = m_dir.filePath(QStringLiteral("plain/my run"));
        QVERIFY(QDir().mkpath(oddName));
        QVERIFY(writeFile(oddName + QStringLiteral("/metrics.jsonl"), line(protocol::metric(1, 1, 0.5, 0.1))));
        r = runExport({oddName});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(oddName.toUtf8() + ": a run folder's name must be"), r.err.constData());
    }

    void errorsNameTheFile()
    {
        const QString file = writeExperiment(QStringLiteral("errors"));
        Result r = runExport({QStringLiteral("--runs"), QStringLiteral("zz"), file});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(file.toUtf8() + ": no run named \"zz\" (its runs: a-1, a-2, b)"), r.err.constData());
        QVERIFY(r.out.isEmpty());

        r = runExport({QStringLiteral("--runs"), QStringLiteral("b"), file});
        QCOMPARE(r.status, 1);
        const QByteArray missing = m_dir.filePath(QStringLiteral("errors-runs/b/metrics.jsonl")).toUtf8();
        QVERIFY2(r.err.contains(missing + ": no such file (run \"b\" has not started)"), r.err.constData());

        r = runExport({file});
        QCOMPARE(r.status, 1);
        QVERIFY2(r.err.contains("no run of " + file.toUtf8() + " has written metrics yet"), r.err.constData());

        r = runExport({m_dir.filePath(QStringLiteral("nothing.json"))});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("nothing.json"), r.err.constData());
        r = runExport({});
        QCOMPARE(r.status, 2);
        QVERIFY(r.err.contains("needs exactly one experiment file"));
        r = runExport({QStringLiteral("--bogus"), file});
        QCOMPARE(r.status, 2);
        QVERIFY(r.err.contains("bogus"));
        r = runExport({QStringLiteral("--help")});
        QCOMPARE(r.status, 0);
        QVERIFY(r.out.contains("Usage: trainyard export [--runs NAME,...] EXPERIMENT.json"));
    }

    void hostileFilesAreRefusedNotWaitedOn_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("kind");
        for (const char *folder : {"victim", "victim.attempt-1"}) {
            for (const char *file : {"metrics.jsonl", "status.json", "spec.json"}) {
                for (const char *kind : {"fifo", "link", "link to /dev/zero"}) {
                    QTest::addRow("%s/%s is a %s", folder, file, kind)
                        << QString::fromLatin1(folder) << QString::fromLatin1(file) << QString::fromLatin1(kind);
                }
            }
        }
    }
    // `trainyard export` of a runs root where one file of a run's (or a kept
    // attempt's) folder is a FIFO, a link to another run's or to /dev/zero:
    // it ends, names the refused file, and writes nothing of the other run
    // as this one's (the CSV and the summary).
    void hostileFilesAreRefusedNotWaitedOn()
    {
        QFETCH(QString, folder);
        QFETCH(QString, file);
        QFETCH(QString, kind);
        QTemporaryDir dir;
        const QString root = dir.filePath(QStringLiteral("runs"));
        for (const QString &name : {folder, QStringLiteral("other")}) {
            const bool other = name == QLatin1String("other");
            const QString d = root + QLatin1Char('/') + name;
            QVERIFY(QDir().mkpath(d));
            QByteArray lines;
            for (int step = 1; step <= 3; ++step) {
                lines += line(protocol::metric(step, 1, other ? 0.777 : 1.5, 0.1 * step));
            }
            QVERIFY(writeFile(d + QStringLiteral("/metrics.jsonl"), lines));
            QVERIFY(writeFile(
                d + QStringLiteral("/spec.json"),
                QJsonDocument(fakeSpec(other ? QStringLiteral("other") : QStringLiteral("victim"))).toJson()));
            QVERIFY(
                writeFile(d + QStringLiteral("/status.json"), other ? "{\"state\":\"failed\",\"message\":\"OTHER\"}"
                                                                    : "{\"state\":\"finished\",\"message\":\"mine\"}"));
        }
        const QString path = root + QLatin1Char('/') + folder + QLatin1Char('/') + file;
        QVERIFY(QFile::remove(path));
        if (kind == QLatin1String("fifo")) {
            QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        } else {
            QVERIFY(QFile::link(kind == QLatin1String("link") ? root + QStringLiteral("/other/") + file
                                                              : QStringLiteral("/dev/zero"),
                                path));
        }
        for (const QStringList &args : {QStringList{root}, QStringList{QStringLiteral("--summary"), root}}) {
            const Result r = runExport(args);
            QVERIFY2(r.status == 0, r.err.constData()); // -1: it hung (30 s) or crashed
            // The CSV reads metrics.jsonl only; the summary all three.
            if (file == QLatin1String("metrics.jsonl") || args.first() == QLatin1String("--summary")) {
                QVERIFY2(r.err.contains(path.toUtf8()) && r.err.contains("not a regular file"), r.err.constData());
            }
            for (const QByteArray &row : r.out.split('\n')) {
                if (row.startsWith(folder.toUtf8() + ',')) {
                    QVERIFY2(!row.contains("0.777") && !row.contains("OTHER") && !row.contains(",other"),
                             row.constData());
                }
            }
        }
    }

    // Trained runs: the file export and the open session's export (the
    // in-memory curves) write the same CSV; --runs picks and orders nothing else.
    void trainedRunsMatchTheSessionsExport()
    {
        if (fakeWorker().isEmpty()) {
            QSKIP("TRAINYARD_FAKE_WORKER is not set");
        }
        const QString file = writeExperiment(QStringLiteral("trained"), 25);
        QStringList errors;
        const auto ex = Experiment::load(file, &errors);
        QVERIFY2(ex, qPrintable(errors.join(QLatin1Char('\n'))));
        Experiment resolved = *ex;
        resolved.runsRoot = RunStore::rootFor(*ex, file);
        const QString trained = trainUntilIdle(resolved);
        QVERIFY2(trained.isEmpty(), qPrintable(trained));

        const Result all = runExport({file});
        QCOMPARE(all.status, 0);
        QVERIFY2(all.err.isEmpty(), all.err.constData());
        const QList<QByteArray> lines = all.out.split('\n');
        QCOMPARE(lines.first(), QByteArray("run,step,epoch,wall,metric,value"));
        int loss = 0, evals = 0;
        for (const QByteArray &l : lines.mid(1)) {
            loss += l.contains(",loss,") ? 1 : 0;
            evals += l.contains(",valid/mrr,") ? 1 : 0;
            QVERIFY2(!l.contains(",epoch,"), l.constData()); // the epoch is a column, not a metric
        }
        QCOMPARE(loss, 3 * 25);
        QVERIFY(evals >= 3);

        Session session;
        QVERIFY2(session.load(file, &errors), qPrintable(errors.join(QLatin1Char('\n'))));
        const QString csv = m_dir.filePath(QStringLiteral("session.csv"));
        QString error;
        QVERIFY2(session.exportCsv(csv, {}, &error), qPrintable(error));
        session.close();
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), all.out);

        const Result some = runExport(
            {QStringLiteral("--runs"), QStringLiteral("b"), QStringLiteral("--runs"), QStringLiteral("a-2,b"), file});
        QCOMPARE(some.status, 0);
        QByteArray expected = "run,step,epoch,wall,metric,value\n";
        for (const QByteArray &l : lines) {
            if (l.startsWith("b,")) {
                expected += l + '\n';
            }
        }
        for (const QByteArray &l : lines) {
            if (l.startsWith("a-2,")) {
                expected += l + '\n';
            }
        }
        QCOMPARE(some.out, expected);
    }
};

QTEST_GUILESS_MAIN(TestExportCommand)
#include "tst_exportcommand.moc"
