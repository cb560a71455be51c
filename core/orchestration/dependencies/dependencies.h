#pragma once

#include "orchestration/experiment/dependencygraph.h"
#include "orchestration/records/runinfo.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <utility>

namespace trainyard {

class Board;
class RunRegistry;
class SweepTrials;

// The board's `after`s (RunInfo::after; docs/experiment-format.md#after):
// which runs each run runs after, and whether it may go: a run that runs
// after others is Waiting, with why in its message, until every one of
// them has finished, then Queued on its lane as any other (refresh(), which
// the Dispatcher calls before it dispatches). One that failed, diverged,
// was stopped, cancelled or lost keeps its dependents waiting, saying so;
// a Retry of it releases them once it finishes. A sweep counts once it is
// done with a trial that finished. Edits of `after` come through setAfter
// (no unknown name, no cycle). Knows nothing of processes.
class Dependencies : public QObject
{
    Q_OBJECT
public:
    Dependencies(Board *board, RunRegistry *runs, QObject *parent = nullptr);

    // The sweeps whose names runs may name (nullptr: none).
    void setSweeps(const SweepTrials *sweeps) { m_sweeps = sweeps; }

    // Waiting <-> Queued for every run that is queued or waiting, each
    // waiting run's message the reason. Cheap when no run has an after.
    void refresh();

    // The runs `id` runs after, by the names of its after in order, each
    // with its runs (board order; a sweep's finished trials, best first).
    QList<std::pair<QString, QList<RunId>>> predecessorsByName(RunId id) const;
    // The same, every run once.
    QList<RunId> predecessors(RunId id) const;
    // The runs that run after `id` directly.
    QList<RunId> dependents(RunId id) const;

    // Makes `id` run after `after` (names of runs, repeat groups, rounds or
    // sweeps); refuses a name that is none of these and a cycle. An empty
    // list: it runs after nothing.
    bool setAfter(RunId id, const QStringList &after, QString *error = nullptr);
    // Whether `id` running after `name` would make runs wait for one another.
    bool wouldCycle(RunId id, const QString &name) const;
    // Every name a run may run after that is not a single run's: repeat
    // groups, rounds and sweeps, each with what it is ("repeat group of 3").
    QList<std::pair<QString, QString>> groupNames() const;

private:
    DependencyGraph graph(QList<RunId> *ids) const;
    QStringList sweepNames() const;
    QString reason(const DependencyGraph &graph, const QList<RunId> &ids, int node) const;
    // A sweep is done with a trial that finished.
    bool sweepFinished(const QString &sweep) const;

    Board *m_board;
    RunRegistry *m_runs;
    const SweepTrials *m_sweeps = nullptr;
};

} // namespace trainyard
