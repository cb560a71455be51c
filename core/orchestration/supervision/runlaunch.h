#pragma once

#include "orchestration/launch/launcher.h"
#include "orchestration/records/runinfo.h"

#include <QString>

namespace trainyard {

class MetricsServer;
class RunInputs;
class RunRegistry;
class RunStore;

// What a run is started with (StartPlanner::startOptions).
struct StartOptions
{
    Device device;   // where it runs ("cpu", "cuda:1")
    int threads = 0; // 0: the worker decides
    bool resume = false;
    QString gres;             // a Slurm lane's request per run; empty: the cluster's default
    bool cpuFallback = false; // a Slurm lane: a node without a usable GPU trains on its CPU
    int masterPort = 0;       // a run of several GPUs: MASTER_PORT for its ranks; 0: none
};

// A start's launch, before the launcher has it: the worker program, the
// run folder made ready (a fresh start never writes over results: a folder
// that holds some is kept as an earlier attempt, one without is cleared,
// notes kept), and the LaunchSpec, a worker's or a program's.
class RunLaunch
{
public:
    RunLaunch(const RunRegistry *runs, RunStore *store, const MetricsServer *server, Launcher *launcher);

    void setWorkerProgram(const QString &program) { m_workerProgram = program; }
    QString workerProgram() const { return m_workerProgram; }
    // What runs get from the runs they run after (nullptr: nothing).
    void setInputs(const RunInputs *inputs) { m_inputs = inputs; }

    enum class Folder {
        Ready,
        Refused, // `error` says why; nothing changed
        // Its earlier results could not be kept as an attempt: it must not
        // start, and it ends here in this session only (`error` says why)
        // rather than write its failure over them.
        Unkept,
    };
    // Checks that `id` can start with `options` (and has what it needs from
    // the runs it runs after) and makes its folder ready for it; a kept
    // attempt's folder in `archivedDir`.
    Folder prepare(RunId id, const StartOptions &options, QString *error, QString *archivedDir);
    // Writes the run's files for its start (RunStore::prepareRunDir: spec.json,
    // config.json; inputs.json for a run with an "after").
    bool writeFiles(RunId id, QString *error) const;
    // What a start hands the launcher, without the token (which never
    // shows): also the command line of a run that has not started.
    LaunchSpec spec(RunId id, const StartOptions &options) const;

private:
    const RunRegistry *m_runs;
    RunStore *m_store;
    const MetricsServer *m_server;
    Launcher *m_launcher;
    const RunInputs *m_inputs = nullptr;
    QString m_workerProgram;
};

} // namespace trainyard
