#include "orchestration/check/experimentcheck.h"

#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/check/programrequirements.h"
#include "orchestration/check/speccheck.h"
#include "orchestration/devices/device.h"
#include "orchestration/devices/deviceinventory.h"
#include "orchestration/devices/gpupresence.h"
#include "orchestration/dispatch/cpuonlyworker.h"
#include "orchestration/experiment/programconfig.h"
#include "orchestration/launch/launcher.h"
#include "orchestration/remote/remotehostcheck.h"
#include "orchestration/runspec/runspecview.h"
#include "orchestration/slurm/slurmlanecheck.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>

#include <memory>

namespace trainyard {

namespace {

QString runPath(int lane, int run)
{
    return QStringLiteral("lanes[%1].runs[%2]").arg(lane).arg(run);
}

// A complaint about `path`: one that names a key of the spec ("data.path:
// ...", the worker's and programProblem's words) continues the JSON path;
// any other follows it. The run's name with it: what the window shows.
QString located(const QString &path, const QString &name, const QString &complaint)
{
    static const QRegularExpression key(QStringLiteral("^(data|model|program|train|eval|checkpoint|report)[.:\\[]"));
    if (key.match(complaint).hasMatch()) {
        return QStringLiteral("%1.%2 (run %3)").arg(path, complaint, name);
    }
    return QStringLiteral("%1 (run %2): %3").arg(path, name, complaint);
}

} // namespace

ExperimentCheck::ExperimentCheck(QString workerProgram, const DeviceInventory *devices)
    : m_workerProgram(std::move(workerProgram))
    , m_devices(devices)
{
}

QStringList ExperimentCheck::problems(const Experiment &experiment, QStringList *notes) const
{
    return dataProblems(experiment) + deviceProblems(experiment) + clusterProblems(experiment, notes)
           + requirementProblems(experiment, notes) + hostProblems(experiment, notes);
}

QByteArray ExperimentCheck::dataKey(const QJsonObject &spec)
{
    return QJsonDocument(RunSpecView(spec).data()).toJson(QJsonDocument::Compact);
}

QString ExperimentCheck::programProblem(const QJsonObject &spec)
{
    const RunSpecView view(spec);
    const QString cwd = view.programCwd();
    if (!cwd.isEmpty() && !QFileInfo(cwd).isDir()) {
        return QStringLiteral("program.cwd: %1 is not a folder").arg(cwd);
    }
    const QString program = programconfig::command(view).value(0);
    if (program.contains(QLatin1Char('/'))) {
        const QFileInfo file(QDir(cwd.isEmpty() ? QDir::currentPath() : cwd).filePath(program));
        if (!file.isFile() || !file.isExecutable()) {
            return QStringLiteral("program.argv[0]: %1 is not an executable file").arg(file.absoluteFilePath());
        }
    } else if (QStandardPaths::findExecutable(program).isEmpty()) {
        return QStringLiteral("program.argv[0]: %1 is not on PATH").arg(program);
    }
    return {};
}

QStringList ExperimentCheck::dataProblems(const Experiment &experiment, QSet<QByteArray> *passed) const
{
    QStringList problems;
    if (m_workerProgram.isEmpty() && experiment.hasWorkerRuns()) {
        problems << QStringLiteral("trainyard-worker not found (set TRAINYARD_WORKER or install it beside trainyard): "
                                   "the runs' data was not checked");
    }
    // One worker start per distinct data source, on the first run that uses it.
    QSet<QByteArray> seen;
    for (int l = 0; l < experiment.lanes.size(); ++l) {
        if (experiment.lanes.at(l).device.isRemote()) {
            continue; // its data and programs are the host's: hostProblems
        }
        const QList<ExperimentRun> &runs = experiment.lanes.at(l).runs;
        for (int i = 0; i < runs.size(); ++i) {
            const ExperimentRun &run = runs.at(i);
            const RunSpecView view(run.spec);
            const QString path = runPath(l, i);
            if (view.isProgram()) {
                if (run.invalid) { // its program's problems are the spec's, reported
                    continue;
                }
                if (const QString complaint = programProblem(run.spec); !complaint.isEmpty()) {
                    problems << located(path, view.effectiveName(), complaint);
                }
                continue;
            }
            if (m_workerProgram.isEmpty()) {
                continue;
            }
            // A spec with problems still has data to look at: the worker is
            // given that alone, with a model of its task.
            const QJsonObject spec = run.invalid ? dataProbe(run.spec, path) : expandRepeat(run.spec, 0, run.repeat);
            if (spec.isEmpty()) {
                continue;
            }
            const QByteArray data = dataKey(spec);
            if (seen.contains(data) || (passed && passed->contains(data))) {
                continue;
            }
            seen.insert(data);
            const QString complaint = checkSpec(spec);
            if (!complaint.isEmpty()) {
                problems << located(path, view.name().isEmpty() ? view.effectiveName() : view.name(), complaint);
            } else if (passed && !run.invalid) {
                passed->insert(data);
            }
        }
    }
    // A sweep's trials: each distinct data source among them, or a program base's command.
    for (int s = 0; s < experiment.sweeps.size(); ++s) {
        const SweepSpec &sweep = experiment.sweeps.at(s);
        const QString path = QStringLiteral("sweeps[%1].base").arg(s);
        const QJsonObject first = sweep.trialSpec(0);
        if (sweep.base.isEmpty() || !validateRunSpec(first, path, false, m_catalogue).isEmpty()) {
            continue; // its problems are the file's, reported
        }
        if (RunSpecView(first).isProgram()) {
            if (const QString complaint = programProblem(first); !complaint.isEmpty()) {
                problems << located(path, sweep.name, complaint);
            }
            continue;
        }
        for (int i = 0; i < sweep.trialCount() && !m_workerProgram.isEmpty(); ++i) {
            const QJsonObject spec = sweep.trialSpec(i);
            const QByteArray data = dataKey(spec);
            if (seen.contains(data) || (passed && passed->contains(data))) {
                continue;
            }
            seen.insert(data);
            if (const QString complaint = checkSpec(spec); !complaint.isEmpty()) {
                problems << located(path, SweepSpec::trialName(sweep.name, i), complaint);
            } else if (passed) {
                passed->insert(data);
            }
        }
    }
    return problems;
}

QJsonObject ExperimentCheck::dataProbe(const QJsonObject &spec, const QString &path) const
{
    if (!m_catalogue) {
        return {};
    }
    const QJsonValue data = spec.value(QStringLiteral("data"));
    const DataKindInfo *kind = data.isObject() ? m_catalogue->dataKind(RunSpecView(spec).dataKind()) : nullptr;
    if (!kind) {
        return {};
    }
    const CatalogueModel *model = m_catalogue->model(RunSpecView(spec).modelType());
    if (!model || model->task != kind->task) {
        model = nullptr;
        for (const CatalogueModel &candidate : m_catalogue->models()) {
            if (candidate.task == kind->task) {
                model = &candidate;
                break;
            }
        }
    }
    if (!model) {
        return {};
    }
    const QJsonObject probe{{QStringLiteral("name"), QStringLiteral("check")},
                            {QStringLiteral("model"), QJsonObject{{QStringLiteral("type"), model->type}}},
                            {QStringLiteral("data"), data}};
    // A data object with problems of its own was reported with the spec.
    return validateRunSpec(probe, path, false, m_catalogue).isEmpty() ? probe : QJsonObject();
}

QStringList ExperimentCheck::deviceProblems(const Experiment &experiment) const
{
    QStringList problems;
    for (int l = 0; l < experiment.lanes.size(); ++l) {
        const QString device = experiment.lanes.at(l).device.toString();
        const QString missing = m_devices ? missingGpus(experiment.lanes.at(l).device, *m_devices) : QString();
        if (missing.isEmpty() || m_cpuFallback) {
            continue;
        }
        const int gpus = m_devices->gpuCount();
        problems << QStringLiteral("lanes[%1].device: %2 is not on this machine, which has %3 GPU%4 (--cpu-fallback "
                                   "trains its runs on the CPU)")
                        .arg(l)
                        .arg(missing == device || missing == QLatin1String("any GPU")
                                 ? device
                                 : QStringLiteral("%1 of %2").arg(missing, device))
                        .arg(gpus)
                        .arg(gpus == 1 ? QString() : QStringLiteral("s"));
    }
    // A missing GPU under --cpu-fallback trains on the CPU: no CUDA needed.
    const QString cpuOnly = cpuonlyworker::reason(m_catalogue);
    for (int l = 0; l < experiment.lanes.size() && !cpuOnly.isEmpty() && !m_cpuFallback; ++l) {
        const ExperimentLane &lane = experiment.lanes.at(l);
        if (!cpuonlyworker::isLocalGpu(lane.device)) {
            continue;
        }
        bool workerRuns = false;
        for (const ExperimentRun &run : lane.runs) {
            workerRuns = workerRuns || !RunSpecView(run.spec).isProgram();
        }
        for (const SweepSpec &sweep : experiment.sweeps) {
            if (!RunSpecView(sweep.base).isProgram() && (sweep.lanes.isEmpty() || sweep.lanes.contains(l))) {
                workerRuns = true;
            }
        }
        if (workerRuns) {
            problems << QStringLiteral("lanes[%1].device: %2: %3; %4")
                            .arg(l)
                            .arg(lane.device.toString(), cpuOnly,
                                 cpuonlyworker::advice(false, QStringLiteral("use --cpu-fallback")));
        }
    }
    return problems;
}

QStringList ExperimentCheck::clusterProblems(const Experiment &experiment, QStringList *notes) const
{
    QStringList problems;
    QHash<QString, std::shared_ptr<SlurmLaneCheck>> laneChecks; // one per cluster
    QSet<QString> unreachable;
    QSet<QString> workerAsked; // one worker per cluster
    QSet<QString> lanes;       // device and gres already asked about
    for (int l = 0; l < experiment.lanes.size(); ++l) {
        const ExperimentLane &lane = experiment.lanes.at(l);
        const QString name = lane.device.cluster();
        const QString laneKey = lane.device.toString() + QLatin1Char('|') + lane.gres;
        if (name.isEmpty() || lanes.contains(laneKey)) {
            continue;
        }
        const ExperimentCluster *cluster = experiment.cluster(name);
        if (!cluster || unreachable.contains(name)) {
            continue; // undefined (load said so), or it did not answer or was not asked
        }
        if (!m_trusted && !cluster->commandLines().isEmpty()) {
            if (notes) {
                *notes << QStringLiteral("cluster %1 was not asked: its keys are commands, and this version of the "
                                         "file is not trusted")
                              .arg(name);
            }
            unreachable.insert(name);
            continue;
        }
        lanes.insert(laneKey);
        std::shared_ptr<SlurmLaneCheck> &laneCheck = laneChecks[name];
        if (!laneCheck) {
            SlurmClusterConfig config = SlurmClusterConfig::forCluster(*cluster);
            config.commandTimeoutMs = m_timeoutSeconds * 1000;
            laneCheck = std::make_shared<SlurmLaneCheck>(config);
        }
        // The job of the lane's first run that can be built, as Supervisor::launchSpec builds it.
        LaunchSpec job;
        job.name = QStringLiteral("trainyard-check");
        for (const ExperimentRun &run : lane.runs) {
            if (!run.invalid) {
                const RunSpecView view(expandRepeat(run.spec, 0, run.repeat));
                job.name = view.name();
                job.programArgv = programconfig::command(view);
                job.workingDir = view.programCwd();
                job.programEnv = view.programEnv();
                break;
            }
        }
        job.runDir = QDir(experiment.effectiveRunsRoot()).filePath(job.name);
        job.specPath = job.runDir + QStringLiteral("/spec.json");
        job.program = job.isProgram() ? job.programArgv.value(0) : m_workerProgram;
        job.target = lane.device;
        job.device = lane.device;
        job.gres = lane.gres;
        job.cpuFallback = m_cpuFallback && !job.isProgram();
        const SlurmLaneCheck::Result answer = laneCheck->check(job);
        const QString lanePath = QStringLiteral("lanes[%1].device (%2)").arg(l).arg(lane.device.toString());
        int index = 0;
        while (index < experiment.clusters.size() && experiment.clusters.at(index).name != name) {
            ++index;
        }
        if (!answer.reachable) {
            problems << QStringLiteral("clusters[%1]: %2").arg(index).arg(answer.cluster);
            laneChecks.remove(name);
            unreachable.insert(name);
            continue;
        }
        for (const QString &p : {answer.partition, answer.options}) {
            if (!p.isEmpty()) {
                problems << QStringLiteral("%1: %2").arg(lanePath, p);
            }
        }
        if (!answer.worker.isEmpty() && !workerAsked.contains(name)) {
            problems << QStringLiteral("clusters[%1].worker: %2").arg(index).arg(answer.worker);
        }
        workerAsked.insert(name);
    }
    return problems;
}

QStringList ExperimentCheck::requirementProblems(const Experiment &experiment, QStringList *notes) const
{
    // Each program run's spec as it would start (a repeat's, a sweep's first trial's), with its path.
    QList<std::pair<QString, QJsonObject>> specs;
    for (int l = 0; l < experiment.lanes.size(); ++l) {
        const QList<ExperimentRun> &runs = experiment.lanes.at(l).runs;
        for (int i = 0; i < runs.size(); ++i) {
            if (!runs.at(i).invalid && RunSpecView(runs.at(i).spec).isProgram()) {
                specs.append({runPath(l, i), expandRepeat(runs.at(i).spec, 0, runs.at(i).repeat)});
            }
        }
    }
    for (int s = 0; s < experiment.sweeps.size(); ++s) {
        const SweepSpec &sweep = experiment.sweeps.at(s);
        const QJsonObject first = sweep.trialSpec(0);
        if (!sweep.base.isEmpty() && RunSpecView(first).isProgram()
            && validateRunSpec(first, QString(), false, m_catalogue).isEmpty()) {
            specs.append({QStringLiteral("sweeps[%1].base").arg(s), first});
        }
    }
    QStringList problems;
    QSet<QString> asked;
    for (const auto &[path, spec] : std::as_const(specs)) {
        const ProgramRequirements requirements(spec, m_workerProgram);
        const QString name = RunSpecView(spec).effectiveName();
        if (requirements.isEmpty() || asked.contains(requirements.key()) || !programProblem(spec).isEmpty()) {
            continue; // nothing asked, asked already, or its program is missing (said above)
        }
        asked.insert(requirements.key());
        if (!m_trusted) {
            if (notes) {
                *notes << QStringLiteral("%1.program.requires was not checked (run %2): starting its interpreter "
                                         "runs the file's command, and this version of the file is not trusted "
                                         "(trainyard trust %3)")
                              .arg(path, name,
                                   experiment.sourcePath.isEmpty() ? QStringLiteral("FILE") : experiment.sourcePath);
            }
            continue;
        }
        QString note;
        if (const QString complaint = requirements.check(m_timeoutSeconds, &note); !complaint.isEmpty()) {
            problems << located(path, name, complaint);
        } else if (notes) {
            *notes << located(path, name, note);
        }
    }
    return problems;
}

QStringList ExperimentCheck::hostProblems(const Experiment &experiment, QStringList *notes) const
{
    QStringList problems;
    for (int h = 0; h < experiment.hosts.size(); ++h) {
        const ExperimentHost &host = experiment.hosts.at(h);
        QList<int> lanes;
        for (int l = 0; l < experiment.lanes.size(); ++l) {
            if (const Device &d = experiment.lanes.at(l).device; d.isRemote() && d.host() == host.name) {
                lanes << l;
            }
        }
        if (lanes.isEmpty()) {
            continue;
        }
        if (!m_trusted) {
            if (notes) {
                *notes << QStringLiteral(
                              "host %1 was not asked: its keys are commands, and this version of the file is "
                              "not trusted")
                              .arg(host.name);
            }
            continue;
        }
        RemoteHostConfig config = RemoteHostConfig::forHost(host);
        config.commandTimeoutMs = m_timeoutSeconds * 1000;
        RemoteHostCheck check(config);
        const RemoteHostCheck::Result answer = check.check();
        const QString hp = QStringLiteral("hosts[%1]").arg(h);
        if (!answer.reachable) {
            problems << QStringLiteral("%1: %2").arg(hp, answer.host);
            continue;
        }
        if (!answer.worker.isEmpty()) {
            problems << QStringLiteral("%1.worker: %2").arg(hp, answer.worker);
        }
        if (!answer.runsRoot.isEmpty()) {
            problems << QStringLiteral("%1.runs_root: %2").arg(hp, answer.runsRoot);
        }
        QSet<QByteArray> seen;
        for (int l : std::as_const(lanes)) {
            const Device &d = experiment.lanes.at(l).device;
            if (d.remoteIsCuda() && d.cudaIndex() >= qMax(0, answer.gpus)) {
                problems << QStringLiteral("lanes[%1].device: %2 is not on host %3, where nvidia-smi lists %4")
                                .arg(l)
                                .arg(d.toString(), host.name,
                                     answer.gpus < 0 ? QStringLiteral("nothing (no nvidia-smi)")
                                                     : QStringLiteral("%1 GPU%2")
                                                           .arg(answer.gpus)
                                                           .arg(answer.gpus == 1 ? QString() : QStringLiteral("s")));
            }
            if (!answer.worker.isEmpty()) {
                continue; // its data cannot be looked at without it
            }
            const QList<ExperimentRun> &runs = experiment.lanes.at(l).runs;
            for (int i = 0; i < runs.size(); ++i) {
                const RunSpecView view(runs.at(i).spec);
                if (runs.at(i).invalid || view.isProgram()) {
                    continue;
                }
                const QJsonObject spec = expandRepeat(runs.at(i).spec, 0, runs.at(i).repeat);
                if (seen.contains(dataKey(spec))) {
                    continue;
                }
                seen.insert(dataKey(spec));
                if (const QString complaint = check.checkData(spec); !complaint.isEmpty()) {
                    problems << located(runPath(l, i), view.name(), complaint);
                }
            }
        }
    }
    return problems;
}

QString ExperimentCheck::checkSpec(const QJsonObject &spec) const
{
    SpecCheck check(m_workerProgram);
    // "on_end" is Trainyard's (experiment/onend.h), never the worker's.
    QJsonObject workerSpec = spec;
    workerSpec.remove(QStringLiteral("on_end"));
    check.start(workerSpec);
    check.waitForFinished(m_timeoutSeconds * 1000);
    return check.complaint();
}

} // namespace trainyard
