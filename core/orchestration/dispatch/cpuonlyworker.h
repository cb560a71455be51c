#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace trainyard {

class Board;
class Device;
class LaneDevices;
class ModelCatalogue;
class RunRegistry;

// A local GPU lane handed a worker whose LibTorch has no CUDA (Debian's
// libtorch-dev): every worker run there would fail at its start (exit 2),
// so `trainyard check` and Start say so once, up front. Program runs bring
// their own torch and are not affected. A worker that does not say what it
// was built with (older than `--list-models`' "libtorch") is not judged.
namespace cpuonlyworker {

// "cuda:N", or a pool such as "cuda:*": a GPU lane of this machine.
bool isLocalGpu(const Device &device);
// "this trainyard-worker was built without CUDA (LibTorch 1.13.1, CPU
// only)"; empty when it has CUDA or does not say (or no catalogue).
QString reason(const ModelCatalogue *catalogue);
// What to do about it, after `reason`.
QString advice(bool cpuFallback, const QString &fallbackHint);

// The board's lanes (0-based) whose runs would get a CPU-only worker on a
// GPU: a local GPU lane still on its GPU (not a missing one fallen back to
// the CPU) holding a worker run, or no run yet (a sweep's trials go there).
QList<int> lanes(const LaneDevices &laneDevices, const Board &board, const RunRegistry &runs,
                 const ModelCatalogue *catalogue);
// The preflight's lines, "lane 2 (cuda:0): this trainyard-worker ...".
QStringList problems(const LaneDevices &laneDevices, const Board &board, const RunRegistry &runs,
                     const ModelCatalogue *catalogue);
// The same with `workerProgram`'s catalogue as ModelCatalogueCache::shared()
// holds it (the app and `trainyard run` load it before Start); nothing when
// it is not held: the worker is never started here.
QStringList problems(const LaneDevices &laneDevices, const Board &board, const RunRegistry &runs,
                     const QString &workerProgram);

} // namespace cpuonlyworker
} // namespace trainyard
