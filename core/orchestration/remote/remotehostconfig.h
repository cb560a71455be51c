#pragma once

#include "orchestration/experiment/sshtarget.h"

#include <QString>
#include <QStringList>

namespace trainyard {

struct ExperimentHost;

// How Trainyard reaches one host of the experiment file (docs/remote.md):
// the ssh rules every connection follows, the folders and programs there.
struct RemoteHostConfig
{
    QString name; // the experiment's name for the host ("ssh:NAME/cuda:0")
    SshTarget target;
    QString runsRoot; // the experiment's run folders there
    QString worker;
    QString python;
    int pollMs = 2000;
    int commandTimeoutMs = 30000;
    qint64 maxBytesPerPoll = 8 << 20; // of each run's metrics.jsonl and worker.log per poll

    static RemoteHostConfig forHost(const ExperimentHost &host);

    // The options of every ssh Trainyard runs, to a host or a cluster:
    // BatchMode (never a prompt: a key, an agent, or a master the user
    // opened), host keys checked and never accepted, one master connection
    // per destination in the user's 0700 runtime folder (ControlMaster=auto,
    // ControlPersist: it outlives a command, and the app, by ten minutes).
    static QStringList sshOptions();
    // The master's control socket (the same ControlPath as sshOptions()).
    static QString controlPath();

    // ssh, its options and the destination: a command follows.
    QStringList sshCommand() const;
    // `ssh -O OPERATION` on the master (check, exit, forward with `extra`).
    QStringList controlCommand(const QString &operation, const QStringList &extra = {}) const;
    // The run folder of `name` there.
    QString runDir(const QString &name) const;
    // Where workers there connect: the forwarded end of `localSocket`
    // (runs_root/.trainyard/HASH.sock, HASH of this machine and that
    // socket); empty, with `why`, when the path would be too long for a
    // Unix socket.
    QString remoteSocket(const QString &localSocket, QString *why) const;
};

} // namespace trainyard
