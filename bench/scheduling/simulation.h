#pragma once

// A discrete-event simulation of one trace on one machine's GPUs under a
// placement policy. Contention model: on a GPU whose runs' utilizations sum
// to S > 1, each of them progresses at rate 1/S (1 when S <= 1); a 2-GPU run
// progresses at the slowest of its GPUs' rates. Events are the start (t = 0)
// and every run's end; between two the rates are constant, so the next end
// is exact and no time step is needed.

#include "trace.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace trainyard::schedsim {

// One GPU as the simulation knows it at an event: Trainyard's runs only.
struct GpuState
{
    qint64 bytes = 0;       // memory of the runs on it
    int runs = 0;           // runs on it
    double utilization = 0; // their utilizations' sum (S)
};

// What a policy sees at an event.
struct SimState
{
    double now = 0;
    const Trace *trace = nullptr;
    QList<GpuState> gpus;
    QList<int> queue; // the runs not started (indices into trace->runs), in queue order
};

struct Start
{
    int run = -1;
    QList<int> gpus;
};

class Policy
{
public:
    virtual ~Policy() = default;
    virtual QString name() const = 0;
    // The most runs it may put on one GPU: the simulation checks it.
    virtual int slotsPerGpu() const = 0;
    // The runs to start now, and where. Called once an event; what it
    // returns always starts (a policy may keep state of its own).
    virtual QList<Start> place(const SimState &state) = 0;
};

struct RunRecord
{
    double start = -1; // seconds from t = 0; -1: never started
    double end = -1;
    QList<int> gpus;
};

struct SimResult
{
    QString policy;
    int slotsPerGpu = 1;
    double makespan = 0;       // seconds until the last run ended
    double idleGpuSeconds = 0; // GPU-time with no run on it, before the makespan
    double meanWait = 0;       // seconds from being queued (t = 0) to starting, over all runs
    QList<RunRecord> runs;     // as trace.runs
    QStringList violations;    // broken invariants; empty when the simulation held them all

    bool ok() const { return violations.isEmpty(); }
};

SimResult simulate(const Trace &trace, Policy &policy);

} // namespace trainyard::schedsim
