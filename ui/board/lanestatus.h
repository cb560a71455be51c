#pragma once

#include "orchestration/records/runinfo.h"
#include "orchestration/slots/slotadvice.h"

#include <QCoreApplication>
#include <QString>
#include <QVariantList>
#include <QVariantMap>

#include <functional>

namespace trainyard {

class Device;
struct DeviceInfo;
class DeviceHistory;
class DeviceInventory;
class RunRegistry;

/// What a lane's header says about where its runs go: the device's name (on
/// the CPU the threads each run gets, on Slurm the partition with its pending
/// and running jobs), the device's live stats with their recent history, and
/// the remembered slot probe (SlotAdvice) for the model of its first queued run.
class LaneStatus
{
    Q_DECLARE_TR_FUNCTIONS(LaneStatus)
public:
    /// What it reads: the run records (a Slurm lane's jobs, a lane's first
    /// queued run), the CPU threads each run gets, the devices and their
    /// history; any may be null. It owns none of them.
    void setSources(const RunRegistry *runs, std::function<int()> threadsPerCpuRun, const DeviceInventory *devices,
                    const DeviceHistory *history);
    /// Re-reads the remembered slot probes; false with `*warning` when the
    /// file cannot be used.
    bool reloadSlotAdvice(QString *warning);

    /// "NVIDIA ...", "CPU · 8 threads per run", "Slurm · gpu · a100 · 1 pending · 2 running",
    /// "lab · NVIDIA H100 80GB HBM3" (a host over ssh), or why a host's lane waits.
    QString deviceName(const LaneInfo &lane) const;
    /// Which round the rounds on it are at: "fed · round 3 of 5", the first
    /// round with a run that has not finished ("fed · 5 rounds done"); ""
    /// for a lane without rounds.
    QString rounds(const LaneInfo &lane) const;
    /// The slot advice for its first queued run's model ("" if none).
    QString slotAdvice(const LaneInfo &lane) const;
    /// utilization, memoryUsed, memoryTotal, temperature, isGpu, busyWithOthers,
    /// busyWith (whose processes besides the runs': "busy with alice's
    /// processes", "busy with your pid 1234 (python3)"; "" when none) and,
    /// when there is a history, utilizationHistory, memoryHistory and
    /// temperatureHistory (lists of doubles).
    QVariantMap deviceStats(const LaneInfo &lane) const;
    /// A pool lane's GPUs ("cuda:*": every GPU of its machine), one
    /// QVariantMap each in index order: index, id ("cuda:2"), name, found
    /// (false: the machine lacks it), utilization, temperature, memoryUsed,
    /// memoryTotal, memoryText ("14.2/80.0 GiB"), runs (each active run whose
    /// device lists it: id, name, bytes its processes hold there), othersBytes
    /// (what the rest of its used memory is) and others (who else holds it,
    /// GpuAccount::othersOn: "user bob, python, 14.2 GiB"). Empty for any
    /// other lane, and for a pool under CPU fallback.
    QVariantList gpuRows(const LaneInfo &lane) const;
    /// "14.2/80.0 GiB": binary units, as nvidia-smi and its users count; "—" unknown.
    static QString memoryText(qint64 used, qint64 total);

private:
    DeviceInfo device(const LaneInfo &lane) const;
    static QString busyWith(const DeviceInfo &device);
    QList<DeviceInfo> gpusOf(const QString &host) const;
    QString poolName(const Device &pool) const;

    const RunRegistry *m_runs = nullptr;
    std::function<int()> m_threadsPerCpuRun;
    const DeviceInventory *m_devices = nullptr;
    const DeviceHistory *m_history = nullptr;
    SlotAdvice m_slotAdvice;
};

} // namespace trainyard
