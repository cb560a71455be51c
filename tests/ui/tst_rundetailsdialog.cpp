// RunDetailsDialog ("what a run was is invisible"): a run folder as
// a worker and the orchestrator leave it, read back through RunStore, shown
// as state and exit meaning, device, host, times, final metrics, the
// worker's command line, the spec with the catalogue's defaults, notes
// written to notes.json, and the whole worker.log.

#include "orchestration/launch/launcher.h"
#include "orchestration/runstore/runstore.h"
#include "protocol/protocol.h"
#include "ui/runs/logview.h"
#include "ui/runs/rundetailsdialog.h"
#include "uitesthelpers.h"

#include <QClipboard>
#include <QFile>
#include <QGuiApplication>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>

using namespace trainyard;

namespace {

QByteArray line(const nlohmann::json &message)
{
    return QByteArray::fromStdString(protocol::encode(message));
}

ModelCatalogue catalogue()
{
    QString error;
    return ModelCatalogue::fromJson(testing::catalogueJson(), &error);
}

// A failed run's folder: a partial spec, status.json with the host and the
// command line, metrics with evaluations, a worker.log of many lines.
RunRecord makeFailedRun(const RunStore &store)
{
    const QString name = QStringLiteral("lr-high");
    const QJsonObject spec{
        {QStringLiteral("name"), name},
        {QStringLiteral("model"),
         QJsonObject{{QStringLiteral("type"), QStringLiteral("transe")}, {QStringLiteral("dim"), 8}}},
        {QStringLiteral("train"), QJsonObject{{QStringLiteral("lr"), 0.5}, {QStringLiteral("seed"), 2}}}};
    QString error;
    if (!store.prepareRunDir(name, spec, &error)) {
        qFatal("%s", qPrintable(error));
    }
    const QString dir = store.runDir(name);
    auto valid = protocol::evalResult(10, "valid", 1.0);
    valid["mrr"] = 0.25;
    auto later = protocol::evalResult(20, "valid", 2.0);
    later["mrr"] = 0.2;
    QFile metrics(dir + QStringLiteral("/metrics.jsonl"));
    metrics.open(QIODevice::WriteOnly);
    metrics.write(line(protocol::metric(10, 1, 0.75, 1.0)) + line(valid) + line(protocol::metric(20, 2, 0.5, 2.0))
                  + line(later));
    metrics.close();
    QFile log(dir + QStringLiteral("/worker.log"));
    log.open(QIODevice::WriteOnly);
    log.write("first line: stdout\n");
    for (int i = 0; i < 25000; ++i) {
        log.write(QByteArray("step ") + QByteArray::number(i) + "\n");
    }
    log.write("last line: stderr, CUDA out of memory\n");
    log.close();
    RunInfo info;
    info.name = name;
    info.state = RunState::Failed;
    info.exitCode = 1;
    info.device = Device::parse(QStringLiteral("cuda:1"));
    info.host = QStringLiteral("gpu-node-3");
    info.command = {QStringLiteral("/opt/trainyard-worker"),
                    QStringLiteral("--spec"),
                    dir + QStringLiteral("/spec.json"),
                    QStringLiteral("--device"),
                    QStringLiteral("cuda:0"),
                    QStringLiteral("--run-dir"),
                    QStringLiteral("/runs/with space")};
    info.started = QDateTime(QDate(2026, 11, 30), QTime(10, 0), Qt::UTC);
    info.ended = info.started.addSecs(75);
    info.message = QStringLiteral("exit 1: runtime failure");
    if (!store.writeStatus(info, &error)) {
        qFatal("%s", qPrintable(error));
    }
    RunRecord run;
    store.readRun(name, &run);
    return run;
}

QString label(const RunDetailsDialog &dialog, const char *name)
{
    const auto *l = dialog.findChild<QLabel *>(QString::fromLatin1(name));
    return l ? l->text() : QStringLiteral("<no label %1>").arg(QString::fromLatin1(name));
}

// The spec page's row of `key` ("model.norm"): value and where it came from.
QStringList specRow(const RunDetailsDialog &dialog, const QString &key)
{
    const auto *tree = dialog.findChild<QTreeWidget *>(QStringLiteral("spec"));
    for (QTreeWidgetItemIterator it(const_cast<QTreeWidget *>(tree)); *it; ++it) {
        if ((*it)->data(0, Qt::UserRole).toString() == key) {
            return {(*it)->text(1), (*it)->text(2)};
        }
    }
    return {};
}

// A launcher that only describes: the runs it is asked about, and its answer
// from the event loop (as a batch queue's comes); false for a job it does
// not know (`knows` empty: none).
class DescribingLauncher : public Launcher
{
public:
    QString knows;
    QList<RunInfo> asked;

    QString kind() const override { return QStringLiteral("describing"); }
    void start(RunId, const LaunchSpec &) override {}
    void terminate(RunId) override {}
    void kill(RunId) override {}
    AttachResult attach(RunId, const QJsonObject &, const LaunchSpec &, QString *) override
    {
        return AttachResult::Gone;
    }
    QJsonObject handle(RunId) const override { return {}; }
    void detach(RunId) override {}
    void release(RunId) override {}
    bool describe(const RunInfo &run, QObject *context, Described done) override
    {
        asked << run;
        if (run.jobId != knows) {
            return false;
        }
        QTimer::singleShot(0, context, [done, run] {
            done(QStringLiteral("queue show %1").arg(run.jobId),
                 QStringLiteral("JobId=%1 JobState=RUNNING").arg(run.jobId));
        });
        return true;
    }
};

QMessageBox *jobDetailsBox(const RunDetailsDialog &dialog)
{
    return dialog.findChild<QMessageBox *>(QStringLiteral("jobDetailsBox"));
}

} // namespace

class TestRunDetailsDialog : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void showsWhatARunWas()
    {
        const RunStore store(m_dir.filePath(QStringLiteral("past")));
        const RunRecord run = makeFailedRun(store);
        RunDetailsDialog dialog(run, QStringLiteral("sweep"), catalogue());

        QCOMPARE(label(dialog, "name"), QStringLiteral("lr-high (experiment sweep)"));
        QCOMPARE(label(dialog, "state"), QStringLiteral("failed: exit 1: runtime failure"));
        QCOMPARE(label(dialog, "exit"), QStringLiteral("exit 1: runtime failure"));
        QCOMPARE(label(dialog, "device"), QStringLiteral("cuda:1"));
        QCOMPARE(label(dialog, "host"), QStringLiteral("gpu-node-3"));
        QCOMPARE(label(dialog, "duration"), QStringLiteral("2 s")); // the worker's clock, not start to end (1:15)
        QVERIFY(label(dialog, "started").startsWith(QStringLiteral("2026-11-30")));
        QCOMPARE(label(dialog, "progress"), QStringLiteral("step 20, epoch 2"));
        QCOMPARE(label(dialog, "folder"), run.info.runDir);

        // Final metrics: the last loss; the last and the best evaluation.
        const auto *metrics = dialog.findChild<QTreeWidget *>(QStringLiteral("metrics"));
        QCOMPARE(metrics->topLevelItemCount(), 2);
        QCOMPARE(metrics->topLevelItem(0)->text(0), QStringLiteral("loss"));
        QCOMPARE(metrics->topLevelItem(0)->text(1), QStringLiteral("0.5"));
        QCOMPARE(metrics->topLevelItem(1)->text(0), QStringLiteral("valid/mrr"));
        QCOMPARE(metrics->topLevelItem(1)->text(1), QStringLiteral("0.2"));
        QCOMPARE(metrics->topLevelItem(1)->text(2), QStringLiteral("20"));
        QCOMPARE(metrics->topLevelItem(1)->text(3), QStringLiteral("0.25"));
        QCOMPARE(metrics->topLevelItem(1)->text(4), QStringLiteral("10"));

        // The command line, one line a shell takes back.
        const QString command = QStringLiteral("/opt/trainyard-worker --spec %1/spec.json --device cuda:0 "
                                               "--run-dir '/runs/with space'")
                                    .arg(run.info.runDir);
        QCOMPARE(dialog.commandText(), command);
        QCOMPARE(dialog.findChild<QPlainTextEdit *>(QStringLiteral("command"))->toPlainText(), command);
        dialog.findChild<QPushButton *>(QStringLiteral("copyCommand"))->click();
        QCOMPARE(QGuiApplication::clipboard()->text(), command);

        // Every hyperparameter, the defaults marked as such.
        QCOMPARE(specRow(dialog, QStringLiteral("model.dim")),
                 (QStringList{QStringLiteral("8"), QStringLiteral("spec")}));
        QCOMPARE(specRow(dialog, QStringLiteral("model.norm")),
                 (QStringList{QStringLiteral("1"), QStringLiteral("default")}));
        QCOMPARE(specRow(dialog, QStringLiteral("train.lr")),
                 (QStringList{QStringLiteral("0.5"), QStringLiteral("spec")}));
        QCOMPARE(specRow(dialog, QStringLiteral("train.epochs")),
                 (QStringList{QStringLiteral("50"), QStringLiteral("default")}));
        QCOMPARE(specRow(dialog, QStringLiteral("data.kind")),
                 (QStringList{QStringLiteral("synthetic-kg"), QStringLiteral("default")}));
        QCOMPARE(specRow(dialog, QStringLiteral("eval.every_epochs")),
                 (QStringList{QStringLiteral("10"), QStringLiteral("default")}));
        dialog.findChild<QPushButton *>(QStringLiteral("copySpec"))->click();
        const QJsonObject copied = QJsonDocument::fromJson(QGuiApplication::clipboard()->text().toUtf8()).object();
        QCOMPARE(copied, dialog.resolvedSpec());
        QCOMPARE(copied.value(QStringLiteral("model")).toObject().value(QStringLiteral("norm")).toInt(), 1);
        QCOMPARE(copied.value(QStringLiteral("train")).toObject().value(QStringLiteral("lr")).toDouble(), 0.5);

        // The whole worker.log: its first line too, not a tail.
        const QString log = dialog.log()->toPlainText();
        QVERIFY(log.startsWith(QStringLiteral("first line: stdout\n")));
        QVERIFY(log.contains(QStringLiteral("\nstep 24999\nlast line: stderr, CUDA out of memory")));
        dialog.showPage(RunDetailsDialog::Page::Log);
        QCOMPARE(dialog.currentPage(), RunDetailsDialog::Page::Log);
    }

    // A folder that says neither how the run started nor how it ended
    // (TensorBoard logs, a script killed early): its end and command line
    // are unknown, not "not started" and a command it "would start with".
    void aFolderWithoutAnEndSaysSo()
    {
        RunRecord run;
        run.info.name = QStringLiteral("lr=0.01");
        run.info.runDir = m_dir.filePath(QStringLiteral("tb/lr=0.01"));
        run.info.step = 300;
        RunDetailsDialog dialog(run, QStringLiteral("tb"), catalogue());
        QCOMPARE(label(dialog, "state"), QStringLiteral("unknown"));
        QCOMPARE(label(dialog, "exit"), QStringLiteral("unknown: the run's folder does not say"));
        QCOMPARE(dialog.findChild<QPlainTextEdit *>(QStringLiteral("command"))->toPlainText(),
                 QStringLiteral("Not recorded: the run's folder holds no record of how it started."));
    }

    // Without the worker's catalogue: what spec.json holds, and it says so.
    void withoutACatalogueTheSpecAsWritten()
    {
        const RunStore store(m_dir.filePath(QStringLiteral("nocatalogue")));
        const RunRecord run = makeFailedRun(store);
        RunDetailsDialog dialog(run, QString(), ModelCatalogue());
        QCOMPARE(dialog.resolvedSpec(), run.info.spec);
        QCOMPARE(specRow(dialog, QStringLiteral("model.dim")),
                 (QStringList{QStringLiteral("8"), QStringLiteral("spec")}));
        QVERIFY(specRow(dialog, QStringLiteral("model.norm")).isEmpty());
    }

    void notesGoToTheRunFolder()
    {
        const RunStore store(m_dir.filePath(QStringLiteral("notes")));
        const RunRecord run = makeFailedRun(store);
        auto *dialog = new RunDetailsDialog(run, QString(), catalogue());
        QSignalSpy saved(dialog, &RunDetailsDialog::notesSaved);
        auto *tags = dialog->findChild<QLineEdit *>(QStringLiteral("tags"));
        auto *note = dialog->findChild<QPlainTextEdit *>(QStringLiteral("note"));
        QTest::keyClicks(tags, QStringLiteral("too high, lr sweep"));
        note->setPlainText(QStringLiteral("diverges after the warm-up"));
        dialog->findChild<QPushButton *>(QStringLiteral("saveNotes"))->click();
        QCOMPARE(saved.count(), 1);
        QCOMPARE(saved.at(0).at(0).toString(), run.info.runDir);
        RunNotes notes = store.readNotes(run.info.name);
        QCOMPARE(notes.tags, (QStringList{QStringLiteral("too high"), QStringLiteral("lr sweep")}));
        QCOMPARE(notes.note, QStringLiteral("diverges after the warm-up"));

        // Typed and closed without saving: closing saves.
        note->setPlainText(QStringLiteral("kept on close"));
        dialog->reject();
        QCOMPARE(saved.count(), 2);
        QCOMPARE(store.readNotes(run.info.name).note, QStringLiteral("kept on close"));
        delete dialog;

        // Opened again, the dialog shows them.
        RunRecord again;
        QVERIFY(store.readRun(run.info.name, &again));
        RunDetailsDialog reopened(again, QString(), catalogue());
        QCOMPARE(reopened.findChild<QLineEdit *>(QStringLiteral("tags"))->text(), QStringLiteral("too high, lr sweep"));
        QCOMPARE(reopened.editedNotes().note, QStringLiteral("kept on close"));
    }

    // "Final metrics" was said of a run still training; no
    // throughput, memory or time budget was shown.
    void usageAndLatestOrFinalMetrics()
    {
        QTemporaryDir dir;
        const RunStore store(dir.path());
        QJsonObject spec = testing::tinyKgSpec(QStringLiteral("budgeted"));
        QJsonObject train = spec.value(QStringLiteral("train")).toObject();
        train.insert(QStringLiteral("max_seconds"), 400);
        spec.insert(QStringLiteral("train"), train);
        QString error;
        QVERIFY2(store.prepareRunDir(QStringLiteral("budgeted"), spec, &error), qPrintable(error));
        QByteArray lines;
        const double mib = 1024.0 * 1024.0;
        for (int k = 1; k <= 3; ++k) {
            auto m = protocol::metric(10 * k, 0, 1.0 / k, 64.0 * k);
            m["samples_per_s"] = 1000.0 * k; // mean 2,000, last 3,000
            m["mem_bytes"] = (k == 2 ? 720 : 700) * mib;
            lines += line(m);
        }
        QFile metrics(store.runDir(QStringLiteral("budgeted")) + QStringLiteral("/metrics.jsonl"));
        QVERIFY(metrics.open(QIODevice::WriteOnly));
        metrics.write(lines);
        metrics.close();
        RunRecord run;
        QVERIFY(store.readRun(QStringLiteral("budgeted"), &run)); // no status.json: it has not ended
        run.hasStatus = true;
        run.info.state = RunState::Running;
        QCOMPARE(run.usage.samplesPerSecondReports, 3);
        QCOMPARE(run.usage.peakMemBytes, 720 * mib);

        RunDetailsDialog dialog(run, QStringLiteral("open"), catalogue());
        QCOMPARE(label(dialog, "metricsTitle"), QStringLiteral("Latest metrics"));
        QCOMPARE(label(dialog, "throughput"), QStringLiteral("2,000 samples/s (mean of 3 reports; last 3,000)"));
        QCOMPARE(label(dialog, "memory"), QStringLiteral("700.0 MiB now (peak 720.0 MiB)"));
        QCOMPARE(label(dialog, "budget"), QStringLiteral("6:40 (train.max_seconds): 3:12 used, 3:28 left"));

        run.info.state = RunState::Finished;
        run.info.wall = 400.5;
        dialog.setRecord(run);
        QCOMPARE(label(dialog, "metricsTitle"), QStringLiteral("Final metrics"));
        QCOMPARE(label(dialog, "memory"), QStringLiteral("720.0 MiB at its peak (last 700.0 MiB)"));
        QVERIFY2(label(dialog, "budget").contains(QLatin1String("spent")), qPrintable(label(dialog, "budget")));

        // Without a budget, and without reports of either.
        RunRecord plain;
        plain.hasStatus = true;
        plain.info.name = QStringLiteral("plain");
        plain.info.state = RunState::Finished;
        plain.info.spec = testing::tinyKgSpec(QStringLiteral("plain"));
        RunDetailsDialog other(plain, QString(), catalogue());
        QCOMPARE(label(other, "throughput"), QStringLiteral("—"));
        QCOMPARE(label(other, "memory"), QStringLiteral("—"));
    }

    // A run of the open experiment: its record from a source, while shown.
    void aLiveRunFollowsItsSource()
    {
        RunRecord run;
        run.hasStatus = true;
        run.info.name = QStringLiteral("live");
        run.info.state = RunState::Queued;
        run.info.command = {QStringLiteral("worker"), QStringLiteral("--device"), QStringLiteral("cpu")};
        RunDetailsDialog dialog(run, QStringLiteral("open"), catalogue());
        QCOMPARE(label(dialog, "exit"), QStringLiteral("not started"));
        int asked = 0;
        dialog.setSource([&]() -> std::optional<RunRecord> {
            ++asked;
            RunRecord now = run;
            now.info.state = RunState::Running;
            now.info.step = 7;
            now.info.totalSteps = 20;
            now.info.started = QDateTime::currentDateTimeUtc().addSecs(-5);
            return now;
        });
        dialog.show();
        QTRY_COMPARE_WITH_TIMEOUT(label(dialog, "state"), QStringLiteral("running"), 5000);
        QCOMPARE(label(dialog, "exit"), QStringLiteral("still running"));
        QCOMPARE(label(dialog, "progress"), QStringLiteral("step 7 of 20"));
        QVERIFY(label(dialog, "duration").endsWith(QStringLiteral("so far")));
        QVERIFY(asked > 0);
    }

    // "Job details" asks the launcher (through the cluster's
    // reach), never a Slurm command of its own; without one it stays off.
    void jobDetailsAskTheLauncher()
    {
        RunRecord run;
        run.hasStatus = true;
        run.info.id = 3;
        run.info.name = QStringLiteral("on-the-cluster");
        run.info.state = RunState::Running;
        run.info.device = Device::parse(QStringLiteral("slurm:hpc/gpu"));
        run.info.jobId = QStringLiteral("4711");
        RunDetailsDialog dialog(run, QStringLiteral("open"), catalogue());
        auto *button = dialog.findChild<QPushButton *>(QStringLiteral("jobDetails"));
        QVERIFY(button);
        QVERIFY(!button->isEnabled()); // nobody to ask

        DescribingLauncher launcher;
        launcher.knows = QStringLiteral("4711");
        dialog.setJobSource(
            [&launcher](const RunInfo &info, QObject *context, RunDetailsDialog::JobDescribed done) {
                return launcher.describe(info, context, std::move(done));
            },
            &launcher);
        QVERIFY(button->isEnabled());
        button->click();
        QCOMPARE(launcher.asked.size(), 1);
        QCOMPARE(launcher.asked.first().jobId, QStringLiteral("4711"));
        QCOMPARE(launcher.asked.first().device.toString(), QStringLiteral("slurm:hpc/gpu"));
        QVERIFY(!button->isEnabled()); // one question at a time
        button->click();
        QCOMPARE(launcher.asked.size(), 1);
        QTRY_VERIFY(jobDetailsBox(dialog));
        QCOMPARE(jobDetailsBox(dialog)->text(), QStringLiteral("queue show 4711"));
        QCOMPARE(jobDetailsBox(dialog)->detailedText(), QStringLiteral("JobId=4711 JobState=RUNNING"));
        QVERIFY(button->isEnabled());
        delete jobDetailsBox(dialog);

        // A job the launcher cannot ask about: said at once, in the window.
        launcher.knows = QStringLiteral("other");
        button->click();
        QCOMPARE(launcher.asked.size(), 2);
        QVERIFY(jobDetailsBox(dialog));
        QVERIFY2(jobDetailsBox(dialog)->informativeText().contains(QStringLiteral("slurm:hpc/gpu")),
                 qPrintable(jobDetailsBox(dialog)->informativeText()));
        QVERIFY(button->isEnabled());
        delete jobDetailsBox(dialog);

        // Its experiment closed: nobody to ask any more.
        auto *experiment = new QObject;
        dialog.setJobSource([](const RunInfo &, QObject *, RunDetailsDialog::JobDescribed) { return false; },
                            experiment);
        QVERIFY(button->isEnabled());
        delete experiment;
        QVERIFY(!button->isEnabled());

        // A local process has no job: nothing to ask.
        run.info.jobId.clear();
        run.info.device = Device::parse(QStringLiteral("cpu"));
        dialog.setRecord(run);
        QVERIFY(!button->isEnabled());
    }

    void shellQuoting()
    {
        QCOMPARE(RunDetailsDialog::shellQuoted({QStringLiteral("a"), QStringLiteral("--x=1,2"), QStringLiteral("b c"),
                                                QStringLiteral("it's"), QString()}),
                 QStringLiteral("a --x=1,2 'b c' 'it'\\''s' ''"));
    }
};

QTEST_MAIN(TestRunDetailsDialog)
#include "tst_rundetailsdialog.moc"
