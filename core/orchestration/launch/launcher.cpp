#include "orchestration/launch/launcher.h"
#include "orchestration/devices/device.h"

#include <QSysInfo>

namespace trainyard {

namespace {

// The variables Trainyard sets for a run: the one list of their names.
const QString kToken = QStringLiteral("TRAINYARD_TOKEN");
const QString kThreads = QStringLiteral("OMP_NUM_THREADS");
const QString kRunDir = QStringLiteral("TRAINYARD_RUN_DIR");
const QString kRunName = QStringLiteral("TRAINYARD_RUN_NAME");
const QString kConnect = QStringLiteral("TRAINYARD_CONNECT");
const QString kResume = QStringLiteral("TRAINYARD_RESUME");
const QString kDevice = QStringLiteral("TRAINYARD_DEVICE");
const QString kSeed = QStringLiteral("TRAINYARD_SEED");
const QString kConfig = QStringLiteral("TRAINYARD_CONFIG");
const QString kInputs = QStringLiteral("TRAINYARD_INPUTS");
const QString kMasterAddr = QStringLiteral("MASTER_ADDR");
const QString kMasterPort = QStringLiteral("MASTER_PORT");

} // namespace

QStringList LaunchSpec::arguments() const
{
    if (isProgram()) {
        return programArgv.mid(1);
    }
    QStringList args{QStringLiteral("--spec"), specPath, QStringLiteral("--run-dir"), runDir};
    if (!connect.isEmpty()) {
        args << QStringLiteral("--connect") << connect;
    }
    // CUDA_VISIBLE_DEVICES leaves the worker exactly one GPU: its cuda:0.
    const bool gpu = device.isCuda();
    args << QStringLiteral("--device") << (gpu ? QStringLiteral("cuda:0") : QStringLiteral("cpu"));
    if (threads > 0) {
        args << QStringLiteral("--threads") << QString::number(threads);
    }
    if (resume) {
        args << QStringLiteral("--resume");
    }
    if (cpuFallback) {
        args << QStringLiteral("--cpu-fallback");
    }
    return args;
}

QStringList LaunchSpec::commandLine() const
{
    return QStringList{program} + arguments();
}

QList<std::pair<QString, QString>> LaunchSpec::environment() const
{
    QList<std::pair<QString, QString>> env;
    // The token goes in the environment, not on the command line, where
    // every local user could read it (ps, /proc/PID/cmdline).
    if (!token.isEmpty()) {
        env.append({kToken, token});
    }
    if (threads > 0) {
        env.append({kThreads, QString::number(threads)});
    }
    if (masterPort > 0) {
        env.append({kMasterAddr, QStringLiteral("127.0.0.1")});
        env.append({kMasterPort, QString::number(masterPort)});
    }
    if (!isProgram()) {
        return env;
    }
    // The spec's own first: Trainyard's names are refused in a spec
    // (validateRunSpec), and would be overwritten here anyway.
    env.append(programEnv);
    if (!pythonPath.isEmpty()) {
        // `import trainyard` from a build tree; a spec's own PYTHONPATH, or
        // else the inherited one, comes after it.
        QString rest = qEnvironmentVariable("PYTHONPATH");
        for (const auto &[key, value] : programEnv) {
            rest = key == QLatin1String("PYTHONPATH") ? value : rest;
        }
        env.append({QStringLiteral("PYTHONPATH"), rest.isEmpty() ? pythonPath : pythonPath + QLatin1Char(':') + rest});
    }
    env.append({kRunDir, runDir});
    env.append({kRunName, name});
    env.append({kConnect, connect});
    env.append({kResume, resume ? QStringLiteral("1") : QStringLiteral("0")});
    env.append({kDevice, device.isCuda() ? QStringLiteral("cuda:0") : QStringLiteral("cpu")});
    if (seed >= 0) {
        env.append({kSeed, QString::number(seed)});
    }
    if (!configPath.isEmpty()) {
        env.append({kConfig, configPath});
    }
    if (!inputsPath.isEmpty()) {
        env.append({kInputs, inputsPath});
    }
    return env;
}

QString LaunchSpec::visibleDevices() const
{
    const Device &d = target.isEmpty() ? device : target;
    if (!d.isGpu() || d.isAllGpus()) {
        return {};
    }
    QStringList indices;
    for (int i : d.gpuIndices()) {
        indices << QString::number(i);
    }
    return indices.join(QLatin1Char(','));
}

const QStringList &LaunchSpec::runVariableNames()
{
    static const QStringList names{kToken,  kThreads, kRunDir, kRunName, kConnect,    kResume,
                                   kDevice, kSeed,    kConfig, kInputs,  kMasterAddr, kMasterPort};
    return names;
}

QString Launcher::host(RunId) const
{
    return QSysInfo::machineHostName();
}

} // namespace trainyard
