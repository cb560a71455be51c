#include "orchestration/placement/gpuothers.h"

#include "orchestration/devices/deviceinventory.h"
#include "orchestration/placement/gpuplacer.h"

#include <QStringList>

#include <algorithm>

namespace trainyard {

QString othersOnGpu(const DeviceInfo &gpu, bool runsOfOursThere)
{
    qint64 total = 0;
    const GpuProcess *largest = nullptr;
    for (const GpuProcess &p : gpu.processes) {
        if (p.owner == GpuProcess::Owner::Run) {
            continue;
        }
        // A pid this machine cannot resolve (NVML in a container reports the
        // host's pids) may be one of our own runs: it counts only where no
        // run of ours is, so it can never hold our own queue up.
        if (p.owner == GpuProcess::Owner::Unknown && runsOfOursThere) {
            continue;
        }
        total += std::max<qint64>(0, p.memoryBytes);
        if (!largest || p.memoryBytes > largest->memoryBytes) {
            largest = &p;
        }
    }
    if (!largest || total <= GpuPlacer::kBusyThresholdBytes) {
        return {};
    }
    QStringList what;
    switch (largest->owner) {
    case GpuProcess::Owner::OtherUser:
        what << (largest->user.isEmpty() ? QStringLiteral("another user") : QStringLiteral("user ") + largest->user);
        break;
    case GpuProcess::Owner::Mine:
        what << QStringLiteral("your pid %1").arg(largest->pid);
        break;
    default:
        what << QStringLiteral("pid %1").arg(largest->pid);
    }
    if (!largest->name.isEmpty()) {
        what << largest->name;
    }
    what << formatMemory(total);
    return what.join(QStringLiteral(", "));
}

} // namespace trainyard
