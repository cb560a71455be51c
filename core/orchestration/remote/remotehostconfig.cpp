#include "orchestration/remote/remotehostconfig.h"

#include "orchestration/experiment/experiment.h"
#include "orchestration/ingest/runtimedir.h"

#include <QCryptographicHash>
#include <QDir>
#include <QSysInfo>

namespace trainyard {

RemoteHostConfig RemoteHostConfig::forHost(const ExperimentHost &host)
{
    RemoteHostConfig c;
    c.name = host.name;
    c.target = host.ssh;
    c.runsRoot = QDir::cleanPath(host.runsRoot);
    c.worker = host.worker;
    c.python = host.python;
    c.pollMs = host.pollSeconds * 1000;
    return c;
}

QString RemoteHostConfig::controlPath()
{
    // Only in the user's private folder: a master socket elsewhere (a shared
    // /tmp) could be bound first by another user and answer in ssh's name.
    // Without one, "none": every command makes its own connection.
    const QString runtime = userRuntimeDir();
    return runtime.isEmpty() ? QStringLiteral("none") : QStringLiteral("%1/trainyard-ssh-%C").arg(runtime);
}

QStringList RemoteHostConfig::sshOptions()
{
    const QString path = controlPath();
    return {QStringLiteral("-o"),
            QStringLiteral("BatchMode=yes"),
            QStringLiteral("-o"),
            QStringLiteral("StrictHostKeyChecking=yes"),
            QStringLiteral("-o"),
            path == QLatin1String("none") ? QStringLiteral("ControlMaster=no") : QStringLiteral("ControlMaster=auto"),
            QStringLiteral("-o"),
            QStringLiteral("ControlPath=%1").arg(path),
            QStringLiteral("-o"),
            QStringLiteral("ControlPersist=600"),
            QStringLiteral("-o"),
            QStringLiteral("ConnectTimeout=20"),
            QStringLiteral("-o"),
            QStringLiteral("ServerAliveInterval=10"),
            QStringLiteral("-o"),
            QStringLiteral("ServerAliveCountMax=3")};
}

QStringList RemoteHostConfig::sshCommand() const
{
    return QStringList{QStringLiteral("ssh")} + sshOptions() + target.arguments();
}

QStringList RemoteHostConfig::controlCommand(const QString &operation, const QStringList &extra) const
{
    return QStringList{QStringLiteral("ssh"),
                       QStringLiteral("-O"),
                       operation,
                       QStringLiteral("-o"),
                       QStringLiteral("BatchMode=yes"),
                       QStringLiteral("-o"),
                       QStringLiteral("ControlPath=%1").arg(controlPath())}
           + extra + target.arguments();
}

QString RemoteHostConfig::runDir(const QString &name) const
{
    return runsRoot + QLatin1Char('/') + name;
}

QString RemoteHostConfig::remoteSocket(const QString &localSocket, QString *why) const
{
    const QByteArray key = (QSysInfo::machineHostName() + QLatin1Char('\n') + localSocket).toUtf8();
    const QString hash =
        QString::fromLatin1(QCryptographicHash::hash(key, QCryptographicHash::Sha256).toHex().left(16));
    const QString path = runsRoot + QStringLiteral("/.trainyard/") + hash + QStringLiteral(".sock");
    // sockaddr_un holds 108 bytes on Linux (104 elsewhere), the NUL included.
    if (path.toUtf8().size() > 100) {
        if (why) {
            *why = QStringLiteral("host %1: its runs_root %2 is too long for the metrics socket there (%3 would be "
                                  "longer than 100 bytes); choose a shorter runs_root")
                       .arg(name, runsRoot, path);
        }
        return {};
    }
    return path;
}

} // namespace trainyard
