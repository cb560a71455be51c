#pragma once

#include "orchestration/board/board.h"
#include "orchestration/dispatch/gpuaccount.h"
#include "orchestration/records/runinfo.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>

namespace trainyard {

class DeviceInventory;
class RunRegistry;
class RunStore;

// The Dispatcher's GPU side: places the queued runs of GPU lanes through
// the GpuAccount, says in a run's message why it waits, learns what runs
// use (their peaks into the runs root's book) and puts a run that ran out
// of GPU memory back with a larger need when its spec asks to.
class GpuScheduler
{
public:
    GpuScheduler(RunRegistry *runs, const RunStore *store, const DeviceInventory *devices);

    // Starts a placement pass over the GPUs' rooms as they are now: the
    // lanes of `board` with their effective devices.
    void begin(const Board &board, const std::function<Device(int)> &effectiveDevice);
    enum class Outcome {
        Placed,
        Waits,     // its message says why
        Impossible // it can never fit the lane: `why`
    };
    // Where queued `run` of `lane` (effective device `device`) starts now.
    Outcome place(const RunInfo &run, const Board::Lane &lane, const Device &device, QList<int> *gpus, QString *why);
    // The start options' device and rendezvous port of a run placed on `gpus`.
    static Device deviceOf(const QList<int> &gpus, const Device &laneDevice);
    static int rendezvousPort(const QList<int> &gpus);
    // Clears a wait reason once the run starts.
    void started(RunId id);

    // The GPUs' figures changed: each active run's memory peak so far.
    void observe() { m_account.observe(); }
    // `run` ended: its peak goes into the book.
    void ended(const RunInfo &run) { m_account.recordPeak(run); }
    // Whether `run`, failed, goes back to its queue after running out of GPU
    // memory ("on_oom": "retry"); then its message says so and its need is
    // raised (half its GPU when it had none, else 1.5 times, at most the
    // GPU), at most kOomRetries times. The caller queues it.
    bool retriesAfterOutOfMemory(const RunInfo &run);
    void forget(RunId id);

    static constexpr int kOomRetries = 3;

private:
    Outcome waits(const RunInfo &run, const QString &why); // says why in its message

    RunRegistry *m_runs;
    const RunStore *m_store;
    const DeviceInventory *m_devices;
    GpuAccount m_account;
    QHash<RunId, int> m_oomRetries;
};

} // namespace trainyard
