#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QString>
#include <QTimer>

#include <functional>

namespace trainyard {

// A process using a GPU, as NVML reports it.
struct GpuProcess
{
    qint64 pid = 0;
    qint64 memoryBytes = -1; // -1: not reported
    bool ours = false;       // one of our workers
    QString name;            // from /proc/PID/comm when readable
};

// One device at the last poll. GPUs come from NVML; the CPU is always there.
struct DeviceInfo
{
    QString id;   // "cpu", "cuda:0", "cuda:1", ...; a host's GPU: "ssh:HOST/cuda:0"
    QString name; // "NVIDIA GeForce RTX 3090", "CPU (16 threads)"
    bool isGpu = false;
    int index = -1;         // GPU index, -1 for the CPU
    qint64 memoryUsed = -1; // bytes, -1 unknown
    qint64 memoryTotal = -1;
    int utilization = -1;        // percent, -1 unknown
    int temperature = -1;        // degrees Celsius, -1 unknown
    double powerWatts = -1;      // -1 unknown
    int cpuThreads = 0;          // CPU only
    QList<GpuProcess> processes; // GPUs only
    bool busyWithOthers() const; // some process on it is not ours
};

// The machine's devices. GPUs are read through NVML, loaded at run time
// with dlopen("libnvidia-ml.so.1"), so Trainyard builds and runs without
// CUDA; without NVML (or a GPU) the list is just the CPU. Polled on a timer.
class DeviceInventory : public QObject
{
    Q_OBJECT
public:
    explicit DeviceInventory(QObject *parent = nullptr);
    ~DeviceInventory() override;

    // Polls every `intervalMs` (default 1000); 0 stops polling.
    void setPollInterval(int intervalMs);
    void refresh();

    QList<DeviceInfo> devices() const { return m_devices; }
    // Empty id when absent.
    DeviceInfo device(const QString &id) const;
    bool hasDevice(const QString &id) const;
    bool nvmlAvailable() const;
    QString nvmlError() const { return m_nvmlError; }
    int gpuCount() const;

    // Tells which pids are ours (our workers), to split "ours" from "others".
    void setOurPids(std::function<QSet<qint64>()> provider);

    // For tests: replaces what NVML reports (devices besides the CPU).
    void setFakeGpus(const QList<DeviceInfo> &gpus);

    // A host's GPUs as its launcher polled them over ssh (ids
    // "ssh:HOST/cuda:N"), or why it could not be asked (`problem`). device()
    // finds them; devices() and gpuCount() stay this machine's.
    void setRemoteDevices(const QString &host, const QList<DeviceInfo> &devices, const QString &problem);
    QList<DeviceInfo> remoteDevices(const QString &host) const { return m_remote.value(host).devices; }
    QString remoteProblem(const QString &host) const { return m_remote.value(host).problem; }
    void forgetRemote() { m_remote.clear(); }

Q_SIGNALS:
    void devicesChanged();
    void remoteDevicesChanged(const QString &host);

private:
    struct Nvml;
    Nvml *m_nvml = nullptr;
    QString m_nvmlError;
    QList<DeviceInfo> m_devices;
    struct Remote
    {
        QList<DeviceInfo> devices;
        QString problem;
    };
    QHash<QString, Remote> m_remote; // by host
    QList<DeviceInfo> m_fakeGpus;
    bool m_useFake = false;
    // /proc/stat's busy and total jiffies at the last poll: the CPU's
    // utilization is the share of busy time between two polls.
    quint64 m_cpuBusy = 0;
    quint64 m_cpuTotal = 0;
    void readCpuLoad(DeviceInfo *cpu);
    std::function<QSet<qint64>()> m_ourPids;
    QTimer m_timer;
};

} // namespace trainyard
