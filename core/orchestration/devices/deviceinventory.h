#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QString>
#include <QTimer>

#include <functional>

namespace trainyard {

// A process using a GPU, as NVML (or a host's nvidia-smi) reports it.
struct GpuProcess
{
    enum class Owner {
        Run,
        Mine,
        OtherUser,
        Unknown
    };
    qint64 pid = 0;
    qint64 memoryBytes = -1; // -1: not reported
    // Run: in a process tree of one of this session's runs; Mine: this
    // user's other process (a notebook); OtherUser; Unknown: no such pid here
    // (NVML in a container reports the host's pids).
    Owner owner = Owner::Unknown;
    qint64 runPid = 0; // Run: the top pid of the run it belongs to
    QString user;      // its owner's login name when known
    QString name;      // from /proc/PID/comm when readable
};

// A run of this session on this machine, as DeviceInventory tells its
// processes: its top pid and the token in its processes' environment.
struct RunProcessRoot
{
    qint64 topPid = 0;
    QString token;
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
    bool busyWithOthers() const; // some process on it is Mine or OtherUser
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

    // The runs of this session here (Supervisor::runRoots): a GPU process in
    // one's tree (devices/processtree.h) is Run, another of this user's Mine,
    // another user's OtherUser, a pid not here Unknown.
    void setRunRoots(std::function<QList<RunProcessRoot>()> provider);
    // How `p` is owned, given the runs' roots (its owner, runPid and user
    // set; name from /proc when empty). Reads /proc, the pid alone.
    static void classify(GpuProcess *p, const QList<RunProcessRoot> &runs);

    // For tests: replaces what NVML reports (devices besides the CPU).
    void setFakeGpus(const QList<DeviceInfo> &gpus);

    // A host's GPUs as its launcher polled them over ssh (ids
    // "ssh:HOST/cuda:N"), or why it could not be asked (`problem`). device()
    // finds them; devices() and gpuCount() stay this machine's.
    void setRemoteDevices(const QString &host, const QList<DeviceInfo> &devices, const QString &problem);
    QList<DeviceInfo> remoteDevices(const QString &host) const { return m_remote.value(host).devices; }
    QString remoteProblem(const QString &host) const { return m_remote.value(host).problem; }

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
    std::function<QList<RunProcessRoot>()> m_runRoots;
    QTimer m_timer;
};

} // namespace trainyard
