#include "orchestration/dispatch/lanedevices.h"

#include "orchestration/board/board.h"
#include "orchestration/devices/deviceinventory.h"
#include "orchestration/devices/gpupresence.h"
#include "orchestration/dispatch/preflight.h"
#include "orchestration/launch/launcher.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/supervision/supervisor.h"

#include <QSet>
#include <QThread>

#include <algorithm>

namespace trainyard {

LaneDevices::LaneDevices(const Board *board, const RunRegistry *runs, const DeviceInventory *devices,
                         const Launcher *launcher, const RunStore *store, const Supervisor *supervisor, QObject *parent)
    : QObject(parent)
    , m_board(board)
    , m_runs(runs)
    , m_devices(devices)
    , m_launcher(launcher)
    , m_store(store)
    , m_supervisor(supervisor)
{
    // A host reached (or lost): its lanes' headers say so.
    connect(launcher, &Launcher::availabilityChanged, this, [this] {
        for (int l = 0; l < m_board->laneCount(); ++l) {
            if (m_board->lane(l).device.isRemote()) {
                Q_EMIT laneChanged(l);
            }
        }
    });
}

LaneInfo LaneDevices::lane(int index) const
{
    LaneInfo info;
    if (!m_board->hasLane(index)) {
        return info;
    }
    const Board::Lane &lane = m_board->lane(index);
    info.title = m_board->laneTitle(index);
    info.name = lane.name;
    info.device = lane.device;
    info.slotCount = lane.slotCount;
    info.runs = lane.runs;
    info.effectiveDevice = effectiveDevice(index);
    info.waitReason = m_launcher->unavailable(info.effectiveDevice);
    return info;
}

Device LaneDevices::effectiveDevice(int lane) const
{
    const Device device = m_board->lane(lane).device;
    // A Slurm lane never falls back to this machine's CPU.
    if (!isMissing(device)) {
        return device;
    }
    return m_cpuFallback ? Device::cpu() : device;
}

bool LaneDevices::isMissing(const Device &device) const
{
    // A pool lacks a GPU when any GPU it names is not here.
    return !missingGpus(device, *m_devices).isEmpty();
}

QList<int> LaneDevices::missingDeviceLanes() const
{
    QList<int> lanes;
    for (int l = 0; l < m_board->laneCount(); ++l) {
        if (isMissing(m_board->lane(l).device)) {
            lanes << l;
        }
    }
    return lanes;
}

void LaneDevices::setCpuFallback(bool on)
{
    m_cpuFallback = on;
    for (int l : missingDeviceLanes()) {
        Q_EMIT laneChanged(l);
    }
    Q_EMIT cpuFallbackChanged(on);
}

int LaneDevices::threadsPerCpuRun() const
{
    if (m_cpuThreadsOverride > 0) {
        return m_cpuThreadsOverride;
    }
    int slotCount = 0;
    for (int l = 0; l < m_board->laneCount(); ++l) {
        if (effectiveDevice(l).isCpu()) {
            slotCount += m_board->lane(l).slotCount;
        }
    }
    return std::max(1, QThread::idealThreadCount() / std::max(1, slotCount));
}

QStringList LaneDevices::preflight() const
{
    return preflight::problems(
        {*this, *m_board, *m_runs, *m_launcher, *m_devices, m_store->root(), m_supervisor->workerProgram()});
}

QStringList LaneDevices::busyDeviceWarnings() const
{
    QStringList problems;
    QSet<QString> seen;
    for (int l = 0; l < m_board->laneCount(); ++l) {
        const DeviceInfo d = m_devices->device(effectiveDevice(l).toString());
        if (!d.isGpu || seen.contains(d.id) || !d.busyWithOthers()) {
            continue;
        }
        seen.insert(d.id);
        QStringList who;
        for (const GpuProcess &p : d.processes) {
            if (p.owner == GpuProcess::Owner::Mine || p.owner == GpuProcess::Owner::OtherUser) {
                who << QStringLiteral("pid %1%2")
                           .arg(p.pid)
                           .arg(p.name.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(p.name));
            }
        }
        problems << QStringLiteral("%1 (%2) is busy with another user's process: %3")
                        .arg(d.id, d.name, who.join(QStringLiteral(", ")));
    }
    return problems;
}

} // namespace trainyard
