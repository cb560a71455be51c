// Scheduling benchmark: a seeded discrete-event simulation of a trace of
// training runs (trace.cpp) on 8 simulated 80 GiB GPUs, placed by
// Trainyard's pool lane (the real GpuPlacer, slots 2, 3 and 4), by
// round-robin fixed lanes (what users do today) and by task-spooler's
// free-GPU FIFO. Prints makespan, makespan / lower bound, idle GPU-hours and
// mean wait per policy for the first seed, then the mean and the worst over
// all seeds, and the targets as met/MISSED.
//
//   bench_scheduling [runs=200] [seeds=5] [first_seed=1]
//
// Exit status 1 when the simulation broke an invariant (memory, slots, a
// run that never ends); a missed target is a result, not a failure.

#include "policies.h"
#include "simulation.h"
#include "trace.h"

#include <QCoreApplication>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

using namespace trainyard::schedsim;

namespace {

constexpr double kHour = 3600;
constexpr int kSlots[] = {2, 3, 4};
constexpr double kBoundTarget = 1.15;      // Trainyard's makespan within this of the lower bound
constexpr double kRoundRobinTarget = 1.30; // round-robin's makespan at least this many times Trainyard's

struct SeedResult
{
    double bound = 0;
    std::vector<SimResult> results; // trainyard slots 2, 3, 4, round-robin, FIFO
};

SeedResult runSeed(std::uint64_t seed, int runs)
{
    const Trace trace = makeTrace(seed, runs);
    SeedResult out;
    out.bound = trace.lowerBound();
    std::vector<std::unique_ptr<Policy>> policies;
    for (int perGpu : kSlots) {
        policies.push_back(std::make_unique<TrainyardPolicy>(perGpu));
    }
    policies.push_back(std::make_unique<RoundRobinPolicy>(trace));
    policies.push_back(std::make_unique<FreeGpuFifoPolicy>());
    for (auto &policy : policies) {
        out.results.push_back(simulate(trace, *policy));
    }
    return out;
}

constexpr int kRoundRobin = 3;
constexpr int kFifo = 4;

struct Stat
{
    double sum = 0, worst = 0;
    int count = 0;
    bool higherIsWorse = true;

    void add(double v)
    {
        worst = count == 0 ? v : (higherIsWorse ? std::max(worst, v) : std::min(worst, v));
        sum += v;
        ++count;
    }
    double mean() const { return count ? sum / count : 0; }
};

// The run that ended last: what a makespan far above the bound waits for.
void printLast(const Trace &trace, const SimResult &r)
{
    int last = 0;
    for (int i = 1; i < r.runs.size(); ++i) {
        last = r.runs.at(i).end > r.runs.at(last).end ? i : last;
    }
    const TraceRun &run = trace.runs.at(last);
    std::printf("  %-28s last: %s (%d GPU, %.2f h alone, u %.2f), started at %.2f h, ended at %.2f h\n",
                qPrintable(r.policy), qPrintable(run.name), run.gpus, run.seconds / kHour, run.utilization,
                r.runs.at(last).start / kHour, r.runs.at(last).end / kHour);
}

const char *verdict(bool met)
{
    return met ? "met" : "MISSED";
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const int runs = args.size() > 1 ? args.at(1).toInt() : 200;
    const int seeds = std::max(1, args.size() > 2 ? args.at(2).toInt() : 5);
    const std::uint64_t firstSeed = args.size() > 3 ? args.at(3).toULongLong() : 1;

    const Trace first = makeTrace(firstSeed, runs);
    std::printf("%d runs, all queued at t=0, on %d simulated GPUs of %.0f GiB (seed %llu; %d seeds below)\n",
                int(first.runs.size()), first.gpuCount, double(first.gpuBytes) / kGiB,
                static_cast<unsigned long long>(firstSeed), seeds);
    std::printf("trace: %s\n", qPrintable(first.summary()));
    std::printf("contention: on a GPU whose runs' utilizations sum to S > 1 each runs at 1/S of its speed;\n"
                "            a 2-GPU run at its slowest GPU's rate\n");
    std::printf("lower bound: max(GPU work / %d, longest run) = max(%.2f h, %.2f h) = %.2f h"
                " (work = duration x u x gpus)\n\n",
                first.gpuCount, first.work() / first.gpuCount / kHour, first.longestRun() / kHour,
                first.lowerBound() / kHour);

    bool broken = false;
    std::vector<SeedResult> all;
    for (int s = 0; s < seeds; ++s) {
        all.push_back(runSeed(firstSeed + std::uint64_t(s), runs));
    }

    const SeedResult &one = all.front();
    std::printf("seed %llu:\n", static_cast<unsigned long long>(firstSeed));
    std::printf("  %-28s %10s %8s %11s %12s\n", "policy", "makespan", "/bound", "idle GPU-h", "mean wait");
    for (const SimResult &r : one.results) {
        std::printf("  %-28s %8.2f h %8.3f %11.1f %10.2f h\n", qPrintable(r.policy), r.makespan / kHour,
                    r.makespan / one.bound, r.idleGpuSeconds / kHour, r.meanWait / kHour);
    }
    for (const SimResult &r : one.results) {
        printLast(first, r);
    }
    for (int k = 0; k < int(std::size(kSlots)); ++k) {
        std::printf("  slots %d: round-robin / trainyard %.2fx, FIFO / trainyard %.2fx\n", kSlots[k],
                    one.results[kRoundRobin].makespan / one.results[k].makespan,
                    one.results[kFifo].makespan / one.results[k].makespan);
    }

    std::printf("\nover seeds %llu-%llu: mean (worst)\n", static_cast<unsigned long long>(firstSeed),
                static_cast<unsigned long long>(firstSeed + seeds - 1));
    std::printf("  %-28s %17s %17s %17s\n", "policy", "makespan/bound", "RR / this", "FIFO / this");
    const int policies = int(one.results.size());
    std::vector<Stat> bound(policies), rr(policies), fifo(policies);
    for (int p = 0; p < policies; ++p) {
        rr[p].higherIsWorse = fifo[p].higherIsWorse = false; // a smaller advantage is the worse
        for (const SeedResult &seed : all) {
            const SimResult &r = seed.results[p];
            bound[p].add(r.makespan / seed.bound);
            rr[p].add(seed.results[kRoundRobin].makespan / r.makespan);
            fifo[p].add(seed.results[kFifo].makespan / r.makespan);
            for (const QString &violation : r.violations) {
                std::printf("!!! %s: %s\n", qPrintable(r.policy), qPrintable(violation));
                broken = true;
            }
        }
        std::printf("  %-28s %8.3f (%6.3f) %8.2fx (%5.2fx) %8.2fx (%5.2fx)\n", qPrintable(one.results[p].policy),
                    bound[p].mean(), bound[p].worst, rr[p].mean(), rr[p].worst, fifo[p].mean(), fifo[p].worst);
    }

    std::printf("  trainyard makespan/bound by seed:");
    for (int k = 0; k < int(std::size(kSlots)); ++k) {
        std::printf("%s slots %d:", k ? ";" : "", kSlots[k]);
        for (const SeedResult &seed : all) {
            std::printf(" %.3f", seed.results[k].makespan / seed.bound);
        }
    }
    std::printf("\n");

    std::printf("\ntargets, on the worst of %d seeds:\n", seeds);
    for (int k = 0; k < int(std::size(kSlots)); ++k) {
        std::printf("  trainyard slots %d: makespan <= %.2fx bound: %s (%.3f); >= %.2fx shorter than round-robin: "
                    "%s (%.2fx)\n",
                    kSlots[k], kBoundTarget, verdict(bound[k].worst <= kBoundTarget), bound[k].worst, kRoundRobinTarget,
                    verdict(rr[k].worst >= kRoundRobinTarget), rr[k].worst);
    }
    return broken ? 1 : 0;
}
