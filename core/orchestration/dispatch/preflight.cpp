#include "orchestration/dispatch/preflight.h"

#include "orchestration/board/board.h"
#include "orchestration/devices/deviceinventory.h"
#include "orchestration/dispatch/cpuonlyworker.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/launch/launcher.h"

namespace trainyard::preflight {

QStringList problems(const Sources &s)
{
    QStringList problems;
    const int gpus = s.devices.gpuCount();
    for (int l : s.lanes.missingDeviceLanes()) {
        // Named as its header is (its title), which is its device unless the user named it.
        const QString device = s.board.lane(l).device.toString();
        const QString title = s.board.laneTitle(l);
        const QString lane = title == device ? QStringLiteral("lane %1 names a GPU").arg(title)
                                             : QStringLiteral("lane \"%1\" names %2").arg(title, device);
        problems << QStringLiteral("%1, but this machine has %2 GPU%3%4")
                        .arg(lane)
                        .arg(gpus)
                        .arg(gpus == 1 ? QString() : QStringLiteral("s"))
                        .arg(s.lanes.cpuFallback()
                                 ? QStringLiteral(": its runs will train on the CPU")
                                 : QStringLiteral(": allow CPU fallback to train its runs on the CPU"));
    }
    QList<Device> devices;
    for (int l = 0; l < s.board.laneCount(); ++l) {
        devices << s.board.lane(l).device;
    }
    problems << s.launcher.problems(devices, s.runsRoot);
    problems << cpuonlyworker::problems(s.lanes, s.board, s.runs, s.workerProgram);
    return problems + s.lanes.busyDeviceWarnings();
}

} // namespace trainyard::preflight
