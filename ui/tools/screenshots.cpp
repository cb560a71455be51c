// trainyard-screenshots: takes the README's screenshots from the real app.
// Opens the demo, starts it, and grabs the window while it trains and when
// it is done, plus the plots (the loss, and other metrics picked), the run
// editor, a run's details, the run table (grouped by model) and two runs
// compared.
// Run under Xvfb:  xvfb-run -a -s "-screen 0 1600x1000x24" trainyard-screenshots OUTDIR
// With --cluster FILE (an experiment with Slurm lanes on a running cluster,
// tests/slurm/screenshot-cluster.sh): the board while its jobs run and one
// waits in the queue, as cluster-lanes.png. With --sweep OUTDIR: a small
// ASHA sweep on two CPU lanes, its Sweep view and the sweep editor. With
// --remote FILE OUTDIR (an experiment with lanes on a host over ssh,
// tests/remote/screenshot-remote.sh): the board while the host's runs
// train, its lanes' headers showing the host's GPUs, as remote-lanes.png.
// --rounds FILE OUTDIR (examples/federated/federated.json or a copy): its
// rounds in progress with a client's chain of edges drawn, and at the end
// the client's curve across rounds with the accuracy per round.

#include "orchestration/document/experimentdocument.h"
#include "ui/app/desktopapp.h"
#include "ui/app/mainwindow.h"
#include "ui/app/sessioncontroller.h"
#include "ui/board/boardmodel.h"
#include "ui/board/boardview.h"
#include "ui/board/laneview.h"
#include "ui/common/prompts.h"
#include "ui/editors/runeditordialog.h"
#include "ui/editors/slotprobedialog.h"
#include "ui/palette/modelpalettemodel.h"
#include "ui/plot/plotwidget.h"
#include "ui/runs/comparedialog.h"
#include "ui/runs/runcompare.h"
#include "ui/runs/rundetailsdialog.h"
#include "ui/runs/runtablemodel.h"
#include "ui/runs/runtablepanel.h"
#include "ui/sweep/parallelcoordinates.h"
#include "ui/sweep/sweepeditordialog.h"
#include "ui/sweep/sweeppanel.h"
#include "ui/sweep/sweepview.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>

#include <cstdio>
#include <functional>

using namespace trainyard;

namespace {

bool waitFor(int ms, const std::function<bool()> &done)
{
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < ms) {
        if (done && done()) {
            return true;
        }
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        QThread::msleep(10);
    }
    return done ? done() : true;
}

bool save(QWidget *widget, const QString &file)
{
    const bool ok = widget->grab().save(file);
    std::printf("%s %s\n", ok ? "wrote" : "FAILED", qPrintable(file));
    return ok;
}

// The board of `file` once one of its runs waits in the queue while others
// train (at most two minutes), then its first pending run's details.
int clusterShots(const QString &file, const QString &out)
{
    MainWindow window;
    window.useScriptedPrompts();
    // The file names its cluster's worker (a command): written by the
    // caller's own script, demo-cluster-experiment.py.
    window.useScriptedPrompts()->trusts = [](const QString &, const QStringList &) { return true; };
    if (!window.openFile(file)) {
        return 1;
    }
    window.loadCatalogue();
    window.resize(1600, 1000);
    window.show();
    ExperimentDocument *document = window.boardModel()->document();
    document->setCpuFallback(true); // the test cluster's GPUs are fake
    window.startAll();
    RunId pending = 0;
    const bool seen = waitFor(120000, [&] {
        int training = 0;
        pending = 0;
        for (RunId id : document->runIds()) {
            const RunInfo r = document->run(id);
            training += r.state == RunState::Running && r.step > 0 ? 1 : 0;
            pending = r.queueReason == QLatin1String("Resources") ? id : pending;
        }
        return training >= 2 && pending;
    });
    if (!seen) {
        std::printf("FAILED: no run waited for Resources while two trained\n");
        return 1;
    }
    QList<RunId> training;
    for (RunId id : document->runIds()) {
        if (document->run(id).state == RunState::Running) {
            training << id;
        }
    }
    window.boardView()->selectRuns(training);
    waitFor(800, nullptr);
    bool ok = save(&window, out + QStringLiteral("/cluster-lanes.png"));
    if (RunDetailsDialog *details = window.showRunDetails(pending)) {
        details->resize(760, 640);
        waitFor(800, nullptr);
        ok = save(details, out + QStringLiteral("/cluster-run-details.png")) && ok;
        details->close();
    }
    // And on to the end: every run of the file trained through the GUI.
    waitFor(900000, [&] { return document->isIdle(); });
    std::printf("finish count: %s\n", qPrintable(window.finishCountText()));
    return ok && document->finishedCount() == document->totalCount() ? 0 : 1;
}

// The board of `file` (lanes on a host over ssh) once three of its runs
// train there and the host's GPUs have been polled for a while.
int remoteShots(const QString &file, const QString &out)
{
    MainWindow window;
    window.useScriptedPrompts();
    // The file's host (ssh, its worker) is the caller's own script's.
    window.useScriptedPrompts()->trusts = [](const QString &, const QStringList &) { return true; };
    if (!window.openFile(file)) {
        return 1;
    }
    window.loadCatalogue();
    window.resize(1600, 1000);
    window.show();
    ExperimentDocument *document = window.boardModel()->document();
    document->setCpuFallback(true); // the host's GPUs are nvidia-smi's rows only
    window.startAll();
    QList<RunId> training;
    const bool seen = waitFor(120000, [&] {
        training.clear();
        for (RunId id : document->runIds()) {
            const RunInfo r = document->run(id);
            if (r.state == RunState::Running && r.step > 40) {
                training << id;
            }
        }
        return training.size() >= 3;
    });
    if (!seen) {
        std::printf("FAILED: three runs did not train on the host\n");
        return 1;
    }
    waitFor(12000, nullptr); // the headers' sparklines fill
    window.boardView()->selectRuns(training);
    waitFor(1500, nullptr);
    const bool ok = save(&window, out + QStringLiteral("/remote-lanes.png"));
    window.sessionController()->closeWithoutAsking(); // stops the host's runs
    waitFor(30000, [&] { return window.sessionController()->closingCount() == 0; });
    return ok ? 0 : 1;
}

// A sweep of TransE on generated data over two CPU lanes, as a user builds
// it: the lr on a log range, the dim from values, ASHA over epochs.
QJsonObject demoSweep()
{
    const auto o = [](std::initializer_list<std::pair<QString, QJsonValue>> l) {
        QJsonObject r;
        for (const auto &[k, v] : l) {
            r.insert(k, v);
        }
        return r;
    };
    const QJsonObject base =
        o({{QStringLiteral("model"),
            o({{QStringLiteral("type"), QStringLiteral("transe")}, {QStringLiteral("dim"), 32}})},
           {QStringLiteral("data"), o({{QStringLiteral("kind"), QStringLiteral("synthetic-kg")},
                                       {QStringLiteral("entities"), 200},
                                       {QStringLiteral("relations"), 8},
                                       {QStringLiteral("triples"), 4000}})},
           {QStringLiteral("train"), o({{QStringLiteral("epochs"), 27},
                                        {QStringLiteral("batch_size"), 256},
                                        {QStringLiteral("lr"), 0.01},
                                        {QStringLiteral("seed"), 1}})},
           {QStringLiteral("eval"),
            o({{QStringLiteral("every_epochs"), 1}, {QStringLiteral("split"), QStringLiteral("valid")}})},
           {QStringLiteral("checkpoint"), o({{QStringLiteral("every_steps"), 100}})},
           {QStringLiteral("report"), o({{QStringLiteral("every_steps"), 5}})}});
    return o({{QStringLiteral("name"), QStringLiteral("lr-dim")},
              {QStringLiteral("base"), base},
              {QStringLiteral("space"),
               o({{QStringLiteral("train.lr"), o({{QStringLiteral("log_uniform"), QJsonArray{0.0003, 0.3}}})},
                  {QStringLiteral("model.dim"), o({{QStringLiteral("values"), QJsonArray{16, 32, 64}}})}})},
              {QStringLiteral("method"), QStringLiteral("random")},
              {QStringLiteral("trials"), 18},
              {QStringLiteral("seed"), 3},
              {QStringLiteral("objective"), o({{QStringLiteral("metric"), QStringLiteral("valid/mrr")},
                                               {QStringLiteral("mode"), QStringLiteral("max")}})},
              {QStringLiteral("early_stopping"), o({{QStringLiteral("rule"), QStringLiteral("asha")},
                                                    {QStringLiteral("min"), 1},
                                                    {QStringLiteral("max"), 27},
                                                    {QStringLiteral("eta"), 3}})}});
}

int sweepShots(const QString &out)
{
    QDir().mkpath(out);
    QTemporaryDir dir;
    const QJsonObject lane{{QStringLiteral("device"), QStringLiteral("cpu")},
                           {QStringLiteral("slots"), 2},
                           {QStringLiteral("runs"), QJsonArray{}}};
    const QString file = dir.filePath(QStringLiteral("sweep-demo.json"));
    QFile f(file);
    if (!f.open(QIODevice::WriteOnly)
        || f.write(QJsonDocument(QJsonObject{{QStringLiteral("name"), QStringLiteral("sweep-demo")},
                                             {QStringLiteral("runs_root"), dir.filePath(QStringLiteral("runs"))},
                                             {QStringLiteral("lanes"), QJsonArray{lane, lane}}})
                       .toJson())
               < 0) {
        return 1;
    }
    f.close();
    MainWindow window;
    window.useScriptedPrompts();
    if (!window.openFile(file)) {
        return 1;
    }
    window.loadCatalogue();
    window.resize(1600, 1000);
    window.show();
    // The worker's catalogue, not just the palette's fixed rows: the editor
    // offers the recipe's keys and checks against it.
    waitFor(10000, [&] { return !window.catalogue().isEmpty(); });
    const QJsonObject sweep = demoSweep();

    // The editor on the sweep's base, set as the sweep is.
    {
        SweepEditorDialog editor(sweep.value(QStringLiteral("base")).toObject(),
                                 {QStringLiteral("cpu"), QStringLiteral("cpu 2")}, &window.catalogue(), &window);
        const auto set = [&](const QString &name, const QString &text) {
            if (auto *edit = editor.findChild<QLineEdit *>(name)) {
                edit->setText(text);
            }
        };
        const auto pick = [&](const QString &name, const QString &text) {
            if (auto *box = editor.findChild<QComboBox *>(name)) {
                box->setCurrentIndex(box->findText(text));
            }
        };
        pick(QStringLiteral("sweepMode:train.lr"), QStringLiteral("log range"));
        set(QStringLiteral("sweepLow:train.lr"), QStringLiteral("0.0003"));
        set(QStringLiteral("sweepHigh:train.lr"), QStringLiteral("0.3"));
        pick(QStringLiteral("sweepMode:model.dim"), QStringLiteral("values"));
        set(QStringLiteral("sweepValues:model.dim"), QStringLiteral("16, 32, 64"));
        pick(QStringLiteral("sweepMethod"), QStringLiteral("random"));
        if (auto *trials = editor.findChild<QSpinBox *>(QStringLiteral("sweepTrials"))) {
            trials->setValue(18);
        }
        pick(QStringLiteral("sweepStopping"), QStringLiteral("ASHA"));
        set(QStringLiteral("sweepName"), QStringLiteral("lr-dim"));
        editor.resize(900, 700);
        editor.show();
        waitFor(500, nullptr);
        save(&editor, out + QStringLiteral("/sweep-editor.png"));
    }

    QString error;
    if (!window.sweepPanel()->addSweep(sweep, &error)) {
        std::printf("sweep refused: %s\n", qPrintable(error));
        return 1;
    }
    ExperimentDocument *document = window.boardModel()->document();
    window.startAll();
    auto *tabs = window.findChild<QTabWidget *>();
    tabs->setCurrentWidget(window.sweepPanel()->view());
    SweepView *view = window.sweepPanel()->view();
    waitFor(20000, nullptr);
    bool ok = save(&window, out + QStringLiteral("/sweep-running.png"));
    waitFor(600000, [&] { return document->isSweepDone(QStringLiteral("lr-dim")); });
    std::printf("%s\n", qPrintable(document->sweepProgress(QStringLiteral("lr-dim"))));
    waitFor(1000, nullptr);
    ok = save(&window, out + QStringLiteral("/sweep-view.png")) && ok;
    // Brushing the objective's axis to its upper half: the table keeps the best trials.
    ParallelCoordinatesPlot *plot = view->parallelPlot();
    const int objective = plot->axisCount() - 1;
    const double low = plot->axisLow(objective);
    const double high = plot->axisHigh(objective);
    plot->setBrush(objective, low + (high - low) / 2, high);
    waitFor(500, nullptr);
    ok = save(view, out + QStringLiteral("/sweep-brushed.png")) && ok;
    if (auto *plots = view->findChild<QTabWidget *>(QStringLiteral("sweepPlots"))) {
        plots->setCurrentIndex(1);
        waitFor(500, nullptr);
        ok = save(plots, out + QStringLiteral("/sweep-best.png")) && ok;
        plots->setCurrentIndex(2);
        waitFor(500, nullptr);
        ok = save(plots, out + QStringLiteral("/sweep-rungs.png")) && ok;
    }
    return ok && document->isSweepDone(QStringLiteral("lr-dim")) ? 0 : 1;
}

// The federated example while round 2 trains (rounds-running.png), and
// done (rounds-done.png).
int roundsShots(const QString &file, const QString &out)
{
    QDir().mkpath(out);
    MainWindow window;
    window.useScriptedPrompts()->trusts = [](const QString &, const QStringList &) { return true; };
    if (!window.openFile(file)) {
        return 1;
    }
    window.loadCatalogue();
    window.resize(1600, 1000);
    window.show();
    ExperimentDocument *document = window.boardModel()->document();
    const auto runId = [&](const QString &name) { return document->findRun(name); };
    window.startAll();
    const bool seen = waitFor(600000, [&] {
        const RunInfo r = document->run(runId(QStringLiteral("fed-r2-client-1")));
        return r.state == RunState::Running && r.step >= 150;
    });
    if (!seen) {
        std::printf("FAILED: round 2 did not train\n");
        return 1;
    }
    // Client 1 in rounds 1 and 2: one curve, and the edges of its chain
    // (round 1's aggregate between them, round 2's after it).
    window.boardView()->selectRuns(
        {runId(QStringLiteral("fed-r1-client-1")), runId(QStringLiteral("fed-r2-client-1"))});
    // Round 1's aggregate at the top of the lane: round 2 running, its aggregate waiting below.
    window.boardView()->laneView(0)->scrollTo(window.boardModel()->runIndex(runId(QStringLiteral("fed-r1-average"))),
                                              QAbstractItemView::PositionAtTop);
    waitFor(600, nullptr);
    bool ok = save(&window, out + QStringLiteral("/rounds-running.png"));
    waitFor(900000, [&] { return document->isIdle(); });
    // Each client's runs of every round: one curve; the last aggregate's accuracy per round.
    QList<RunId> curves;
    for (int k = 1; k <= 5; ++k) {
        curves << runId(QStringLiteral("fed-r%1-client-1").arg(k));
    }
    curves << runId(QStringLiteral("fed-r5-average"));
    window.boardView()->selectRuns(curves);
    waitFor(1000, nullptr);
    ok = save(&window, out + QStringLiteral("/rounds-done.png")) && ok;
    std::printf("finish count: %s\n", qPrintable(window.finishCountText()));
    return ok && document->finishedCount() == document->totalCount() ? 0 : 1;
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    initDesktopApp();
    if (argc > 3 && QString::fromLocal8Bit(argv[1]) == QLatin1String("--cluster")) {
        return clusterShots(QString::fromLocal8Bit(argv[2]), QString::fromLocal8Bit(argv[3]));
    }
    if (argc > 3 && QString::fromLocal8Bit(argv[1]) == QLatin1String("--remote")) {
        return remoteShots(QString::fromLocal8Bit(argv[2]), QString::fromLocal8Bit(argv[3]));
    }
    if (argc > 3 && QString::fromLocal8Bit(argv[1]) == QLatin1String("--rounds")) {
        return roundsShots(QString::fromLocal8Bit(argv[2]), QString::fromLocal8Bit(argv[3]));
    }
    if (argc > 2 && QString::fromLocal8Bit(argv[1]) == QLatin1String("--sweep")) {
        return sweepShots(QString::fromLocal8Bit(argv[2]));
    }
    const QString out = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral("docs/screenshots");
    // The demo's KG runs end within seconds on a CPU; the CNN trains on.
    const int trainSeconds = argc > 2 ? QString::fromLocal8Bit(argv[2]).toInt() : 4;
    QDir().mkpath(out);

    MainWindow window;
    window.useScriptedPrompts();
    if (!window.openDemo()) {
        return 1;
    }
    window.loadCatalogue();
    window.resize(1600, 1000);
    window.show();
    waitFor(3000, [&] { return window.paletteModel()->rowCount() > 0; });

    ExperimentDocument *document = window.boardModel()->document();
    window.startAll();
    // Plot the TransH repeats (a mean with a band) and the first TransE run.
    QList<RunId> selection = document->lane(1).runs;
    selection.append(document->lane(0).runs.first());
    window.boardView()->selectRuns(selection);
    waitFor(trainSeconds * 1000, nullptr);
    bool ok = save(&window, out + QStringLiteral("/main-window.png"));

    // The run editor as it opens for a model dragged from the palette, here
    // pointed at a dataset folder that is not there: the worker's check says
    // so and Queue waits.
    if (!window.catalogue().isEmpty()) {
        const QString type = window.catalogue().models().first().type;
        QJsonObject spec = window.catalogue().defaultSpec(type, type);
        spec.insert(QStringLiteral("data"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("kg")},
                                                        {QStringLiteral("path"), QStringLiteral("/data/FB15k-237")}});
        RunEditorDialog editor(window.catalogue(), spec, 1, &window);
        editor.setWorkerProgram(window.workerProgram());
        editor.resize(480, 720);
        editor.show();
        waitFor(15000, [&] { return !editor.canAccept(); });
        waitFor(300, nullptr);
        ok = save(&editor, out + QStringLiteral("/run-editor.png")) && ok;
    }

    // Wait for the end (at most 10 minutes), then the board and the run table.
    waitFor(600000, [&] { return document->isIdle(); });
    // The same selection, every repeat done: a mean with its band, on a log scale.
    window.plot()->setLogScale(true);
    waitFor(800, nullptr);
    ok = save(window.plot(), out + QStringLiteral("/plots.png")) && ok;
    window.plot()->setLogScale(false);
    // Any metric a run reports, picked per plot: the worker's throughput
    // above, Hits@10 below.
    window.plot()->setCurveMetric(QStringLiteral("samples_per_s"));
    window.plot()->setEvalMetric(QStringLiteral("valid/hits@10"));
    waitFor(800, nullptr);
    ok = save(window.plot(), out + QStringLiteral("/plots-metrics.png")) && ok;
    window.plot()->setCurveMetric(QString());
    window.plot()->setEvalMetric(QString());
    window.boardView()->selectRuns(document->lane(2).runs);
    waitFor(1000, nullptr);
    ok = save(&window, out + QStringLiteral("/finished.png")) && ok;
    auto *tabs = window.findChild<QTabWidget *>();
    tabs->setCurrentIndex(1);
    window.runTable()->waitForHistory();
    // Grouped by model: a header row per model with the mean of its runs' metrics.
    window.runTablePanel()->setGroupColumn(RunTableModel::ModelColumn);
    waitFor(800, nullptr);
    ok = save(&window, out + QStringLiteral("/run-table.png")) && ok;
    window.runTablePanel()->setGroupColumn(-1);
    // The first TransE run beside the first TransH repeat.
    const auto rowOf = [&window](RunId id) {
        for (int r = 0; r < window.runTable()->rowCount(); ++r) {
            if (window.runTable()->row(r).id == id) {
                return r;
            }
        }
        return -1;
    };
    if (CompareDialog *compare = window.runCompare()->compareRows(rowOf(document->lane(0).runs.first()),
                                                                  rowOf(document->lane(1).runs.first()))) {
        compare->resize(860, 820);
        waitFor(800, nullptr);
        ok = save(compare, out + QStringLiteral("/compare-runs.png")) && ok;
        compare->close();
    }
    std::printf("finish count: %s\n", qPrintable(window.finishCountText()));
    tabs->setCurrentIndex(0);

    // What a finished run was: the details of the first TransH repeat.
    if (RunDetailsDialog *details = window.showRunDetails(document->lane(1).runs.first())) {
        details->resize(760, 640);
        waitFor(800, nullptr);
        ok = save(details, out + QStringLiteral("/run-details.png")) && ok;
        details->close();
    }

    // "Measure slots…" on the first lane, with its first run (shorter than
    // the default 300 steps, to keep the tool quick), once it has a result.
    const RunId first = document->lane(0).runs.first();
    SlotProbeDialog probe(document->lane(0).effectiveDevice.toString(), document->run(first).spec, 0, &window);
    probe.resize(520, 320);
    probe.show();
    bool finished = false;
    QObject::connect(probe.probe(), &SlotProbe::finished, &probe, [&] { finished = true; });
    QObject::connect(probe.probe(), &SlotProbe::failed, &probe, [&] { finished = true; });
    if (probe.start(SlotProbe::defaultLevels(), 120)) {
        waitFor(300000, [&] { return finished; });
    }
    waitFor(300, nullptr);
    ok = save(&probe, out + QStringLiteral("/slot-probe.png")) && ok;
    std::printf("slot probe: %s\n", qPrintable(probe.statusText()));
    return ok ? 0 : 1;
}
