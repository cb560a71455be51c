// Tracking many batch jobs: N runs submitted through SlurmLauncher to a
// real Slurm (held with --hold so that they stay pending), then one poll
// loop for a while. Measures what the orchestrator's event loop feels (the
// lateness of a 10 ms timer: p50, p99, max) during the submission and
// during the polling, and the Slurm commands per minute, against the
// reference of a per-job loop (one `squeue -j ID` per job per poll, what a
// script around squeue does). Prints one line per figure.
//   bench_slurm N POLL_SECONDS TRACK_SECONDS RUN_DIR

#include "orchestration/slurm/slurmcommand.h"
#include "orchestration/slurm/slurmlauncher.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace trainyard;

namespace {

// The real runner, counting what it runs.
class CountingRunner : public SlurmCommandRunner
{
public:
    explicit CountingRunner(int *count)
        : m_count(count)
    {
    }
    void run(const QString &program, const QStringList &args, const QByteArray &input, const QProcessEnvironment &env,
             QObject *context, Done done) override
    {
        ++*m_count;
        m_real.run(program, args, input, env, context, std::move(done));
    }
    SlurmCommandResult runNow(const QString &program, const QStringList &args, int timeoutMs) override
    {
        ++*m_count;
        return m_real.runNow(program, args, timeoutMs);
    }

private:
    SlurmProcessRunner m_real{30000};
    int *m_count;
};

// Lateness of a 10 ms timer while `phase` runs: how long the event loop was busy.
struct Lateness
{
    std::vector<double> ms;
    QElapsedTimer clock;
    qint64 last = -1;
    void tick()
    {
        const qint64 now = clock.nsecsElapsed();
        if (last >= 0) {
            ms.push_back(std::max(0.0, (now - last) / 1e6 - 10.0));
        }
        last = now;
    }
    double percentile(double p) const
    {
        if (ms.empty()) {
            return 0;
        }
        std::vector<double> v = ms;
        std::sort(v.begin(), v.end());
        return v[std::min(v.size() - 1, std::size_t(p * double(v.size() - 1) + 0.5))];
    }
    double max() const { return ms.empty() ? 0 : *std::max_element(ms.begin(), ms.end()); }
};

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (argc != 5) {
        std::fprintf(stderr, "usage: bench_slurm N POLL_SECONDS TRACK_SECONDS RUN_DIR\n");
        return 2;
    }
    const int jobs = std::atoi(argv[1]);
    const int pollSeconds = std::atoi(argv[2]);
    const int trackSeconds = std::atoi(argv[3]);
    const QString runDir = QString::fromLocal8Bit(argv[4]);
    QDir().mkpath(runDir);

    int commands = 0;
    SlurmClusterConfig config;
    config.name = QStringLiteral("bench");
    config.gres.clear();
    config.pollMs = pollSeconds * 1000;
    config.extraArgs = {QStringLiteral("--hold")}; // pending (JobHeldUser) until cancelled
    SlurmLauncher launcher(config, std::make_unique<CountingRunner>(&commands));

    int pendingSeen = 0;
    int failed = 0;
    QObject::connect(&launcher, &Launcher::pending, [&](RunId, const QString &reason) {
        if (reason != QLatin1String("submitted")) {
            ++pendingSeen;
        }
    });
    QObject::connect(&launcher, &Launcher::failedToLaunch, [&](RunId run, const QString &why) {
        if (++failed <= 3) {
            std::fprintf(stderr, "run %d: %s\n", run, qPrintable(why));
        }
    });
    int submitted = 0;
    QObject::connect(&launcher, &Launcher::started, [&](RunId, qint64, const QString &) { ++submitted; });

    Lateness submitting;
    Lateness tracking;
    Lateness *phase = &submitting;
    QTimer ticker;
    ticker.setTimerType(Qt::PreciseTimer);
    ticker.setInterval(10);
    QObject::connect(&ticker, &QTimer::timeout, [&] { phase->tick(); });
    submitting.clock.start();
    tracking.clock.start();

    QElapsedTimer wall;
    wall.start();
    for (int i = 0; i < jobs; ++i) {
        LaunchSpec spec;
        spec.program = QStringLiteral("/bin/true");
        spec.name = QStringLiteral("bench-%1").arg(i);
        spec.runDir = runDir;
        spec.specPath = runDir + QStringLiteral("/spec.json");
        launcher.start(RunId(i + 1), spec);
    }
    ticker.start();
    double submitSeconds = 0;
    int commandsAtTrack = 0;
    QTimer watch;
    watch.setInterval(50);
    QObject::connect(&watch, &QTimer::timeout, [&] {
        if (phase == &submitting && submitted + failed == jobs) {
            submitSeconds = wall.elapsed() / 1000.0;
            commandsAtTrack = commands;
            phase = &tracking;
            tracking.last = -1;
            wall.restart();
            QTimer::singleShot(trackSeconds * 1000, &app, &QCoreApplication::quit);
        }
    });
    watch.start();
    app.exec();

    const double minutes = wall.elapsed() / 60000.0;
    const double ours = (commands - commandsAtTrack) / minutes;
    const double perJob = double(jobs) * (60.0 / pollSeconds); // one squeue per job per poll
    std::printf("jobs: %d submitted (%d refused) in %.1f s: %d sbatch calls, at most 4 at once\n", submitted, failed,
                submitSeconds, jobs);
    std::printf("event loop while submitting: p50 %.2f ms, p99 %.2f ms, max %.1f ms late\n", submitting.percentile(0.5),
                submitting.percentile(0.99), submitting.max());
    std::printf("event loop while tracking %d jobs for %d s (poll every %d s): p50 %.2f ms, p99 %.2f ms, max %.1f ms "
                "late\n",
                submitted, trackSeconds, pollSeconds, tracking.percentile(0.5), tracking.percentile(0.99),
                tracking.max());
    std::printf("pending states seen: %d of %d jobs\n", pendingSeen, submitted);
    std::printf("slurm commands per minute while tracking: %.1f; a per-job squeue loop: %.0f (ratio %.0fx fewer)\n",
                ours, perJob, ours > 0 ? perJob / ours : 0.0);
    launcher.disconnect();
    return failed == 0 && submitted == jobs ? 0 : 1;
}
