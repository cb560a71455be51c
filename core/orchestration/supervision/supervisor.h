#pragma once

#include "orchestration/launch/launcher.h"
#include "orchestration/records/runinfo.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/supervision/launchprogress.h"
#include "orchestration/supervision/runlaunch.h"
#include "orchestration/supervision/runstatefile.h"
#include "orchestration/supervision/shutdown.h"
#include "orchestration/supervision/stallwatch.h"
#include "orchestration/supervision/supervisedruns.h"

#include <QElapsedTimer>
#include <QObject>
#include <QSet>
#include <QString>
#include <QTimer>

#include <functional>
#include <map>
#include <memory>

namespace trainyard {

struct ExitFacts;
class Ingestion;
class Launcher;
struct MetricRecord;
class MetricsServer;
class RunRegistry;
class StopEscalation;

// Every launched run's life, through the Launcher seam only: the launch
// (run folder, token, LaunchSpec), the exit -> state and message
// (protocol::ExitCode) or a failed launch, stop escalation, pause and
// resume, status.json, reattachment after a restart, and the shutdown. The
// runs it supervises, their stall watch and the state file are
// SupervisedRuns'; their way from the launch to training (started, pending
// in a queue, running, hello) is LaunchProgress'.
//
// Stop, per run: a StopEscalation (asked, SIGTERM, SIGKILL, a stop timeout
// per step; a pending run is cancelled in its queue).
//
// Shutdown is asynchronous (Shutdown): shutdown(false) stops every run and
// shutdownFinished() comes when all have ended; shutdown(true) leaves them
// running. The destructor kills what is left synchronously, without an
// event loop.
class Supervisor : public QObject
{
    Q_OBJECT
public:
    Supervisor(RunRegistry *runs, RunStore *store, MetricsServer *server, Ingestion *ingestion, Launcher *launcher,
               QObject *parent = nullptr);
    ~Supervisor() override;

    void setWorkerProgram(const QString &program) { m_launch.setWorkerProgram(program); }
    void setInputs(const RunInputs *inputs) { m_launch.setInputs(inputs); } // RunLaunch::setInputs
    QString workerProgram() const { return m_launch.workerProgram(); }
    void setStopTimeout(int ms) { m_stopTimeoutMs = ms; } // per stop step
    int stopTimeout() const { return m_stopTimeoutMs; }
    void setStallTimeout(int ms) { m_stall.setTimeout(ms); } // silence -> "stalled"

    // Launches `id` (its folder prepared; unless resuming, cleared, or kept
    // as an earlier attempt when it holds results): state
    // Starting. False with a message when it could not be launched at all
    // (the caller then fails the run with fail()).
    bool start(RunId id, const StartOptions &options, QString *error);
    // What start(id, options) hands the launcher, without the token (which
    // never shows): also the command line of a run that has not started.
    LaunchSpec launchSpec(RunId id, const StartOptions &options) const { return m_launch.spec(id, options); }
    bool stop(RunId id, QString *error = nullptr);
    bool pause(RunId id, QString *error = nullptr);
    bool resume(RunId id, QString *error = nullptr); // a paused run
    void killAll();                                  // "killed on request"
    // Ends a run that could not be launched: Failed with `message`.
    void fail(RunId id, const QString &message);

    bool isSupervised(RunId id) const { return m_supervised.contains(id); }
    QSet<qint64> workerPids() const { return m_supervised.workerPids(); }

    // Runs found on disk (HistoryLoader::load): finished, reattached,
    // ended while away, lost. Returns what the user must be told.
    // `startOptions`: what each run would be started with now
    // (StartPlanner::startOptions): a reattached run is handed to the
    // launcher as launchSpec() builds it, so a batch launcher resubmits it
    // (a requeue) as it would one started here.
    QStringList loadHistory(const std::function<StartOptions(RunId)> &startOptions);

    // For HistoryLoader: reattaches a run the state file names (Attached:
    // supervised again); ends a run (`record` false: the outcome stays in
    // this session, status.json untouched); what the run reported
    // (Ingestion::done) as facts for exitOutcome, the launcher's side (exit
    // status, signal, stop) left to the caller; writes the state file.
    Launcher::AttachResult reattach(RunId id, const RunStore::LiveWorker &live, const StartOptions &options,
                                    QString *why);
    void finishRun(RunId id, RunState state, const QString &message, bool record = true);
    ExitFacts reportedFacts(RunId id) const;
    void persistState() { m_supervised.persist(); }

    void shutdown(bool leaveRunning) { m_shutdown.begin(leaveRunning); } // Shutdown::begin
    bool isShuttingDown() const { return m_shutdown.isShuttingDown(); }
    QList<RunId> supervisedIds() const { return m_supervised.ids(); }
    int detachAll(); // shutdown(true)'s: each run trains on, detached; returns how many
    // Kills every supervised run now and waits for it (no event loop, no
    // signals): Failed with `message`, status.json written.
    void killNow(const QString &message);
    void forget(RunId id); // the run left the board
    void clear();          // a new board: forgets everything (killNow first)

Q_SIGNALS:
    void runEnded(trainyard::RunId id, trainyard::RunState state);
    void shutdownFinished();
    // A fresh start kept the folder's results as an earlier attempt (RunStore::archiveRunDir).
    void attemptArchived(trainyard::RunId id, const QString &archivedDir);

private:
    void onExited(RunId id, int exitCode, int signal);

    RunRegistry *m_runs;
    RunStore *m_store;
    MetricsServer *m_server;
    Ingestion *m_ingestion;
    Launcher *m_launcher;
    RunLaunch m_launch;
    int m_stopTimeoutMs = 15000;
    StallWatch m_stall{m_runs, this}; // a child: findChild<StallWatch *>() reaches its checked()
    SupervisedRuns m_supervised;
    LaunchProgress m_progress;
    Shutdown m_shutdown;
};

} // namespace trainyard
