#include "orchestration/dispatch/startplanner.h"

#include "orchestration/board/board.h"
#include "orchestration/dispatch/lanedevices.h"
#include "orchestration/ingest/ingestion.h"
#include "orchestration/placement/runresources.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/supervision/supervisor.h"

namespace trainyard {

StartPlanner::StartPlanner(const Board *board, const RunRegistry *runs, const RunStore *store, Ingestion *ingestion,
                           const Supervisor *supervisor, const LaneDevices *lanes)
    : m_board(board)
    , m_runs(runs)
    , m_store(store)
    , m_ingestion(ingestion)
    , m_supervisor(supervisor)
    , m_lanes(lanes)
{
}

StartOptions StartPlanner::startOptions(RunId id) const
{
    StartOptions options;
    const RunInfo *r = m_runs->find(id);
    if (!r || r->lane < 0) {
        return options;
    }
    options.device = m_lanes->effectiveDevice(r->lane);
    const Device &device = options.device;
    options.threads = device.isCpu() ? m_lanes->threadsPerCpuRun() : 0;
    if (device.isSlurm()) {
        // The job's GPUs are the node's: CPU fallback there means a node
        // without a usable one trains on its CPU (the worker decides).
        options.gres = m_board->lane(r->lane).gres;
        if (RunResources::namesGpus(r->spec)) { // --gres=gpu:N of the lane's type
            options.gres = RunResources::gresFor(options.gres, RunResources::of(r->spec).gpus);
        }
        options.cpuFallback = m_lanes->cpuFallback();
    } else if (device.isRemote() || device.isCuda()) {
        // The same on a GPU the worker cannot use (a CPU-only build, a host's).
        options.cpuFallback = m_lanes->cpuFallback();
    }
    options.resume = m_resumeNext.contains(id);
    return options;
}

QStringList StartPlanner::commandLine(RunId id) const
{
    const RunInfo *r = m_runs->find(id);
    if (!r) {
        return {};
    }
    if (r->state != RunState::Queued && r->state != RunState::Waiting && !r->command.isEmpty()) {
        return r->command;
    }
    return m_supervisor->launchSpec(id, startOptions(id)).commandLine();
}

bool StartPlanner::resumesOnRetry(RunId id) const
{
    const RunInfo *r = m_runs->find(id);
    // A lost run's process may still write its folder: never a second writer
    // there, a new attempt instead.
    return r && r->state != RunState::Finished && r->state != RunState::Lost && m_store->hasCheckpoint(r->name);
}

QString StartPlanner::attemptKeptOnRetry(RunId id) const
{
    const RunInfo *r = m_runs->find(id);
    if (!r || !m_store->hasResults(r->name)) {
        return {};
    }
    // A queued run starts afresh: results in its folder are another spec's (HistoryLoader).
    if (r->state != RunState::Queued && (!isTerminal(r->state) || resumesOnRetry(id))) {
        return {};
    }
    return m_store->nextAttemptName(r->name);
}

void StartPlanner::planRetry(RunId id)
{
    if (resumesOnRetry(id)) {
        m_resumeNext.insert(id);
    } else {
        planNewAttempt(id);
    }
}

void StartPlanner::planNewAttempt(RunId id)
{
    // Its folder's results are kept at launch (Supervisor::start).
    m_resumeNext.remove(id);
    m_ingestion->resetCurves(id);
}

void StartPlanner::planContinue(RunId id)
{
    if (const RunInfo *r = m_runs->find(id); r && m_store->hasCheckpoint(r->name)) {
        m_resumeNext.insert(id);
    } else {
        m_resumeNext.remove(id);
    }
}

void StartPlanner::started(RunId id)
{
    m_resumeNext.remove(id);
}

} // namespace trainyard
