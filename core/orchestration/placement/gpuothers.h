#pragma once

#include <QString>

namespace trainyard {

struct DeviceInfo;

// Who holds `gpu` that is not a Trainyard run, as a wait reason says it
// ("user bob, python, 14.2 GiB"); empty when below the busy threshold
// (GpuPlacer::kBusyThresholdBytes). A pid this machine cannot resolve counts
// only where none of our runs is (`runsOfOursThere` false).
QString othersOnGpu(const DeviceInfo &gpu, bool runsOfOursThere);

} // namespace trainyard
