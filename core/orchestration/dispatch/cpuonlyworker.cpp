#include "orchestration/dispatch/cpuonlyworker.h"

#include "orchestration/board/board.h"
#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/catalogue/modelcataloguecache.h"
#include "orchestration/devices/device.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runspec/runspecview.h"

namespace trainyard::cpuonlyworker {

bool isLocalGpu(const Device &device)
{
    return device.isCuda() || device.toString().startsWith(QLatin1String("cuda:"));
}

QString reason(const ModelCatalogue *catalogue)
{
    if (!catalogue || !catalogue->libTorch().known || !catalogue->libTorch().cuda.isEmpty()) {
        return {};
    }
    return QStringLiteral("this trainyard-worker was built without CUDA (%1)").arg(catalogue->libTorch().text());
}

QString advice(bool cpuFallback, const QString &fallbackHint)
{
    if (cpuFallback) {
        return QStringLiteral("its runs will train on the CPU");
    }
    return QStringLiteral("rebuild it against a CUDA LibTorch (see docs/gpu.md) or %1").arg(fallbackHint);
}

QList<int> lanes(const LaneDevices &laneDevices, const Board &board, const RunRegistry &runs,
                 const ModelCatalogue *catalogue)
{
    QList<int> found;
    if (reason(catalogue).isEmpty()) {
        return found;
    }
    for (int l = 0; l < board.laneCount(); ++l) {
        const LaneInfo lane = laneDevices.lane(l);
        if (!isLocalGpu(lane.device) || lane.effectiveDevice.isCpu()) {
            continue;
        }
        bool workerRun = lane.runs.isEmpty();
        for (RunId id : lane.runs) {
            if (const RunInfo *r = runs.find(id); r && !RunSpecView(r->spec).isProgram()) {
                workerRun = true;
            }
        }
        if (workerRun) {
            found << l;
        }
    }
    return found;
}

QStringList problems(const LaneDevices &laneDevices, const Board &board, const RunRegistry &runs,
                     const ModelCatalogue *catalogue)
{
    QStringList lines;
    for (int l : lanes(laneDevices, board, runs, catalogue)) {
        // Named as its header is (its title), with its device when the title is another word.
        const QString device = board.lane(l).device.toString();
        const QString title = board.laneTitle(l);
        lines << QStringLiteral("lane %1: %2; %3")
                     .arg(title == device ? title : QStringLiteral("%1 (%2)").arg(title, device), reason(catalogue),
                          advice(laneDevices.cpuFallback(), QStringLiteral("allow CPU fallback")));
    }
    return lines;
}

QStringList problems(const LaneDevices &laneDevices, const Board &board, const RunRegistry &runs,
                     const QString &workerProgram)
{
    if (workerProgram.isEmpty()) {
        return {};
    }
    const std::optional<ModelCatalogue> catalogue = ModelCatalogueCache::shared().find(workerProgram);
    return catalogue ? problems(laneDevices, board, runs, &*catalogue) : QStringList();
}

} // namespace trainyard::cpuonlyworker
