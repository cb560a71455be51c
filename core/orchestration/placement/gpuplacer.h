#pragma once

#include <QHash>
#include <QList>
#include <QString>
#include <QtGlobal>

namespace trainyard {

// One GPU of one machine as placement sees it at one moment.
struct GpuRoom
{
    int index = -1;           // NVML's index on its machine (PCI order)
    qint64 totalBytes = -1;   // -1: unknown
    qint64 freeBytes = -1;    // NVML's free memory; -1: unknown (memory then never limits)
    qint64 othersBytes = 0;   // memory held by processes that are not Trainyard's runs
    qint64 promisedBytes = 0; // placed by Trainyard and not yet seen allocated
    int runs = 0;             // Trainyard's runs on it now, of every lane
    // Why it is busy by the wait policy ("user bob, python, 14.2 GiB"):
    // processes that are not Trainyard's runs hold more than
    // kBusyThresholdBytes. Empty: not busy.
    QString busyWith;
};

// What a lane's `busy` asks of a GPU that others use (docs/experiment-format.md).
enum class BusyPolicy {
    Wait,  // a busy GPU takes no run until it frees
    Share, // start there while memory fits; others' memory still counts
    Ignore // others' processes are not looked at: neither wait nor their memory
};

// One run asking for GPUs.
struct GpuRequest
{
    QList<int> allowed;  // the lane's GPUs (indices)
    int slotsPerGpu = 1; // the lane's slots: the most runs on each GPU
    BusyPolicy busy = BusyPolicy::Wait;
    int gpus = 1;            // how many GPUs it needs, all of one machine
    qint64 memoryBytes = -1; // its need on each of them; -1: unknown (slots alone decide)
    QString label;           // the run's name, for others' wait reasons
    int queue = 0;           // which queue it waits in (its lane): one reservation each
};

// Where a request goes, or why it waits.
struct GpuPlacement
{
    QList<int> gpus;         // ascending; empty: it waits
    QString waitReason;      // "cuda:3 busy — user bob, python, 14.2 GiB"; empty when placed
    bool impossible = false; // it can never fit these GPUs (more GPUs or memory than they have)
};

// Places the queued runs of one machine's GPUs in queue order, one pass
// (one dispatch) at a time: construct it with the GPUs' rooms, then call
// place() for each queued run in order. A run placed updates the rooms
// (its slot, its memory promised), so later calls see it.
//
// Room on a GPU: a free slot (runs < slotsPerGpu), not busy by the
// request's policy, and, when the need is known, free memory (NVML's free,
// or with Ignore its total less Trainyard's runs' share) less what was
// promised to runs not yet seen allocating, at least the need. Among GPUs
// with room, the one with the fewest runs, then the most free memory,
// then the lowest index (spreads first, then packs by memory).
//
// No starvation of a large run (the reservation rule, EASY backfilling
// without run times): the first run of a queue that could fit the lane's
// GPUs but finds no room now reserves, for the rest of the pass, the GPUs
// it would get first (the ones with the fewest runs, then the most free
// memory): later runs of the pass may not start on them, but may start on
// the others (backfill). A reserved GPU only drains, so the run starts once
// its GPUs free, however many smaller runs queue behind it; then the next
// waiting run of its queue reserves.
class GpuPlacer
{
public:
    // Processes that are not Trainyard's runs make a GPU busy (Wait) when
    // they hold more than this: a desktop's X server and an idle CUDA
    // context stay below it.
    static constexpr qint64 kBusyThresholdBytes = 1024LL * 1024 * 1024;

    // `devicePrefix` names the machine in wait reasons: "" here, "ssh:lab/" on a host.
    explicit GpuPlacer(const QList<GpuRoom> &rooms, const QString &devicePrefix = QString());

    GpuPlacement place(const GpuRequest &request);
    // Reserves, before the pass places anything, the GPUs `request` would
    // get first (a run of several GPUs at the head of its queue): runs of
    // lanes placed before it in the pass must not take them either. Its own
    // place() may use them; what it leaves is released when it is placed.
    void hold(const GpuRequest &request);

    QList<GpuRoom> rooms() const { return m_rooms; }
    QList<int> reserved() const { return m_reserved; }

private:
    qint64 freeFor(const GpuRoom &room, BusyPolicy busy) const;
    bool fits(const GpuRoom &room, const GpuRequest &request) const;
    bool keptFromOthers(int index, const GpuRequest &request) const; // reserved, not for it
    QString impossible(const GpuRequest &request) const;
    QString waitReason(const GpuRequest &request) const;
    void reserve(const GpuRequest &request);
    QList<GpuRoom *> ranked(const GpuRequest &request, bool roomOnly);
    const GpuRoom *room(int index) const;
    QString name(int index) const;

    QList<GpuRoom> m_rooms;
    QList<int> m_reserved;
    QHash<int, QString> m_reservedFor; // GPU -> the run it is kept for
    QList<int> m_queuesReserving;      // queues whose first waiting run has reserved
    QString m_prefix;
};

// "30GiB", "512 MiB", "1.5GB", a plain number of bytes: bytes, or -1 when
// `text` is none of these.
qint64 parseMemory(const QString &text);
// 14.2 GiB, 512 MiB: binary units, as nvidia-smi and its users count.
QString formatMemory(qint64 bytes);

} // namespace trainyard
