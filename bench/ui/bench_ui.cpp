// qcustomplot.h uses `foreach` in its own templates.
#undef QT_NO_FOREACH

// bench_ui: the desktop app under load, offscreen.
//  1. 16 runs each streaming 1,000 loss points a second into the open main
//     window (through the core's MetricStore, as workers' points arrive),
//     all 16 plotted: replot time per frame, input latency (a mouse move
//     posted to the plot until it is handled), memory.
//  2. One run with 10 million points: time to draw it (full range, after
//     a change that forces the thinning to run again).
// Memory per point is reported two ways: the RSS growth over the points
// received, and counted from the containers: the store's columns
// (MetricStore::bytesReserved(), every series: loss and epoch) and the plot's
// own share (each MetricCurve::bytesHeld(): its smoothing cache), each divided
// by the loss points.
// Targets: replot <= 16 ms per frame at the 30 Hz refresh; 10 M points drawn
// in <= 50 ms.

#include "metrics/metricstore.h"
#include "orchestration/board/board.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "ui/app/desktopapp.h"
#include "ui/app/mainwindow.h"
#include "ui/board/boardview.h"
#include "ui/common/prompts.h"
#include "ui/common/runcolors.h"
#include "ui/plot/plotwidget.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMouseEvent>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

using namespace trainyard;

namespace {

double rssMiB()
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly)) {
        return -1;
    }
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith("VmRSS:")) {
            return line.mid(6).trimmed().split(' ').first().toDouble() / 1024.0;
        }
    }
    return -1;
}

double percentile(std::vector<double> v, double p)
{
    if (v.empty()) {
        return 0;
    }
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, size_t(p * double(v.size() - 1) + 0.5))];
}

// Records when a posted mouse move reaches the plot.
class LatencyProbe : public QObject
{
public:
    QElapsedTimer clock;
    qint64 postedAt = -1;
    std::vector<double> latencies;
    bool eventFilter(QObject *, QEvent *event) override
    {
        if (event->type() == QEvent::MouseMove && postedAt >= 0) {
            latencies.push_back((clock.nsecsElapsed() - postedAt) / 1e6);
            postedAt = -1;
        }
        return false;
    }
};

QString writeExperiment(const QTemporaryDir &dir, int runs)
{
    QJsonArray specs;
    for (int i = 0; i < runs; ++i) {
        specs.append(QJsonObject{
            {QStringLiteral("name"), QStringLiteral("stream-%1").arg(i)},
            {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("transe")}}},
            {QStringLiteral("data"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("synthetic-kg")}}}});
    }
    const QJsonObject experiment{
        {QStringLiteral("name"), QStringLiteral("bench-ui")},
        {QStringLiteral("runs_root"), dir.filePath(QStringLiteral("runs"))},
        {QStringLiteral("lanes"),
         QJsonArray{QJsonObject{{QStringLiteral("device"), QStringLiteral("cpu")}, {QStringLiteral("runs"), specs}}}}};
    const QString path = dir.filePath(QStringLiteral("bench.json"));
    QFile file(path);
    file.open(QIODevice::WriteOnly);
    file.write(QJsonDocument(experiment).toJson());
    return path;
}

} // namespace

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM",
            qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen") : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    initDesktopApp();
    const int runs = argc > 1 ? atoi(argv[1]) : 16;
    const int rate = argc > 2 ? atoi(argv[2]) : 1000;
    const int seconds = argc > 3 ? atoi(argv[3]) : 10;
    const long bigPoints = argc > 4 ? atol(argv[4]) : 10000000L;
    bool ok = true;

    // ---- 1. streaming into the open window ------------------------------
    {
        QTemporaryDir dir;
        MainWindow window;
        window.useScriptedPrompts();
        if (!window.openFile(writeExperiment(dir, runs))) {
            std::fprintf(stderr, "bench_ui: cannot open the benchmark experiment\n");
            return 1;
        }
        window.resize(1600, 1000);
        window.show();
        Orchestrator *orchestrator = window.session()->orchestrator();
        MetricStore *store = window.session()->metrics();
        const QList<RunId> ids = orchestrator->board()->runIds();
        window.boardView()->selectRuns(ids);
        QCoreApplication::processEvents();

        std::vector<double> frames;
        QObject::connect(window.plot(), &PlotWidget::refreshed, [&](double ms) { frames.push_back(ms); });
        LatencyProbe probe;
        probe.clock.start();
        window.plot()->lossPlot()->installEventFilter(&probe);
        const int lossId = store->metricId(QStringLiteral("loss"));
        const int epochId = store->metricId(QStringLiteral("epoch"));
        const double rssBefore = rssMiB();

        // Points arrive every 5 ms, as many as the rate asks for since the start.
        QElapsedTimer clock;
        clock.start();
        long sent = 0;
        QTimer producer;
        producer.setTimerType(Qt::PreciseTimer);
        QObject::connect(&producer, &QTimer::timeout, [&] {
            const long due = long(clock.elapsed() * double(rate) / 1000.0);
            for (; sent < due; ++sent) {
                const double wall = sent / double(rate);
                for (RunId id : ids) {
                    const double loss = 2.0 * std::exp(-wall / 3.0) + 0.05 * std::sin(sent * 0.37 + id) + 0.1;
                    store->add(id, lossId, sent, wall, loss);
                    store->add(id, epochId, sent, wall, double(sent / 1000));
                }
            }
        });
        producer.start(5);
        QTimer mouse;
        int mouseX = 100;
        QObject::connect(&mouse, &QTimer::timeout, [&] {
            if (probe.postedAt >= 0) {
                return;
            }
            mouseX = 100 + (mouseX + 37) % 900;
            QWidget *plot = window.plot()->lossPlot();
            const QPointF local(mouseX, plot->height() / 2.0);
            probe.postedAt = probe.clock.nsecsElapsed();
            QCoreApplication::postEvent(plot, new QMouseEvent(QEvent::MouseMove, local, plot->mapToGlobal(local),
                                                              Qt::NoButton, Qt::NoButton, Qt::NoModifier));
        });
        mouse.start(20);
        QEventLoop loop;
        QTimer::singleShot(seconds * 1000, &loop, &QEventLoop::quit);
        loop.exec();
        producer.stop();
        mouse.stop();
        const double rssAfter = rssMiB();
        const long points = sent * long(ids.size());
        std::size_t plotBytes = 0;
        for (RunId id : ids) {
            if (const MetricCurve *curve = window.plot()->curve(QString::number(id))) {
                plotBytes += curve->bytesHeld();
            }
        }
        const double storeBytes = double(store->bytesReserved());
        const double p50 = percentile(frames, 0.5);
        const double p99 = percentile(frames, 0.99);
        const double maxFrame = frames.empty() ? 0 : *std::max_element(frames.begin(), frames.end());
        std::printf("stream: %d runs x %d points/s for %d s into the open window (all plotted): %ld points\n",
                    int(ids.size()), rate, seconds, points);
        std::printf("stream: replot per frame p50 %.2f ms, p99 %.2f ms, max %.2f ms over %zu frames (%.1f frames/s); "
                    "target <= 16 ms: %s\n",
                    p50, p99, maxFrame, frames.size(), frames.size() / double(seconds), p99 <= 16.0 ? "met" : "MISSED");
        std::printf("stream: input latency (mouse move posted -> handled) p50 %.2f ms, p99 %.2f ms, max %.2f ms over "
                    "%zu moves\n",
                    percentile(probe.latencies, 0.5), percentile(probe.latencies, 0.99),
                    probe.latencies.empty() ? 0.0 : *std::max_element(probe.latencies.begin(), probe.latencies.end()),
                    probe.latencies.size());
        std::printf("stream: memory RSS %.1f MiB -> %.1f MiB (+%.1f MiB, %.1f bytes per point incl. core store and "
                    "plot copy)\n",
                    rssBefore, rssAfter, rssAfter - rssBefore,
                    (rssAfter - rssBefore) * 1048576.0 / std::max(1L, points));
        std::printf("stream: memory per loss point, counted: store %.1f bytes (loss and epoch series), plot %.1f "
                    "bytes (its views' caches), %.1f in all\n",
                    storeBytes / double(std::max(1L, points)), double(plotBytes) / double(std::max(1L, points)),
                    (storeBytes + double(plotBytes)) / double(std::max(1L, points)));
        ok = ok && p99 <= 16.0;
        window.close();
    }

    // ---- 2. one run with 10 million points -------------------------------
    {
        // The points go into a store, as a worker's would; the plot draws a view of it.
        MetricStore big;
        RunColors colors;
        PlotWidget plot(&colors);
        plot.resize(1400, 800);
        plot.show();
        const double rssBefore = rssMiB();
        QElapsedTimer fill;
        fill.start();
        plot.addRun(QStringLiteral("big"), QStringLiteral("big"), QString(), CurveSource{&big, 1});
        const int lossId = big.metricId(QStringLiteral("loss"));
        const int epochId = big.metricId(QStringLiteral("epoch"));
        for (long i = 0; i < bigPoints; ++i) {
            big.add(1, epochId, i, i * 1e-3, double(i / 100000));
            big.add(1, lossId, i, i * 1e-3, 1.0 / (1.0 + i * 1e-5) + 0.02 * std::sin(i * 0.01));
        }
        const double fillMs = fill.elapsed();
        plot.setSelectedRuns({QStringLiteral("big")});
        const double first = plot.refreshNow();
        std::vector<double> draws;
        for (int i = 0; i < 9; ++i) {
            plot.fitToData(); // forces the thinning to run again over all points
            draws.push_back(plot.refreshNow());
        }
        plot.lossPlot()->xAxis->setRange(bigPoints * 0.4, bigPoints * 0.6);
        const double zoomed = plot.refreshNow();
        const double rssAfter = rssMiB();
        const double p50 = percentile(draws, 0.5);
        std::printf("10M: %ld points (appended in %.0f ms): first draw %.1f ms, full-range redraw p50 %.1f ms, "
                    "max %.1f ms, zoomed to 20%% %.1f ms (%d points drawn); target <= 50 ms: %s\n",
                    bigPoints, fillMs, first, p50, *std::max_element(draws.begin(), draws.end()), zoomed,
                    plot.drawnPointCount(QStringLiteral("big")), p50 <= 50.0 ? "met" : "MISSED");
        const double perPoint = 1.0 / double(std::max(1L, bigPoints));
        std::printf("10M: memory +%.0f MiB (%.1f bytes per point, store and plot); counted: store %.1f bytes per "
                    "point (loss and epoch series), plot %.1f (smoothing cache)\n",
                    rssAfter - rssBefore, (rssAfter - rssBefore) * 1048576.0 * perPoint,
                    double(big.bytesReserved()) * perPoint,
                    double(plot.curve(QStringLiteral("big"))->bytesHeld()) * perPoint);
        ok = ok && p50 <= 50.0;
    }
    return ok ? 0 : 1;
}
