#include "orchestration/dispatch/gpuaccount.h"

#include "orchestration/devices/device.h"
#include "orchestration/devices/deviceinventory.h"
#include "orchestration/placement/gpuothers.h"
#include "orchestration/placement/runresources.h"
#include "orchestration/records/runregistry.h"

#include <QHash>

#include <algorithm>
#include <climits>

namespace trainyard {

BusyPolicy busyPolicy(const QString &text)
{
    if (text == QLatin1String("share")) {
        return BusyPolicy::Share;
    }
    if (text == QLatin1String("ignore")) {
        return BusyPolicy::Ignore;
    }
    return BusyPolicy::Wait;
}

GpuAccount::GpuAccount(const RunRegistry *runs, const DeviceInventory *devices)
    : m_runs(runs)
    , m_devices(devices)
{
}

GpuPlacer &GpuAccount::placer(const QString &host)
{
    auto it = m_placers.find(host);
    if (it == m_placers.end()) {
        it =
            m_placers
                .emplace(host, GpuPlacer(rooms(host), host.isEmpty() ? QString() : QStringLiteral("ssh:%1/").arg(host)))
                .first;
    }
    return it->second;
}

QList<DeviceInfo> GpuAccount::devicesOf(const QString &host) const
{
    return host.isEmpty() ? m_devices->devices() : m_devices->remoteDevices(host);
}

qint64 GpuAccount::usedBy(const RunInfo &run, const DeviceInfo &gpu)
{
    qint64 used = 0;
    for (const GpuProcess &p : gpu.processes) {
        used += p.owner == GpuProcess::Owner::Run && p.runPid == run.pid ? std::max<qint64>(0, p.memoryBytes) : 0;
    }
    return used;
}

void GpuAccount::observe()
{
    for (RunId id : m_runs->ids()) {
        const RunInfo *r = m_runs->find(id);
        const Device d = r && isActive(r->state) ? r->device : Device();
        if (!d.isGpu()) {
            continue;
        }
        for (const DeviceInfo &gpu : devicesOf(d.host())) {
            if (gpu.isGpu && d.gpuIndices().contains(gpu.index)) {
                m_peaks[id] = std::max(m_peaks.value(id), usedBy(*r, gpu));
            }
        }
    }
}

void GpuAccount::recordPeak(const RunInfo &run)
{
    const qint64 peak = m_peaks.take(run.id);
    if (peak > 0 && (run.state == RunState::Finished || run.state == RunState::Stopped)) {
        m_book.record(GpuMemoryBook::key(run.spec), peak);
    }
}

void GpuAccount::setBookPath(const QString &path)
{
    if (path != m_book.path()) {
        m_book.load(path);
    }
}

void GpuAccount::forget(RunId id)
{
    m_raised.remove(id);
    m_peaks.remove(id);
}

QList<GpuRoom> GpuAccount::rooms(const QString &host) const
{
    const QList<DeviceInfo> devices = devicesOf(host);
    // Trainyard's active runs on each GPU of this machine, and what each still
    // has to allocate of what it asked for.
    QHash<int, int> runs;
    QHash<int, qint64> promised;
    for (RunId id : m_runs->ids()) {
        const RunInfo *r = m_runs->find(id);
        if (!r || !isActive(r->state)) {
            continue;
        }
        const Device &d = r->device;
        if (!d.isGpu() || d.host() != host) {
            continue;
        }
        const qint64 need = this->need(*r);
        for (int index : d.gpuIndices()) {
            ++runs[index];
            if (need <= 0) {
                continue;
            }
            qint64 seen = 0;
            for (const DeviceInfo &gpu : devices) {
                seen += gpu.isGpu && gpu.index == index ? usedBy(*r, gpu) : 0;
            }
            promised[index] += std::max<qint64>(0, need - seen);
        }
    }
    QList<GpuRoom> rooms;
    for (const DeviceInfo &gpu : devices) {
        if (!gpu.isGpu || gpu.index < 0) {
            continue;
        }
        GpuRoom room;
        room.index = gpu.index;
        room.totalBytes = gpu.memoryTotal;
        room.freeBytes = gpu.memoryTotal >= 0 && gpu.memoryUsed >= 0 ? gpu.memoryTotal - gpu.memoryUsed : -1;
        for (const GpuProcess &p : gpu.processes) {
            room.othersBytes += p.owner == GpuProcess::Owner::Run ? 0 : std::max<qint64>(0, p.memoryBytes);
        }
        room.runs = runs.value(gpu.index);
        // A pid this machine cannot resolve (a container's view) may be a
        // run of ours that has allocated: its memory is not promised twice.
        qint64 unknown = 0;
        for (const GpuProcess &p : gpu.processes) {
            unknown += p.owner == GpuProcess::Owner::Unknown ? std::max<qint64>(0, p.memoryBytes) : 0;
        }
        room.promisedBytes = std::max<qint64>(0, promised.value(gpu.index) - (room.runs > 0 ? unknown : 0));
        room.busyWith = othersOnGpu(gpu, room.runs > 0);
        rooms << room;
    }
    return rooms;
}

qint64 GpuAccount::need(const RunInfo &run) const
{
    if (m_raised.contains(run.id)) {
        return m_raised.value(run.id);
    }
    const qint64 given = RunResources::of(run.spec).memoryBytes;
    return given >= 0 ? given : GpuMemoryBook::withMargin(m_book.peak(GpuMemoryBook::key(run.spec)));
}

int GpuAccount::gpusOf(const Device &d, const DeviceInventory &devices)
{
    if (!d.isGpu()) {
        return 0;
    }
    if (!d.isAllGpus()) {
        return int(d.gpuIndices().size());
    }
    return d.host().isEmpty() ? devices.gpuCount() : int(devices.remoteDevices(d.host()).size());
}

qint64 GpuAccount::totalOf(const QString &host, int index) const
{
    for (const GpuRoom &room : rooms(host)) {
        if (room.index == index) {
            return room.totalBytes;
        }
    }
    return -1;
}

GpuRequest GpuAccount::request(const Board::Lane &lane, const RunInfo &run) const
{
    const Device &d = lane.device;
    const RunResources resources = RunResources::of(run.spec);
    GpuRequest q;
    qint64 largest = -1;
    for (const GpuRoom &room : rooms(d.host())) {
        if (d.isAllGpus()) {
            q.allowed << room.index;
        }
        if (q.allowed.contains(room.index) || d.gpuIndices().contains(room.index)) {
            largest = std::max(largest, room.totalBytes);
        }
    }
    if (!d.isAllGpus()) {
        q.allowed = d.gpuIndices();
    }
    q.slotsPerGpu = d.isPool() ? lane.slotCount : INT_MAX;
    q.busy = busyPolicy(lane.busy);
    q.gpus = resources.gpus;
    q.memoryBytes = need(run);
    // A learned or raised need is a guess: it may ask for a whole idle GPU
    // (NVML never shows all of one free), never more, and never refuses the run.
    if ((resources.memoryBytes < 0 || m_raised.contains(run.id)) && largest > 0) {
        q.memoryBytes = std::min(q.memoryBytes, largest / 100 * kMostOfAGpuPercent);
    }
    q.label = run.name;
    q.queue = run.lane;
    return q;
}

} // namespace trainyard
