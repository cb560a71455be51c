#include "orchestration/devices/gpupresence.h"

#include "orchestration/devices/device.h"
#include "orchestration/devices/deviceinventory.h"

#include <QStringList>

namespace trainyard {

QString missingGpus(const Device &device, const DeviceInventory &devices)
{
    if (!device.isCuda()) {
        return {};
    }
    if (device.isAllGpus()) {
        return devices.gpuCount() == 0 ? QStringLiteral("any GPU") : QString();
    }
    QStringList missing;
    for (int index : device.gpuIndices()) {
        const QString id = QStringLiteral("cuda:%1").arg(index);
        if (!devices.hasDevice(id)) {
            missing << id;
        }
    }
    return missing.join(QStringLiteral(", "));
}

} // namespace trainyard
