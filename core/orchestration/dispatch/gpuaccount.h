#pragma once

#include "orchestration/board/board.h"
#include "orchestration/dispatch/gpumemorybook.h"
#include "orchestration/placement/gpuplacer.h"
#include "orchestration/records/runinfo.h"

#include <QHash>
#include <QList>
#include <QString>

#include <map>

namespace trainyard {

class DeviceInventory;
class RunRegistry;
struct DeviceInfo;

// Every GPU of the experiment as one account, whatever lanes name it: what
// NVML reports of it (this machine's, or a host's as its launcher polled it),
// Trainyard's active runs on it, the memory promised to those not yet seen
// allocating, and who else uses it. One dispatch pass places its runs with
// one GpuPlacer per machine (placer()), so runs placed early in the pass
// count for the later ones, across lanes.
class GpuAccount
{
public:
    GpuAccount(const RunRegistry *runs, const DeviceInventory *devices);

    // A new pass: rooms are read again.
    void begin() { m_placers.clear(); }
    // The placer of `host`'s GPUs (empty: this machine's) for this pass.
    GpuPlacer &placer(const QString &host);
    // The rooms of `host`'s GPUs now.
    QList<GpuRoom> rooms(const QString &host) const;
    // What `run` of `lane` asks for (its "resources", the lane's GPUs,
    // slots and busy policy). A fixed "cuda:N" lane counts its slots itself
    // (per lane, as before pools), so here only memory and busy GPUs limit it.
    GpuRequest request(const Board::Lane &lane, const RunInfo &run) const;
    // The most a learned or raised need asks of a GPU, in percent of its
    // memory: an idle GPU has about this much free (the driver keeps some).
    static constexpr qint64 kMostOfAGpuPercent = 95;
    // A run's memory need on each of its GPUs: raised after it ran out of
    // memory (raiseNeed), else its "gpu_memory", else what runs of its
    // configuration used (GpuMemoryBook, with its margin); -1 unknown.
    qint64 need(const RunInfo &run) const;
    void raiseNeed(RunId id, qint64 bytes) { m_raised.insert(id, bytes); }
    void forget(RunId id);

    // Where the learned peaks are kept (the runs root's book); read when it changes.
    void setBookPath(const QString &path);
    // Each active GPU run's memory now (the most on one of its GPUs): its peak so far.
    void observe();
    // A run that trained has ended: its peak goes into the book.
    void recordPeak(const RunInfo &run);
    // How many GPUs a lane of `device` spans (a pool's, "cuda:*": the
    // machine's or host's as reported; one for a fixed GPU, 0 for no GPU).
    static int gpusOf(const Device &device, const DeviceInventory &devices);
    // The memory of `host`'s GPU `index`, -1 when unknown.
    qint64 totalOf(const QString &host, int index) const;

private:
    const RunRegistry *m_runs;
    const DeviceInventory *m_devices;
    // What `run`'s processes hold on `gpu` (NVML, per process).
    static qint64 usedBy(const RunInfo &run, const DeviceInfo &gpu);
    QList<DeviceInfo> devicesOf(const QString &host) const;

    std::map<QString, GpuPlacer> m_placers;
    QHash<RunId, qint64> m_raised;
    QHash<RunId, qint64> m_peaks; // the most each active run held on one GPU
    GpuMemoryBook m_book;
};

// The lane's `busy` as a policy ("wait" when empty or unknown).
BusyPolicy busyPolicy(const QString &text);

} // namespace trainyard
