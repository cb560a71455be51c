#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace trainyard {

// Where ssh goes for a cluster with `reach: "ssh"` or a host of the
// experiment file: `host`, `user`, `port`, `ssh_config`. Read and checked in
// one place so that no value can reach ssh as an option (a host or user
// never starts with "-"; the destination comes alone after "--").
struct SshTarget
{
    QString host;      // a host name, address or ssh config alias
    QString user;      // empty: ssh's default
    int port = 22;     // 22: ssh's own (its config's Port, or 22)
    QString sshConfig; // an ssh config file (ssh -F); empty: the user's

    // Reads the four keys of `o` (`host` required), each problem named by
    // its JSON path under `path`.
    static SshTarget fromJson(const QJsonObject &o, const QString &path, const QString &hostWhat, QStringList &errors);
    // Adds the keys that differ from the defaults to `o`.
    void insertInto(QJsonObject &o) const;
    // ssh's arguments for the destination, after its own options:
    // "[-p PORT] [-F SSH_CONFIG] [-l USER] -- HOST".
    QStringList arguments() const;
};

} // namespace trainyard
