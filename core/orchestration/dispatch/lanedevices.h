#pragma once

#include "orchestration/devices/device.h"
#include "orchestration/records/runinfo.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

namespace trainyard {

class Board;
class DeviceInventory;
class Launcher;
class RunRegistry;
class RunStore;
class Supervisor;

// Where each lane's runs really go and what stands in their way: a lane's
// effective device (a GPU this machine lacks runs on the CPU under CPU
// fallback, else its runs wait), whether its host is reached, the CPU
// threads each CPU run gets (the cores shared out among the CPU lanes'
// slots), and the problems to tell the user before Start (preflight: missing
// GPUs, the launchers', a CPU-only worker on a GPU, GPUs busy with others'
// processes). The Dispatcher places runs on what this says; the board's
// views read their lanes here (lane()).
class LaneDevices : public QObject
{
    Q_OBJECT
public:
    LaneDevices(const Board *board, const RunRegistry *runs, const DeviceInventory *devices, const Launcher *launcher,
                const RunStore *store, const Supervisor *supervisor, QObject *parent = nullptr);

    Device effectiveDevice(int lane) const;
    // A GPU this machine lacks (the CPU and clusters are never missing).
    bool isMissing(const Device &device) const;
    // A lane as the board has it, with its effective device (empty for an unknown lane).
    LaneInfo lane(int index) const;
    QList<int> missingDeviceLanes() const;
    void setCpuFallback(bool on);
    bool cpuFallback() const { return m_cpuFallback; }
    void setCpuThreads(int threads) { m_cpuThreadsOverride = threads; }
    int threadsPerCpuRun() const;

    // Problems to tell the user before starting: missing GPUs, the
    // launcher's (Launcher::problems: clusters), GPUs busy with other users'
    // processes. Empty when all is clear.
    QStringList preflight() const;
    // The part of preflight() about GPUs busy with other users' processes.
    QStringList busyDeviceWarnings() const;

Q_SIGNALS:
    void laneChanged(int index); // effective device (CPU fallback), its host reached or lost
    // After setCpuFallback's laneChanged: the lanes' runs may start elsewhere now.
    void cpuFallbackChanged(bool on);

private:
    const Board *m_board;
    const RunRegistry *m_runs;
    const DeviceInventory *m_devices;
    const Launcher *m_launcher;
    const RunStore *m_store;
    const Supervisor *m_supervisor;
    bool m_cpuFallback = false;
    int m_cpuThreadsOverride = 0;
};

} // namespace trainyard
