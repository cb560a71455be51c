#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace trainyard {

class Experiment;

// A local file that a key of the experiment file points at and that can
// make something run: an ssh_config (ssh runs its ProxyCommand, LocalCommand,
// Match exec) and each file it Includes, a local cluster's `worker`. Trust
// covers its bytes as well as the experiment file's (TrustList), so editing
// one asks again. Where trust stops: the scripts and programs the commands
// start (a program run's .py file, a ProxyCommand's script, a host's worker
// and Python there) and the user's own ~/.ssh/config (docs/python.md#trust).
struct ReachedFile
{
    QString path;                        // absolute, as ssh or sbatch would open it
    QString what;                        // "host lab's ssh_config", "included by ~/lab/ssh_config"
    QByteArray sha256;                   // hex of the bytes; kAbsent or kNotRegular otherwise
    static const QByteArray kAbsent;     // no such file
    static const QByteArray kNotRegular; // a FIFO, a device, a folder: not read
};

// Every file `experiment`'s keys point at, each once, in file order, hashed now.
QList<ReachedFile> reachedFiles(const Experiment &experiment);

// The ssh config `config` and every file it Includes, as ssh reads them
// with -F: a relative Include is under ~/.ssh, `~` is the home folder,
// patterns are globbed, Includes nest up to 16 deep. Every Include line
// counts, also one under a Host or Match that would not apply (the file
// is read, never run: ssh -G would run a Match exec). Each with what
// included it.
QList<ReachedFile> sshConfigFiles(const QString &config, const QString &what);

// SHA-256 (hex) of the file at `path` (links followed, as ssh and exec
// follow them), without blocking on a FIFO: kAbsent or kNotRegular when it
// cannot be read as a regular file. `bytes`, when given, gets its first
// 4 MiB (a config's text).
QByteArray hashReachedFile(const QString &path, QByteArray *bytes = nullptr);

// `path` with the home folder as "~", for messages.
QString homeRelative(const QString &path);

} // namespace trainyard
