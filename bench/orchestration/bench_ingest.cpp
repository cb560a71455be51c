// Ingestion benchmark: N fake workers (separate processes) stream metric
// lines over the metrics socket into one Session, through the same path as
// real runs (MetricsServer -> Orchestrator -> MetricStore). Prints lines per
// second absorbed, event-loop latency (lateness of a 5 ms timer) p50/p99,
// and bytes per stored point.
//
//   bench-ingest FAKE_WORKER [workers=16] [rate=2000] [seconds=5] [flood_lines=100000]
//
// Phase "paced": every worker sends `rate` lines/s for `seconds`.
// Phase "flood": every worker sends `flood_lines` as fast as it can; the
// absorbed rate is the orchestrator's capacity.

#include "metrics/metricstore.h"
#include "orchestration/board/board.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/ingest/metricsserver.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace trainyard;

namespace {

double cpuSeconds()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

struct PhaseResult
{
    double cpu = 0; // CPU seconds this process (the orchestrator side) used
    double seconds = 0;
    quint64 lines = 0;
    double p50 = 0, p99 = 0, max = 0;
};

double percentile(std::vector<double> v, double p)
{
    if (v.empty()) {
        return 0;
    }
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<std::size_t>(p * (v.size() - 1) + 0.5))];
}

PhaseResult runPhase(Session &session, const QString &worker, const QList<RunId> &ids, long linesEach, double rate)
{
    MetricsServer *server = session.server();
    const quint64 before = server->acceptedLines();
    const quint64 expected = before + quint64(ids.size()) * quint64(linesEach + 2); // + hello + done

    std::vector<double> lateness;
    QElapsedTimer tick;
    QTimer probe;
    probe.setTimerType(Qt::PreciseTimer);
    probe.setInterval(5);
    QObject::connect(&probe, &QTimer::timeout, [&] {
        const double ms = tick.nsecsElapsed() / 1e6;
        lateness.push_back(std::max(0.0, ms - 5.0));
        tick.restart();
    });

    std::vector<std::unique_ptr<QProcess>> processes;
    QElapsedTimer clock;
    clock.start();
    for (RunId id : ids) {
        auto p = std::make_unique<QProcess>();
        p->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        const RunInfo run = session.orchestrator()->runs()->value(id);
        p->start(worker, {QStringLiteral("--bench"), QString::number(linesEach), QStringLiteral("--rate"),
                          QString::number(rate), QStringLiteral("--run"), run.name, QStringLiteral("--connect"),
                          QStringLiteral("unix:") + server->socketPath(), QStringLiteral("--token"),
                          server->registerRun(id, run.name)});
        processes.push_back(std::move(p));
    }
    const double cpuBefore = cpuSeconds();
    tick.start();
    probe.start();
    QElapsedTimer firstLine;
    while (server->acceptedLines() < expected && clock.elapsed() < 120000) {
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
        if (!firstLine.isValid() && server->acceptedLines() > before) {
            firstLine.start();
        }
    }
    probe.stop();
    PhaseResult r;
    r.cpu = cpuSeconds() - cpuBefore;
    r.seconds = firstLine.isValid() ? firstLine.nsecsElapsed() / 1e9 : 0;
    r.lines = server->acceptedLines() - before;
    r.p50 = percentile(lateness, 0.50);
    r.p99 = percentile(lateness, 0.99);
    r.max = lateness.empty() ? 0 : *std::max_element(lateness.begin(), lateness.end());
    for (auto &p : processes) {
        p->waitForFinished(10000);
    }
    session.metrics()->flush();
    return r;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() < 2) {
        std::fprintf(stderr, "usage: bench-ingest FAKE_WORKER [workers] [rate] [seconds] [flood_lines]\n");
        return 2;
    }
    const QString worker = args.at(1);
    const int workers = args.size() > 2 ? args.at(2).toInt() : 16;
    const double rate = args.size() > 3 ? args.at(3).toDouble() : 2000;
    const double seconds = args.size() > 4 ? args.at(4).toDouble() : 5;
    const long floodLines = args.size() > 5 ? args.at(5).toLong() : 100000;

    QTemporaryDir dir;
    Experiment ex;
    ex.name = QStringLiteral("bench");
    ex.runsRoot = dir.filePath(QStringLiteral("runs"));
    ExperimentLane lane;
    lane.slotCount = workers;
    for (int i = 0; i < workers; ++i) {
        ExperimentRun run;
        run.spec =
            QJsonObject{{QStringLiteral("name"), QStringLiteral("w%1").arg(i)},
                        {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("fake")}}}};
        lane.runs << run;
    }
    ex.lanes << lane;
    Session session;
    QStringList errors;
    if (!session.open(ex, QString(), &errors)) {
        std::fprintf(stderr, "bench-ingest: %s\n", qPrintable(errors.join(QLatin1Char('\n'))));
        return 1;
    }
    const QList<RunId> ids = session.orchestrator()->board()->runIds();

    const long pacedLines = static_cast<long>(rate * seconds);
    const PhaseResult paced = runPhase(session, worker, ids, pacedLines, rate);
    std::printf("paced: %d workers x %.0f lines/s for %.1f s: %llu lines in %.2f s = %.0f lines/s absorbed; "
                "event-loop latency p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
                workers, rate, seconds, static_cast<unsigned long long>(paced.lines), paced.seconds,
                paced.seconds > 0 ? paced.lines / paced.seconds : 0.0, paced.p50, paced.p99, paced.max);

    // A second round over the same runs re-reports the same steps (replaced,
    // not stored twice), so clear the curves first: the flood adds new points.
    session.metrics()->clear();
    const PhaseResult flood = runPhase(session, worker, ids, floodLines, 0);
    std::printf(
        "flood: %d workers x %ld lines as fast as possible: %llu lines in %.2f s = %.0f lines/s absorbed "
        "(%.0f lines per CPU-second of the orchestrator); event-loop latency p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
        workers, floodLines, static_cast<unsigned long long>(flood.lines), flood.seconds,
        flood.seconds > 0 ? flood.lines / flood.seconds : 0.0, flood.cpu > 0 ? flood.lines / flood.cpu : 0.0, flood.p50,
        flood.p99, flood.max);
    std::printf("       (with 16 flooding processes on %d cores the orchestrator gets a fraction of a core, so the\n"
                "        flood's latency is the OS scheduler's; the paced phase is the one to read latency from)\n",
                QThread::idealThreadCount());

    const double perPoint =
        double(session.metrics()->bytesReserved()) / double(std::max<std::size_t>(1, session.metrics()->pointCount()));
    std::printf("storage: %zu points, %.1f bytes per point\n", session.metrics()->pointCount(), perPoint);
    std::printf("targets: >= 200000 lines/s (flood %s), p99 <= 20 ms (paced %s), <= 32 B/point (%s)\n",
                flood.lines / std::max(1e-9, flood.seconds) >= 200000 ? "met" : "MISSED",
                paced.p99 <= 20 ? "met" : "MISSED", perPoint <= 32 ? "met" : "MISSED");
    session.close(false);
    return 0;
}
