#include "orchestration/sweep/sweepplacer.h"

#include "orchestration/board/board.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/records/runregistry.h"

namespace trainyard {

SweepPlacer::SweepPlacer(Board *board, Dispatcher *dispatcher, RunActions *actions, RunRegistry *runs)
    : m_board(board)
    , m_dispatcher(dispatcher)
    , m_actions(actions)
    , m_runs(runs)
{
}

QList<int> SweepPlacer::lanes(const SweepSearch &s) const
{
    QList<int> out;
    for (int l = 0; l < m_board->laneCount(); ++l) {
        if (s.spec.lanes.isEmpty() || s.spec.lanes.contains(l)) {
            out << l;
        }
    }
    return out;
}

int SweepPlacer::freeSlots(int lane) const
{
    // A queued run is promised a slot only while the board dispatches; a
    // sweep started by hand places past the runs nobody started. Its own
    // queued trials count always (one whose start failed keeps its slot).
    const bool dispatching = m_dispatcher->isDispatching();
    int used = 0;
    for (RunId id : m_board->lane(lane).runs) {
        const RunInfo *r = m_runs->find(id);
        const bool promised = r && r->state == RunState::Queued && !r->held && (dispatching || !r->sweep.isEmpty());
        used += r && (isActive(r->state) || promised) ? 1 : 0;
    }
    return (m_capacity ? m_capacity(lane) : m_board->lane(lane).slotCount) - used;
}

int SweepPlacer::freeLane(const SweepSearch &s) const
{
    for (int l : lanes(s)) {
        if (freeSlots(l) > 0) {
            return l;
        }
    }
    return -1;
}

RunId SweepPlacer::place(SweepSearch &s, int index, int lane, const QString &name, QString *error)
{
    QJsonObject spec = s.trialRunSpec(index);
    if (!name.isEmpty()) {
        spec.insert(QStringLiteral("name"), name);
    } else { // a run queued by hand since took the trial's name: a name of its own
        spec.insert(QStringLiteral("name"), m_board->uniqueName(spec.value(QStringLiteral("name")).toString()));
    }
    SweepSearch::Trial &t = s.place(index);
    t.lane = lane;
    // Marked as the sweep's before the board's edit lets the dispatcher start it.
    const QList<RunId> ids = m_board->addRun(lane, spec, 1, -1, error);
    if (ids.isEmpty()) {
        t.failed = true;
        t.reason = error ? *error : QString();
        return 0;
    }
    t.run = ids.first();
    t.name = m_runs->find(t.run)->name;
    m_runs->update(t.run, [&](RunInfo &r) {
        r.sweep = s.spec.name;
        r.trial = index;
    });
    return t.run;
}

bool SweepPlacer::resume(SweepSearch &s, SweepSearch::Trial &t, int lane, QString *error)
{
    s.promote(t);
    // Queued again from its checkpoint (its curve goes on where it paused)
    // before it moves: no edit in between may find the board idle.
    bool ok = m_actions->retryRun(t.run, true, error);
    const RunInfo *r = m_runs->find(t.run);
    if (ok && r->state == RunState::Queued && r->lane != lane) {
        ok = m_board->moveRun(t.run, lane, -1, error);
    }
    r = m_runs->find(t.run);
    if (ok && r->state == RunState::Queued && !m_dispatcher->isDispatching()) {
        ok = m_actions->startRun(t.run, error); // promoted by hand while nothing dispatches
    }
    t.lane = m_runs->find(t.run)->lane;
    if (!ok) {
        t.stopped = true;
        t.reason = QStringLiteral("could not resume: ") + (error ? *error : QString());
        m_runs->update(t.run, [&](RunInfo &info) { info.message = t.reason; });
    }
    return ok;
}

} // namespace trainyard
