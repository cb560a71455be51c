#include "orchestration/supervision/runlaunch.h"

#include "orchestration/dependencies/runinputs.h"
#include "orchestration/devices/device.h"
#include "orchestration/experiment/programconfig.h"
#include "orchestration/ingest/metricsserver.h"
#include "orchestration/launch/workerprocess.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runspec/runspecview.h"
#include "orchestration/runstore/runconfigfile.h"
#include "orchestration/runstore/runstore.h"

namespace trainyard {

RunLaunch::RunLaunch(const RunRegistry *runs, RunStore *store, const MetricsServer *server, Launcher *launcher)
    : m_runs(runs)
    , m_store(store)
    , m_server(server)
    , m_launcher(launcher)
{
}

RunLaunch::Folder RunLaunch::prepare(RunId id, const StartOptions &options, QString *error, QString *archivedDir)
{
    const RunInfo *r = m_runs->find(id);
    if (!r) {
        return refuse(error, QStringLiteral("no such run")), Folder::Refused;
    }
    // A cluster or a host names its own worker where its runs go (the
    // launcher says when it has none): a login node needs no local one.
    const Device &device = options.device;
    if (m_workerProgram.isEmpty() && !RunSpecView(r->spec).isProgram() && !device.isSlurm() && !device.isRemote()) {
        return refuse(error, QStringLiteral(
                                 "trainyard-worker not found (set TRAINYARD_WORKER or install it beside trainyard)")),
               Folder::Refused;
    }
    if (!m_store->ensureRoot(error)) {
        return Folder::Refused;
    }
    if (const QString missing = m_inputs ? m_inputs->missing(id) : QString(); !missing.isEmpty()) {
        return refuse(error, QStringLiteral("not started: ") + missing), Folder::Refused;
    }
    if (!options.resume && m_store->hasResults(r->name)) {
        QString archived, why;
        if (!m_store->archiveRunDir(r->name, &archived, &why)) {
            return refuse(error, QStringLiteral("not started: its earlier results in %1 could not be kept as an "
                                                "attempt (%2); nothing in the folder was changed")
                                     .arg(m_store->runDir(r->name), why)),
                   Folder::Unkept;
        }
        *archivedDir = m_store->runDir(archived);
    } else if (!options.resume) {
        m_store->clearRunDir(r->name);
    }
    return Folder::Ready;
}

bool RunLaunch::writeFiles(RunId id, QString *error) const
{
    const RunInfo *r = m_runs->find(id);
    if (!r) {
        return refuse(error, QStringLiteral("no such run"));
    }
    const bool after = m_inputs && !r->after.isEmpty();
    if (!m_store->prepareRunDir(r->name, after ? m_inputs->resolvedSpec(id, r->spec) : r->spec, error)) {
        return false;
    }
    return !after || m_inputs->write(id, m_store->runDir(r->name), error);
}

LaunchSpec RunLaunch::spec(RunId id, const StartOptions &options) const
{
    LaunchSpec spec;
    const RunInfo *r = m_runs->find(id);
    if (!r) {
        return spec;
    }
    const QString dir = m_store->runDir(r->name);
    spec.program = m_workerProgram;
    spec.name = r->name;
    spec.specPath = dir + QStringLiteral("/spec.json");
    spec.runDir = dir;
    spec.connect = QStringLiteral("unix:") + m_server->socketPath();
    spec.device = options.device;
    spec.target = options.device;
    spec.threads = options.threads;
    spec.resume = options.resume;
    spec.gres = options.gres;
    spec.cpuFallback = options.cpuFallback;
    spec.masterPort = options.masterPort;
    const RunSpecView view(r->spec);
    if (view.isProgram()) {
        // Its config's values in place of the argv's {name}s: what runs,
        // what status.json records and what a reattach compares with.
        // With the values of the runs it runs after once it can start; the
        // placeholders as written before (what the trust list shows).
        const afterref::Values after = m_inputs ? m_inputs->values(id) : afterref::Values();
        spec.programArgv = programconfig::command(view, &after);
        if (spec.programArgv.isEmpty()) {
            spec.programArgv = programconfig::command(view);
        }
        if (r->spec.contains(QStringLiteral("config"))) {
            spec.configPath = runconfigfile::configPath(dir);
        }
        if (m_inputs && !r->after.isEmpty()) {
            spec.inputsPath = RunInputs::path(dir);
        }
        spec.program = spec.programArgv.value(0);
        spec.workingDir = view.programCwd();
        spec.programEnv = view.programEnv();
        spec.seed = view.seed().value_or(-1);
        spec.cpuFallback = false; // the worker's option; a program decides for itself
        spec.pythonPath = WorkerProcess::findPythonModule(m_workerProgram);
    }
    m_launcher->prepare(spec);
    return spec;
}

} // namespace trainyard
