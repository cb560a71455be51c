// Remote lanes against local ones (docs/remote.md): RUNS fake
// workers each writing RATE metric lines a second for SECONDS, first on a
// host over ssh (the private sshd of tests/slurm/start-sshd.sh in its own
// mount namespace: the lines come through ssh's Unix-socket forward, the
// files through the mirror), then on local CPU lanes, in one process.
// Prints per phase: lines stored of lines sent (each run's "loss" series),
// the latency from the worker's write (its "sent_at" stamp, the system
// clock) to the store's announcement (MetricStore::updated, the ~30 Hz
// batch the plots redraw on) p50/p99/max, and the CPU this machine spent
// per 1,000 lines: this process and its children (the ssh commands) and,
// for the host, the ssh master that carries the forward. Then the ssh
// commands per minute at rest: the host's runs paused for REST seconds.
//
//   bench_remote FAKE_WORKER SSH_CONFIG HOST_RUNS_ROOT WORKDIR [runs=4] [rate=1000] [seconds=30] [rest=60]

#include "metrics/metricstore.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/remote/remotelauncher.h"
#include "orchestration/session/launcherrouter.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"
#include "orchestration/supervision/supervisor.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QTimer>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <vector>

using namespace trainyard;

namespace {

double cpuSeconds(int who)
{
    rusage u{};
    getrusage(who, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

// utime + stime of a process from /proc/PID/stat, in seconds; 0 if gone.
double processCpu(qint64 pid)
{
    QFile f(QStringLiteral("/proc/%1/stat").arg(pid));
    if (pid <= 0 || !f.open(QIODevice::ReadOnly)) {
        return 0;
    }
    const QByteArray stat = f.readAll();
    const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
    return (fields.value(11).toDouble() + fields.value(12).toDouble()) / double(sysconf(_SC_CLK_TCK));
}

double percentile(std::vector<double> v, double p)
{
    if (v.empty()) {
        return 0;
    }
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<std::size_t>(p * double(v.size() - 1) + 0.5))];
}

QJsonObject spec(const QString &name, long steps, double rate)
{
    return QJsonObject{{QStringLiteral("name"), name},
                       {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), QStringLiteral("fake")},
                                                             {QStringLiteral("steps"), qint64(steps)},
                                                             {QStringLiteral("rate"), rate},
                                                             {QStringLiteral("stamp"), true},
                                                             {QStringLiteral("steps_per_epoch"), 1000000}}},
                       {QStringLiteral("data"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("synthetic-kg")}}},
                       {QStringLiteral("checkpoint"), QJsonObject{{QStringLiteral("every_steps"), 0}}}};
}

Experiment experiment(const QString &name, const QString &root, const QString &device, int runs, long steps,
                      double rate, const QJsonObject &host)
{
    QJsonArray lanes;
    for (int i = 0; i < runs; ++i) {
        lanes.append(QJsonObject{
            {QStringLiteral("device"), device},
            {QStringLiteral("runs"), QJsonArray{spec(QStringLiteral("%1-%2").arg(name).arg(i + 1), steps, rate)}}});
    }
    QJsonObject json{
        {QStringLiteral("name"), name}, {QStringLiteral("runs_root"), root}, {QStringLiteral("lanes"), lanes}};
    if (!host.isEmpty()) {
        json.insert(QStringLiteral("hosts"), QJsonArray{host});
    }
    QStringList errors;
    const auto ex = Experiment::fromJson(json, &errors);
    if (!ex) {
        std::fprintf(stderr, "bench_remote: %s\n", qPrintable(errors.join(QLatin1Char('\n'))));
    }
    return ex.value_or(Experiment{});
}

// Runs the event loop until `done` or the timeout; it sleeps between
// events (a loop of processEvents would spin and count as the app's CPU).
bool waitFor(const std::function<bool()> &done, int timeoutMs)
{
    QEventLoop loop;
    QTimer check;
    QObject::connect(&check, &QTimer::timeout, &loop, [&] {
        if (done()) {
            loop.quit();
        }
    });
    check.start(20);
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    if (!done()) {
        loop.exec();
    }
    return done();
}

// Latency of every stamped line when the store announces it.
struct Latencies
{
    std::vector<double> ms;
    std::map<std::pair<RunId, int>, std::size_t> read; // (run, metric) -> points seen
};

void follow(Session &session, Latencies *lat)
{
    MetricStore *store = session.metrics();
    const int sent = store->metricId("sent_at", 7);
    QObject::connect(store, &MetricStore::updated, &session, [store, sent, lat](const QList<RunId> &runs) {
        const double now = QDateTime::currentMSecsSinceEpoch() / 1000.0;
        for (RunId run : runs) {
            const MetricSeries *s = store->series(run, sent);
            if (!s) {
                continue;
            }
            std::size_t &seen = lat->read[{run, sent}];
            for (std::size_t i = seen; i < s->size(); ++i) {
                lat->ms.push_back(std::max(0.0, (now - s->value(i)) * 1000.0));
            }
            seen = s->size();
        }
    });
}

struct Phase
{
    QString label;
    long sent = 0, stored = 0;
    double seconds = 0, cpu = 0, childCpu = 0, masterCpu = 0;
    std::vector<double> latency;
    int commands = 0;
};

void print(const Phase &p)
{
    const double lines = std::max(1L, p.stored);
    std::printf("%-6s lines stored %ld of %ld sent (%s) in %.1f s\n", qPrintable(p.label), p.stored, p.sent,
                p.stored == p.sent ? "every line" : "LINES MISSING", p.seconds);
    std::printf("%-6s latency write -> store p50 %.1f ms, p99 %.1f ms, max %.1f ms (%zu lines)\n", qPrintable(p.label),
                percentile(p.latency, 0.5), percentile(p.latency, 0.99), percentile(p.latency, 1.0), p.latency.size());
    const auto perThousand = [lines](double cpu) { return 1000.0 * cpu / lines * 1000.0; };
    if (p.masterCpu > 0) {
        std::printf(
            "%-6s CPU per 1,000 lines: %.1f ms this process, %.1f ms its ssh commands, %.1f ms the ssh master\n",
            qPrintable(p.label), perThousand(p.cpu), perThousand(p.childCpu), perThousand(p.masterCpu));
    } else {
        std::printf("%-6s CPU per 1,000 lines: %.1f ms this process (the workers not counted)\n", qPrintable(p.label),
                    perThousand(p.cpu));
    }
    if (p.commands > 0) {
        std::printf("%-6s ssh commands while streaming: %.0f a minute\n", qPrintable(p.label),
                    p.commands * 60.0 / p.seconds);
    }
}

using RemoteOf = RemoteLauncher *(*)(Session &);

RemoteLauncher *hostOf(Session &session)
{
    auto *router = qobject_cast<LauncherRouter *>(session.orchestrator()->launcher());
    return router ? router->remote(QStringLiteral("bench")) : nullptr;
}

// Every run of `ex` to its end; what it cost.
Phase stream(const QString &label, const Experiment &ex, const QString &worker, long steps, int runs, bool remote)
{
    Phase p;
    p.label = label;
    Session session;
    QStringList errors;
    if (!session.open(ex, QString(), &errors)) {
        std::fprintf(stderr, "bench_remote: %s\n", qPrintable(errors.join(QLatin1Char('\n'))));
        return p;
    }
    session.orchestrator()->supervisor()->setWorkerProgram(worker);
    Latencies lat;
    follow(session, &lat);
    RemoteLauncher *host = remote ? hostOf(session) : nullptr;
    const Device device = ex.lanes.first().device;
    if (host && !waitFor([&] { return host->unavailable(device).isEmpty(); }, 30000)) {
        std::fprintf(stderr, "bench_remote: %s\n", qPrintable(host->unavailable(device)));
    }
    const int commands0 = host ? host->commandCount() : 0;
    const qint64 master = host ? host->masterPid() : 0;
    const double master0 = processCpu(master);
    const double cpu0 = cpuSeconds(RUSAGE_SELF);
    const double child0 = cpuSeconds(RUSAGE_CHILDREN);
    QElapsedTimer clock;
    clock.start();
    Dispatcher *dispatcher = session.orchestrator()->dispatcher();
    bool idle = false;
    QObject::connect(dispatcher, &Dispatcher::idle, [&] { idle = true; });
    dispatcher->startAll();
    waitFor([&] { return idle; }, int(steps) * 10 + 120000);
    p.seconds = clock.elapsed() / 1000.0;
    p.cpu = cpuSeconds(RUSAGE_SELF) - cpu0;
    // The ssh commands (a host's workers are sshd's children, not ours);
    // for local lanes the workers themselves, not reported.
    p.childCpu = cpuSeconds(RUSAGE_CHILDREN) - child0;
    p.masterCpu = master > 0 && host->masterPid() == master ? processCpu(master) - master0 : 0;
    for (RunId id : session.orchestrator()->runs()->ids()) {
        const MetricSeries *loss = session.metrics()->series(id, QStringLiteral("loss"));
        p.stored += loss ? long(loss->size()) : 0;
    }
    p.sent = steps * runs;
    p.latency = lat.ms;
    if (host) {
        p.commands = host->commandCount() - commands0;
    }
    session.close(false);
    waitFor([&] { return !session.isOpen(); }, 30000);
    return p;
}

// The host's runs alive but paused for `seconds`: the ssh commands a
// minute the app spends keeping them (polls, master checks).
double atRest(const Experiment &ex, int seconds)
{
    Session session;
    QStringList errors;
    if (!session.open(ex, QString(), &errors)) {
        return -1;
    }
    RemoteLauncher *host = hostOf(session);
    Orchestrator *o = session.orchestrator();
    o->dispatcher()->startAll();
    const QList<RunId> ids = o->runs()->ids();
    waitFor(
        [&] { return std::all_of(ids.begin(), ids.end(), [&](RunId id) { return o->runs()->value(id).connected; }); },
        60000);
    for (RunId id : ids) {
        o->supervisor()->pause(id);
    }
    waitFor([] { return false; }, 3000); // settle
    const int before = host->commandCount();
    waitFor([] { return false; }, seconds * 1000);
    const double perMinute = (host->commandCount() - before) * 60.0 / seconds;
    o->dispatcher()->stopAll();
    session.close(false);
    waitFor([&] { return !session.isOpen(); }, 60000);
    return perMinute;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (argc < 5) {
        std::fprintf(stderr,
                     "usage: bench_remote FAKE_WORKER SSH_CONFIG HOST_RUNS_ROOT WORKDIR [runs] [rate] [seconds] "
                     "[rest]\n");
        return 2;
    }
    const QString worker = QString::fromLocal8Bit(argv[1]);
    const QString sshConfig = QString::fromLocal8Bit(argv[2]);
    const QString hostRoot = QString::fromLocal8Bit(argv[3]);
    const QString work = QString::fromLocal8Bit(argv[4]);
    const int runs = argc > 5 ? std::atoi(argv[5]) : 4;
    const double rate = argc > 6 ? std::atof(argv[6]) : 1000;
    const int seconds = argc > 7 ? std::atoi(argv[7]) : 30;
    const int restSeconds = argc > 8 ? std::atoi(argv[8]) : 60;
    const long steps = long(rate * seconds);
    const QJsonObject host{{QStringLiteral("name"), QStringLiteral("bench")},
                           {QStringLiteral("host"), QStringLiteral("127.0.0.1")},
                           {QStringLiteral("ssh_config"), sshConfig},
                           {QStringLiteral("runs_root"), hostRoot},
                           {QStringLiteral("worker"), worker}};
    std::printf("%d runs x %.0f lines/s x %d s, on a host over ssh, then on local lanes\n", runs, rate, seconds);
    const Phase remote = stream(QStringLiteral("remote"),
                                experiment(QStringLiteral("remote"), work + QStringLiteral("/remote"),
                                           QStringLiteral("ssh:bench/cpu"), runs, steps, rate, host),
                                worker, steps, runs, true);
    print(remote);
    const Phase local = stream(QStringLiteral("local"),
                               experiment(QStringLiteral("local"), work + QStringLiteral("/local"),
                                          QStringLiteral("cpu"), runs, steps, rate, {}),
                               worker, steps, runs, false);
    print(local);
    const double rest = atRest(experiment(QStringLiteral("rest"), work + QStringLiteral("/rest"),
                                          QStringLiteral("ssh:bench/cpu"), runs, long(rate) * 100000, rate, host),
                               restSeconds);
    std::printf("remote ssh commands at rest (%d runs paused, %d s): %.0f a minute\n", runs, restSeconds, rest);
    return remote.stored == remote.sent && local.stored == local.sent ? 0 : 1;
}
