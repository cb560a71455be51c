#pragma once

// The scheduling benchmark's workload: a seeded trace of training runs, all
// queued at t = 0 on one machine of simulated GPUs, and its lower bound.

#include <QList>
#include <QString>
#include <QtGlobal>

#include <cstdint>
#include <random>

namespace trainyard::schedsim {

constexpr qint64 kGiB = 1024LL * 1024 * 1024;

struct TraceRun
{
    QString name;           // "sacn-wn18rr-17": its kind, its data, its place in the queue
    QString kind;           // transe, transh, sacn, cnn, large, huge
    double seconds = 0;     // how long it takes alone on its GPUs (at full speed)
    double utilization = 1; // u in (0, 1]: the share of each of its GPUs it uses alone
    qint64 memoryBytes = 0; // its need on each of its GPUs (the declared `gpu_memory`)
    int gpus = 1;

    // GPU-seconds of work: what it takes out of the GPUs' capacity.
    double work() const { return seconds * utilization * gpus; }
};

struct Trace
{
    QList<TraceRun> runs; // in queue order
    int gpuCount = 8;
    qint64 gpuBytes = 80 * kGiB;

    double work() const;
    double longestRun() const;
    // max(work / gpuCount, longest run): no placement finishes sooner under
    // the contention model (see trace.cpp).
    double lowerBound() const;
    // "60 TransE/TransH, 30 SACN, ...; 20 need 2 GPUs"
    QString summary() const;
};

// Numbers drawn from std::mt19937_64 by hand: its sequence is fixed by the
// standard, the std:: distributions' are not, and the trace of a seed must
// be the same with every standard library.
class Random
{
public:
    explicit Random(std::uint64_t seed)
        : m_engine(seed)
    {
    }

    double uniform() { return double(m_engine() >> 11) * 0x1.0p-53; } // [0, 1)
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
    int below(int n) { return std::min(n - 1, int(uniform() * n)); }
    double normal();
    double logNormal(double median, double sigma, double lo, double hi);

    template <typename T>
    void shuffle(QList<T> &list)
    {
        for (qsizetype i = list.size() - 1; i > 0; --i) {
            list.swapItemsAt(i, below(int(i + 1)));
        }
    }

private:
    std::mt19937_64 m_engine;
};

// `runs` runs (at least 20) drawn from `seed` (see trace.cpp for the mix).
Trace makeTrace(std::uint64_t seed, int runs);

} // namespace trainyard::schedsim
