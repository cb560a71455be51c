#pragma once

#include <QString>
#include <QStringList>

namespace trainyard {

class Board;
class DeviceInventory;
class LaneDevices;
class Launcher;
class RunRegistry;

// What a user should hear before Start: lanes naming GPUs this machine
// lacks (with what CPU fallback does), the launchers' problems (clusters,
// hosts), GPU lanes handed a CPU-only worker, and GPUs busy with others'
// processes. Empty when all is clear (LaneDevices::preflight).
namespace preflight {

struct Sources
{
    const LaneDevices &lanes;
    const Board &board;
    const RunRegistry &runs;
    const Launcher &launcher;
    const DeviceInventory &devices;
    QString runsRoot;
    QString workerProgram;
};

QStringList problems(const Sources &sources);

} // namespace preflight
} // namespace trainyard
