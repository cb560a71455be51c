#pragma once

#include "orchestration/records/runinfo.h"

#include <QString>

namespace trainyard {

class Dependencies;
class Dispatcher;
class RunRegistry;
class StartPlanner;
class Supervisor;

// What the user does to one run, from the board, the control socket or a
// sweep: Start it now (an ended one starts again as Retry does), Stop
// (cancelled while it waits in its queue), Resume, Cancel and Retry. Each
// refuses with a message when the run's state does not allow it. The
// Dispatcher says whether and where it can start and launches it; the
// StartPlanner says whether it resumes or starts a new attempt; the
// Supervisor stops, pauses and resumes what runs.
class RunActions
{
public:
    RunActions(RunRegistry *runs, Supervisor *supervisor, Dispatcher *dispatcher, StartPlanner *plans);

    // Whose runs wait for others (an ended run may have to wait again).
    void setDependencies(Dependencies *dependencies) { m_dependencies = dependencies; }

    // Starts one queued run now if its lane has a free slot, else queues it
    // to start when one frees (saying so in its message); an ended one
    // (stopped, or put back by an undo) starts again as retryRun says.
    bool startRun(RunId id, QString *error = nullptr);
    // A queued or waiting run is cancelled; an active one is stopped (Supervisor::stop:
    // socket "stop", then SIGTERM, then SIGKILL after timeouts).
    bool stopRun(RunId id, QString *error = nullptr);
    // A stopped run starts again from its checkpoint; a paused one resumes.
    bool resumeRun(RunId id, QString *error = nullptr);
    bool cancelRun(RunId id, QString *error = nullptr); // queued or waiting -> cancelled
    // An ended run goes back to the queue. A run that did not finish and has
    // a checkpoint resumes from it (unless `fromCheckpoint` is false); any
    // other starts a new attempt: a folder holding results is kept as
    // NAME.attempt-N (Supervisor::attemptArchived) and the run starts in a
    // new NAME. Nothing is deleted or written over.
    bool retryRun(RunId id, bool fromCheckpoint = true, QString *error = nullptr);

private:
    RunRegistry *m_runs;
    Supervisor *m_supervisor;
    Dispatcher *m_dispatcher;
    StartPlanner *m_plans;
    Dependencies *m_dependencies = nullptr;
};

} // namespace trainyard
