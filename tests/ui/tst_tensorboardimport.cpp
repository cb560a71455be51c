// TensorBoard logs as past runs: a run exported to TensorBoard and opened
// back (TensorBoardLogs, PastRuns, RunStore through TensorBoardRun) has the
// original's curves point by point; a TF2 file of tensor scalars is read;
// the logs' folder is never written into.

#include "metrics/metricstore.h"
#include "metrics/tensorboard/eventfilereader.h"
#include "metrics/tensorboard/eventfilewriter.h"
#include "metrics/tensorboard/protowire.h"
#include "metrics/tensorboard/recordframing.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/sweepspec.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/runstore/tensorboardexport.h"
#include "protocol/metricrecord.h"
#include "ui/app/appsettings.h"
#include "ui/app/tensorboardlogs.h"
#include "ui/common/runcolors.h"
#include "ui/plot/plotfeeder.h"
#include "ui/plot/plotwidget.h"
#include "ui/runs/pastruns.h"
#include "ui/runs/runtablemodel.h"
#include "ui/runs/runtablepanel.h"
#include "ui/runs/tensorboardexportaction.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMainWindow>
#include <QMenu>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>

using namespace trainyard;

namespace {

void writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QCOMPARE(f.write(bytes), bytes.size());
}

// A finished run's folder: metric lines (loss, lr, samples_per_s), valid
// evaluations every 10 steps and a test one at the end.
void makeRun(const QString &root, const QString &name)
{
    QByteArray lines;
    for (int step = 1; step <= 30; ++step) {
        lines += QStringLiteral("{\"type\":\"metric\",\"step\":%1,\"epoch\":%2,\"loss\":%3,\"lr\":0.01,"
                                "\"samples_per_s\":%4,\"wall\":%5}\n")
                     .arg(step)
                     .arg(1 + step / 10)
                     .arg(3.0 / step + 0.123456789, 0, 'g', 17)
                     .arg(1000.5 + step, 0, 'g', 17)
                     .arg(0.25 * step + 0.001, 0, 'g', 17)
                     .toUtf8();
        if (step % 10 == 0) {
            lines += QStringLiteral("{\"type\":\"eval\",\"split\":\"valid\",\"step\":%1,\"epoch\":%2,\"mrr\":%3,"
                                    "\"hits@10\":%4,\"wall\":%5}\n")
                         .arg(step)
                         .arg(step / 10)
                         .arg(0.01 * step + 0.0001, 0, 'g', 17)
                         .arg(0.02 * step, 0, 'g', 17)
                         .arg(0.25 * step + 0.1, 0, 'g', 17)
                         .toUtf8();
        }
    }
    lines += "{\"type\":\"eval\",\"split\":\"test\",\"step\":30,\"epoch\":3,\"mrr\":0.3125,\"wall\":8.0}\n";
    const QString dir = root + QLatin1Char('/') + name;
    writeFile(dir + QStringLiteral("/metrics.jsonl"), lines);
    writeFile(dir + QStringLiteral("/spec.json"), QStringLiteral("{\"name\":\"%1\"}").arg(name).toUtf8());
    writeFile(dir + QStringLiteral("/status.json"),
              "{\"state\":\"finished\",\"started\":\"2026-12-06T17:33:39.603Z\",\"exit_code\":0}");
}

// Every curve of a run folder, as the plots read it (RunStore::readMetrics
// into a store, as PlotFeeder::pinPastRun does).
void readCurves(const QString &runDir, MetricStore *store)
{
    const QFileInfo dir(runDir);
    const RunStore::ReadResult read =
        RunStore(dir.absolutePath()).readMetrics(dir.fileName(), 0, [&](const MetricRecord &record) {
            store->add(1, record);
        });
    QVERIFY2(read.error.isEmpty(), qPrintable(read.error));
}

QStringList filesUnder(const QString &dir)
{
    QStringList files;
    for (const QFileInfo &f :
         QDir(dir).entryInfoList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden, QDir::Name)) {
        files << f.fileName()
                     + (f.isDir() ? QStringLiteral("/ ") + filesUnder(f.filePath()).join(QLatin1Char(' ')) : QString());
    }
    return files;
}

// A TF2 scalar event (tf.summary.scalar): a rank-0 tensor with the scalars
// plugin's metadata; a double in double_val when `asDouble`, else a float in
// tensor_content.
QByteArray tf2Event(const QString &tag, std::int64_t step, double wall, double value, bool asDouble)
{
    protowire::Writer tensor;
    tensor.varint(1, asDouble ? 2 : 1);
    QByteArray raw(asDouble ? 8 : 4, '\0');
    const float f = float(value);
    std::memcpy(raw.data(), asDouble ? static_cast<const void *>(&value) : static_cast<const void *>(&f),
                std::size_t(raw.size()));
    tensor.bytes(asDouble ? 6 : 4, raw);
    protowire::Writer plugin;
    plugin.string(1, QStringLiteral("scalars"));
    protowire::Writer meta;
    meta.bytes(1, plugin.data());
    meta.varint(4, 1);
    protowire::Writer v;
    v.string(1, tag);
    v.bytes(9, meta.data());
    v.bytes(8, tensor.data());
    protowire::Writer summary;
    summary.bytes(1, v.data());
    protowire::Writer event;
    event.fixed64(1, wall);
    event.varint(2, std::uint64_t(step));
    event.bytes(5, summary.data());
    return recordframing::frame(event.data());
}

} // namespace

class TestTensorBoardImport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // the remembered folders: not the user's
        appSettings().remove(QStringLiteral("tensorBoardFolders"));
    }

    void exportedRunOpensBackWithTheSameCurves()
    {
        QTemporaryDir tmp;
        const QString runs = tmp.filePath(QStringLiteral("runs"));
        makeRun(runs, QStringLiteral("r1"));
        const QString logs = tmp.filePath(QStringLiteral("tb"));
        const TensorBoardExport::Result written =
            TensorBoardExport::writeRun(RunStore(runs), QStringLiteral("r1"), logs);
        QVERIFY2(written.ok, qPrintable(written.error));
        const QStringList before = filesUnder(logs);

        PastRuns past;
        past.setTensorBoardFolders({logs});
        past.refresh(QString(), QString());
        past.waitForReads();
        QCOMPARE(past.size(), 1);
        QCOMPARE(past.experiment(0), QStringLiteral("tb"));
        const RunRecord &run = past.run(0);
        QCOMPARE(run.info.name, QStringLiteral("r1"));
        QCOMPARE(run.info.step, 30);
        QCOMPARE(run.info.loss, double(float(3.0 / 30 + 0.123456789)));
        QCOMPARE(run.info.started,
                 QDateTime::fromString(QStringLiteral("2026-12-06T17:33:39.603Z"), Qt::ISODateWithMs));
        QVERIFY(run.evals.contains(QStringLiteral("valid/mrr")));
        QCOMPARE(run.evals.value(QStringLiteral("test/mrr")).last, 0.3125);
        QCOMPARE(run.stateName(), QStringLiteral("unknown")); // the logs do not say how it ended

        // Point by point: steps exact, values as float32, walls as written.
        MetricStore original, opened;
        readCurves(runs + QStringLiteral("/r1"), &original);
        readCurves(logs + QStringLiteral("/r1"), &opened);
        int points = 0;
        for (const QString &metric : original.metricNames(1)) {
            if (MetricStore::isBookkeeping(metric)) {
                continue;
            }
            const MetricSeries *a = original.series(1, metric);
            const MetricSeries *b = opened.series(1, metric);
            QVERIFY2(b, qPrintable(metric));
            QCOMPARE(b->size(), a->size());
            for (std::size_t i = 0; i < a->size(); ++i) {
                QCOMPARE(b->step(i), a->step(i));
                QCOMPARE(b->value(i), double(float(a->value(i))));
                QVERIFY2(std::abs(b->wall(i) - a->wall(i)) < 1e-5, qPrintable(metric));
                ++points;
            }
        }
        QCOMPARE(points, 30 * 3 + 3 * 2 + 1);

        // The plots pin it as any past run.
        RunColors colors;
        PlotWidget plot(&colors);
        PlotFeeder feeder(&plot);
        QString error;
        QVERIFY2(feeder.pinPastRun(logs + QStringLiteral("/r1"), QStringLiteral("r1"), &error), qPrintable(error));

        // Read only: no notes written, nothing added.
        QVERIFY(!RunStore(logs).writeNotes(QStringLiteral("r1"), RunNotes{{QStringLiteral("tag")}, QString()}, &error));
        QVERIFY2(error.contains(QStringLiteral("only reads")), qPrintable(error));
        QCOMPARE(filesUnder(logs), before);
    }

    void tf2TensorScalarsAndHParamsRead()
    {
        QTemporaryDir tmp;
        const QString run = tmp.filePath(QStringLiteral("logs/lr-0.1"));
        QByteArray file = recordframing::frame(TensorBoardEventWriter::versionEvent(1000.0));
        file += recordframing::frame(TensorBoardEventWriter::hparamsEvent({{QStringLiteral("train.lr"), 0.1}}, 1000.0));
        for (int step = 1; step <= 3; ++step) {
            file += tf2Event(QStringLiteral("loss"), step, 1000.0 + step, 1.0 / step, false);
            file += tf2Event(QStringLiteral("valid/accuracy"), step, 1000.5 + step, 0.1 * step, true);
        }
        writeFile(run + QStringLiteral("/events.out.tfevents.1000.host.1.v2"), file);

        RunRecord record;
        QVERIFY(RunStore(tmp.filePath(QStringLiteral("logs"))).readRun(QStringLiteral("lr-0.1"), &record));
        QCOMPARE(record.info.step, 3);
        QCOMPARE(record.info.loss, double(float(1.0 / 3)));
        QCOMPARE(record.evals.value(QStringLiteral("valid/accuracy")).last, 0.1 * 3); // a double kept whole
        QCOMPARE(record.info.spec.value(QStringLiteral("train")).toObject().value(QStringLiteral("lr")).toDouble(),
                 0.1);
        MetricStore curves;
        readCurves(run, &curves);
        QCOMPARE(curves.series(1, QStringLiteral("loss"))->size(), 3);
        QCOMPARE(curves.series(1, QStringLiteral("loss"))->wall(2), 3.0); // since the first record
        QCOMPARE(curves.series(1, QStringLiteral("valid/accuracy"))->wall(0), 1.5);
    }

    // TensorBoard runs are named by whoever wrote them: "lr=0.01,bs=32" is
    // read as it is; a hidden folder is not, nor a Trainyard run folder
    // with such a name (its files are ours, its name could not be).
    void aTensorBoardRunKeepsItsFolderName()
    {
        QTemporaryDir tmp;
        const QString logs = tmp.filePath(QStringLiteral("logs"));
        QByteArray file = recordframing::frame(TensorBoardEventWriter::versionEvent(1000.0));
        file += tf2Event(QStringLiteral("loss"), 1, 1001.0, 0.5, false);
        for (const char *name : {"lr=0.01,bs=32", ".hidden"}) {
            writeFile(logs + QLatin1Char('/') + QLatin1String(name) + QStringLiteral("/events.out.tfevents.1.h.1.v2"),
                      file);
        }
        makeRun(logs, QStringLiteral("r1"));
        QVERIFY(QDir(logs).rename(QStringLiteral("r1"), QStringLiteral("ours=1")));
        const RunStore store(logs);
        QCOMPARE(store.runNames(), QStringList{QStringLiteral("lr=0.01,bs=32")});
        RunRecord record;
        QVERIFY(store.readRun(QStringLiteral("lr=0.01,bs=32"), &record));
        QCOMPARE(record.info.loss, 0.5);
        QVERIFY(store.runDir(QStringLiteral("ours=1")).isEmpty());
        QVERIFY(store.runDir(QStringLiteral(".hidden")).isEmpty());
        QVERIFY(store.runDir(QStringLiteral("..")).isEmpty());
    }

    void exportToTensorBoardFromTheRunsTable()
    {
        QTemporaryDir tmp;
        const QString history = tmp.filePath(QStringLiteral("history"));
        makeRun(history + QStringLiteral("/exp"), QStringLiteral("r1"));
        makeRun(history + QStringLiteral("/exp"), QStringLiteral("r2"));
        RunTableModel table;
        table.setHistoryRoots({history});
        table.refreshHistory();
        table.waitForHistory();
        RunTablePanel panel(&table);
        auto *action = panel.findChild<QAction *>(QStringLiteral("exportToTensorBoard"));
        QVERIFY(action);
        QCOMPARE(action->text(), QStringLiteral("Export to &TensorBoard…"));

        const QStringList runDirs{history + QStringLiteral("/exp/r1"), history + QStringLiteral("/exp/r2")};
        const QString logs = tmp.filePath(QStringLiteral("tb"));
        QString error;
        QCOMPARE(TensorBoardExportAction::exportRuns(runDirs, logs, &error), 2);
        QCOMPARE(QDir(logs).entryList(QDir::Dirs | QDir::NoDotAndDotDot),
                 (QStringList{QStringLiteral("r1"), QStringLiteral("r2")}));
        const QStringList before = filesUnder(logs);
        // Again into the same folder: refused as a whole, nothing written.
        QCOMPARE(TensorBoardExportAction::exportRuns(runDirs, logs, &error), -1);
        QVERIFY2(error.contains(QStringLiteral("already holds files")), qPrintable(error));
        QCOMPARE(filesUnder(logs), before);
        // Back as past runs: the same step and loss.
        RunRecord back;
        QVERIFY(RunStore(logs).readRun(QStringLiteral("r2"), &back));
        QCOMPARE(back.info.step, 30);
    }

    // The open experiment's sweep trials carry the values their sweep
    // searched, as `trainyard export --tensorboard FILE` writes them; a run
    // of another runs root, even of the same name, carries none.
    void exportOfASweepTrialWritesItsHParams()
    {
        QTemporaryDir tmp;
        const QByteArray json =
            R"({"name": "e", "lanes": [{"device": "cpu"}], "sweeps": [{"name": "lr",
                "base": {"model": {"type": "transe"}, "data": {"kind": "synthetic-kg"}},
                "objective": {"metric": "valid/mrr", "mode": "max"},
                "space": {"train.lr": {"values": [0.1, 0.01]}}}]})";
        QStringList errors;
        const std::optional<Experiment> experiment =
            Experiment::fromJson(QJsonDocument::fromJson(json).object(), &errors);
        QVERIFY2(experiment, qPrintable(errors.join(QLatin1Char('\n'))));
        const QString trial = SweepSpec::trialName(QStringLiteral("lr"), 1);
        const QString root = tmp.filePath(QStringLiteral("runs"));
        const QString other = tmp.filePath(QStringLiteral("elsewhere"));
        for (const QString &r : {root, other}) {
            makeRun(r, trial);
            writeFile(r + QLatin1Char('/') + trial + QStringLiteral("/spec.json"),
                      R"({"name": "x", "model": {"type": "transe"}, "train": {"lr": 0.01, "epochs": 3}})");
        }
        QString error;
        const QString logs = tmp.filePath(QStringLiteral("tb"));
        QCOMPARE(
            TensorBoardExportAction::exportRuns({root + QLatin1Char('/') + trial}, logs, &error, &*experiment, root),
            1);
        const QString logs2 = tmp.filePath(QStringLiteral("tb2"));
        QCOMPARE(
            TensorBoardExportAction::exportRuns({other + QLatin1Char('/') + trial}, logs2, &error, &*experiment, root),
            1);
        const auto eventsOf = [](const QString &dir) {
            const QStringList files = QDir(dir).entryList({QStringLiteral("events.out.tfevents.*")}, QDir::Files);
            return files.isEmpty() ? TensorBoardEvents()
                                   : TensorBoardEventReader::readFile(dir + QLatin1Char('/') + files.first());
        };
        const TensorBoardEvents trialEvents = eventsOf(logs + QLatin1Char('/') + trial);
        QCOMPARE(trialEvents.hparams.size(), 1);
        QCOMPARE(trialEvents.hparams.first().first, QStringLiteral("train.lr"));
        QCOMPARE(trialEvents.hparams.first().second.toDouble(), 0.01);
        QVERIFY(eventsOf(logs2 + QLatin1Char('/') + trial).hparams.isEmpty());
    }

    void openTensorBoardLogsShowsThemAndRemembers()
    {
        QTemporaryDir tmp;
        const QString runs = tmp.filePath(QStringLiteral("runs"));
        makeRun(runs, QStringLiteral("r1"));
        const QString logs = tmp.filePath(QStringLiteral("tb"));
        QVERIFY(TensorBoardExport::writeRun(RunStore(runs), QStringLiteral("r1"), logs).ok);

        QWidget window;
        RunTableModel table;
        TensorBoardLogs opener(&table, &window);
        QCOMPARE(opener.openAction()->text(), QStringLiteral("Open &TensorBoard logs…"));
        QString error;
        QVERIFY(!opener.open(runs, &error)); // a runs root holds no events file
        QVERIFY2(error.contains(QStringLiteral("no TensorBoard event files")), qPrintable(error));
        QVERIFY2(opener.open(logs, &error), qPrintable(error));
        table.waitForHistory();
        QCOMPARE(table.rowCount(), 1);
        QVERIFY(table.pastRun(0));
        QCOMPARE(table.row(0).name, QStringLiteral("r1"));

        // The next start shows them again.
        RunTableModel again;
        const TensorBoardLogs reopened(&again, &window);
        QCOMPARE(reopened.folders(), QStringList{QFileInfo(logs).absoluteFilePath()});
        again.refreshHistory();
        again.waitForHistory();
        QCOMPARE(again.rowCount(), 1);
    }

    // Closing a folder of logs takes its runs out of the table and out of
    // the settings, and leaves the folder as it was.
    void closingLogsForgetsThem()
    {
        QTemporaryDir tmp;
        const QString runs = tmp.filePath(QStringLiteral("runs"));
        makeRun(runs, QStringLiteral("r1"));
        makeRun(runs, QStringLiteral("r2"));
        const QString logsA = tmp.filePath(QStringLiteral("a"));
        const QString logsB = tmp.filePath(QStringLiteral("b"));
        QVERIFY(TensorBoardExport::writeRun(RunStore(runs), QStringLiteral("r1"), logsA).ok);
        QVERIFY(TensorBoardExport::writeRun(RunStore(runs), QStringLiteral("r2"), logsB).ok);

        QWidget window;
        RunTableModel table;
        TensorBoardLogs opener(&table, &window);
        for (const QString &folder : opener.folders()) {
            opener.close(folder); // what an earlier test left in the settings
        }
        QVERIFY(!opener.closeAction()->isEnabled());
        QString error;
        QVERIFY2(opener.open(logsA, &error), qPrintable(error));
        QVERIFY2(opener.open(logsB, &error), qPrintable(error));
        table.waitForHistory();
        QCOMPARE(table.rowCount(), 2);
        QVERIFY(opener.closeAction()->isEnabled());
        const QList<QAction *> items = opener.closeAction()->menu()->actions();
        QCOMPARE(items.size(), 2);
        QCOMPARE(items.at(0)->text(), QDir::toNativeSeparators(QFileInfo(logsA).absoluteFilePath()));

        const QStringList before = filesUnder(logsA);
        items.at(0)->trigger(); // Close ▸ a
        table.waitForHistory();
        QCOMPARE(table.rowCount(), 1);
        QCOMPARE(table.row(0).name, QStringLiteral("r2"));
        QCOMPARE(opener.folders(), QStringList{QFileInfo(logsB).absoluteFilePath()});
        QCOMPARE(opener.closeAction()->menu()->actions().size(), 1);
        QCOMPARE(filesUnder(logsA), before);
        QVERIFY(!opener.close(logsA)); // not open any more

        RunTableModel again; // the next start
        const TensorBoardLogs reopened(&again, &window);
        QCOMPARE(reopened.folders(), QStringList{QFileInfo(logsB).absoluteFilePath()});
    }

    // From the menu, the logs' runs are brought forward: the runs tab shows
    // and the status bar says where they are.
    void openedFromTheMenuTheRunsTabShows()
    {
        QTemporaryDir tmp;
        makeRun(tmp.filePath(QStringLiteral("runs")), QStringLiteral("r1"));
        const QString logs = tmp.filePath(QStringLiteral("tb"));
        QVERIFY(
            TensorBoardExport::writeRun(RunStore(tmp.filePath(QStringLiteral("runs"))), QStringLiteral("r1"), logs).ok);
        QMainWindow window;
        auto *tabs = new QTabWidget(&window);
        window.setCentralWidget(tabs);
        RunTableModel table;
        auto *panel = new RunTablePanel(&table);
        tabs->addTab(new QWidget, QStringLiteral("Plots"));
        tabs->addTab(panel, QStringLiteral("Runs"));
        TensorBoardLogs opener(&table, &window, panel);
        QVERIFY(opener.openAndShow(logs));
        QCOMPARE(tabs->currentWidget(), panel);
        QVERIFY2(window.statusBar()->currentMessage().contains(QDir::toNativeSeparators(logs)),
                 qPrintable(window.statusBar()->currentMessage()));
    }
};

QTEST_MAIN(TestTensorBoardImport)
#include "tst_tensorboardimport.moc"
