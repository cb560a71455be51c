#include "launcher.h"

#include <QSysInfo>

namespace trainyard {

QStringList LaunchSpec::arguments() const
{
    QStringList args{QStringLiteral("--spec"), specPath, QStringLiteral("--run-dir"), runDir};
    if (!connect.isEmpty())
        args << QStringLiteral("--connect") << connect;
    // CUDA_VISIBLE_DEVICES leaves the worker exactly one GPU: its cuda:0.
    const bool gpu = device.startsWith(QStringLiteral("cuda:"));
    args << QStringLiteral("--device") << (gpu ? QStringLiteral("cuda:0") : QStringLiteral("cpu"));
    if (threads > 0)
        args << QStringLiteral("--threads") << QString::number(threads);
    if (resume)
        args << QStringLiteral("--resume");
    if (cpuFallback)
        args << QStringLiteral("--cpu-fallback");
    return args;
}

QStringList LaunchSpec::commandLine() const
{
    return QStringList{program} + arguments();
}

QString Launcher::host(RunId) const
{
    return QSysInfo::machineHostName();
}

} // namespace trainyard
