#include "ui/board/devicehistory.h"

#include "orchestration/devices/deviceinventory.h"

namespace trainyard {

DeviceHistory::DeviceHistory(QObject *parent)
    : QObject(parent)
{
}

void DeviceHistory::setInventory(DeviceInventory *inventory, int length)
{
    if (m_inventory) {
        disconnect(m_inventory, nullptr, this, nullptr);
    }
    m_inventory = inventory;
    m_length = length;
    m_samples.clear();
    if (m_inventory) {
        connect(m_inventory, &DeviceInventory::devicesChanged, this, &DeviceHistory::poll);
        connect(m_inventory, &DeviceInventory::remoteDevicesChanged, this, &DeviceHistory::pollRemote);
        poll();
    }
}

void DeviceHistory::addSample(const QString &deviceId, double utilization, double memory, double temperature)
{
    Samples &s = m_samples[deviceId];
    auto push = [this](QVector<double> &v, double x) {
        v.append(x);
        if (v.size() > m_length) {
            v.remove(0, v.size() - m_length);
        }
    };
    push(s.utilization, utilization);
    push(s.memory, memory);
    push(s.temperature, temperature);
}

namespace {
double memoryShare(const DeviceInfo &d)
{
    return d.memoryTotal > 0 && d.memoryUsed >= 0 ? 100.0 * d.memoryUsed / d.memoryTotal : -1;
}
} // namespace

void DeviceHistory::poll()
{
    for (const DeviceInfo &d : m_inventory->devices()) {
        addSample(d.id, d.utilization, memoryShare(d), d.temperature);
    }
    Q_EMIT changed();
}

void DeviceHistory::pollRemote(const QString &host)
{
    for (const DeviceInfo &d : m_inventory->remoteDevices(host)) {
        addSample(d.id, d.utilization, memoryShare(d), d.temperature);
    }
    Q_EMIT changed();
}

} // namespace trainyard
