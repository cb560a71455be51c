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
        problems << QStringLiteral("lane %1 names %2, but this machine has %3 GPU%4%5")
                        .arg(l + 1)
                        .arg(s.board.lane(l).device.toString())
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
