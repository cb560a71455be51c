#include "experimentcheck.h"

#include "deviceinventory.h"
#include "runspecview.h"
#include "speccheck.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSet>
#include <QStandardPaths>

namespace trainyard {

ExperimentCheck::ExperimentCheck(QString workerProgram, const DeviceInventory *devices)
    : m_workerProgram(std::move(workerProgram))
    , m_devices(devices)
{
}

QStringList ExperimentCheck::problems(const Experiment &experiment) const
{
    return dataProblems(experiment) + deviceProblems(experiment);
}

QByteArray ExperimentCheck::dataKey(const QJsonObject &spec)
{
    return QJsonDocument(RunSpecView(spec).data()).toJson(QJsonDocument::Compact);
}

QString ExperimentCheck::programProblem(const QJsonObject &spec)
{
    const RunSpecView view(spec);
    const QString cwd = view.programCwd();
    if (!cwd.isEmpty() && !QFileInfo(cwd).isDir())
        return QStringLiteral("program.cwd: %1 is not a folder").arg(cwd);
    const QString program = view.programArgv().value(0);
    if (program.contains(QLatin1Char('/'))) {
        const QFileInfo file(QDir(cwd.isEmpty() ? QDir::currentPath() : cwd).filePath(program));
        if (!file.isFile() || !file.isExecutable())
            return QStringLiteral("program.argv[0]: %1 is not an executable file").arg(file.absoluteFilePath());
    } else if (QStandardPaths::findExecutable(program).isEmpty()) {
        return QStringLiteral("program.argv[0]: %1 is not on PATH").arg(program);
    }
    return {};
}

QStringList ExperimentCheck::dataProblems(const Experiment &experiment, QSet<QByteArray> *passed) const
{
    QStringList problems;
    if (m_workerProgram.isEmpty() && experiment.hasWorkerRuns())
        problems << QStringLiteral("trainyard-worker not found (set TRAINYARD_WORKER or install it beside trainyard): "
                                   "the runs' data was not checked");
    // One worker start per distinct data source, on the first run that uses it.
    QSet<QByteArray> seen;
    for (int l = 0; l < experiment.lanes.size(); ++l) {
        for (const ExperimentRun &run : experiment.lanes.at(l).runs) {
            if (RunSpecView(run.spec).isProgram()) {
                if (const QString complaint = programProblem(run.spec); !complaint.isEmpty())
                    problems << QStringLiteral("lane %1, run %2: %3")
                                    .arg(l + 1)
                                    .arg(RunSpecView(run.spec).effectiveName(), complaint);
                continue;
            }
            if (m_workerProgram.isEmpty())
                continue;
            const QByteArray data = dataKey(run.spec);
            if (seen.contains(data) || (passed && passed->contains(data)))
                continue;
            seen.insert(data);
            const QString complaint = checkSpec(expandRepeat(run.spec, 0, run.repeat));
            if (!complaint.isEmpty())
                problems
                    << QStringLiteral("lane %1, run %2: %3").arg(l + 1).arg(RunSpecView(run.spec).name(), complaint);
            else if (passed)
                passed->insert(data);
        }
    }
    return problems;
}

QStringList ExperimentCheck::deviceProblems(const Experiment &experiment) const
{
    QStringList problems;
    for (int l = 0; l < experiment.lanes.size(); ++l) {
        const QString device = experiment.lanes.at(l).device;
        if (device == QLatin1String("cpu") || !m_devices || m_devices->hasDevice(device) || m_cpuFallback)
            continue;
        const int gpus = m_devices->gpuCount();
        problems << QStringLiteral("lane %1 names %2, but this machine has %3 GPU%4 (--cpu-fallback trains its runs "
                                   "on the CPU)")
                        .arg(l + 1)
                        .arg(device)
                        .arg(gpus)
                        .arg(gpus == 1 ? QString() : QStringLiteral("s"));
    }
    return problems;
}

QString ExperimentCheck::checkSpec(const QJsonObject &spec) const
{
    SpecCheck check(m_workerProgram);
    check.start(spec);
    check.waitForFinished(m_timeoutSeconds * 1000);
    return check.complaint();
}

} // namespace trainyard
