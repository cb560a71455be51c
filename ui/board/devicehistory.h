#pragma once

#include <QHash>
#include <QObject>
#include <QString>
#include <QVector>

namespace trainyard {

class DeviceInventory;

/// The recent past of every device (utilization, memory, temperature), one
/// sample per inventory poll (a host's GPUs: per report of its poll over
/// ssh), for the sparklines in the lane headers. The inventory itself only
/// knows the present.
class DeviceHistory : public QObject
{
    Q_OBJECT
public:
    struct Samples
    {
        QVector<double> utilization; ///< percent
        QVector<double> memory;      ///< percent of total
        QVector<double> temperature; ///< °C
    };

    explicit DeviceHistory(QObject *parent = nullptr);
    /// Follows `inventory` (nullptr: none); keeps the last `length` samples.
    void setInventory(DeviceInventory *inventory, int length = 60);
    Samples samples(const QString &deviceId) const { return m_samples.value(deviceId); }
    /// Appends one sample (also used by tests and benchmarks).
    void addSample(const QString &deviceId, double utilization, double memory, double temperature);

Q_SIGNALS:
    void changed();

private:
    void poll();
    void pollRemote(const QString &host);
    DeviceInventory *m_inventory = nullptr;
    int m_length = 60;
    QHash<QString, Samples> m_samples;
};

} // namespace trainyard
