#pragma once

#include "orchestration/board/runentries.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/records/runinfo.h"

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
// Dispatcher dispatches on edited(), after the edits that free or fill a slot.
// Lanes are addressed by index, runs by RunId (records in the RunRegistry).
class Board : public QObject
{
    Q_OBJECT
public:
    struct Lane
    {
        Device device;
        int slotCount = 1;
        QString gres; // a Slurm lane's request per run (kept for the file; empty: the default)
        QString busy; // a GPU lane's policy for GPUs others use ("wait" when empty: ExperimentLane::busy)
        QList<RunId> runs;
        QString name; // the user's name for it (isLaneName); empty: none
    };

    Board(RunRegistry *runs, RunStore *store, QObject *parent = nullptr);

    // Replaces all lanes and runs (repeats and rounds expanded; a run with
    // an "after" Waiting); emits reset().
    void setExperiment(const Experiment &experiment);
    // The board as an experiment (a group's untouched repeats collapse
    // back into one entry with "repeat", untouched rounds into their entry
    // (Experiment::toJson); a sweep's trials are left out).
    Experiment toExperiment(const QString &name, const QString &runsRoot) const;

    int laneCount() const { return int(m_lanes.size()); }
    const Lane &lane(int index) const { return m_lanes.at(index); }
    bool hasLane(int index) const { return index >= 0 && index < m_lanes.size(); }
    QList<RunId> runIds() const;  // lane by lane, queue order
    int position(RunId id) const; // -1 when unknown
    // What the lane is called: its name, else its device, numbered from the
    // second lane on the same device ("cpu", "cpu 2"), so no two read alike.
    QString laneTitle(int index) const;
    // The same of a lane named `name` on `device` with `sameDeviceBefore`
    // lanes on that device before it (an experiment's, with no board).
    static QString laneTitle(const QString &name, const Device &device, int sameDeviceBefore);
    // Whether `name` (with `repeat` > 1: each of its repeats' names) is free.
    bool isNameFree(const QString &name, int repeat = 1) const;
    // A name to generate (a drop, a duplicate): `base` when free, else the
    // first free "<base>-2", "<base>-3", ... (each of its repeats' names free,
    // and no run's name or repeat group's, so "after" names one thing).
    QString uniqueName(const QString &base, int repeat = 1) const;
    // The spec a duplicate of `id` gets: a unique name and a seed no run on
    // the board has (one above the highest), so a copy is a new sample, not
    // the same run twice. With `copies` > 1 the spec of a repeat group of
    // that many, named "<name>-copy" (made unique). Empty for an unknown id.
    QJsonObject duplicateSpec(RunId id, int copies = 1) const;
    // Every run's folder again after the runs root moved from `oldRoot`
    // (the paths in the command lines runs started with follow it).
    void refreshRunDirs(const QString &oldRoot = QString());

    // Edits. Each refuses with a message (in `error`) rather than break a
    // run, and ends with edited() when it changed something.
    int addLane(const QString &device, int slotCount, int position = -1, QString *error = nullptr);
    bool removeLane(int index, QString *error = nullptr); // only without active runs
    bool setLaneDevice(int index, const QString &device, QString *error = nullptr);
    bool setLaneSlots(int index, int slotCount, QString *error = nullptr);
    // Names a lane (empty: no name, its device is its title); refused when
    // not isLaneName or another lane has it.
    bool setLaneName(int index, const QString &name, QString *error = nullptr);
    // Queues `spec` (validated) at `position` (-1: end); `repeat` > 1 adds
    // the expanded repeats. A name another run has is refused, never changed
    // behind the user's back (uniqueName makes one). Returns the new ids.
    QList<RunId> addRun(int lane, const QJsonObject &spec, int repeat = 1, int position = -1, QString *error = nullptr);
    // The same, held: it waits in its queue until started by hand or by the
    // next startAll(), even while dispatching goes on (an edit of a run that
    // has run must not start before the user looks at it).
    QList<RunId> addHeldRun(int lane, const QJsonObject &spec, int position = -1, QString *error = nullptr,
                            int repeat = 1);
    // A queued copy right after the original, with a unique name; held
    // when the original is (it waits for its own Start as the original does).
    RunId duplicateRun(RunId id, QString *error = nullptr);
    bool removeRun(RunId id, QString *error = nullptr); // not while active
    // Puts back a run removeRun took off, as it was (state, outcome, times,
    // under its own id when free) at `position` of its lane; 0 and a message
    // when its lane is gone or its name taken.
    RunId restoreRun(const RunInfo &run, int position, QString *error = nullptr);
    // Moves a run that is not active to `lane` at `position` (-1: end).
    bool moveRun(RunId id, int lane, int position, QString *error = nullptr);
    // Changes the spec of a run that has not started (validated).
    bool setRunSpec(RunId id, const QJsonObject &spec, QString *error = nullptr);
    // Changes the names a run that is not active runs after (RunInfo::after;
    // Dependencies::setAfter checks them first: no cycle, no unknown name).
    bool setRunAfter(RunId id, const QStringList &after, QString *error = nullptr);

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
    // Last, after an edit that may free or fill a slot (every listener has
    // heard the edit's own signals): the moment to dispatch.
    void edited();

private:
    QList<RunId> insertRuns(int lane, const QJsonObject &spec, int repeat, int position, bool held, QString *error);

    RunRegistry *m_runs;
    RunStore *m_store;
    RunEntries m_entries; // the file's entries into run records and back
    QList<Lane> m_lanes;
    QList<QJsonObject> m_rounds; // the experiment's rounds (Experiment::rounds), written back as they were
};

} // namespace trainyard
