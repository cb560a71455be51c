#pragma once

#include <QString>

namespace trainyard {

class Device;
class DeviceInventory;

// The GPUs a local GPU device names that this machine lacks ("cuda:4,
// cuda:5"; for "cuda:*" on a machine without GPUs: "any GPU"); empty when
// all are here, and for anything but this machine's GPUs.
QString missingGpus(const Device &device, const DeviceInventory &devices);

} // namespace trainyard
