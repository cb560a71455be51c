// bench_sweep_scale: a sweep of 1,000 short trials in the open desktop
// window (offscreen), on trainyard-fake-worker ("Scale").
//
//   bench_sweep_scale FAKE_WORKER [trials=1000] [lanes=4] [slots=2] [steps=4] [step_ms=5]
//                     [select=active|all|none] [timeout_s=600] [ui=window|headless]
//
// The experiment file has no runs, only a random sweep of `trials` fake
// trials (model.quality uniform in [0.1, 1]; a quality above 0.97 fails at
// half its steps, so some trials fail) over `lanes` CPU lanes of `slots`
// slots. The window opens it with the Sweep view as the visible tab, Start
// all starts it, and it runs until the sweep is done. While it runs, every
// second the board's selection is set to its trials, as a user watching
// them would: `active` (the default) the ones training now, `all` every
// trial placed so far (every curve drawn: the plot's worst case), `none`.
// The board, the runs table and the Sweep view hold every trial either way.
// `headless` opens the same file in a Session without a window (as
// `trainyard run` does): the same accounting and decision figures without
// the window's slots in the way, for comparison.
//
// Reported:
//  - accounting: trials placed on the board, launched (a worker started),
//    ended (finished / failed / stopped), from the board's and the runs'
//    signals and from SweepRunner::trials(); every trial must be placed,
//    launched and ended exactly once, the failed ones must be exactly those
//    whose quality fails, and the Sweep view must list them all (exit 1 if not);
//  - the dispatcher's decision per trial, measured from outside: from a
//    trial's end being recorded (RunRegistry::changed to a terminal state)
//    to the next trial placed on the board (Board::runAdded) — the
//    SweepRunner's whole reaction to a freed slot (its state file written,
//    fill() choosing the trial, the board's edit) and, in the window, the
//    window's own slots on the same signals, which run in between (the runs
//    table, the actions' state: headless shows the difference); then from
//    placed to its worker launched (state Starting: the Dispatcher's
//    start). Also fill() called by the bench every 200 ms (a pass over the
//    sweep's lanes that normally finds every slot taken);
//  - wall time from Start all to the sweep done and nothing active, trials/s;
//  - the window during the sweep: the plot's replot per frame
//    (PlotWidget::refreshed, as bench_ui) p50/p99/max, target p99 <= 16 ms
//    (met/MISSED; exit 1 if missed); the whole window's repaint per frame
//    (its UpdateRequest handled); the Sweep view's refreshes (their count and
//    time); the event loop's lateness (a 5 ms timer).

#include "orchestration/board/board.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"
#include "orchestration/sweep/sweeprunner.h"
#include "ui/app/desktopapp.h"
#include "ui/app/mainwindow.h"
#include "ui/board/boardview.h"
#include "ui/common/prompts.h"
#include "ui/plot/plotwidget.h"
#include "ui/sweep/sweeppanel.h"
#include "ui/sweep/sweeptablemodel.h"
#include "ui/sweep/sweepview.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QWindow>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <memory>
#include <numeric>
#include <vector>

using namespace trainyard;

namespace {

const double kFailsAbove = 0.97;

double percentile(std::vector<double> v, double p)
{
    if (v.empty()) {
        return 0;
    }
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, size_t(p * double(v.size() - 1) + 0.5))];
}

double maxOf(const std::vector<double> &v)
{
    return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

double meanOf(std::vector<double>::const_iterator begin, std::vector<double>::const_iterator end)
{
    return begin == end ? 0 : std::accumulate(begin, end, 0.0) / double(end - begin);
}

// Times the handling of two kinds of event from the outside: the window's
// repaint (its UpdateRequest: every dirty widget painted and flushed) and
// the Sweep view's refresh (the timeout of its batching timer).
class TimingApp : public QApplication
{
public:
    using QApplication::QApplication;

    QObject *window = nullptr;
    QObject *windowHandle = nullptr;
    QObject *sweepTimer = nullptr;
    bool recording = false;
    std::vector<double> paints;
    std::vector<double> sweepRefreshes;

    bool notify(QObject *receiver, QEvent *event) override
    {
        const bool paint = event->type() == QEvent::UpdateRequest && receiver
                           && (receiver == window || receiver == windowHandle) && m_paintDepth == 0;
        const bool sweep = event->type() == QEvent::Timer && receiver && receiver == sweepTimer;
        if (!recording || (!paint && !sweep)) {
            return QApplication::notify(receiver, event);
        }
        QElapsedTimer clock;
        clock.start();
        m_paintDepth += paint ? 1 : 0; // the window handle's request may pass it on to the widget
        const bool handled = QApplication::notify(receiver, event);
        m_paintDepth -= paint ? 1 : 0;
        (paint ? paints : sweepRefreshes).push_back(clock.nsecsElapsed() / 1e6);
        return handled;
    }

private:
    int m_paintDepth = 0;
};

QString writeExperiment(const QTemporaryDir &dir, int trials, int lanes, int slotsPerLane, int steps, int stepMs)
{
    QJsonArray laneList;
    for (int i = 0; i < lanes; ++i) {
        laneList.append(QJsonObject{{QStringLiteral("device"), QStringLiteral("cpu")},
                                    {QStringLiteral("slots"), slotsPerLane},
                                    {QStringLiteral("runs"), QJsonArray{}}});
    }
    // Two steps an epoch: every trial reports valid/mrr (its objective) at least once.
    const QJsonObject model{{QStringLiteral("type"), QStringLiteral("fake")},
                            {QStringLiteral("steps"), steps},
                            {QStringLiteral("step_ms"), stepMs},
                            {QStringLiteral("steps_per_epoch"), 2},
                            {QStringLiteral("quality"), 0.5},
                            {QStringLiteral("fails_above"), kFailsAbove}};
    const QJsonObject sweep{
        {QStringLiteral("name"), QStringLiteral("scale")},
        {QStringLiteral("base"), QJsonObject{{QStringLiteral("model"), model}}},
        {QStringLiteral("space"), QJsonObject{{QStringLiteral("model.quality"),
                                               QJsonObject{{QStringLiteral("uniform"), QJsonArray{0.1, 1.0}}}}}},
        {QStringLiteral("method"), QStringLiteral("random")},
        {QStringLiteral("trials"), trials},
        {QStringLiteral("seed"), 1},
        {QStringLiteral("objective"), QJsonObject{{QStringLiteral("metric"), QStringLiteral("valid/mrr")},
                                                  {QStringLiteral("mode"), QStringLiteral("max")}}}};
    const QJsonObject experiment{{QStringLiteral("name"), QStringLiteral("bench-sweep-scale")},
                                 {QStringLiteral("runs_root"), dir.filePath(QStringLiteral("runs"))},
                                 {QStringLiteral("lanes"), laneList},
                                 {QStringLiteral("sweeps"), QJsonArray{sweep}}};
    const QString path = dir.filePath(QStringLiteral("bench.json"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(experiment).toJson()) < 0) {
        return QString();
    }
    return path;
}

// What the bench saw happen to one trial's run.
struct Seen
{
    qint64 placed = -1;   // ns on the bench's clock
    qint64 launched = -1; // first Starting (or Running)
    qint64 ended = -1;    // first terminal state
    RunState end = RunState::Queued;
    int launches = 0; // times it went from queued to a worker (1 without early stopping)
    bool active = false;
};

} // namespace

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM",
            qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen") : qgetenv("QT_QPA_PLATFORM"));
    TimingApp app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    initDesktopApp();
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_sweep_scale FAKE_WORKER [trials] [lanes] [slots] [steps] [step_ms] "
                             "[select=active|all|none] [timeout_s] [ui=window|headless]\n");
        return 2;
    }
    // Absolute: a worker starts in its run folder.
    const QString worker = QFileInfo(QString::fromLocal8Bit(argv[1])).absoluteFilePath();
    const int trials = argc > 2 ? atoi(argv[2]) : 1000;
    const int lanes = argc > 3 ? atoi(argv[3]) : 4;
    const int slotsPerLane = argc > 4 ? atoi(argv[4]) : 2;
    const int steps = argc > 5 ? atoi(argv[5]) : 4;
    const int stepMs = argc > 6 ? atoi(argv[6]) : 5;
    const QString select = argc > 7 ? QString::fromLocal8Bit(argv[7]) : QStringLiteral("active");
    const int timeoutS = argc > 8 ? atoi(argv[8]) : 600;
    const QString ui = argc > 9 ? QString::fromLocal8Bit(argv[9]) : QStringLiteral("window");
    const bool headless = ui == QLatin1String("headless");
    if (!headless && ui != QLatin1String("window")) {
        std::fprintf(stderr, "bench_sweep_scale: ui is window or headless, got %s\n", qPrintable(ui));
        return 2;
    }
    if (select != QLatin1String("all") && select != QLatin1String("active") && select != QLatin1String("none")) {
        std::fprintf(stderr, "bench_sweep_scale: select is all, active or none, got %s\n", qPrintable(select));
        return 2;
    }
    qputenv("TRAINYARD_WORKER", worker.toLocal8Bit()); // the trials start on it, as in tst_sweepapp

    QTemporaryDir dir;
    const QString file = writeExperiment(dir, trials, lanes, slotsPerLane, steps, stepMs);
    std::unique_ptr<MainWindow> window;
    std::unique_ptr<Session> session; // headless only
    Orchestrator *orchestrator = nullptr;
    if (headless) {
        QStringList errors;
        const std::optional<Experiment> ex = file.isEmpty() ? std::nullopt : Experiment::load(file, &errors);
        session = std::make_unique<Session>();
        if (!ex || !session->open(*ex, file, &errors)) {
            std::fprintf(stderr, "bench_sweep_scale: %s\n", qPrintable(errors.join(QLatin1Char('\n'))));
            return 1;
        }
        orchestrator = session->orchestrator();
        orchestrator->supervisor()->setWorkerProgram(worker);
    } else {
        window = std::make_unique<MainWindow>();
        window->useScriptedPrompts();
        if (file.isEmpty() || !window->openFile(file)) {
            std::fprintf(stderr, "bench_sweep_scale: cannot open the benchmark experiment\n");
            return 1;
        }
        window->resize(1600, 1000);
        window->show();
        orchestrator = window->session()->orchestrator();
    }
    Board *board = orchestrator->board();
    RunRegistry *runs = orchestrator->runs();
    SweepRunner *runner = orchestrator->sweeps();
    const QString sweepName = QStringLiteral("scale");
    const SweepSpec *spec = runner->sweep(sweepName);
    if (!spec || spec->trialCount() != trials) {
        std::fprintf(stderr, "bench_sweep_scale: the sweep was not read (%d trials)\n", spec ? spec->trialCount() : -1);
        return 1;
    }
    // Which trials must fail: the fake worker fails a quality above fails_above.
    int expectedFailures = 0;
    for (int i = 0; i < trials; ++i) {
        expectedFailures +=
            spec->trialValues(i).value(QStringLiteral("model.quality")).toDouble() > kFailsAbove ? 1 : 0;
    }

    // The Sweep view as the visible tab beside the runs table.
    SweepView *view = window ? window->sweepPanel()->view() : nullptr;
    bool tabbed = false;
    if (view) {
        for (QTabWidget *tabs : window->findChildren<QTabWidget *>()) {
            if (tabs->indexOf(view) >= 0) {
                tabs->setCurrentWidget(view);
                tabbed = true;
            }
        }
        view->selectSweep(sweepName);
        // Its batching timer (a direct child, single shot): its timeouts are the view's refreshes.
        for (QTimer *timer : view->findChildren<QTimer *>(QString(), Qt::FindDirectChildrenOnly)) {
            if (timer->isSingleShot()) {
                app.sweepTimer = timer;
            }
        }
        app.window = window.get();
        app.windowHandle = window->windowHandle();
    }
    QCoreApplication::processEvents();

    QElapsedTimer clock;
    clock.start();
    QHash<RunId, Seen> seen;
    std::deque<qint64> freed; // ends not yet followed by a placement
    std::vector<double> decisions, launchDelays, fills;
    int initialPlacements = 0;
    int placements = 0;
    int doublePlacements = 0;
    QObject::connect(board, &Board::runAdded, [&](RunId id) {
        const qint64 now = clock.nsecsElapsed();
        Seen &s = seen[id];
        doublePlacements += s.placed >= 0 ? 1 : 0;
        s.placed = now;
        ++placements;
        if (freed.empty()) {
            ++initialPlacements; // Start all's first fill: no slot freed before it
        } else {
            decisions.push_back((now - freed.front()) / 1e6);
            freed.pop_front();
        }
    });
    QObject::connect(runs, &RunRegistry::changed, [&](RunId id) {
        const RunInfo *r = runs->find(id);
        if (!r || !seen.contains(id)) {
            return;
        }
        const qint64 now = clock.nsecsElapsed();
        Seen &s = seen[id];
        const bool active = isActive(r->state);
        if (active && !s.active) {
            ++s.launches;
            if (s.launched < 0) {
                s.launched = now;
                launchDelays.push_back((now - s.placed) / 1e6);
            }
        }
        s.active = active;
        if (isTerminal(r->state) && s.ended < 0) {
            s.ended = now;
            s.end = r->state;
            freed.push_back(now);
        }
    });

    std::vector<double> frames;
    if (window) {
        QObject::connect(window->plot(), &PlotWidget::refreshed, [&](double ms) {
            if (app.recording) {
                frames.push_back(ms);
            }
        });
    }
    const auto selectTrials = [&] {
        QList<RunId> ids;
        for (RunId id : board->runIds()) {
            const RunInfo *r = runs->find(id);
            if (select == QLatin1String("all") || (r && isActive(r->state))) {
                ids << id;
            }
        }
        window->boardView()->selectRuns(ids);
    };
    QTimer selector;
    QObject::connect(&selector, &QTimer::timeout, selectTrials);
    QTimer filler;
    QObject::connect(&filler, &QTimer::timeout, [&] {
        QElapsedTimer t;
        t.start();
        runner->fill();
        fills.push_back(t.nsecsElapsed() / 1e6);
    });
    std::vector<double> lateness;
    QElapsedTimer tick;
    QTimer probe;
    probe.setTimerType(Qt::PreciseTimer);
    QObject::connect(&probe, &QTimer::timeout, [&] {
        lateness.push_back(std::max(0.0, tick.nsecsElapsed() / 1e6 - 5.0));
        tick.restart();
    });

    // ---- the sweep ----------------------------------------------------------
    app.recording = true;
    const qint64 started = clock.nsecsElapsed();
    if (window) {
        window->startAll();
    } else {
        orchestrator->dispatcher()->startAll();
    }
    if (window && select != QLatin1String("none")) {
        selector.start(1000);
    }
    filler.start(200);
    tick.start();
    probe.start(5);
    // An event loop that sleeps between events (processEvents(flags, ms) would spin a core).
    bool done = false;
    QEventLoop loop;
    QTimer check;
    QObject::connect(&check, &QTimer::timeout, [&] {
        if (runner->isDone(sweepName) && orchestrator->dispatcher()->activeCount() == 0) {
            done = true;
            loop.quit();
        }
    });
    check.start(20);
    QTimer::singleShot(timeoutS * 1000, &loop, &QEventLoop::quit);
    loop.exec();
    check.stop();
    const double wall = (clock.nsecsElapsed() - started) / 1e9;
    probe.stop();
    filler.stop();
    selector.stop();
    app.recording = false;
    // The last batch of the Sweep view and the table settle.
    QTimer::singleShot(500, &loop, &QEventLoop::quit);
    loop.exec();

    // ---- accounting ---------------------------------------------------------
    int launched = 0, ended = 0, finished = 0, failed = 0, stopped = 0, relaunched = 0;
    for (const Seen &s : std::as_const(seen)) {
        launched += s.launched >= 0 ? 1 : 0;
        relaunched += s.launches > 1 ? 1 : 0;
        if (s.ended >= 0) {
            ++ended;
            finished += s.end == RunState::Finished ? 1 : 0;
            failed += s.end == RunState::Failed || s.end == RunState::Diverged || s.end == RunState::Lost ? 1 : 0;
            stopped += s.end == RunState::Stopped || s.end == RunState::Cancelled ? 1 : 0;
        }
    }
    QHash<TrialInfo::Phase, int> phases;
    QSet<int> indices;
    int mismatched = 0; // a trial's phase that is not its run's end
    const QList<TrialInfo> trialList = runner->trials(sweepName);
    for (const TrialInfo &t : trialList) {
        ++phases[t.phase];
        indices.insert(t.index);
        const RunInfo r = runs->value(t.run);
        const bool agree =
            (t.phase == TrialInfo::Phase::Finished && r.state == RunState::Finished)
            || (t.phase == TrialInfo::Phase::Failed && isTerminal(r.state) && r.state != RunState::Finished)
            || (t.phase == TrialInfo::Phase::Stopped && isTerminal(r.state));
        mismatched += agree ? 0 : 1;
    }
    int folders = 0;
    for (const QString &name :
         QDir(dir.filePath(QStringLiteral("runs"))).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        folders += name.startsWith(sweepName + QLatin1Char('-')) ? 1 : 0;
    }
    const int viewRows = view ? view->tableModel()->rowCount() : trials;

    const QString where =
        headless ? QStringLiteral("headless (a Session, no window)")
                 : QStringLiteral("in the open window (offscreen, Sweep view %1, selection: %2)")
                       .arg(tabbed ? QStringLiteral("the visible tab") : QStringLiteral("NOT FOUND"), select);
    std::printf("sweep-scale: %d random trials of the fake worker (%d steps x %d ms) on %d CPU lanes x %d slots, %s\n",
                trials, steps, stepMs, lanes, slotsPerLane, qPrintable(where));
    std::printf("sweep-scale: %s in %.1f s: %.1f trials/s; %s\n", done ? "done" : "NOT DONE", wall,
                double(ended) / std::max(wall, 1e-9), qPrintable(runner->progressLine(sweepName)));
    std::printf("sweep-scale: placed %d (%d distinct, %d twice), launched %d (%d more than once), ended %d: "
                "finished %d, failed %d (expected %d: quality > %.2f), stopped %d\n",
                placements, int(seen.size()), doublePlacements, launched, relaunched, ended, finished, failed,
                expectedFailures, kFailsAbove, stopped);
    std::printf(
        "sweep-scale: SweepRunner::trials: %d trials (%d distinct): finished %d, failed %d, stopped %d, "
        "paused %d, training %d, waiting %d; %d disagree with their run; %d run folders; %s\n",
        int(trialList.size()), int(indices.size()), phases.value(TrialInfo::Phase::Finished),
        phases.value(TrialInfo::Phase::Failed), phases.value(TrialInfo::Phase::Stopped),
        phases.value(TrialInfo::Phase::Paused), phases.value(TrialInfo::Phase::Training),
        phases.value(TrialInfo::Phase::Waiting), mismatched, folders,
        qPrintable(view ? QStringLiteral("Sweep view %1 rows").arg(viewRows) : QStringLiteral("no Sweep view")));
    const size_t tenth = decisions.size() / 10;
    std::printf(
        "sweep-scale: decision per trial (a trial's end recorded -> the next trial on the board: from "
        "outside, the SweepRunner's reaction to a freed slot%s): p50 %.3f ms, p99 %.3f ms, max %.3f ms over %zu "
        "placements (+%d by Start all's first fill); mean of the first tenth %.3f ms, of the last %.3f ms\n",
        headless ? "" : ", with the window's own slots on the same signals", percentile(decisions, 0.5),
        percentile(decisions, 0.99), maxOf(decisions), decisions.size(), initialPlacements,
        meanOf(decisions.begin(), decisions.begin() + long(tenth)),
        meanOf(decisions.end() - long(tenth), decisions.end()));
    std::printf("sweep-scale: placed -> worker launched (the Dispatcher's start): p50 %.3f ms, p99 %.3f ms, max %.3f "
                "ms; fill() called by the bench every 200 ms: p50 %.3f ms, p99 %.3f ms, max %.3f ms over %zu calls\n",
                percentile(launchDelays, 0.5), percentile(launchDelays, 0.99), maxOf(launchDelays),
                percentile(fills, 0.5), percentile(fills, 0.99), maxOf(fills), fills.size());
    const double p99 = percentile(frames, 0.99);
    if (window) {
        std::printf("sweep-scale: plot replot per frame p50 %.2f ms, p99 %.2f ms, max %.2f ms over %zu frames; target "
                    "p99 <= 16 ms: %s\n",
                    percentile(frames, 0.5), p99, maxOf(frames), frames.size(), p99 <= 16.0 ? "met" : "MISSED");
        std::printf(
            "sweep-scale: window repaint per frame p50 %.2f ms, p99 %.2f ms, max %.2f ms over %zu frames; Sweep "
            "view refreshes %zu (%s): p50 %.2f ms, max %.2f ms\n",
            percentile(app.paints, 0.5), percentile(app.paints, 0.99), maxOf(app.paints), app.paints.size(),
            app.sweepRefreshes.size(), app.sweepTimer ? "its batching timer" : "timer NOT FOUND",
            percentile(app.sweepRefreshes, 0.5), maxOf(app.sweepRefreshes));
    }
    std::printf("sweep-scale: event loop lateness (5 ms timer) p50 %.2f ms, p99 %.2f ms, max %.2f ms over %zu ticks\n",
                percentile(lateness, 0.5), percentile(lateness, 0.99), maxOf(lateness), lateness.size());

    const bool accounted = done && placements == trials && int(seen.size()) == trials && doublePlacements == 0
                           && launched == trials && ended == trials && finished + failed + stopped == trials
                           && failed == expectedFailures && int(indices.size()) == trials
                           && phases.value(TrialInfo::Phase::Finished) + phases.value(TrialInfo::Phase::Failed)
                                      + phases.value(TrialInfo::Phase::Stopped)
                                  == trials
                           && mismatched == 0 && folders == trials && viewRows == trials;
    std::printf("sweep-scale: every trial dispatched and accounted: %s\n", accounted ? "yes" : "NO");
    if (window) {
        window->close();
    }
    return accounted && (headless || p99 <= 16.0) ? 0 : 1;
}
