#include "experimentcheck.h"

#include "deviceinventory.h"
#include "logcategories.h"
#include "runspecview.h"

#include <QJsonDocument>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>

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

QStringList ExperimentCheck::dataProblems(const Experiment &experiment) const
{
    if (m_workerProgram.isEmpty())
        return {QStringLiteral("trainyard-worker not found (set TRAINYARD_WORKER or install it beside trainyard): "
                               "the runs' data was not checked")};
    QStringList problems;
    // One worker start per distinct data source, on the first run that uses it.
    QSet<QByteArray> seen;
    for (int l = 0; l < experiment.lanes.size(); ++l) {
        for (const ExperimentRun &run : experiment.lanes.at(l).runs) {
            const RunSpecView view(run.spec);
            const QByteArray data = QJsonDocument(view.data()).toJson(QJsonDocument::Compact);
            if (seen.contains(data))
                continue;
            seen.insert(data);
            const QString complaint = checkSpec(expandRepeat(run.spec, 0, run.repeat));
            if (!complaint.isEmpty())
                problems << QStringLiteral("lane %1, run %2: %3").arg(l + 1).arg(view.name(), complaint);
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
    QTemporaryDir dir;
    if (!dir.isValid())
        return QStringLiteral("cannot create a temporary folder to check the spec in");
    const QString path = dir.filePath(QStringLiteral("spec.json"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(spec).toJson()) < 0)
        return QStringLiteral("%1: cannot write the spec to check").arg(path);
    file.close();
    QProcess worker;
    worker.setProcessChannelMode(QProcess::SeparateChannels);
    worker.start(m_workerProgram, {QStringLiteral("--check"), QStringLiteral("--spec"), path});
    if (!worker.waitForStarted(10000))
        return QStringLiteral("%1 did not start: %2").arg(m_workerProgram, worker.errorString());
    if (!worker.waitForFinished(m_timeoutSeconds * 1000)) {
        worker.kill();
        worker.waitForFinished(2000);
        return QStringLiteral("%1 --check did not answer within %2 s").arg(m_workerProgram).arg(m_timeoutSeconds);
    }
    if (worker.exitStatus() == QProcess::NormalExit && worker.exitCode() == 0)
        return {};
    QString text = QString::fromUtf8(worker.readAllStandardError()).trimmed();
    text.remove(QStringLiteral("trainyard-worker: "));
    qCInfo(lcExperiment).noquote() << "worker check of" << RunSpecView(spec).name() << "failed:" << text;
    if (text.isEmpty())
        text = QStringLiteral("%1 --check failed (exit %2)").arg(m_workerProgram).arg(worker.exitCode());
    // The spec was written to a temporary file: name what the user wrote instead.
    return text.replace(path, QStringLiteral("spec"));
}

} // namespace trainyard
