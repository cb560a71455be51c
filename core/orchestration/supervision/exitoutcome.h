#pragma once

#include "orchestration/ingest/ingestion.h"
#include "orchestration/records/exittext.h"
#include "orchestration/records/runinfo.h"

#include <QString>

namespace trainyard {

class RunRegistry;
class RunStore;

// How a launched run ended, from what the Supervisor knows when the
// launcher reports its exit, to the state and the message the user sees.
// Pure (it only reads the last line of worker.log), so every case is
// tested on its own (tests/orchestration/tst_supervisor.cpp).
struct ExitFacts
{
    int exitCode = -1; // -1: killed by `signal`, or unknown
    int signal = 0;
    bool killed = false;    // killed on purpose (stop escalation, killAll)
    QString killMessage;    // ... and why ("did not stop within 30 s; killed")
    bool pending = false;   // it was waiting in a queue, never ran
    bool cancelled = false; // ... and was stopped there
    QString pendingReason;
    bool doneSeen = false; // the worker's "done" line: its status wins over the exit status
    QString doneStatus;
    int doneExit = -1;
    // What else the run reported since it started (Ingestion::done): a
    // worker always reports steps, a program with the module always writes
    // lines; a loss NaN or infinite from a step to the end is divergence.
    qint64 lines = 0;
    bool metricSeen = false;
    qint64 nonFiniteLossFrom = -1; // -1: the last loss was finite, or none came
    QString runDir;                // worker.log's last line goes with failures
    QString jobId;                 // a batch job's: a SIGTERM nobody here sent is the queue's cancel
    bool program = false;          // a program run: its exit status is its own, not protocol::ExitCode
    bool stopAsked = false;        // the user stopped it (a program that then exits 0, 4 or on SIGTERM stopped)
    // A batch queue's own reason it ended the job (Launcher::endedBecause): it failed so.
    QString queueEnd;

    // What `run` reported (Ingestion::done); the launcher's side (exit
    // status, signal, stop) is the caller's.
    static ExitFacts reported(const RunInfo &run, const Ingestion::Done &done);
};

struct ExitOutcome
{
    RunState state = RunState::Failed;
    QString message;
    int exitCode = -1; // the exit status to record (the done line's when the launcher could not know)
};

ExitOutcome exitOutcome(const ExitFacts &facts);

// Writes the ended `run` to its status.json; what kept it from being
// written is added to its message. A run folder removed under a live run
// (an attached job's, often) is made again, one level and never through a
// link; else the outcome stays in this session and the message says why.
void recordOutcome(const RunStore &store, RunInfo *run);

// A run killed without an event loop (Supervisor::killNow): Failed with
// `message`, no longer connected, ended now, quietly (no signals there),
// and its status.json written.
void recordKilled(RunRegistry *runs, RunStore *store, RunId id, const QString &message);

// The end of worker.log for a failure: its last line, or for a program run
// its Python traceback, a chained one whole (from the first "Traceback (most
// recent call last):" of the chain, with Python's "The above exception was
// the direct cause of the following exception:" between the parts) or its
// last few lines; at most `maxLines`, cut at the top with a first line
// "… N lines cut, see worker.log" when longer.
QString logTail(const QString &runDir, int maxLines);
// The last line of worker.log's end that says the GPU ran out of memory
// (PyTorch's OutOfMemoryError, CUDA's or cuBLAS's), trimmed; empty when none.
QString outOfMemoryLine(const QString &runDir);
// How the message of a run that ran out of GPU memory begins.
inline const QString kOutOfMemory = QStringLiteral("out of memory");

// The run state of a worker exit status (core/protocol/exitcode.h, the one
// table): finished, stopped, diverged; failed for everything else.
RunState stateForExit(int code);

} // namespace trainyard
