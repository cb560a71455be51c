#pragma once

// A "remote" host on this machine that the test cannot see into
// (docs/remote.md#tested-on-a-real-sshd): tests/slurm/start-sshd.sh with
// --private-root, so sshd and everything it starts live in a mount
// namespace of their own with a tmpfs as the host's runs root (the same
// path here is an empty folder), a generated host key pinned in a private
// known_hosts, a generated client key, and a fake nvidia-smi first on its
// commands' PATH printing the rows of DIR/gpus.csv and DIR/apps.csv (its
// one GPU process is pid 1: ps there names its user, another user's), or,
// with TRAINYARD_FAKE_NVML set there, the fake NVML's state. The
// fake worker is the host's worker (the same machine: its path works
// there). Where it cannot run (not root, no sshd, no unshare) skipReason()
// says why.

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QStringList>
#include <QTest>

namespace trainyard::test {

class TestRemoteHost
{
public:
    // `clusterDir`: also the test cluster (tests/slurm/start-cluster.sh)
    // in the same namespace, its jobs seeing the tmpfs (a cluster whose
    // files are not mounted here).
    bool start(const QString &dir, QString *error, const QString &size = QStringLiteral("64m"),
               const QString &clusterDir = QString())
    {
        const QString source = qEnvironmentVariable("TRAINYARD_SOURCE_DIR");
        if (source.isEmpty()) {
            m_skip = QStringLiteral("TRAINYARD_SOURCE_DIR is not set (run through ctest)");
            return true;
        }
        QDir().mkpath(dir + QStringLiteral("/bin"));
        m_dir = QDir(dir).absolutePath();
        // With TRAINYARD_FAKE_NVML set there, the fake NVML's state instead
        // (tests/helpers/fake-nvidia-smi.sh, copied beside it).
        QFile::remove(m_dir + QStringLiteral("/bin/fake-nvidia-smi.sh"));
        QFile::copy(source + QStringLiteral("/tests/helpers/fake-nvidia-smi.sh"),
                    m_dir + QStringLiteral("/bin/fake-nvidia-smi.sh"));
        writeFile(QStringLiteral("bin/nvidia-smi"), QByteArrayLiteral(R"sh(#!/bin/sh
# A fake nvidia-smi: the rows the test wrote, for the query it was asked.
here=$(dirname "$0")/..
if [ -n "${TRAINYARD_FAKE_NVML:-}" ]; then exec sh "$here/bin/fake-nvidia-smi.sh" "$@"; fi
case "$*" in
*--query-gpu=*) cat "$here/gpus.csv" ;;
*--query-compute-apps=*) cat "$here/apps.csv" 2>/dev/null ;;
*) echo "fake nvidia-smi: $*" >&2; exit 2 ;;
esac
)sh"));
        QFile::setPermissions(m_dir + QStringLiteral("/bin/nvidia-smi"), QFile::ReadOwner | QFile::WriteOwner
                                                                             | QFile::ExeOwner | QFile::ReadOther
                                                                             | QFile::ExeOther);
        setGpus(QByteArrayLiteral("0, NVIDIA H100 80GB HBM3, 37, 10240, 81559, 41, GPU-aaaa\n"
                                  "1, NVIDIA H100 80GB HBM3, 0, 3, 81559, 30, GPU-bbbb\n"),
                QByteArrayLiteral("GPU-bbbb, 1, 2048, /usr/bin/python3\n"));
        QStringList args{source + QStringLiteral("/tests/slurm/start-sshd.sh"),
                         m_dir + QStringLiteral("/sshd"),
                         QStringLiteral("-"),
                         QStringLiteral("--private-root"),
                         runsRoot(),
                         size,
                         QStringLiteral("--path"),
                         m_dir + QStringLiteral("/bin")};
        if (!clusterDir.isEmpty()) {
            args << QStringLiteral("--with-cluster") << clusterDir;
        }
        m_cluster = clusterDir;
        QProcess start;
        start.start(QStringLiteral("bash"), args);
        if (!start.waitForFinished(60000)) {
            *error = QStringLiteral("start-sshd.sh did not finish within 60 s");
            return false;
        }
        const QString err = QString::fromUtf8(start.readAllStandardError()).trimmed();
        if (start.exitCode() == 77) {
            m_skip = err;
            m_dir.clear();
            return true;
        }
        if (start.exitCode() != 0) {
            *error = err;
            return false;
        }
        m_running = true;
        return true;
    }

    // Ends the master connection Trainyard opened (it would outlive sshd
    // for ControlPersist), then sshd and whatever still runs in its
    // namespace.
    void stop()
    {
        if (!m_running) {
            return;
        }
        ssh({QStringLiteral("-O"), QStringLiteral("exit")});
        if (!m_cluster.isEmpty()) {
            QProcess::execute(QStringLiteral("bash"), {qEnvironmentVariable("TRAINYARD_SOURCE_DIR")
                                                           + QStringLiteral("/tests/slurm/stop-cluster.sh"),
                                                       m_cluster});
        }
        QProcess::execute(QStringLiteral("bash"),
                          {qEnvironmentVariable("TRAINYARD_SOURCE_DIR") + QStringLiteral("/tests/slurm/stop-sshd.sh"),
                           m_dir + QStringLiteral("/sshd")});
        m_running = false;
    }

    bool running() const { return m_running; }
    QString skipReason() const { return m_skip; }
    QString dir() const { return m_dir; }
    QString sshConfig() const { return m_dir + QStringLiteral("/sshd/ssh_config"); }
    // The host's runs root: a tmpfs there, an empty folder here.
    QString runsRoot() const { return m_dir + QStringLiteral("/remote-runs"); }

    void setGpus(const QByteArray &gpus, const QByteArray &apps)
    {
        writeFile(QStringLiteral("gpus.csv"), gpus);
        writeFile(QStringLiteral("apps.csv"), apps);
    }

    // A command on the host (through its own connection, not Trainyard's
    // master): its standard output, or "" when it failed.
    QByteArray run(const QString &shellCommand, int *exitCode = nullptr) const
    {
        QProcess p;
        p.start(QStringLiteral("ssh"),
                {QStringLiteral("-F"), sshConfig(), QStringLiteral("-o"), QStringLiteral("BatchMode=yes"),
                 QStringLiteral("-o"), QStringLiteral("ControlMaster=no"), QStringLiteral("-o"),
                 QStringLiteral("ControlPath=none"), QStringLiteral("127.0.0.1"), shellCommand});
        p.waitForFinished(30000);
        if (exitCode) {
            *exitCode = p.exitCode();
        }
        return p.exitCode() == 0 ? p.readAllStandardOutput() : QByteArray();
    }

    // `ssh -O …` on the master Trainyard uses for this host.
    QByteArray ssh(const QStringList &control) const
    {
        const QString runtime = QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation);
        QProcess p;
        p.start(QStringLiteral("ssh"), QStringList{QStringLiteral("-F"), sshConfig(), QStringLiteral("-o"),
                                                   QStringLiteral("ControlPath=%1/trainyard-ssh-%C").arg(runtime)}
                                           + control + QStringList{QStringLiteral("127.0.0.1")});
        p.waitForFinished(10000);
        return p.readAllStandardError() + p.readAllStandardOutput();
    }

    // The master's pid (`ssh -O check`), 0 when none runs.
    qint64 masterPid() const
    {
        const QString out = QString::fromUtf8(ssh({QStringLiteral("-O"), QStringLiteral("check")}));
        const qsizetype at = out.indexOf(QStringLiteral("pid="));
        return at < 0 ? 0 : out.mid(at + 4).section(QLatin1Char(')'), 0, 0).toLongLong();
    }

private:
    void writeFile(const QString &name, const QByteArray &bytes)
    {
        QFile f(m_dir + QLatin1Char('/') + name);
        if (f.open(QIODevice::WriteOnly)) {
            f.write(bytes);
        }
    }

    QString m_dir;
    QString m_cluster;
    QString m_skip;
    bool m_running = false;
};

} // namespace trainyard::test
