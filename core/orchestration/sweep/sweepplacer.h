#pragma once

#include "orchestration/records/runinfo.h"
#include "orchestration/sweep/sweepsearch.h"

#include <QList>
#include <QString>

#include <functional>

namespace trainyard {

class Board;
class Dispatcher;
class RunActions;
class RunRegistry;

/// Puts a sweep's trials on the board for the SweepRunner: which of the
/// sweep's lanes has a free slot, a new trial as a run (named, marked as
/// the sweep's), a paused trial queued again from its checkpoint. Which
/// trial goes next, and when, is the runner's (and the search's) to say.
class SweepPlacer
{
public:
    SweepPlacer(Board *board, Dispatcher *dispatcher, RunActions *actions, RunRegistry *runs);

    /// How many runs lane N holds at once (a pool: its slots on each of
    /// its GPUs); unset, its slots.
    void setLaneCapacity(std::function<int(int lane)> capacity) { m_capacity = std::move(capacity); }
    QList<int> lanes(const SweepSearch &s) const; ///< the board's lanes the sweep may use
    int freeSlots(int lane) const;                ///< neither running nor promised to a queued run (see .cpp)
    int freeLane(const SweepSearch &s) const;     ///< the first of its lanes with a free slot; -1: none

    /// Trial `index` as a new run on `lane` named `name` (empty: its own
    /// name, made unique); 0, the trial failed, when the board refused it.
    RunId place(SweepSearch &s, int index, int lane, const QString &name, QString *error);
    /// Paused trial `t` trains on from its checkpoint on `lane`; false,
    /// the trial stopped with the reason as its run's message, when not.
    bool resume(SweepSearch &s, SweepSearch::Trial &t, int lane, QString *error);

private:
    Board *m_board;
    Dispatcher *m_dispatcher;
    RunActions *m_actions; // a trial's start and retry
    RunRegistry *m_runs;
    std::function<int(int)> m_capacity = nullptr; // a lane's runs at once; empty: its slots
};

} // namespace trainyard
