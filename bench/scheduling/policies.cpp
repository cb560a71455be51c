#include "policies.h"

#include "orchestration/placement/gpuplacer.h"

namespace trainyard::schedsim {

QString TrainyardPolicy::name() const
{
    return QStringLiteral("trainyard cuda:* slots %1").arg(m_slots);
}

QList<Start> TrainyardPolicy::place(const SimState &state)
{
    const Trace &trace = *state.trace;
    QList<GpuRoom> rooms;
    QList<int> all;
    for (int g = 0; g < trace.gpuCount; ++g) {
        GpuRoom room;
        room.index = g;
        room.totalBytes = trace.gpuBytes;
        // The runs allocate as they start here, so NVML's free memory
        // already counts them and nothing is promised.
        room.freeBytes = trace.gpuBytes - state.gpus.at(g).bytes;
        room.promisedBytes = 0;
        room.runs = state.gpus.at(g).runs;
        rooms.append(room);
        all.append(g);
    }
    GpuPlacer placer(rooms);
    QList<Start> starts;
    for (int index : state.queue) {
        const TraceRun &run = trace.runs.at(index);
        GpuRequest request;
        request.allowed = all;
        request.slotsPerGpu = m_slots;
        request.busy = BusyPolicy::Wait;
        request.gpus = run.gpus;
        request.memoryBytes = run.memoryBytes;
        request.label = run.name;
        const GpuPlacement placement = placer.place(request);
        if (!placement.gpus.isEmpty()) {
            starts.append(Start{index, placement.gpus});
        }
    }
    return starts;
}

RoundRobinPolicy::RoundRobinPolicy(const Trace &trace)
    : m_lanes(trace.gpuCount)
{
    const int pairs = trace.gpuCount / 2;
    for (int i = 0; i < trace.runs.size(); ++i) {
        if (trace.runs.at(i).gpus == 1) {
            m_lanes[i % trace.gpuCount].append(i);
        } else {
            // Appended to both queues in trace order, so two pair runs are
            // in the same order in both and cannot wait for each other.
            m_lanes[2 * (i % pairs)].append(i);
            m_lanes[2 * (i % pairs) + 1].append(i);
        }
    }
}

QList<Start> RoundRobinPolicy::place(const SimState &state)
{
    QList<Start> starts;
    QList<bool> free;
    for (const GpuState &gpu : state.gpus) {
        free.append(gpu.runs == 0);
    }
    for (int g = 0; g < m_lanes.size(); ++g) {
        if (m_lanes.at(g).isEmpty() || !free.at(g)) {
            continue;
        }
        const int head = m_lanes.at(g).first();
        if (state.trace->runs.at(head).gpus == 1) {
            starts.append(Start{head, QList<int>{g}});
            m_lanes[g].removeFirst();
            free[g] = false;
            continue;
        }
        const int other = g ^ 1; // its pair: (0,1), (2,3), ...
        if (other < m_lanes.size() && free.at(other) && !m_lanes.at(other).isEmpty()
            && m_lanes.at(other).first() == head) {
            starts.append(Start{head, QList<int>{std::min(g, other), std::max(g, other)}});
            m_lanes[g].removeFirst();
            m_lanes[other].removeFirst();
            free[g] = free[other] = false;
        }
    }
    return starts;
}

QList<Start> FreeGpuFifoPolicy::place(const SimState &state)
{
    QList<int> free;
    for (int g = 0; g < state.gpus.size(); ++g) {
        if (state.gpus.at(g).runs == 0) {
            free.append(g);
        }
    }
    QList<Start> starts;
    for (int index : state.queue) {
        const int need = state.trace->runs.at(index).gpus;
        if (need > free.size()) {
            break; // strict FIFO: nothing overtakes the head
        }
        starts.append(Start{index, free.mid(0, need)});
        free.remove(0, need);
    }
    return starts;
}

} // namespace trainyard::schedsim
