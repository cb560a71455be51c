#include "trace.h"

#include <QMap>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace trainyard::schedsim {

namespace {

constexpr double kMinute = 60;
constexpr double kHour = 3600;
constexpr double kPi = 3.14159265358979323846;

// One run of a kind. The demo's models (docs/models.md) are small: 1-6 GiB,
// minutes to an hour, and leave most of a large GPU idle (low u); the rest
// is the long tail a shared GPU box sees: log-normal durations, 20-40 GiB
// models that keep a GPU busy, and a few that fill one (70 GiB).
TraceRun drawRun(Random &random, const QString &kind)
{
    TraceRun run;
    run.kind = kind;
    const bool fb = random.uniform() < 0.5; // FB15k-237 is larger than WN18RR: longer runs
    const QString data = fb ? QStringLiteral("fb15k237") : QStringLiteral("wn18rr");
    if (kind == QLatin1String("transe") || kind == QLatin1String("transh")) {
        run.name = kind + QLatin1Char('-') + data;
        run.seconds = random.logNormal((fb ? 20 : 12) * kMinute, 0.5, 3 * kMinute, 60 * kMinute);
        run.memoryBytes = qint64(random.uniform(1, 3) * kGiB);
        run.utilization = random.uniform(0.1, 0.3);
    } else if (kind == QLatin1String("sacn")) {
        run.name = kind + QLatin1Char('-') + data;
        run.seconds = random.logNormal((fb ? 45 : 30) * kMinute, 0.35, 10 * kMinute, 60 * kMinute);
        run.memoryBytes = qint64(random.uniform(3, 6) * kGiB);
        run.utilization = random.uniform(0.45, 0.7);
    } else if (kind == QLatin1String("cnn")) {
        run.name = QStringLiteral("cnn-fashion-mnist");
        run.seconds = random.logNormal(8 * kMinute, 0.5, 2 * kMinute, 30 * kMinute);
        run.memoryBytes = qint64(random.uniform(1, 2) * kGiB);
        run.utilization = random.uniform(0.2, 0.4);
    } else if (kind == QLatin1String("large")) {
        run.name = kind;
        run.seconds = random.logNormal(90 * kMinute, 0.9, 10 * kMinute, 10 * kHour);
        run.memoryBytes = qint64(random.uniform(20, 40) * kGiB);
        run.utilization = random.uniform(0.6, 0.95);
    } else { // huge
        run.name = kind;
        run.seconds = random.logNormal(3 * kHour, 0.5, 1 * kHour, 10 * kHour);
        run.memoryBytes = 70 * kGiB;
        run.utilization = random.uniform(0.9, 1.0);
    }
    return run;
}

} // namespace

double Random::normal()
{
    // Box-Muller; 1 - uniform() is in (0, 1], so the log is finite.
    const double u1 = 1.0 - uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

double Random::logNormal(double median, double sigma, double lo, double hi)
{
    return std::clamp(median * std::exp(sigma * normal()), lo, hi);
}

double Trace::work() const
{
    double sum = 0;
    for (const TraceRun &run : runs) {
        sum += run.work();
    }
    return sum;
}

double Trace::longestRun() const
{
    double longest = 0;
    for (const TraceRun &run : runs) {
        longest = std::max(longest, run.seconds);
    }
    return longest;
}

// Why this bounds every placement under the contention model (on a GPU
// whose runs' utilizations sum to S > 1 each runs at 1/S): a run going at
// rate r uses u * r of each of its GPUs, and on any GPU the runs' sum of
// u * r is at most min(S, S / S) <= 1 (a 2-GPU run held back by its other
// GPU uses less, not more). So the GPUs deliver at most gpuCount GPU-seconds
// of work a second, and all of it must be delivered: makespan >= work /
// gpuCount. And no run goes faster than alone (rate <= 1): makespan >= the
// longest run.
double Trace::lowerBound() const
{
    return std::max(work() / gpuCount, longestRun());
}

QString Trace::summary() const
{
    QMap<QString, int> kinds;
    int twoGpu = 0;
    for (const TraceRun &run : runs) {
        ++kinds[run.kind];
        twoGpu += run.gpus > 1 ? 1 : 0;
    }
    return QStringLiteral("%1 TransE/TransH (1-3 GiB), %2 SACN (3-6 GiB), %3 CNN (1-2 GiB), %4 large (20-40 GiB), "
                          "%5 huge (70 GiB); %6 need 2 GPUs")
        .arg(kinds.value(QStringLiteral("transe")) + kinds.value(QStringLiteral("transh")))
        .arg(kinds.value(QStringLiteral("sacn")))
        .arg(kinds.value(QStringLiteral("cnn")))
        .arg(kinds.value(QStringLiteral("large")))
        .arg(kinds.value(QStringLiteral("huge")))
        .arg(twoGpu);
}

Trace makeTrace(std::uint64_t seed, int runs)
{
    runs = std::max(20, runs);
    Random random(seed);
    // Fixed shares, so that every seed has the same mix and only the draws
    // and the queue order change: 30 % TransE/TransH, 15 % SACN, 20 % CNN,
    // 3 % huge, the rest large.
    const int kg = int(std::lround(0.30 * runs));
    const int sacn = int(std::lround(0.15 * runs));
    const int cnn = int(std::lround(0.20 * runs));
    const int huge = std::max(1, int(std::lround(0.03 * runs)));
    QStringList kinds;
    for (int i = 0; i < kg; ++i) {
        kinds.append(i % 2 ? QStringLiteral("transh") : QStringLiteral("transe"));
    }
    for (int i = 0; i < sacn; ++i) {
        kinds.append(QStringLiteral("sacn"));
    }
    for (int i = 0; i < cnn; ++i) {
        kinds.append(QStringLiteral("cnn"));
    }
    for (int i = 0; i < huge; ++i) {
        kinds.append(QStringLiteral("huge"));
    }
    while (kinds.size() < runs) {
        kinds.append(QStringLiteral("large"));
    }
    random.shuffle(kinds);

    Trace trace;
    QList<int> bigger; // the runs that may be data-parallel: 2-GPU TransE on a 2 GiB set is not a thing
    for (int i = 0; i < runs; ++i) {
        TraceRun run = drawRun(random, kinds.at(i));
        run.name += QLatin1Char('-') + QString::number(i);
        if (run.kind == QLatin1String("sacn") || run.kind == QLatin1String("large")
            || run.kind == QLatin1String("huge")) {
            bigger.append(i);
        }
        trace.runs.append(run);
    }
    // 10 % of all runs need 2 GPUs (the same memory on each).
    random.shuffle(bigger);
    const int twoGpu = std::min(int(bigger.size()), int(std::lround(0.10 * runs)));
    for (int k = 0; k < twoGpu; ++k) {
        trace.runs[bigger.at(k)].gpus = 2;
    }
    return trace;
}

} // namespace trainyard::schedsim
