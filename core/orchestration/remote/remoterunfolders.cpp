#include "orchestration/remote/remoterunfolders.h"

#include "metrics/runfile.h"
#include "orchestration/logcategories.h"
#include "orchestration/process/processrunner.h"
#include "orchestration/remote/remoteattachcheck.h"
#include "orchestration/remote/sshmaster.h"

#include <QFile>

namespace trainyard {

RemoteRunFolders::RemoteRunFolders(RemoteHostConfig config, QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_master(new SshMaster(m_config, this))
{
    m_timer.setInterval(qMax(100, m_config.pollMs));
    connect(&m_timer, &QTimer::timeout, this, &RemoteRunFolders::poll);
}

RemoteRunFolders::~RemoteRunFolders() = default;

int RemoteRunFolders::commandCount() const
{
    return m_master->commandCount();
}

void RemoteRunFolders::prepare(LaunchSpec &spec) const
{
    if (!spec.mirrorDir.isEmpty()) {
        return;
    }
    spec.mirrorDir = spec.runDir;
    spec.runDir = m_config.runDir(spec.name);
    spec.specPath = spec.runDir + QStringLiteral("/spec.json");
    if (!spec.configPath.isEmpty()) {
        spec.configPath = spec.runDir + QStringLiteral("/config.json");
    }
}

void RemoteRunFolders::make(const LaunchSpec &spec, QObject *context, std::function<void(const QString &error)> done)
{
    const QString where =
        tr("cluster %1: the run folder %2 could not be made ready there").arg(m_config.name, spec.runDir);
    // The mirror's copies, read as every run-folder file is: a link or a
    // FIFO put there is refused, never sent or waited on.
    QByteArray specBytes, config;
    QString error;
    if (!readRegularFile(spec.mirrorDir + QStringLiteral("/spec.json"), &specBytes, &error)
        || (!spec.configPath.isEmpty()
            && !readRegularFile(spec.mirrorDir + QStringLiteral("/config.json"), &config, &error))) {
        QMetaObject::invokeMethod(
            context, [done, where, error] { done(QStringLiteral("%1: %2").arg(where, error)); }, Qt::QueuedConnection);
        return;
    }
    const QString runDir = spec.runDir;
    m_master->run(remotescripts::prepare(m_config.runsRoot, runDir, spec.resume), specBytes, context,
                  [this, context, done, where, config, runDir](const ProcessResult &r) {
                      if (!r.ok()) {
                          done(QStringLiteral("%1: %2").arg(where, r.message(QStringLiteral("ssh"))));
                          return;
                      }
                      if (config.isEmpty()) {
                          done(QString());
                          return;
                      }
                      m_master->run(
                          remotescripts::writeFile(runDir, QStringLiteral("config.json")), config, context,
                          [done, where](const ProcessResult &r) {
                              done(r.ok() ? QString()
                                          : QStringLiteral("%1: %2").arg(where, r.message(QStringLiteral("ssh"))));
                          });
                  });
}

void RemoteRunFolders::follow(RunId run, const LaunchSpec &spec, bool syncFirst)
{
    RemoteRun r;
    r.spec = spec;
    r.mirror = RemoteMirror(spec.mirrorDir);
    if (syncFirst) {
        RemoteAttachCheck(m_config, *m_master).sync(r, qMin(20000, m_config.commandTimeoutMs));
    }
    m_runs.insert(run, r);
    if (!m_timer.isActive()) {
        m_timer.start();
    }
}

void RemoteRunFolders::finish(RunId run, std::function<void()> done)
{
    if (!m_runs.contains(run)) {
        done();
        return;
    }
    m_finishing.insert(run, std::move(done));
    QTimer::singleShot(0, this, &RemoteRunFolders::poll);
}

void RemoteRunFolders::poll()
{
    if (m_runs.isEmpty()) {
        m_timer.stop();
    }
    if (m_polling || m_runs.isEmpty()) {
        return;
    }
    m_polling = true;
    QList<RunId> ids;
    QList<remotescripts::PollRun> runs;
    for (auto it = m_runs.cbegin(); it != m_runs.cend(); ++it) {
        ids << it.key();
        runs << it->pollRun(true); // no pid: a job's process is Slurm's to watch
    }
    m_master->run(remotescripts::poll(false, m_config.maxBytesPerPoll, runs), {}, this,
                  [this, ids](const ProcessResult &r) {
                      m_polling = false;
                      const remotescripts::PollReport report = remotescripts::parsePoll(r.out, int(ids.size()));
                      if (!r.ok() || !report.complete) {
                          // Down or slow: the jobs run on; the next poll asks again.
                          qCWarning(lcRemote, "cluster %s: its run folders could not be read: %s",
                                    qUtf8Printable(m_config.name), qUtf8Printable(r.message(QStringLiteral("ssh"))));
                          return;
                      }
                      bool again = false;
                      QList<std::function<void()>> ended; // called last: they may end this object
                      for (int i = 0; i < ids.size(); ++i) {
                          const auto it = m_runs.find(ids.at(i));
                          if (it == m_runs.end()) {
                              continue;
                          }
                          QString warning;
                          const bool behind = it->mirrorReport(m_config.name, report.runs.at(i), &warning);
                          if (!warning.isEmpty()) {
                              qCWarning(lcRemote, "run %d: %s", ids.at(i), qUtf8Printable(warning));
                          }
                          again = again || behind;
                          if (!behind && m_finishing.contains(ids.at(i))) {
                              m_runs.erase(it);
                              ended << m_finishing.take(ids.at(i));
                          }
                      }
                      if (again || !m_finishing.isEmpty()) {
                          QTimer::singleShot(0, this, &RemoteRunFolders::poll);
                      }
                      for (const auto &done : std::as_const(ended)) {
                          done();
                      }
                  });
}

} // namespace trainyard
