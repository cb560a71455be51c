#include "orchestration/devices/deviceinventory.h"

#include "orchestration/devices/processtree.h"

#include <QFile>
#include <QThread>

#include <dlfcn.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace trainyard {

namespace {

// The login name of `uid`; empty when it has none.
QString userName(uid_t uid)
{
    long size = ::sysconf(_SC_GETPW_R_SIZE_MAX);
    QByteArray buffer(size > 0 ? size : 16384, Qt::Uninitialized);
    passwd entry{};
    passwd *found = nullptr;
    if (::getpwuid_r(uid, &entry, buffer.data(), size_t(buffer.size()), &found) != 0 || !found) {
        return {};
    }
    return QString::fromLocal8Bit(found->pw_name);
}

GpuProcess gpuProcess(qint64 pid, qint64 memoryBytes)
{
    GpuProcess p;
    p.pid = pid;
    p.memoryBytes = memoryBytes;
    return p;
}

} // namespace

bool DeviceInfo::busyWithOthers() const
{
    for (const GpuProcess &p : processes) {
        if (p.owner == GpuProcess::Owner::Mine || p.owner == GpuProcess::Owner::OtherUser) {
            return true;
        }
    }
    return false;
}

void DeviceInventory::classify(GpuProcess *p, const QList<RunProcessRoot> &runs)
{
    struct stat st
    {};
    // /proc/PID is never a link (lstat: /proc/self would be); no such entry:
    // a pid of another pid namespace (NVML in a container), or it ended.
    const QByteArray path = QByteArrayLiteral("/proc/") + QByteArray::number(p->pid);
    if (p->pid <= 0 || ::lstat(path.constData(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        p->owner = GpuProcess::Owner::Unknown;
    } else {
        p->owner = st.st_uid == ::geteuid() ? GpuProcess::Owner::Mine : GpuProcess::Owner::OtherUser;
        p->user = userName(st.st_uid);
        for (const RunProcessRoot &run : runs) {
            if (p->owner == GpuProcess::Owner::Mine && ProcessTree(run.topPid, 0, run.token).contains(p->pid)) {
                p->owner = GpuProcess::Owner::Run;
                p->runPid = run.topPid;
                break;
            }
        }
        if (p->name.isEmpty()) {
            QFile comm(QString::fromLatin1(path) + QStringLiteral("/comm"));
            if (comm.open(QIODevice::ReadOnly)) {
                p->name = QString::fromUtf8(comm.readAll()).trimmed();
            }
        }
    }
}

// The few NVML entry points we use, resolved with dlsym so that nothing
// CUDA is needed at build time. Layouts follow nvml.h (stable ABI).
struct DeviceInventory::Nvml
{
    using Device = void *;
    struct Memory
    {
        unsigned long long total, free, used;
    };
    struct Utilization
    {
        unsigned int gpu, memory;
    };
    struct ProcessV1
    {
        unsigned int pid;
        unsigned long long usedGpuMemory;
    };
    struct ProcessV2
    {
        unsigned int pid;
        unsigned long long usedGpuMemory;
        unsigned int gpuInstanceId;
        unsigned int computeInstanceId;
    };

    void *lib = nullptr;
    int (*init)() = nullptr;
    int (*shutdown)() = nullptr;
    int (*count)(unsigned int *) = nullptr;
    int (*handle)(unsigned int, Device *) = nullptr;
    int (*name)(Device, char *, unsigned int) = nullptr;
    int (*memory)(Device, Memory *) = nullptr;
    int (*utilization)(Device, Utilization *) = nullptr;
    int (*temperature)(Device, int, unsigned int *) = nullptr;
    int (*power)(Device, unsigned int *) = nullptr;
    int (*processesV2)(Device, unsigned int *, ProcessV2 *) = nullptr;
    int (*processesV1)(Device, unsigned int *, ProcessV1 *) = nullptr;

    template <typename F>
    void resolve(F &fn, const char *symbol)
    {
        fn = reinterpret_cast<F>(dlsym(lib, symbol));
    }

    bool load(QString *error)
    {
        lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            *error = QStringLiteral("NVML not found (libnvidia-ml.so.1): no NVIDIA driver on this machine");
            return false;
        }
        resolve(init, "nvmlInit_v2");
        resolve(shutdown, "nvmlShutdown");
        resolve(count, "nvmlDeviceGetCount_v2");
        resolve(handle, "nvmlDeviceGetHandleByIndex_v2");
        resolve(name, "nvmlDeviceGetName");
        resolve(memory, "nvmlDeviceGetMemoryInfo");
        resolve(utilization, "nvmlDeviceGetUtilizationRates");
        resolve(temperature, "nvmlDeviceGetTemperature");
        resolve(power, "nvmlDeviceGetPowerUsage");
        resolve(processesV2, "nvmlDeviceGetComputeRunningProcesses_v3");
        if (!processesV2) {
            resolve(processesV2, "nvmlDeviceGetComputeRunningProcesses_v2");
        }
        resolve(processesV1, "nvmlDeviceGetComputeRunningProcesses");
        if (!init || !count || !handle) {
            *error = QStringLiteral("NVML lacks nvmlInit_v2 / nvmlDeviceGetCount_v2: driver too old");
            dlclose(lib);
            lib = nullptr;
            return false;
        }
        const int rc = init();
        if (rc != 0) {
            *error = QStringLiteral("nvmlInit failed with code %1").arg(rc);
            dlclose(lib);
            lib = nullptr;
            return false;
        }
        return true;
    }

    ~Nvml()
    {
        if (lib) {
            if (shutdown) {
                shutdown();
            }
            dlclose(lib);
        }
    }

    QList<GpuProcess> processes(Device dev)
    {
        QList<GpuProcess> out;
        unsigned int n = 64;
        if (processesV2) {
            ProcessV2 buffer[64];
            if (processesV2(dev, &n, buffer) == 0) {
                for (unsigned int i = 0; i < n; ++i) {
                    out << gpuProcess(buffer[i].pid, static_cast<qint64>(buffer[i].usedGpuMemory));
                }
                return out;
            }
        } else if (processesV1) {
            ProcessV1 buffer[64];
            if (processesV1(dev, &n, buffer) == 0) {
                for (unsigned int i = 0; i < n; ++i) {
                    out << gpuProcess(buffer[i].pid, static_cast<qint64>(buffer[i].usedGpuMemory));
                }
            }
        }
        return out;
    }
};

DeviceInventory::DeviceInventory(QObject *parent)
    : QObject(parent)
{
    auto *nvml = new Nvml;
    if (nvml->load(&m_nvmlError)) {
        m_nvml = nvml;
    } else {
        delete nvml;
    }
    connect(&m_timer, &QTimer::timeout, this, &DeviceInventory::refresh);
    refresh();
}

DeviceInventory::~DeviceInventory()
{
    delete m_nvml;
}

void DeviceInventory::setPollInterval(int intervalMs)
{
    if (intervalMs <= 0) {
        m_timer.stop();
    } else {
        m_timer.start(intervalMs);
    }
}

bool DeviceInventory::nvmlAvailable() const
{
    return m_nvml != nullptr;
}

void DeviceInventory::setRunRoots(std::function<QList<RunProcessRoot>()> provider)
{
    m_runRoots = std::move(provider);
}

void DeviceInventory::setFakeGpus(const QList<DeviceInfo> &gpus)
{
    m_fakeGpus = gpus;
    m_useFake = true;
    refresh();
}

void DeviceInventory::readCpuLoad(DeviceInfo *cpu)
{
    // Linux only; elsewhere the CPU's figures stay unknown ("—").
    QFile stat(QStringLiteral("/proc/stat"));
    if (stat.open(QIODevice::ReadOnly)) {
        // "cpu  user nice system idle iowait irq softirq steal ..."
        const QList<QByteArray> fields = stat.readLine().simplified().split(' ');
        if (fields.size() >= 5 && fields.first() == "cpu") {
            quint64 total = 0, idle = 0;
            for (qsizetype i = 1; i < fields.size() && i <= 8; ++i) {
                const quint64 v = fields.at(i).toULongLong();
                total += v;
                if (i == 4 || i == 5) { // idle, iowait
                    idle += v;
                }
            }
            const quint64 busy = total - idle;
            if (m_cpuTotal > 0 && total > m_cpuTotal && busy >= m_cpuBusy) {
                cpu->utilization = int(100.0 * double(busy - m_cpuBusy) / double(total - m_cpuTotal) + 0.5);
            }
            m_cpuBusy = busy;
            m_cpuTotal = total;
        }
    }
    QFile meminfo(QStringLiteral("/proc/meminfo"));
    if (meminfo.open(QIODevice::ReadOnly)) {
        qint64 total = -1, available = -1;
        // readAll: /proc files report size 0, so atEnd() would be true at once.
        const QList<QByteArray> lines = meminfo.readAll().split('\n');
        for (const QByteArray &line : lines) {
            const QList<QByteArray> f = line.simplified().split(' ');
            if (f.size() >= 2 && f.at(0) == "MemTotal:") {
                total = f.at(1).toLongLong() * 1024;
            } else if (f.size() >= 2 && f.at(0) == "MemAvailable:") {
                available = f.at(1).toLongLong() * 1024;
            }
        }
        if (total > 0 && available >= 0) {
            cpu->memoryTotal = total;
            cpu->memoryUsed = total - available;
        }
    }
}

void DeviceInventory::refresh()
{
    QList<DeviceInfo> devices;
    DeviceInfo cpu;
    cpu.id = QStringLiteral("cpu");
    cpu.cpuThreads = QThread::idealThreadCount();
    cpu.name = QStringLiteral("CPU (%1 threads)").arg(cpu.cpuThreads);
    readCpuLoad(&cpu);
    devices << cpu;

    if (m_useFake) {
        devices << m_fakeGpus;
    } else if (m_nvml) {
        unsigned int count = 0;
        if (m_nvml->count(&count) == 0) {
            for (unsigned int i = 0; i < count; ++i) {
                Nvml::Device dev = nullptr;
                if (m_nvml->handle(i, &dev) != 0) {
                    continue;
                }
                DeviceInfo d;
                d.isGpu = true;
                d.index = static_cast<int>(i);
                d.id = QStringLiteral("cuda:%1").arg(i);
                char name[96] = {};
                if (m_nvml->name && m_nvml->name(dev, name, sizeof name) == 0) {
                    d.name = QString::fromUtf8(name);
                } else {
                    d.name = QStringLiteral("GPU %1").arg(i);
                }
                Nvml::Memory mem{};
                if (m_nvml->memory && m_nvml->memory(dev, &mem) == 0) {
                    d.memoryUsed = static_cast<qint64>(mem.used);
                    d.memoryTotal = static_cast<qint64>(mem.total);
                }
                Nvml::Utilization util{};
                if (m_nvml->utilization && m_nvml->utilization(dev, &util) == 0) {
                    d.utilization = static_cast<int>(util.gpu);
                }
                unsigned int value = 0;
                if (m_nvml->temperature && m_nvml->temperature(dev, /*NVML_TEMPERATURE_GPU=*/0, &value) == 0) {
                    d.temperature = static_cast<int>(value);
                }
                if (m_nvml->power && m_nvml->power(dev, &value) == 0) {
                    d.powerWatts = value / 1000.0;
                }
                d.processes = m_nvml->processes(dev);
                devices << d;
            }
        }
    }

    const QList<RunProcessRoot> runs = m_runRoots ? m_runRoots() : QList<RunProcessRoot>();
    for (DeviceInfo &d : devices) {
        for (GpuProcess &p : d.processes) {
            // A test's fake process keeps the owner it was given.
            if (p.owner == GpuProcess::Owner::Unknown) {
                classify(&p, runs);
            }
        }
    }
    m_devices = devices;
    Q_EMIT devicesChanged();
}

void DeviceInventory::setRemoteDevices(const QString &host, const QList<DeviceInfo> &devices, const QString &problem)
{
    Remote &r = m_remote[host];
    r.devices = devices;
    r.problem = problem;
    Q_EMIT remoteDevicesChanged(host);
}

DeviceInfo DeviceInventory::device(const QString &id) const
{
    if (id.startsWith(QLatin1String("ssh:"))) {
        for (const Remote &r : m_remote) {
            for (const DeviceInfo &d : r.devices) {
                if (d.id == id) {
                    return d;
                }
            }
        }
        return {};
    }
    for (const DeviceInfo &d : m_devices) {
        if (d.id == id) {
            return d;
        }
    }
    return {};
}

bool DeviceInventory::hasDevice(const QString &id) const
{
    return !device(id).id.isEmpty();
}

int DeviceInventory::gpuCount() const
{
    return static_cast<int>(m_devices.size()) - 1;
}

} // namespace trainyard
