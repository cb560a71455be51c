// The past runs of the runs table (PastRuns): every experiment folder under
// the history roots but the open one, the open experiment's earlier attempts,
// and a refresh that brings the runs read before up to date.

#include "orchestration/runstore/runstore.h"
#include "protocol/protocol.h"
#include "ui/runs/pastruns.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace trainyard;

namespace {

void makeRun(const QString &runsRoot, const QString &name, std::int64_t step)
{
    const RunStore store(runsRoot);
    QString error;
    QVERIFY2(store.prepareRunDir(name, QJsonObject{{QStringLiteral("name"), name}}, &error), qPrintable(error));
    QFile f(store.runDir(name) + QStringLiteral("/metrics.jsonl"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray::fromStdString(protocol::encode(protocol::metric(step, 0, 1.0, 1.0))));
    RunInfo info;
    info.name = name;
    info.state = RunState::Finished;
    QVERIFY2(store.writeStatus(info, &error), qPrintable(error));
}

QStringList names(const PastRuns &past)
{
    QStringList out;
    for (int i = 0; i < past.size(); ++i) {
        out << past.experiment(i) + QLatin1Char('/') + past.run(i).info.name;
    }
    out.sort(); // in the order they were read: threads may change it
    return out;
}

} // namespace

class TestPastRuns : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyExperimentButTheOpenOneAndItsAttempts()
    {
        QTemporaryDir history;
        makeRun(history.filePath(QStringLiteral("b")), QStringLiteral("z"), 1);
        makeRun(history.filePath(QStringLiteral("b")), QStringLiteral("y"), 1);
        makeRun(history.filePath(QStringLiteral("a")), QStringLiteral("x"), 1);
        const QString open = history.filePath(QStringLiteral("open"));
        makeRun(open, QStringLiteral("live"), 1);
        makeRun(open, QStringLiteral("live.attempt-1"), 1);

        PastRuns past;
        past.refresh(open, QStringLiteral("Open"));
        past.waitForReads();
        QCOMPARE(names(past), QStringList{QStringLiteral("Open/live.attempt-1")}); // no roots: its attempts only
        past.setRoots({history.path()});
        past.refresh(open, QStringLiteral("Open"));
        past.waitForReads();
        QCOMPARE(names(past), (QStringList{QStringLiteral("Open/live.attempt-1"), QStringLiteral("a/x"),
                                           QStringLiteral("b/y"), QStringLiteral("b/z")}));
        // Without an open experiment its folder is one like the others.
        past.refresh(QString(), QString());
        past.waitForReads();
        QCOMPARE(names(past), (QStringList{QStringLiteral("a/x"), QStringLiteral("b/y"), QStringLiteral("b/z"),
                                           QStringLiteral("open/live"), QStringLiteral("open/live.attempt-1")}));
    }

    void aRefreshReadsWhatTheRunsGained()
    {
        QTemporaryDir history;
        const QString root = history.filePath(QStringLiteral("a"));
        makeRun(root, QStringLiteral("x"), 5);
        PastRuns past;
        past.setRoots({history.path()});
        past.refresh(QString(), QString());
        past.waitForReads();
        QCOMPARE(past.run(0).info.step, qint64(5));
        const qint64 offset = past.run(0).metricsOffset;
        QVERIFY(offset > 0);

        QFile f(RunStore(root).runDir(QStringLiteral("x")) + QStringLiteral("/metrics.jsonl"));
        QVERIFY(f.open(QIODevice::Append));
        f.write(QByteArray::fromStdString(protocol::encode(protocol::metric(9, 0, 0.5, 2.0))));
        f.close();
        past.refresh(QString(), QString());
        past.waitForReads();
        QCOMPARE(past.size(), 1);
        QCOMPARE(past.run(0).info.step, qint64(9));
        QVERIFY(past.run(0).metricsOffset > offset);

        RunNotes notes;
        notes.note = QStringLiteral("kept");
        past.setNotes(0, notes);
        QCOMPARE(past.run(0).notes.note, QStringLiteral("kept"));
    }
};

QTEST_MAIN(TestPastRuns)
#include "tst_pastruns.moc"
