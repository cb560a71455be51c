#pragma once

#include "experiment/experiment.h"
#include "records/runinfo.h"

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>

namespace trainyard {

class RunRegistry;
class RunStore;

// The lanes and their ordered queues: which runs exist, where, in which
// order. Every edit refuses with a message rather than break a run that is
// active, and emits an "about to" signal before and a done signal after, so
// item models can wrap it in begin/end calls and an undo stack invert it.
// The board knows nothing of processes, devices or dispatching: the
// Scheduler dispatches after the edits that free or fill a slot.
// Lanes are addressed by index, runs by RunId (records in the RunRegistry).
class Board : public QObject
{
    Q_OBJECT
public:
    struct Lane
    {
        QString device;
        int slotCount = 1;
        QString gres; // a Slurm lane's request per run (kept for the file; empty: the default)
        QList<RunId> runs;
    };

    Board(RunRegistry *runs, RunStore *store, QObject *parent = nullptr);

    // Replaces all lanes and runs (repeats expanded); emits reset().
    void setExperiment(const Experiment &experiment);
    // The board as an experiment (consecutive untouched repeats collapse
    // back into one entry with "repeat").
    Experiment toExperiment(const QString &name, const QString &runsRoot) const;

    int laneCount() const { return int(m_lanes.size()); }
    const Lane &lane(int index) const { return m_lanes.at(index); }
    bool hasLane(int index) const { return index >= 0 && index < m_lanes.size(); }
    QList<RunId> runIds() const;  // lane by lane, queue order
    int position(RunId id) const; // -1 when unknown
    QString uniqueName(const QString &base) const;
    // The spec a duplicate of `id` gets: a unique name and a seed no run on
    // the board has (one above the highest), so a copy is a new sample, not
    // the same run twice. Empty for an unknown id.
    QJsonObject duplicateSpec(RunId id) const;
    // Every run's folder again after the runs root moved.
    void refreshRunDirs();

    int addLane(const QString &device, int slotCount, int position, QString *error);
    bool removeLane(int index, QString *error); // only without active runs
    bool setLaneDevice(int index, const QString &device, QString *error);
    bool setLaneSlots(int index, int slotCount, QString *error);
    QList<RunId> addRun(int lane, const QJsonObject &spec, int repeat, int position, QString *error);
    RunId duplicateRun(RunId id, QString *error);
    bool removeRun(RunId id, QString *error); // not while active
    // Puts back a run removeRun took off, as it was (state, outcome, times,
    // under its own id when free) at `position` of its lane; 0 and a message
    // when its lane is gone or its name taken.
    RunId restoreRun(const RunInfo &run, int position, QString *error);
    bool moveRun(RunId id, int lane, int position, QString *error);
    bool setRunSpec(RunId id, const QJsonObject &spec, QString *error);

Q_SIGNALS:
    void reset();
    void laneAboutToBeAdded(int index);
    void laneAdded(int index);
    void laneAboutToBeRemoved(int index);
    void laneRemoved(int index);
    void laneChanged(int index);
    void runAboutToBeAdded(int lane, int position);
    void runAdded(trainyard::RunId id);
    void runAboutToBeRemoved(trainyard::RunId id);
    // Between the two: the record still exists and is about to go; the
    // owners of per-run state (supervisor, ingestion, ...) drop theirs.
    void runDropping(trainyard::RunId id);
    void runRemoved(trainyard::RunId id);
    void runAboutToBeMoved(trainyard::RunId id, int fromLane, int fromPosition, int toLane, int toPosition);
    void runMoved(trainyard::RunId id);

private:
    RunId newRun(const QJsonObject &spec, const QString &group, int index, int count, int lane);

    RunRegistry *m_runs;
    RunStore *m_store;
    QList<Lane> m_lanes;
};

} // namespace trainyard
