#include "simulation.h"

#include <algorithm>
#include <limits>

namespace trainyard::schedsim {

namespace {

// Less than this left (in seconds at full speed) is an end: the float error
// of subtracting rate * dt, far below any run's length.
constexpr double kEndEpsilon = 1e-6;
// A broken invariant repeats at every event until its runs end: the first
// ones say what broke.
constexpr int kMaxViolations = 20;

QList<GpuState> gpuStates(const Trace &trace, const QList<int> &active, const QList<RunRecord> &records)
{
    QList<GpuState> gpus(trace.gpuCount);
    for (int run : active) {
        for (int g : records.at(run).gpus) {
            gpus[g].bytes += trace.runs.at(run).memoryBytes;
            gpus[g].runs += 1;
            gpus[g].utilization += trace.runs.at(run).utilization;
        }
    }
    return gpus;
}

// Why `start` may not start: empty when it may.
QString refusal(const Trace &trace, const Start &start, const QList<int> &queue)
{
    if (!queue.contains(start.run)) {
        return QStringLiteral("run %1 started twice or is not in the trace").arg(start.run);
    }
    const TraceRun &run = trace.runs.at(start.run);
    if (start.gpus.size() != run.gpus) {
        return QStringLiteral("%1 needs %2 GPUs, got %3").arg(run.name).arg(run.gpus).arg(start.gpus.size());
    }
    for (int k = 0; k < start.gpus.size(); ++k) {
        const int g = start.gpus.at(k);
        if (g < 0 || g >= trace.gpuCount) {
            return QStringLiteral("%1 placed on GPU %2 of %3").arg(run.name).arg(g).arg(trace.gpuCount);
        }
        if (start.gpus.indexOf(g) != k) {
            return QStringLiteral("%1 placed twice on GPU %2").arg(run.name).arg(g);
        }
    }
    return {};
}

} // namespace

SimResult simulate(const Trace &trace, Policy &policy)
{
    const int n = int(trace.runs.size());
    SimResult result;
    result.policy = policy.name();
    result.slotsPerGpu = policy.slotsPerGpu();
    result.runs.resize(n);
    QList<double> left(n); // seconds at full speed still to go
    QList<int> queue;
    for (int i = 0; i < n; ++i) {
        left[i] = trace.runs.at(i).seconds;
        queue.append(i);
    }
    QList<int> active;
    double now = 0;
    const auto violate = [&result](const QString &what) {
        if (result.violations.size() < kMaxViolations) {
            result.violations.append(what);
        }
    };

    // Every iteration ends at least one run, so n + 1 of them is the most a
    // correct simulation takes; the cap only stops a broken one.
    for (int events = 0; events <= n + 1; ++events) {
        SimState state{now, &trace, gpuStates(trace, active, result.runs), queue};
        for (const Start &start : policy.place(state)) {
            const QString why = refusal(trace, start, queue);
            if (!why.isEmpty()) {
                violate(QStringLiteral("t=%1 s: %2").arg(now).arg(why));
                continue;
            }
            queue.removeOne(start.run);
            active.append(start.run);
            result.runs[start.run].start = now;
            result.runs[start.run].gpus = start.gpus;
        }
        const QList<GpuState> gpus = gpuStates(trace, active, result.runs);
        for (int g = 0; g < gpus.size(); ++g) {
            if (gpus.at(g).bytes > trace.gpuBytes) {
                violate(
                    QStringLiteral("t=%1 s: GPU %2 holds %3 GiB").arg(now).arg(g).arg(double(gpus.at(g).bytes) / kGiB));
            }
            if (gpus.at(g).runs > policy.slotsPerGpu()) {
                violate(QStringLiteral("t=%1 s: GPU %2 runs %3 runs, slots %4")
                            .arg(now)
                            .arg(g)
                            .arg(gpus.at(g).runs)
                            .arg(policy.slotsPerGpu()));
            }
        }
        if (active.isEmpty()) {
            if (!queue.isEmpty()) {
                violate(QStringLiteral("t=%1 s: nothing runs and %2 runs can never start").arg(now).arg(queue.size()));
            }
            break;
        }

        QList<double> rate(n, 0.0);
        int first = -1; // the run that ends next
        double dt = std::numeric_limits<double>::infinity();
        for (int run : active) {
            double r = 1.0;
            for (int g : result.runs.at(run).gpus) {
                r = std::min(r, 1.0 / std::max(1.0, gpus.at(g).utilization));
            }
            rate[run] = r;
            if (left.at(run) / r < dt) {
                dt = left.at(run) / r;
                first = run;
            }
        }
        for (const GpuState &gpu : gpus) {
            result.idleGpuSeconds += gpu.runs == 0 ? dt : 0.0;
        }
        now += dt;
        QList<int> still;
        for (int run : active) {
            left[run] = run == first ? 0.0 : left.at(run) - rate.at(run) * dt;
            if (left.at(run) <= kEndEpsilon) {
                result.runs[run].end = now;
            } else {
                still.append(run);
            }
        }
        active = still;
    }
    if (!active.isEmpty()) {
        violate(QStringLiteral("the simulation did not end (%1 runs left)").arg(active.size()));
    }

    result.makespan = now;
    double waits = 0;
    for (const RunRecord &record : result.runs) {
        waits += std::max(0.0, record.start);
    }
    result.meanWait = n ? waits / n : 0.0;
    return result;
}

} // namespace trainyard::schedsim
