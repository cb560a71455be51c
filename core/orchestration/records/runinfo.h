#pragma once

// Plain value types shared by the orchestration classes and their users (the
// desktop app, `trainyard run`). They travel through `const &` signals.

#include "metrics/runid.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <cmath>
#include <limits>

namespace trainyard {

// Where a run is in its life. Terminal states: Finished, Failed, Diverged,
// Stopped, Cancelled, Lost. Stalled is Running without a heartbeat for too long.
enum class RunState {
    Queued,   // waiting for a slot in its lane
    Starting, // process launched, no hello yet
    Running,
    Paused,
    Stalled,   // alive but silent longer than the watchdog allows
    Stopping,  // stop requested, waiting for the worker to checkpoint and exit
    Finished,  // exit 0
    Failed,    // exit 1/2, crash, signal, or vanished
    Diverged,  // exit 3 (loss NaN/inf)
    Stopped,   // exit 4 (stopped on request after a checkpoint); can resume
    Cancelled, // taken out of the queue before it started
    // Not adopted after a restart: what the state file names (a pid, a job
    // id) is not this run's, or the file was refused. The message says
    // why; nothing was signalled, and whatever runs there is left alone.
    Lost,
};

// Lower-case names as written to status.json ("queued", "running", ...).
QString runStateName(RunState state);
// Inverse of runStateName; returns false for an unknown name.
bool runStateFromName(const QString &name, RunState *state);
// True for states with a live worker process (Starting..Stopping).
bool isActive(RunState state);
// True for Finished, Failed, Diverged, Stopped, Cancelled, Lost.
bool isTerminal(RunState state);
// The state changes a run may make, the one table (RunRegistry checks every
// change against it; anything else is a bug, refused): Queued -> Starting,
// Running (reattached after a restart) or an end (cancelled, not launched,
// found ended on disk); Starting, Running, Stalled and Paused -> one another
// as the worker and its queue say (a requeue is Starting again), Stopping
// or an end; Stopping -> an end; an end -> Queued (a retry, a resume).
// Staying in a state is always allowed.
bool isAllowedTransition(RunState from, RunState to);

// Everything the user sees about one run. Returned by value from Orchestrator.
struct RunInfo
{
    RunId id = 0;
    QString name;        // unique in the experiment; also the run folder name
    QString group;       // the experiment entry's name for repeats, else == name
    int repeatIndex = 0; // 0-based index within its group
    int repeatCount = 1; // size of its group
    QJsonObject spec;    // exactly what goes into spec.json (no "repeat")
    int lane = -1;       // index of its lane
    RunState state = RunState::Queued;
    QString device; // device it runs / ran on ("cpu", "cuda:1")
    QString host;   // machine it runs / ran on (Launcher::host)
    QString runDir; // absolute path of its run folder
    // The worker's command line (program, then arguments) it was last started
    // with; empty until it starts. Orchestrator::commandLine also answers for
    // runs that have not started.
    QStringList command;
    qint64 pid = 0;
    QString queueReason;     // while a batch job waits in its queue: Slurm's reason ("Resources"); else empty
    QString jobId;           // a batch job's id (Slurm's), the newest after a requeue; empty for a local process
    bool connected = false;  // worker said hello on the metrics socket
    bool reattached = false; // found running at start, not our child
    // Queued, but left out of dispatching until the user starts it (startRun
    // or the next startAll): a run made while the others train, to be looked
    // at first.
    bool held = false;

    // Progress, from the latest metric line.
    qint64 step = -1;
    qint64 totalSteps = -1; // -1 when the worker did not say
    qint64 epoch = -1;
    double loss = std::numeric_limits<double>::quiet_NaN();
    double wall = 0;           // seconds since the run started (worker clock)
    double stepsPerSecond = 0; // recent rate
    double etaSeconds = -1;    // -1 when unknown
    double memBytes = -1;      // the worker's memory ("mem_bytes" of its metric lines); -1 when unknown

    // Outcome.
    int exitCode = -1;  // -1 while running or when killed by a signal
    int exitSignal = 0; // signal number when killed by one
    QString message;    // last error / status text for the user
    QDateTime started;
    QDateTime ended;
};

// Waiting in a batch queue (started, with the queue's reason): not running.
inline bool isPendingInQueue(const RunInfo &run)
{
    return run.state == RunState::Starting && !run.queueReason.isEmpty();
}

// How long a run that has ended trained, in seconds: the worker's own clock
// (its wall runs on across a stop and resume), else its last start to its
// end; -1 when neither is known.
double trainedSeconds(const RunInfo &run);

// How the board's edits and run control refuse: the message into `error`
// (when asked for), then false. One definition for Board, Dispatcher, Supervisor.
inline bool refuse(QString *error, const QString &text)
{
    if (error)
        *error = text;
    return false;
}

// One lane: a device and its ordered queue.
struct LaneInfo
{
    QString device;          // as written in the experiment ("cuda:2", "cpu")
    QString effectiveDevice; // where runs really go ("cpu" under CPU fallback)
    int slotCount = 1;       // runs at once
    QList<RunId> runs;       // queue order
};

} // namespace trainyard

Q_DECLARE_METATYPE(trainyard::RunId)
Q_DECLARE_METATYPE(trainyard::RunState)
Q_DECLARE_METATYPE(trainyard::RunInfo)
