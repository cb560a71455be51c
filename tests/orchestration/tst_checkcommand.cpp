// `trainyard check` end to end, as a user runs it: the built `trainyard`
// binary on experiment files with the mistakes users make (a missing data
// folder, a misspelt model key, an unknown model, a malformed data file, a
// GPU the machine lacks), with the real worker giving the catalogue and
// looking at the data. Nothing may start: no runs root appears.

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "tests/helpers/buildprograms.h"

namespace {

struct Result
{
    int status = -1;
    QByteArray out;
    QByteArray err;
};

QJsonObject run(const QString &name, const QJsonObject &model, const QJsonObject &data)
{
    return {{QStringLiteral("name"), name}, {QStringLiteral("model"), model}, {QStringLiteral("data"), data}};
}

QJsonObject transe(const QJsonObject &extra = {})
{
    QJsonObject m{{QStringLiteral("type"), QStringLiteral("transe")}};
    for (auto it = extra.begin(); it != extra.end(); ++it) {
        m.insert(it.key(), it.value());
    }
    return m;
}

QJsonObject synthetic()
{
    return {{QStringLiteral("kind"), QStringLiteral("synthetic-kg")}};
}

QJsonObject kgFolder(const QString &path)
{
    return {{QStringLiteral("kind"), QStringLiteral("kg")}, {QStringLiteral("path"), path}};
}

} // namespace

class TestCheckCommand : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_worker;
    QJsonObject m_libTorch; // the worker's --list-models "libtorch"
    bool m_cpuOnlyWorker = false;

    QString writeExperiment(const QString &name, const QJsonArray &runs, const QString &device = QStringLiteral("cpu"))
    {
        const QJsonObject lane{{QStringLiteral("device"), device}, {QStringLiteral("runs"), runs}};
        const QJsonObject experiment{{QStringLiteral("name"), name},
                                     {QStringLiteral("runs_root"), m_dir.filePath(name + QStringLiteral("-runs"))},
                                     {QStringLiteral("lanes"), QJsonArray{lane}}};
        const QString path = m_dir.filePath(name + QStringLiteral(".json"));
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly)) {
            return {};
        }
        file.write(QJsonDocument(experiment).toJson());
        return path;
    }

    Result check(const QStringList &args, const QString &command = QStringLiteral("check"))
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TRAINYARD_WORKER"), m_worker);
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_dir.filePath(QStringLiteral("config"))); // its own trust list
        p.setProcessEnvironment(env);
        p.start(buildProgram("TRAINYARD_BIN"), QStringList{command} + args);
        Result r;
        if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit) {
            return r;
        }
        r.status = p.exitCode();
        r.out = p.readAllStandardOutput();
        r.err = p.readAllStandardError();
        return r;
    }

    // Nothing started: the runs root was never made.
    bool nothingStarted(const QString &name) const
    {
        return !QFileInfo::exists(m_dir.filePath(name + QStringLiteral("-runs")));
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_worker = qEnvironmentVariable("TRAINYARD_WORKER");
        if (m_worker.isEmpty() || !QFileInfo(m_worker).isExecutable()) {
            QSKIP(
                "TRAINYARD_WORKER is not set to the real trainyard-worker: the check needs its catalogue and loaders");
        }
        QProcess list;
        list.start(m_worker, {QStringLiteral("--list-models")});
        QVERIFY(list.waitForFinished(60000));
        m_libTorch =
            QJsonDocument::fromJson(list.readAllStandardOutput()).object().value(QStringLiteral("libtorch")).toObject();
        QVERIFY(!m_libTorch.isEmpty());
        m_cpuOnlyWorker = m_libTorch.value(QStringLiteral("cuda")).isNull();
    }

    void aGoodFileHasNoProblem()
    {
        const QString file = writeExperiment(QStringLiteral("good"), {run(QStringLiteral("a"), transe(), synthetic())});
        const Result r = check({file});
        QVERIFY2(r.status == 0, r.err.constData());
        QVERIFY2(r.out.contains("no problem found (1 runs in 1 lanes)"), r.out.constData());
        QVERIFY(nothingStarted(QStringLiteral("good")));
    }

    void aMissingDataFolderIsNamed()
    {
        const QString missing = m_dir.filePath(QStringLiteral("no-such-folder"));
        const QString file =
            writeExperiment(QStringLiteral("nodata"), {run(QStringLiteral("a"), transe(), kgFolder(missing))});
        const Result r = check({file});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(QStringLiteral("%1: lanes[0].runs[0].data.path: %2: No such file or directory")
                                    .arg(file, missing)
                                    .toUtf8()),
                 r.err.constData());
        QVERIFY2(r.err.contains("1 problem found; nothing was started"), r.err.constData());
        QVERIFY(nothingStarted(QStringLiteral("nodata")));
    }

    void aMalformedDataFileIsNamedWithItsLine()
    {
        QDir(m_dir.path()).mkpath(QStringLiteral("badkg"));
        const QString folder = m_dir.filePath(QStringLiteral("badkg"));
        for (const char *name : {"train.txt", "valid.txt", "test.txt"}) {
            QFile f(folder + QLatin1Char('/') + QLatin1String(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(name == QByteArray("valid.txt") ? "a\tr\tb\nc\tr\n" : "a\tr\tb\n");
        }
        const QString file =
            writeExperiment(QStringLiteral("badkg"), {run(QStringLiteral("k"), transe(), kgFolder(folder))});
        const Result r = check({file});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(QStringLiteral("%1/valid.txt:2: expected 3 tab-separated fields").arg(folder).toUtf8()),
                 r.err.constData());
    }

    void anUnknownKeyAndAnUnknownModelAreListedTogether()
    {
        const QString file =
            writeExperiment(QStringLiteral("typos"),
                            {run(QStringLiteral("typo"), transe({{QStringLiteral("dimm"), 50}}), synthetic()),
                             run(QStringLiteral("nomodel"),
                                 QJsonObject{{QStringLiteral("type"), QStringLiteral("transx")}}, synthetic())});
        const Result r = check({file});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("lanes[0].runs[0].model.dimm: unknown key"), r.err.constData());
        QVERIFY2(r.err.contains("lanes[0].runs[1].model.type: expected one of") && r.err.contains("got \"transx\""),
                 r.err.constData());
        QVERIFY(nothingStarted(QStringLiteral("typos")));
    }

    void aMissingGpuIsAProblemUnlessItFallsBack()
    {
        const QString file = writeExperiment(QStringLiteral("gpu"), {run(QStringLiteral("g"), transe(), synthetic())},
                                             QStringLiteral("cuda:63"));
        const Result r = check({file});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("lanes[0].device: cuda:63 is not on this machine"), r.err.constData());
        QCOMPARE(check({QStringLiteral("--cpu-fallback"), file}).status, 0);
    }

    // A cuda: lane handed a worker built without CUDA (Debian's LibTorch, as
    // in CI) is named up front, whether or not this machine has that GPU;
    // a program run there brings its own torch.
    void aCpuOnlyWorkerOnAGpuLaneIsAProblem()
    {
        if (!m_cpuOnlyWorker) {
            QSKIP("this trainyard-worker is built with CUDA");
        }
        const QString file = writeExperiment(
            QStringLiteral("cpuworker"), {run(QStringLiteral("g"), transe(), synthetic())}, QStringLiteral("cuda:0"));
        const Result r = check({file});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(QStringLiteral("%1: lanes[0].device: cuda:0: this trainyard-worker was built without "
                                               "CUDA (LibTorch %2, CPU only); rebuild it against a CUDA LibTorch "
                                               "(see docs/gpu.md) or use --cpu-fallback")
                                    .arg(file, m_libTorch.value(QStringLiteral("version")).toString())
                                    .toUtf8()),
                 r.err.constData());
        QVERIFY(nothingStarted(QStringLiteral("cpuworker")));
        QCOMPARE(check({QStringLiteral("--cpu-fallback"), file}).status, 0);

        const QJsonObject program{
            {QStringLiteral("argv"), QJsonArray{QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("true")}}};
        const QString programFile = writeExperiment(
            QStringLiteral("cpuworkerprogram"),
            {QJsonObject{{QStringLiteral("name"), QStringLiteral("p")}, {QStringLiteral("program"), program}}},
            QStringLiteral("cuda:0"));
        const Result p = check({programFile});
        QVERIFY2(!p.err.contains("built without CUDA"), p.err.constData());
    }

    // Every problem in one pass, each with the file and its JSON path: a run
    // with an unknown key and a missing data folder names both; a run that is
    // not even an object does not stop the next run's data or the next
    // lane's device from being checked.
    void everyProblemIsReportedInOnePass()
    {
        const QString missingA = m_dir.filePath(QStringLiteral("no-folder-a"));
        const QString missingB = m_dir.filePath(QStringLiteral("no-folder-b"));
        const QJsonArray first{run(QStringLiteral("a"), transe({{QStringLiteral("dimm"), 50}}), kgFolder(missingA)), 42,
                               run(QStringLiteral("b"), transe(), kgFolder(missingB))};
        const QJsonArray second{run(QStringLiteral("c"), transe(), synthetic())};
        const QJsonObject experiment{
            {QStringLiteral("name"), QStringLiteral("onepass")},
            {QStringLiteral("runs_root"), m_dir.filePath(QStringLiteral("onepass-runs"))},
            {QStringLiteral("lanes"),
             QJsonArray{QJsonObject{{QStringLiteral("device"), QStringLiteral("cpu")}, {QStringLiteral("runs"), first}},
                        QJsonObject{{QStringLiteral("device"), QStringLiteral("cuda:63")},
                                    {QStringLiteral("runs"), second}}}}};
        const QString file = m_dir.filePath(QStringLiteral("onepass.json"));
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(experiment).toJson());
        f.close();
        const Result r = check({file});
        QCOMPARE(r.status, 2);
        for (const QString &expected :
             {QStringLiteral("%1: lanes[0].runs[0].model.dimm: unknown key").arg(file),
              QStringLiteral("%1: lanes[0].runs[0].data.path: %2: No such file or directory").arg(file, missingA),
              QStringLiteral("%1: lanes[0].runs[1]: expected a run spec object").arg(file),
              QStringLiteral("%1: lanes[0].runs[2].data.path: %2: No such file or directory").arg(file, missingB),
              QStringLiteral("%1: lanes[1].device: cuda:63 is not on this machine").arg(file),
              // A CPU-only worker (Debian's LibTorch) could not use it either.
              m_cpuOnlyWorker
                  ? QStringLiteral("%1: lanes[1].device: cuda:63: this trainyard-worker was built without CUDA")
                        .arg(file)
                  : file,
              QStringLiteral("%1 problems found; nothing was started").arg(m_cpuOnlyWorker ? 6 : 5)}) {
            QVERIFY2(r.err.contains(expected.toUtf8()),
                     qPrintable(expected + QStringLiteral(" not in:\n") + QString::fromUtf8(r.err)));
        }
        QVERIFY(nothingStarted(QStringLiteral("onepass")));
    }

    // A sweep: its problems with their paths in the same pass as its
    // trials' data; a good one is summed up with its trial count.
    void aSweepIsCheckedAndCounted()
    {
        const QString missing = m_dir.filePath(QStringLiteral("no-such-kg"));
        const auto write = [&](const QString &name, const QJsonObject &data, const QJsonValue &eta) {
            const QJsonObject sweep{
                {QStringLiteral("name"), QStringLiteral("lr")},
                {QStringLiteral("base"),
                 QJsonObject{{QStringLiteral("model"), transe()}, {QStringLiteral("data"), data}}},
                {QStringLiteral("space"),
                 QJsonObject{{QStringLiteral("model.dim"), QJsonObject{{QStringLiteral("values"), QJsonArray{8, 16}}}},
                             {QStringLiteral("train.lr"),
                              QJsonObject{{QStringLiteral("values"), QJsonArray{0.01, 0.001, 0.1}}}}}},
                {QStringLiteral("objective"), QJsonObject{{QStringLiteral("metric"), QStringLiteral("valid/mrr")},
                                                          {QStringLiteral("mode"), QStringLiteral("max")}}},
                {QStringLiteral("early_stopping"), QJsonObject{{QStringLiteral("rule"), QStringLiteral("asha")},
                                                               {QStringLiteral("max"), 9},
                                                               {QStringLiteral("eta"), eta}}}};
            const QJsonObject experiment{
                {QStringLiteral("name"), name},
                {QStringLiteral("runs_root"), m_dir.filePath(name + QStringLiteral("-runs"))},
                {QStringLiteral("lanes"), QJsonArray{QJsonObject{{QStringLiteral("device"), QStringLiteral("cpu")}}}},
                {QStringLiteral("sweeps"), QJsonArray{sweep}}};
            const QString path = m_dir.filePath(name + QStringLiteral(".json"));
            QFile file(path);
            if (file.open(QIODevice::WriteOnly)) {
                file.write(QJsonDocument(experiment).toJson());
            }
            return path;
        };
        const QString bad = write(QStringLiteral("badsweep"), kgFolder(missing), 1);
        Result r = check({bad});
        QCOMPARE(r.status, 2);
        QVERIFY2(
            r.err.contains(
                QStringLiteral("%1: sweeps[0].early_stopping.eta: expected a number > 1, got 1").arg(bad).toUtf8()),
            r.err.constData());
        QVERIFY2(r.err.contains(QStringLiteral("%1: sweeps[0].base.data.path: %2: No such file or directory")
                                    .arg(bad, missing)
                                    .toUtf8()),
                 r.err.constData());
        QVERIFY2(r.err.contains("2 problems found; nothing was started"), r.err.constData());
        QVERIFY(nothingStarted(QStringLiteral("badsweep")));

        const QString good = write(QStringLiteral("goodsweep"), synthetic(), 3);
        r = check({good});
        QVERIFY2(r.status == 0, r.err.constData());
        QVERIFY2(
            r.out.contains("no problem found (0 runs in 1 lanes)\n  sweep lr: 6 trials of a grid of 2 model.dim × 3 "
                           "train.lr on every lane, maximizing valid/mrr, ASHA over epochs 1 to 9 (eta 3)\n"),
            r.out.constData());
        QVERIFY(nothingStarted(QStringLiteral("goodsweep")));
    }

    // program.requires: the modules are asked of the interpreter the run
    // would start (its name on PATH, its env), once the file is trusted.
    void programRequiresIsAskedOfTheInterpreter()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty()) {
            QSKIP("python3 is not installed");
        }
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("mods")));
        QFile module(m_dir.filePath(QStringLiteral("mods/localmod.py")));
        QVERIFY(module.open(QIODevice::WriteOnly));
        module.close();
        const auto write = [&](const QString &name, const QJsonArray &argv, const QJsonArray &modules) {
            const QJsonObject program{{QStringLiteral("argv"), argv},
                                      {QStringLiteral("requires"), modules},
                                      {QStringLiteral("env"), QJsonObject{{QStringLiteral("PYTHONPATH"),
                                                                           m_dir.filePath(QStringLiteral("mods"))}}}};
            return writeExperiment(name, {QJsonObject{{QStringLiteral("name"), QStringLiteral("p")},
                                                      {QStringLiteral("program"), program}}});
        };
        const QJsonArray python{QStringLiteral("python3"), QStringLiteral("-c"), QStringLiteral("pass")};
        const QString missing =
            write(QStringLiteral("reqmissing"), python,
                  {QStringLiteral("json"), QStringLiteral("localmod"), QStringLiteral("trainyard_no_such_module")});
        Result r = check({missing});
        QVERIFY2(r.status == 0, r.err.constData()); // not trusted: not asked, and said so
        QVERIFY2(r.out.contains("lanes[0].runs[0].program.requires was not checked (run p)"), r.out.constData());
        QCOMPARE(check({missing}, QStringLiteral("trust")).status, 0);
        r = check({missing});
        QCOMPARE(r.status, 2);
        QVERIFY2(
            r.err.contains(QStringLiteral("%1: lanes[0].runs[0].program.requires: python3 (").arg(missing).toUtf8()),
            r.err.constData());
        QVERIFY2(r.err.contains(") cannot import trainyard_no_such_module (install it for that interpreter"),
                 r.err.constData());
        // json (the standard library) and localmod (on the spec's PYTHONPATH) are found: only the one is named.

        const QString found =
            write(QStringLiteral("reqfound"), python, {QStringLiteral("json"), QStringLiteral("localmod")});
        QCOMPARE(check({found}, QStringLiteral("trust")).status, 0);
        r = check({found});
        QVERIFY2(r.status == 0, r.err.constData());
        QVERIFY2(r.out.contains("lanes[0].runs[0].program: python3 (")
                     && r.out.contains(" finds json, localmod (run p)"),
                 r.out.constData());

        // Only for a Python interpreter, only module names.
        const QString notPython =
            write(QStringLiteral("reqbash"), {QStringLiteral("bash"), QStringLiteral("-c"), QStringLiteral("true")},
                  {QStringLiteral("json"), QStringLiteral("-m")});
        r = check({notPython});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("lanes[0].runs[0].program.requires: needs a Python interpreter as program.argv[0] "
                                "(python, python3 or python3.N, by name or path), got \"bash\""),
                 r.err.constData());
        QVERIFY2(r.err.contains("lanes[0].runs[0].program.requires[1]: expected a Python module name, got \"-m\""),
                 r.err.constData());
    }

    void badUsageExitsTwo()
    {
        QCOMPARE(check({}).status, 2);
        QCOMPARE(check({m_dir.filePath(QStringLiteral("absent.json"))}).status, 2);
    }
};

QTEST_GUILESS_MAIN(TestCheckCommand)
#include "tst_checkcommand.moc"
