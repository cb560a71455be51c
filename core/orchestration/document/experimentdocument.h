#pragma once

#include "orchestration/records/runinfo.h"
#include "orchestration/records/runrecord.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>
#include <utility>

class QJsonObject;
class QUndoCommand;
class QUndoStack;

namespace trainyard {

class BoardEdits;
class DeviceInventory;
class Experiment;
struct ExperimentHost;
class MetricStore;
class Orchestrator;
class RunRegistry;
class Session;
class SweepRunner;
struct SweepSpec;

/// One open experiment from its opening to its close (Tiled's MapDocument):
/// it owns the Session that runs its board, the board's edit history (its
/// one undo stack), its file and whether the board is as opened or last
/// saved. The views and controllers see the experiment only through it:
/// values of its runs and lanes (RunInfo, LaneInfo), run control, edits
/// (each one undo step) and change signals; the orchestrator's parts stay
/// behind it, so how they are cut up is this class's business alone.
class ExperimentDocument : public QObject
{
    Q_OBJECT
public:
    explicit ExperimentDocument(std::unique_ptr<Session> session, QObject *parent = nullptr);
    /// Over a session its caller owns and closes after this is gone (tests, tools).
    explicit ExperimentDocument(Session *session, QObject *parent = nullptr);
    /// The history goes first: its commands point at the session's board.
    ~ExperimentDocument() override;

    /// What opens, saves, renames and closes it (SessionController).
    Session *session() const { return m_session; }
    QUndoStack *undoStack() const { return m_undo; }
    /// The experiment file (empty: a board never saved).
    QString filePath() const;
    QString name() const;
    /// Where its runs' folders are.
    QString runsRoot() const;
    /// The experiment as the board is now (what saving writes).
    Experiment experiment() const;
    MetricStore *metrics() const;
    DeviceInventory *devices() const;

    /// Whether the board is as opened or last saved.
    bool isClean() const;
    void markSaved();   ///< the board was just written
    void markUnsaved(); ///< the board holds edits no file has (a recovered autosave)

    /// Hands an owned session over for its asynchronous close
    /// (Session::close); the history is cleared first, and the document is
    /// empty after.
    std::unique_ptr<Session> takeSession();

    // The board: values, never the live records.
    int laneCount() const;
    LaneInfo lane(int index) const;
    bool hasRun(RunId id) const;
    RunInfo run(RunId id) const; ///< a default RunInfo when unknown
    RunId findRun(const QString &name) const;
    QList<RunId> runIds() const;    ///< lane by lane, queue order
    QList<RunInfo> allRuns() const; ///< every run, in id order
    /// The runs' records, read only: values a view reads in bulk (a lane's header).
    const RunRegistry *runRecords() const;
    /// A run as its details window shows it: its record with the command
    /// line it starts (or started) with, its folder even before it has one,
    /// its evaluations (no notes: runNotes); nullopt when unknown.
    std::optional<RunRecord> runRecord(RunId id) const;
    /// The notes kept in a run's folder.
    RunNotes runNotes(RunId id) const;
    /// Asks whoever runs `run`'s job about it (a cluster's controller,
    /// through its reach), asynchronously: `done` is called in `context`.
    /// False when nobody in this experiment can be asked.
    using JobDescribed = std::function<void(const QString &title, const QString &text)>;
    bool describeJob(const RunInfo &run, QObject *context, JobDescribed done) const;
    /// The experiment's sweeps as they run (the sweep view's model).
    SweepRunner *sweeps() const;
    int position(RunId id) const; ///< in its lane; -1 when unknown
    /// `base`, or the first free "base-N", for `repeat` runs.
    QString uniqueName(const QString &base, int repeat = 1) const;
    int finishedCount() const;
    int totalCount() const;
    int activeCount() const;
    /// No run is active and none waits to be dispatched.
    bool isIdle() const;
    bool cpuFallback() const;
    /// The threads each run on the CPU gets.
    int threadsPerCpuRun() const;
    /// The command line a run starts (or started) with.
    QStringList commandLine(RunId id) const;
    /// The lanes whose device is not on this machine (they fall back to CPU when allowed).
    QList<int> missingDeviceLanes() const;
    QStringList busyDeviceWarnings() const;
    QString workerProgram() const;
    /// The experiment's hosts (the machines of its "ssh:HOST/..." lanes).
    QList<ExperimentHost> hosts() const;
    /// The sweep `id` is a trial of (empty: none), and which trial.
    QString sweepOf(RunId id, int *trial = nullptr) const;
    /// Whether every trial of sweep `name` ended (finished, stopped or failed).
    bool isSweepDone(const QString &name) const;
    /// One line on how far sweep `name` is (its trials, its best so far).
    QString sweepProgress(const QString &name) const;
    /// What a run may run after besides runs: repeat groups, rounds,
    /// sweeps (name, what it is).
    QList<std::pair<QString, QString>> afterGroups() const;
    /// Whether `id` running after `name` would make runs wait for one another.
    bool wouldCycle(RunId id, const QString &name) const;
    /// The runs `id` waits for, and the runs waiting for it.
    QList<RunId> runsBefore(RunId id) const;
    QList<RunId> runsAfter(RunId id) const;

    // Run control; false with `error` set when refused.
    bool startRun(RunId id, QString *error = nullptr);
    bool stopRun(RunId id, QString *error = nullptr);
    bool pauseRun(RunId id, QString *error = nullptr);
    bool resumeRun(RunId id, QString *error = nullptr);
    bool retryRun(RunId id, bool fromCheckpoint, QString *error = nullptr);
    /// The attempt a retry of `id` would keep aside (empty: it resumes instead).
    QString attemptKeptOnRetry(RunId id) const;
    void startAll();
    void stopAll();
    void setCpuFallback(bool on);

    // Edits, one undo step each (BoardEdits, boardedits.h). Each returns false when
    // there is no such run or lane, or the board refused (then editFailed
    // said why).
    /// Queues `spec` `repeat` times on `lane` at `position` (-1: the end);
    /// `queued` receives the new runs.
    bool queueSpec(int lane, int position, const QJsonObject &spec, int repeat, QList<RunId> *queued = nullptr);
    /// Moves a run; true without a step when it is already there.
    bool moveRun(RunId id, int lane, int position);
    /// Queues a copy of a run's spec on `lane` at `position`.
    bool duplicateRun(RunId id, int lane, int position);
    bool removeRun(RunId id);
    /// Replaces the spec of a run that has not started. A run that has run
    /// keeps its folder and curves: its edited spec becomes a new run queued
    /// right after it, held while the others are being dispatched.
    bool editRun(RunId id, const QJsonObject &spec);
    /// Makes a run that is not active run after `after` (names of runs,
    /// repeat groups, rounds or sweeps; empty: nothing).
    bool setRunAfter(RunId id, const QStringList &after);
    bool addLane(const QString &device, int slotCount);
    bool removeLane(int lane); ///< an empty one
    bool editLane(int lane, const QString &device, int slotCount);
    bool renameLane(int lane, const QString &name); ///< empty: no name
    /// Adds `host` to the experiment and a lane per device of it.
    bool addHost(const ExperimentHost &host, const QStringList &devices);
    /// Adds a sweep built in the app (its trials come as its runner places them).
    bool addSweep(const SweepSpec &sweep);
    /// Moves `ids` in order to `lane`, the first at `position` counted in the
    /// lane as it is before the move (what a drop between two cards means).
    bool moveRuns(const QList<RunId> &ids, int lane, int position);
    /// Copies `ids` in order into `lane` from `position` on (a copy drop).
    bool copyRuns(const QList<RunId> &ids, int lane, int position);
    /// Duplicates each run `copies` times right after itself, each copy with a
    /// seed of its own; more than one copy is a repeat group (Board::duplicateSpec).
    bool duplicateRuns(const QList<RunId> &ids, int copies = 1);
    bool removeRuns(const QList<RunId> &ids);
    /// Undoes the last edit; an edit whose undo the board refuses (its run
    /// has started since) is dropped from the history instead of staying on
    /// top of it, and editFailed says why.
    void undo();
    void redo();

Q_SIGNALS:
    void cleanChanged(bool clean);
    /// Renamed (Save as of a new experiment moves its runs root too).
    void nameChanged(const QString &name);
    /// An edit was made, undone or redone.
    void edited();
    /// An edit (or its undo) was refused; the message says why.
    void editFailed(const QString &message);

    // The board's changes, in the order an item model needs them.
    void reset();
    void laneAboutToBeAdded(int index);
    void laneAdded(int index);
    void laneAboutToBeRemoved(int index);
    void laneRemoved(int index);
    /// Its device, slots, name or effective device (CPU fallback) changed.
    void laneChanged(int index);
    void runAboutToBeAdded(int lane, int position);
    void runAdded(trainyard::RunId id);
    void runAboutToBeRemoved(trainyard::RunId id);
    void runRemoved(trainyard::RunId id);
    void runAboutToBeMoved(trainyard::RunId id, int fromLane, int fromPosition, int toLane, int toPosition);
    void runMoved(trainyard::RunId id);
    /// A run's record changed (state, device, times, ...).
    void runChanged(trainyard::RunId id);
    /// New metrics moved these runs' progress (batched).
    void progressChanged(const QList<trainyard::RunId> &ids);
    /// A run's earlier attempt was kept aside in `archivedDir` (a retry).
    void attemptArchived(trainyard::RunId id, const QString &archivedDir);
    void finishCountChanged(int finished, int total);
    /// A run ended (finished, failed, stopped, ...).
    void runEnded(trainyard::RunId id, trainyard::RunState state);
    /// No run is active and none waits to be dispatched.
    void idle();
    /// Something the user should read (a lane fell back to CPU, ...).
    void warning(const QString &text);

private:
    void connectParts();
    Orchestrator *orchestrator() const;

    std::unique_ptr<Session> m_owned;
    Session *m_session;
    QUndoStack *m_undo;
    BoardEdits *m_edits;
};

} // namespace trainyard
