#include "orchestration/dispatch/gpuscheduler.h"

#include "orchestration/devices/device.h"
#include "orchestration/devices/deviceinventory.h"
#include "orchestration/placement/runresources.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/supervision/exitoutcome.h"

#include <QHostAddress>
#include <QSet>
#include <QTcpServer>

#include <algorithm>

namespace trainyard {

namespace {

// What a run waiting for GPUs says, before why (isQueuedWithReason).
const QString kWaits = QStringLiteral("waits: ");

} // namespace

GpuScheduler::GpuScheduler(RunRegistry *runs, const RunStore *store, const DeviceInventory *devices)
    : m_runs(runs)
    , m_store(store)
    , m_devices(devices)
    , m_account(runs, devices)
{
}

void GpuScheduler::begin(const Board &board, const std::function<Device(int)> &effectiveDevice)
{
    m_account.begin();
    m_account.setBookPath(m_store->root() + QStringLiteral("/.trainyard-gpu-memory.json"));
    // A run of several GPUs at the head of its queue holds its GPUs from
    // every lane of the pass, those placed before its own too.
    for (int l = 0; l < board.laneCount(); ++l) {
        const Device d = effectiveDevice(l);
        if (!d.isGpu()) {
            continue;
        }
        for (RunId id : board.lane(l).runs) {
            const RunInfo *r = m_runs->find(id);
            if (!r || r->state != RunState::Queued || r->held) {
                continue;
            }
            if (RunResources::of(r->spec).gpus > 1) {
                m_account.placer(d.host()).hold(m_account.request(board.lane(l), *r));
            }
            break; // the head only
        }
    }
}

GpuScheduler::Outcome GpuScheduler::place(const RunInfo &run, const Board::Lane &lane, const Device &d,
                                          QList<int> *gpus, QString *why)
{
    const QString host = d.host();
    GpuPlacer &placer = m_account.placer(host);
    if (placer.rooms().isEmpty() && !d.isPool()) {
        *gpus = d.gpuIndices(); // a fixed GPU of a machine that reports none: as before pools
        return Outcome::Placed;
    }
    if (placer.rooms().isEmpty()) {
        // Nothing known of the machine's GPUs yet (a host's first poll, or
        // nvidia-smi failing there): its runs wait rather than fail.
        const QString problem = host.isEmpty() ? m_devices->nvmlError() : m_devices->remoteProblem(host);
        *why = QStringLiteral("no GPU of %1 is known yet%2")
                   .arg(host.isEmpty() ? QStringLiteral("this machine") : host,
                        problem.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(problem));
        return waits(run, *why);
    }
    const GpuPlacement p = placer.place(m_account.request(lane, run));
    if (p.impossible) {
        *why = p.waitReason;
        return Outcome::Impossible;
    }
    if (p.gpus.isEmpty()) {
        *why = p.waitReason;
        return waits(run, p.waitReason);
    }
    *gpus = p.gpus;
    return Outcome::Placed;
}

GpuScheduler::Outcome GpuScheduler::waits(const RunInfo &run, const QString &why)
{
    const QString message = kWaits + why;
    if (run.message != message) {
        m_runs->update(run.id, [&](RunInfo &r) { r.message = message; });
    }
    return Outcome::Waits;
}

Device GpuScheduler::deviceOf(const QList<int> &gpus, const Device &laneDevice)
{
    return Device::gpus(gpus, laneDevice.host());
}

int GpuScheduler::rendezvousPort(const QList<int> &gpus)
{
    if (gpus.size() < 2) {
        return 0;
    }
    // A port nothing listens on now, for the ranks of the run to meet on.
    QTcpServer probe;
    return probe.listen(QHostAddress::LocalHost, 0) ? probe.serverPort() : 29500;
}

void GpuScheduler::started(RunId id)
{
    const RunInfo *r = m_runs->find(id);
    if (r && r->message.startsWith(kWaits)) {
        m_runs->update(
            id, [](RunInfo &run) { run.message.clear(); }, RunRegistry::Notify::Quiet);
    }
}

bool GpuScheduler::retriesAfterOutOfMemory(const RunInfo &run)
{
    if (!run.message.startsWith(kOutOfMemory) || !RunResources::of(run.spec).retryOnOom) {
        return false;
    }
    const int tries = m_oomRetries.value(run.id) + 1;
    if (tries > kOomRetries) {
        m_runs->update(run.id, [&](RunInfo &r) {
            r.message =
                QStringLiteral("%1 (gave up after %2 retries with more memory)").arg(r.message).arg(kOomRetries);
        });
        return false;
    }
    m_oomRetries.insert(run.id, tries);
    const Device &d = run.device;
    const qint64 total = d.gpuIndices().isEmpty() ? -1 : m_account.totalOf(d.host(), d.gpuIndices().first());
    const qint64 had = m_account.need(run);
    qint64 need = had > 0 ? qint64(double(had) * 1.5) : total / 2;
    if (total > 0) {
        need = std::min(need, total / 100 * GpuAccount::kMostOfAGpuPercent);
    }
    if (need > 0) {
        m_account.raiseNeed(run.id, need);
    }
    const QString message = QStringLiteral("%1 on %2; retry %3 of %4 with %5")
                                .arg(kOutOfMemory, run.device.toString())
                                .arg(tries)
                                .arg(kOomRetries)
                                .arg(need > 0 ? formatMemory(need) : QStringLiteral("an unknown need"));
    m_runs->update(run.id, [&](RunInfo &r) { r.message = message; });
    return true;
}

void GpuScheduler::forget(RunId id)
{
    m_oomRetries.remove(id);
    m_account.forget(id);
}

} // namespace trainyard
