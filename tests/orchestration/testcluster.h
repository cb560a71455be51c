#pragma once

// The one-node Slurm cluster of tests/slurm/start-cluster.sh for a whole
// test case: started in initTestCase, stopped in cleanupTestCase, its
// slurm.conf in SLURM_CONF for every Slurm command the test (and the code
// under test) runs. Where it cannot run (not root, Slurm or munge missing)
// skipReason() says why and the tests skip with it.

#include <QProcess>
#include <QString>
#include <QTest>

namespace trainyard::test {

class TestCluster
{
public:
    // False only on a real failure (the caller QVERIFYs it); a cluster that
    // cannot run here is not one.
    bool start(const QString &dir, QString *error)
    {
        const QString source = qEnvironmentVariable("TRAINYARD_SOURCE_DIR");
        if (source.isEmpty()) {
            m_skip = QStringLiteral("TRAINYARD_SOURCE_DIR is not set (run through ctest)");
            return true;
        }
        QProcess start;
        start.start(QStringLiteral("bash"), {source + QStringLiteral("/tests/slurm/start-cluster.sh"), dir});
        if (!start.waitForFinished(60000)) {
            *error = QStringLiteral("start-cluster.sh did not finish within 60 s");
            return false;
        }
        const QString err = QString::fromUtf8(start.readAllStandardError()).trimmed();
        if (start.exitCode() == 77) {
            m_skip = err;
            return true;
        }
        if (start.exitCode() != 0) {
            *error = err;
            return false;
        }
        m_dir = dir;
        qputenv("SLURM_CONF", (dir + QStringLiteral("/slurm.conf")).toUtf8());
        return true;
    }

    bool stop(QString *error)
    {
        if (m_dir.isEmpty()) {
            return true;
        }
        QProcess stop;
        stop.start(
            QStringLiteral("bash"),
            {qEnvironmentVariable("TRAINYARD_SOURCE_DIR") + QStringLiteral("/tests/slurm/stop-cluster.sh"), m_dir});
        const bool ok = stop.waitForFinished(60000) && stop.exitCode() == 0;
        if (!ok) {
            *error = QString::fromUtf8(stop.readAllStandardError());
        }
        m_dir.clear();
        return ok;
    }

    bool running() const { return !m_dir.isEmpty(); }
    QString skipReason() const { return m_skip; }
    QString dir() const { return m_dir; }

    // A Slurm command's standard output (SLURM_CONF is the cluster's).
    static QString run(const QStringList &command)
    {
        QProcess p;
        p.start(command.first(), command.mid(1));
        p.waitForFinished(20000);
        return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
    }

private:
    QString m_dir;
    QString m_skip;
};

} // namespace trainyard::test
