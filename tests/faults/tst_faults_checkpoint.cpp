// Fault injection against the real trainyard-worker's checkpoints: a disk
// that fills up while a checkpoint is written, and truncated or corrupt
// checkpoint files at --resume. Tiny synthetic data on the CPU, a few
// seconds per worker start.
//
// The full disk is simulated with RLIMIT_FSIZE (`ulimit -f`) on the worker
// with SIGXFSZ ignored, so a write past the limit fails with EFBIG as a
// full disk fails with ENOSPC; this needs no root and no loop device.
//
// Each test function's first comment line ("Fault: ... | User sees: ... |
// Kept: ...") feeds docs/reliability.md.

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/resource.h>

namespace {

QString worker()
{
    return qEnvironmentVariable("TRAINYARD_WORKER");
}

// Adam named, not left to the recipe: its two moments per row make the
// checkpoints ~28 KiB, over the disk-full test's 16 KiB limit.
QByteArray spec(int maxSteps)
{
    return QByteArrayLiteral(R"({"name":"ck","model":{"type":"transe","dim":16},)"
                             R"("data":{"kind":"synthetic-kg","entities":50,"relations":4,"triples":600},)"
                             R"("train":{"epochs":1000,"max_steps":)")
           + QByteArray::number(maxSteps)
           + QByteArrayLiteral(R"(,"batch_size":32,"seed":3,"optimizer":"adam"},"eval":{"every_epochs":0},)"
                               R"("checkpoint":{"every_steps":10,"keep":3},"report":{"every_steps":5}})");
}

struct Result
{
    int exitCode = -1;
    QByteArray stderrText;
};

// Runs the worker; `fileSizeLimit` > 0 caps every file it writes.
Result runWorker(const QString &specPath, const QString &runDir, bool resume, rlim_t fileSizeLimit = 0)
{
    QProcess p;
    QStringList args{QStringLiteral("--spec"),    specPath,           QStringLiteral("--run-dir"), runDir,
                     QStringLiteral("--threads"), QStringLiteral("1")};
    if (resume) {
        args << QStringLiteral("--resume");
    }
    if (fileSizeLimit > 0) {
        p.setChildProcessModifier([fileSizeLimit] {
            ::signal(SIGXFSZ, SIG_IGN); // survives exec: writes fail with EFBIG instead
            const rlimit limit{fileSizeLimit, fileSizeLimit};
            ::setrlimit(RLIMIT_FSIZE, &limit);
        });
    }
    p.start(worker(), args);
    Result r;
    if (!p.waitForFinished(120000) || p.exitStatus() != QProcess::NormalExit) {
        r.stderrText = "worker crashed or timed out: " + p.readAllStandardError();
        return r;
    }
    r.exitCode = p.exitCode();
    r.stderrText = p.readAllStandardError();
    return r;
}

QList<QJsonObject> lines(const QString &runDir, const QString &type)
{
    QList<QJsonObject> out;
    QFile f(runDir + QStringLiteral("/metrics.jsonl"));
    if (!f.open(QIODevice::ReadOnly)) {
        return out;
    }
    while (!f.atEnd()) {
        const QJsonObject o = QJsonDocument::fromJson(f.readLine()).object();
        if (o.value(QStringLiteral("type")).toString() == type) {
            out << o;
        }
    }
    return out;
}

QStringList checkpoints(const QString &runDir)
{
    return QDir(runDir + QStringLiteral("/checkpoints")).entryList(QDir::Files | QDir::Hidden, QDir::Name);
}

bool writeBytes(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

} // namespace

class TestFaultsCheckpoint : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_spec40, m_spec60;

    // A run dir with valid checkpoints at steps 20, 30, 40.
    QString trainedRun(const QString &name)
    {
        const QString runDir = m_dir.filePath(name);
        const Result r = runWorker(m_spec40, runDir, false);
        if (r.exitCode != 0) {
            qWarning("first run failed: %s", r.stderrText.constData());
        }
        return r.exitCode == 0 ? runDir : QString();
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (worker().isEmpty() || !QFileInfo(worker()).isExecutable()) {
            QSKIP("TRAINYARD_WORKER is not set");
        }
        m_spec40 = m_dir.filePath(QStringLiteral("spec40.json"));
        m_spec60 = m_dir.filePath(QStringLiteral("spec60.json"));
        QVERIFY(writeBytes(m_spec40, spec(40)));
        QVERIFY(writeBytes(m_spec60, spec(60)));
    }

    // Fault: the disk fills up while a checkpoint is written (RLIMIT_FSIZE 16 KiB on the worker, checkpoints ~28 KiB) | User sees: the run fails with exit 1, done "failed", message "...cannot write the checkpoint (File too large)" | Kept: the previous checkpoints intact (no partial file left); --resume continues from step 40 and finishes
    void diskFullDuringCheckpoint()
    {
        const QString runDir = trainedRun(QStringLiteral("full"));
        QVERIFY(!runDir.isEmpty());
        const QStringList before = checkpoints(runDir);
        QCOMPARE(before.size(), 3);
        QCOMPARE(before.last(), QStringLiteral("step-000000000040.pt"));

        const Result full = runWorker(m_spec60, runDir, true, 16 * 1024);
        QCOMPARE(full.exitCode, 1);
        QVERIFY2(full.stderrText.contains("cannot write the checkpoint"), full.stderrText.constData());
        const QList<QJsonObject> done = lines(runDir, QStringLiteral("done"));
        QCOMPARE(done.last().value(QStringLiteral("status")).toString(), QStringLiteral("failed"));
        QCOMPARE(done.last().value(QStringLiteral("exit_code")).toInt(), 1);
        QCOMPARE(checkpoints(runDir), before); // nothing half-written, nothing pruned

        const Result resumed = runWorker(m_spec60, runDir, true);
        QVERIFY2(resumed.exitCode == 0, resumed.stderrText.constData());
        bool fromForty = false;
        for (const QJsonObject &log : lines(runDir, QStringLiteral("log"))) {
            fromForty =
                fromForty || log.value(QStringLiteral("text")).toString() == QStringLiteral("resumed from step 40");
        }
        QVERIFY(fromForty);
        QCOMPARE(lines(runDir, QStringLiteral("metric")).last().value(QStringLiteral("step")).toInt(), 60);
        QVERIFY(checkpoints(runDir).contains(QStringLiteral("step-000000000060.pt")));
    }

    // Fault: the newest checkpoint is truncated, then every checkpoint is garbage | User sees: log "skipping unreadable checkpoint ..." and "resumed from step 30"; with none readable, warning "--resume: no valid checkpoint ...; starting at step 0" | Kept: the older checkpoint is used; the run still finishes
    void truncatedOrCorruptCheckpoint()
    {
        const QString runDir = trainedRun(QStringLiteral("corrupt"));
        QVERIFY(!runDir.isEmpty());
        const QString newest = runDir + QStringLiteral("/checkpoints/step-000000000040.pt");
        QFile f(newest);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.resize(f.size() / 2));
        f.close();

        Result r = runWorker(m_spec60, runDir, true);
        QVERIFY2(r.exitCode == 0, r.stderrText.constData());
        QStringList logs;
        for (const QJsonObject &log : lines(runDir, QStringLiteral("log"))) {
            logs << log.value(QStringLiteral("text")).toString();
        }
        QVERIFY2(logs.filter(QStringLiteral("skipping unreadable checkpoint")).size() == 1,
                 qPrintable(logs.join(QLatin1Char('\n'))));
        QVERIFY2(logs.contains(QStringLiteral("resumed from step 30")), qPrintable(logs.join(QLatin1Char('\n'))));

        // Every checkpoint garbage: starts over, and says so.
        for (const QString &name : checkpoints(runDir)) {
            QVERIFY(writeBytes(runDir + QStringLiteral("/checkpoints/") + name, QByteArray(4096, 'x')));
        }
        r = runWorker(m_spec60, runDir, true);
        QVERIFY2(r.exitCode == 0, r.stderrText.constData());
        logs.clear();
        for (const QJsonObject &log : lines(runDir, QStringLiteral("log"))) {
            logs << log.value(QStringLiteral("text")).toString();
        }
        QVERIFY2(!logs.filter(QStringLiteral("no valid checkpoint")).isEmpty(),
                 qPrintable(logs.join(QLatin1Char('\n'))));
    }

    // Fault: --resume with a checkpoint written for another model section | User sees: exit 2 (bad input) naming the checkpoint and "written for another model spec" | Kept: the checkpoint files untouched
    void checkpointOfAnotherModel()
    {
        const QString runDir = trainedRun(QStringLiteral("other"));
        QVERIFY(!runDir.isEmpty());
        const QStringList before = checkpoints(runDir);
        const QString otherSpec = m_dir.filePath(QStringLiteral("other.json"));
        QVERIFY(writeBytes(otherSpec, spec(60).replace("\"dim\":16", "\"dim\":24")));
        const Result r = runWorker(otherSpec, runDir, true);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.stderrText.contains("written for another model spec"), r.stderrText.constData());
        QCOMPARE(checkpoints(runDir), before);
    }
};

QTEST_GUILESS_MAIN(TestFaultsCheckpoint)
#include "tst_faults_checkpoint.moc"
