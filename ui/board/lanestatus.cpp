#include "ui/board/lanestatus.h"

#include "orchestration/devices/device.h"
#include "orchestration/devices/deviceinventory.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/placement/gpuothers.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runspec/runspecview.h"
#include "ui/board/devicehistory.h"

#include <QMap>
#include <QVariantList>

#include <algorithm>

namespace trainyard {

namespace {
QVariantList toList(const QVector<double> &v)
{
    QVariantList out;
    out.reserve(v.size());
    for (double x : v) {
        out.append(x);
    }
    return out;
}
} // namespace

void LaneStatus::setSources(const RunRegistry *runs, std::function<int()> threadsPerCpuRun,
                            const DeviceInventory *devices, const DeviceHistory *history)
{
    m_runs = runs;
    m_threadsPerCpuRun = std::move(threadsPerCpuRun);
    m_devices = devices;
    m_history = history;
}

bool LaneStatus::reloadSlotAdvice(QString *warning)
{
    return m_slotAdvice.load(warning);
}

QString LaneStatus::deviceName(const LaneInfo &lane) const
{
    if (lane.effectiveDevice.isCpu() && m_threadsPerCpuRun) {
        // What each of its runs gets, not what the machine has.
        const int threads = m_threadsPerCpuRun();
        return threads == 1 ? tr("CPU · 1 thread per run") : tr("CPU · %1 threads per run").arg(threads);
    }
    if (const Device &d = lane.device; d.isSlurm()) {
        const QString cluster = d.cluster();
        const QString partition = d.partition();
        int pending = 0;
        int running = 0;
        for (RunId id : lane.runs) {
            const RunInfo r = m_runs ? m_runs->value(id) : RunInfo{};
            pending += isActive(r.state) && !r.queueReason.isEmpty() ? 1 : 0;
            running += isActive(r.state) && r.queueReason.isEmpty() && !r.jobId.isEmpty() ? 1 : 0;
        }
        return tr("Slurm · %1 · %2 · %3 pending · %4 running")
            .arg(cluster, partition.isEmpty() ? tr("default partition") : partition)
            .arg(pending)
            .arg(running);
    }
    if (const Device &d = lane.device; d.isRemote()) {
        // Why it waits, or the host's GPU as nvidia-smi names it there.
        if (!lane.waitReason.isEmpty()) {
            return lane.waitReason;
        }
        if (d.isPool()) {
            const QString name = poolName(d);
            const QString problem = m_devices ? m_devices->remoteProblem(d.host()) : QString();
            return !name.isEmpty()     ? tr("%1 · %2").arg(d.host(), name)
                   : problem.isEmpty() ? tr("%1 · GPUs (asking nvidia-smi…)").arg(d.host())
                                       : tr("%1 · GPUs: %2").arg(d.host(), problem);
        }
        const DeviceInfo info = device(lane);
        if (!d.remoteIsCuda()) {
            return tr("%1 · CPU").arg(d.host());
        }
        if (!info.name.isEmpty()) {
            return tr("%1 · %2").arg(d.host(), info.name);
        }
        const QString problem = m_devices ? m_devices->remoteProblem(d.host()) : QString();
        return problem.isEmpty() ? tr("%1 · GPU %2 (asking nvidia-smi…)").arg(d.host()).arg(d.cudaIndex())
                                 : tr("%1 · GPU %2: %3").arg(d.host()).arg(d.cudaIndex()).arg(problem);
    }
    if (lane.effectiveDevice.isPool()) {
        const QString name = poolName(lane.effectiveDevice);
        return name.isEmpty() ? lane.effectiveDevice.toString() : name;
    }
    const DeviceInfo info = device(lane);
    return info.name.isEmpty() ? lane.effectiveDevice.toString() : info.name;
}

QList<DeviceInfo> LaneStatus::gpusOf(const QString &host) const
{
    QList<DeviceInfo> gpus;
    if (m_devices) {
        for (const DeviceInfo &d : host.isEmpty() ? m_devices->devices() : m_devices->remoteDevices(host)) {
            if (d.isGpu && d.index >= 0) {
                gpus << d;
            }
        }
    }
    return gpus;
}

QString LaneStatus::poolName(const Device &pool) const
{
    // "4 × NVIDIA H100 80GB HBM3": the rows then need not repeat the name.
    QStringList names;
    int count = 0;
    for (const DeviceInfo &gpu : gpusOf(pool.host())) {
        if (pool.isAllGpus() || pool.gpuIndices().contains(gpu.index)) {
            ++count;
            if (!names.contains(gpu.name)) {
                names << gpu.name;
            }
        }
    }
    if (count == 0) {
        return {};
    }
    return names.size() == 1 ? tr("%1 × %2").arg(count).arg(names.first()) : tr("%n GPU(s)", nullptr, count);
}

QString LaneStatus::memoryText(qint64 used, qint64 total)
{
    constexpr double GiB = 1024.0 * 1024.0 * 1024.0;
    if (used < 0 || total <= 0) {
        return QStringLiteral("—");
    }
    return QStringLiteral("%1/%2 GiB").arg(double(used) / GiB, 0, 'f', 1).arg(double(total) / GiB, 0, 'f', 1);
}

QVariantList LaneStatus::gpuRows(const LaneInfo &lane) const
{
    const Device &pool = lane.effectiveDevice;
    if (!pool.isPool()) {
        return {};
    }
    const QList<DeviceInfo> gpus = gpusOf(pool.host());
    QList<int> indices = pool.gpuIndices();
    if (pool.isAllGpus()) {
        for (const DeviceInfo &gpu : gpus) {
            indices << gpu.index;
        }
        std::sort(indices.begin(), indices.end());
    }
    // Every active run of the session on this machine's (or host's) GPUs,
    // whatever lane it came from: they share the GPUs.
    QList<const RunInfo *> active;
    if (m_runs) {
        for (RunId id : m_runs->ids()) {
            const RunInfo *run = m_runs->find(id);
            const Device d = run && isActive(run->state) ? run->device : Device();
            if (d.isGpu() && d.host() == pool.host()) {
                active << run;
            }
        }
    }
    QVariantList rows;
    for (int index : std::as_const(indices)) {
        const auto it =
            std::find_if(gpus.begin(), gpus.end(), [index](const DeviceInfo &g) { return g.index == index; });
        const DeviceInfo gpu = it == gpus.end() ? DeviceInfo{} : *it;
        QVariantList runs;
        qint64 runBytes = 0;
        for (const RunInfo *run : std::as_const(active)) {
            if (!run->device.gpuIndices().contains(index)) {
                continue;
            }
            // Its whole process tree's memory here, as NVML tells it.
            qint64 bytes = 0;
            for (const GpuProcess &p : gpu.processes) {
                if (p.owner == GpuProcess::Owner::Run && run->pid > 0 && p.runPid == run->pid) {
                    bytes += std::max<qint64>(0, p.memoryBytes);
                }
            }
            runBytes += bytes;
            runs << QVariantMap{
                {QStringLiteral("id"), run->id}, {QStringLiteral("name"), run->name}, {QStringLiteral("bytes"), bytes}};
        }
        const qint64 others = gpu.memoryUsed >= 0 ? std::max<qint64>(0, gpu.memoryUsed - runBytes) : 0;
        rows << QVariantMap{{QStringLiteral("index"), index},
                            {QStringLiteral("id"), Device::gpus({index}, pool.host()).toString()},
                            {QStringLiteral("name"), gpu.name},
                            {QStringLiteral("found"), it != gpus.end()},
                            {QStringLiteral("utilization"), gpu.utilization},
                            {QStringLiteral("temperature"), gpu.temperature},
                            {QStringLiteral("memoryUsed"), gpu.memoryUsed},
                            {QStringLiteral("memoryTotal"), gpu.memoryTotal},
                            {QStringLiteral("memoryText"), memoryText(gpu.memoryUsed, gpu.memoryTotal)},
                            {QStringLiteral("runs"), runs},
                            {QStringLiteral("othersBytes"), others},
                            {QStringLiteral("others"), othersOnGpu(gpu, !runs.isEmpty())}};
    }
    return rows;
}

DeviceInfo LaneStatus::device(const LaneInfo &lane) const
{
    return m_devices ? m_devices->device(lane.effectiveDevice.toString()) : DeviceInfo{};
}

QString LaneStatus::slotAdvice(const LaneInfo &lane) const
{
    if (!m_runs) {
        return QString();
    }
    // Keyed like SlotProbe results: the GPU's name, or "cpu".
    const QString deviceName = lane.effectiveDevice.isCpu() ? QStringLiteral("cpu") : device(lane).name;
    for (RunId id : lane.runs) {
        const RunInfo run = m_runs->value(id);
        if (run.state == RunState::Queued) {
            const QString model = RunSpecView(run.spec).modelType();
            const auto advice = m_slotAdvice.find(deviceName, model);
            return advice ? SlotAdvice::summary(*advice) : QString();
        }
    }
    return QString();
}

QString LaneStatus::rounds(const LaneInfo &lane) const
{
    if (!m_runs) {
        return QString();
    }
    QStringList names;
    QMap<QString, int> current; // rounds -> its first round not finished
    QMap<QString, int> count;
    for (RunId id : lane.runs) {
        const RunInfo *run = m_runs->find(id);
        if (!run || run->rounds.isEmpty()) {
            continue;
        }
        if (!names.contains(run->rounds)) {
            names << run->rounds;
        }
        count[run->rounds] = run->roundCount;
        if (run->state != RunState::Finished) {
            const int at = current.value(run->rounds, run->round);
            current[run->rounds] = std::min(at, run->round);
        }
    }
    QStringList parts;
    for (const QString &name : std::as_const(names)) {
        parts << (current.contains(name)
                      ? tr("%1 · round %2 of %3").arg(name).arg(current.value(name)).arg(count.value(name))
                      : tr("%1 · %n rounds done", nullptr, count.value(name)).arg(name));
    }
    return parts.join(QStringLiteral(" · "));
}

QString LaneStatus::busyWith(const DeviceInfo &device)
{
    // Another user's process is the one to name; the user's own (a notebook)
    // only when there is none: they can end it themselves.
    QStringList users;
    QStringList mine;
    for (const GpuProcess &p : device.processes) {
        if (p.owner == GpuProcess::Owner::OtherUser) {
            const QString who = p.user.isEmpty() ? tr("another user") : p.user;
            if (!users.contains(who)) {
                users << who;
            }
        } else if (p.owner == GpuProcess::Owner::Mine) {
            mine << (p.name.isEmpty() ? QString::number(p.pid) : QStringLiteral("%1 (%2)").arg(p.pid).arg(p.name));
        }
    }
    if (!users.isEmpty()) {
        return tr("busy with %1's processes").arg(users.join(QStringLiteral(", ")));
    }
    if (!mine.isEmpty()) {
        return tr("busy with your pid %1").arg(mine.join(QStringLiteral(", ")));
    }
    return {};
}

QVariantMap LaneStatus::deviceStats(const LaneInfo &lane) const
{
    const DeviceInfo device = this->device(lane);
    QVariantMap stats{{QStringLiteral("utilization"), device.utilization},
                      {QStringLiteral("memoryUsed"), device.memoryUsed},
                      {QStringLiteral("memoryTotal"), device.memoryTotal},
                      {QStringLiteral("temperature"), device.temperature},
                      {QStringLiteral("isGpu"), device.isGpu},
                      {QStringLiteral("busyWithOthers"), device.busyWithOthers()},
                      {QStringLiteral("busyWith"), busyWith(device)}};
    if (m_history) {
        const DeviceHistory::Samples s = m_history->samples(lane.effectiveDevice.toString());
        stats.insert(QStringLiteral("utilizationHistory"), toList(s.utilization));
        stats.insert(QStringLiteral("memoryHistory"), toList(s.memory));
        stats.insert(QStringLiteral("temperatureHistory"), toList(s.temperature));
    }
    return stats;
}

} // namespace trainyard
