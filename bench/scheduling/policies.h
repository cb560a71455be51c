#pragma once

// The placements the benchmark compares: Trainyard's pool lane (the real
// GpuPlacer), the fixed lanes users set up by hand today, and
// task-spooler's free-GPU FIFO.

#include "simulation.h"

namespace trainyard::schedsim {

// One pool lane "cuda:*" over every GPU with `slots` runs a GPU, each run
// declaring its `gpu_memory`. At each event it does what the dispatcher
// does on a pass: the GPUs' rooms from the machine's state, then place() for
// each queued run in queue order.
class TrainyardPolicy : public Policy
{
public:
    explicit TrainyardPolicy(int perGpu)
        : m_slots(perGpu)
    {
    }
    QString name() const override;
    int slotsPerGpu() const override { return m_slots; }
    QList<Start> place(const SimState &state) override;

private:
    int m_slots;
};

// Fixed lanes, one run at a time each, filled round-robin: run i on GPU
// i mod 8; a 2-GPU run on the pair (0,1), (2,3), (4,5) or (6,7) by i mod 4,
// in the queue of both, starting when it heads both and both are free.
class RoundRobinPolicy : public Policy
{
public:
    explicit RoundRobinPolicy(const Trace &trace);
    QString name() const override { return QStringLiteral("round-robin fixed lanes"); }
    int slotsPerGpu() const override { return 1; }
    QList<Start> place(const SimState &state) override;

private:
    QList<QList<int>> m_lanes; // each GPU's queue
};

// task-spooler with free-GPU detection: strict FIFO, the head run waits for
// as many completely free GPUs as it needs, one run a GPU.
class FreeGpuFifoPolicy : public Policy
{
public:
    QString name() const override { return QStringLiteral("task-spooler free-GPU FIFO"); }
    int slotsPerGpu() const override { return 1; }
    QList<Start> place(const SimState &state) override;
};

} // namespace trainyard::schedsim
