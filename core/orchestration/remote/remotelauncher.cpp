#include "orchestration/remote/remotelauncher.h"

#include "metrics/runfile.h"
#include "orchestration/devices/device.h"
#include "orchestration/logcategories.h"
#include "orchestration/process/processrunner.h"
#include "orchestration/remote/remotescripts.h"
#include "orchestration/remote/sshmaster.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonObject>

namespace trainyard {

namespace {

QString socketPath(const QString &connect)
{
    return connect.startsWith(QLatin1String("unix:")) ? connect.mid(5) : QString();
}

} // namespace

RemoteLauncher::RemoteLauncher(RemoteHostConfig config, QObject *parent)
    : Launcher(parent)
    , m_config(std::move(config))
    , m_master(new SshMaster(m_config, this))
    , m_attachCheck(m_config, *m_master)
    , m_poller(m_config, *m_master, m_runs)
{
    connect(m_master, &SshMaster::stateChanged, this, &Launcher::availabilityChanged);
    connect(&m_poller, &RemoteHostPoller::reached, this, &RemoteLauncher::verifyUnverified);
    connect(&m_poller, &RemoteHostPoller::devicesReported, this, &Launcher::devicesReported);
    connect(&m_poller, &RemoteHostPoller::endedBecause, this, &Launcher::endedBecause);
    connect(&m_poller, &RemoteHostPoller::exited, this, &Launcher::exited);
    pollSoon();
}

RemoteLauncher::~RemoteLauncher()
{
    const QList<RunId> runs = m_runs.keys();
    for (RunId run : runs) {
        release(run);
    }
}

int RemoteLauncher::commandCount() const
{
    return m_master->commandCount();
}

qint64 RemoteLauncher::masterPid() const
{
    return m_master->masterPid();
}

void RemoteLauncher::pollSoon()
{
    m_poller.pollSoon();
}

void RemoteLauncher::prepare(LaunchSpec &spec) const
{
    if (!spec.mirrorDir.isEmpty()) {
        return; // prepared already
    }
    spec.mirrorDir = spec.runDir;
    spec.mirrorConnect = spec.connect;
    spec.runDir = m_config.runDir(spec.name);
    spec.specPath = spec.runDir + QStringLiteral("/spec.json");
    if (!spec.configPath.isEmpty()) {
        spec.configPath = spec.runDir + QStringLiteral("/config.json");
    }
    // No socket path there (a runs_root too long for one): its metrics
    // come from the mirror alone, read every second like a batch job's.
    const QString socket = m_config.remoteSocket(socketPath(spec.mirrorConnect), nullptr);
    spec.connect = spec.mirrorConnect.isEmpty() || socket.isEmpty() ? QString() : QStringLiteral("unix:") + socket;
    spec.device = spec.target.onHost();
    spec.pythonPath.clear(); // this machine's folder means nothing there
    if (!spec.isProgram()) {
        spec.program = m_config.worker;
        return;
    }
    // A program run's "python"/"python3" is the host's Python.
    const QString first = QFileInfo(spec.programArgv.value(0)).fileName();
    if (!m_config.python.isEmpty() && (first == QLatin1String("python") || first == QLatin1String("python3"))) {
        spec.programArgv[0] = m_config.python;
        spec.program = m_config.python;
    }
}

QString RemoteLauncher::unavailable(const Device &d) const
{
    if (!d.isRemote() || d.host() != m_config.name) {
        return {};
    }
    switch (m_master->state()) {
    case SshMaster::State::Unknown:
        return tr("connecting to host %1 (%2)…").arg(m_config.name, m_config.target.host);
    case SshMaster::State::Down:
        return m_master->problem();
    case SshMaster::State::Up:
        break;
    }
    return {};
}

// ---- start ------------------------------------------------------------------

void RemoteLauncher::start(RunId run, const LaunchSpec &spec)
{
    release(run); // never two processes for one run
    LaunchSpec job = spec;
    prepare(job);
    if (m_master->state() != SshMaster::State::Up) {
        Q_EMIT failedToLaunch(run, unavailable(job.target).isEmpty()
                                       ? tr("host %1 cannot be reached").arg(m_config.name)
                                       : unavailable(job.target));
        return;
    }
    Run r;
    r.spec = job;
    r.serial = ++m_serial;
    r.mirror = RemoteMirror(job.mirrorDir);
    m_runs.insert(run, r);
    if (!job.connect.isEmpty()) {
        m_master->setForward(socketPath(job.connect), socketPath(job.mirrorConnect));
    }
    qCInfo(lcRemote, "run %d: starting on host %s in %s", run, qUtf8Printable(m_config.name),
           qUtf8Printable(job.runDir));
    startStep(run, r.serial, 0);
}

void RemoteLauncher::startStep(RunId run, quint64 serial, int step)
{
    const auto it = m_runs.constFind(run);
    if (it == m_runs.constEnd() || it->serial != serial) {
        return; // released meanwhile
    }
    const LaunchSpec &job = it->spec;
    const auto next = [this, run, serial, step](const QString &what) {
        return [this, run, serial, step, what](const ProcessResult &r) {
            if (r.ok()) {
                startStep(run, serial, step + 1);
            } else {
                startFailed(run, serial,
                            tr("host %1: %2: %3").arg(m_config.name, what, r.message(QStringLiteral("ssh"))));
            }
        };
    };
    switch (step) {
    case 0: // the forward first: the worker's hello finds it
        if (job.connect.isEmpty()) {
            startStep(run, serial, 1);
        } else {
            m_master->ensureForward([this, run, serial] { startStep(run, serial, 1); });
        }
        return;
    case 1:
    case 2: {
        if (step == 2 && job.configPath.isEmpty()) {
            return startStep(run, serial, 3);
        }
        // The mirror's copy, written by this session: read as every run-folder
        // file is (a link or a FIFO put there is refused, never sent or waited on).
        const QString name = step == 1 ? QStringLiteral("spec.json") : QStringLiteral("config.json");
        QByteArray bytes;
        QString error;
        if (!readRegularFile(job.mirrorDir + QLatin1Char('/') + name, &bytes, &error)) {
            return startFailed(run, serial, tr("host %1: %2").arg(m_config.name, error));
        }
        if (step == 1) {
            m_master->run(remotescripts::prepare(m_config.runsRoot, job.runDir, job.resume), bytes, this,
                          next(tr("the run folder %1 could not be made ready").arg(job.runDir)));
        } else {
            m_master->run(remotescripts::writeFile(job.runDir, name), bytes, this,
                          next(tr("%1/config.json could not be written").arg(job.runDir)));
        }
        return;
    }
    default: {
        QList<std::pair<QString, QString>> env;
        env.append({QStringLiteral("CUDA_DEVICE_ORDER"), QStringLiteral("PCI_BUS_ID")});
        env.append({QStringLiteral("CUDA_VISIBLE_DEVICES"), job.visibleDevices()});
        env.append(job.environment());
        m_master->run(remotescripts::launch(job.runDir, job.workingDirectory(), job.commandLine()),
                      remotescripts::environmentText(env), this, [this, run, serial](const ProcessResult &r) {
                          if (r.ok()) {
                              launched(run, serial, r.out);
                          } else {
                              startFailed(run, serial,
                                          tr("host %1: the worker could not be started: %2")
                                              .arg(m_config.name, r.message(QStringLiteral("ssh"))));
                          }
                      });
        return;
    }
    }
}

void RemoteLauncher::launched(RunId run, quint64 serial, const QByteArray &out)
{
    const auto it = m_runs.find(run);
    if (it == m_runs.end() || it->serial != serial) {
        return;
    }
    const QList<QByteArray> words = out.trimmed().split('\n').last().split(' ');
    if (words.size() != 4 || words.at(0) != "started" || words.at(1).toLongLong() <= 0) {
        startFailed(
            run, serial,
            tr("host %1: the start said \"%2\", not its worker's pid").arg(m_config.name, QString::fromUtf8(out)));
        return;
    }
    it->pid = words.at(1).toLongLong();
    it->ticks = words.at(2).toLongLong();
    it->wrapper = words.at(3).toLongLong();
    it->live = true;
    const QString asked = it->signalAsked;
    qCInfo(lcRemote, "run %d started on host %s, pid %lld", run, qUtf8Printable(m_config.name),
           static_cast<long long>(it->pid));
    Q_EMIT started(run, it->pid, QString());
    if (!asked.isEmpty()) {
        signal(run, asked);
    }
    pollSoon();
}

void RemoteLauncher::startFailed(RunId run, quint64 serial, const QString &message)
{
    const auto it = m_runs.constFind(run);
    if (it == m_runs.constEnd() || it->serial != serial) {
        return;
    }
    m_runs.remove(run);
    qCWarning(lcRemote, "run %d failed to launch: %s", run, qUtf8Printable(message));
    Q_EMIT failedToLaunch(run, message);
}

// ---- signals ------------------------------------------------------------------

void RemoteLauncher::terminate(RunId run)
{
    signal(run, QStringLiteral("TERM"));
}

void RemoteLauncher::kill(RunId run)
{
    signal(run, QStringLiteral("KILL"));
}

void RemoteLauncher::signal(RunId run, const QString &name)
{
    const auto it = m_runs.find(run);
    if (it == m_runs.end()) {
        return;
    }
    if (!it->live) {
        it->signalAsked = name; // sent once it started
        return;
    }
    if (!it->verified) {
        qCWarning(lcRemote,
                  "run %d: SIG%s not sent: host %s has not been reached since the app started, so pid "
                  "%lld is not yet proved to be the run's",
                  run, qUtf8Printable(name), qUtf8Printable(m_config.name), static_cast<long long>(it->pid));
        return;
    }
    const Run &r = *it;
    qCInfo(lcRemote, "run %d: SIG%s to pid %lld on host %s, once verified", run, qUtf8Printable(name),
           static_cast<long long>(r.pid), qUtf8Printable(m_config.name));
    m_master->run(r.verifyCommand(name), r.verifyInput(), this, [this, run, name](const ProcessResult &result) {
        const QString answer = QString::fromUtf8(result.out.trimmed());
        if (!result.ok()) {
            qCWarning(lcRemote, "run %d: SIG%s failed: %s", run, qUtf8Printable(name),
                      qUtf8Printable(result.message(QStringLiteral("ssh"))));
        } else if (answer.startsWith(QLatin1String("notours"))) {
            qCWarning(lcRemote, "run %d: SIG%s not sent: %s", run, qUtf8Printable(name), qUtf8Printable(answer.mid(8)));
        }
        pollSoon();
    });
}

// ---- handles ------------------------------------------------------------------

Launcher::AttachResult RemoteLauncher::attach(RunId run, const QJsonObject &handle, const LaunchSpec &expected,
                                              QString *why)
{
    LaunchSpec spec = expected;
    prepare(spec);
    release(run);
    if (!spec.connect.isEmpty()) {
        m_master->setForward(socketPath(spec.connect), socketPath(spec.mirrorConnect));
    }
    Run r;
    QString reason;
    const AttachResult result = m_attachCheck.check(handle, spec, &r, &reason);
    if (result != AttachResult::Attached) {
        qCInfo(lcRemote, "run %d not attached: %s", run, qUtf8Printable(reason));
        if (why) {
            *why = reason;
        }
        return result;
    }
    r.serial = ++m_serial;
    m_runs.insert(run, r);
    qCInfo(lcRemote, "run %d attached to pid %lld on host %s%s", run, static_cast<long long>(r.pid),
           qUtf8Printable(m_config.name), r.verified ? "" : " (unverified: the host did not answer)");
    pollSoon();
    return AttachResult::Attached;
}

void RemoteLauncher::verifyUnverified()
{
    for (auto it = m_runs.begin(); it != m_runs.end(); ++it) {
        if (it->verified || !it->live || it->verifying) {
            continue;
        }
        it->verifying = true;
        const RunId run = it.key();
        const quint64 serial = it->serial;
        m_master->run(it->verifyCommand(QString()), it->verifyInput(), this,
                      [this, run, serial](const ProcessResult &result) {
                          const auto it = m_runs.find(run);
                          if (it == m_runs.end() || it->serial != serial) {
                              return;
                          }
                          it->verifying = false;
                          const QString answer = QString::fromUtf8(result.out.trimmed());
                          if (!result.ok()) {
                              return;
                          }
                          if (answer.startsWith(QLatin1String("notours "))) {
                              m_runs.remove(run);
                              Q_EMIT endedBecause(
                                  run, tr("on host %1: %2; nothing was signalled").arg(m_config.name, answer.mid(8)));
                              Q_EMIT exited(run, -1, 0);
                              return;
                          }
                          // Ours, or ended (the next poll reads how): watched as any run,
                          // with the waiting sh the host proved.
                          if (answer.startsWith(QLatin1String("ours"))) {
                              it->takeProvedWrapper(answer);
                          }
                          it->verified = true;
                          pollSoon();
                      });
    }
}

QJsonObject RemoteLauncher::handle(RunId run) const
{
    const auto it = m_runs.constFind(run);
    if (it == m_runs.constEnd() || !it->live) {
        return {};
    }
    return QJsonObject{{QStringLiteral("kind"), kind()},         {QStringLiteral("host"), m_config.name},
                       {QStringLiteral("pid"), it->pid},         {QStringLiteral("start_ticks"), it->ticks},
                       {QStringLiteral("wrapper"), it->wrapper}, {QStringLiteral("run_dir"), it->spec.runDir}};
}

QString RemoteLauncher::host(RunId) const
{
    return m_config.name;
}

void RemoteLauncher::detach(RunId run)
{
    if (m_runs.remove(run)) {
        qCInfo(lcRemote, "run %d left running on host %s", run, qUtf8Printable(m_config.name));
    }
}

void RemoteLauncher::release(RunId run)
{
    const auto it = m_runs.constFind(run);
    if (it == m_runs.constEnd()) {
        return;
    }
    const Run r = *it;
    m_runs.remove(run);
    if (!r.live || !r.verified) {
        return; // a start still on its way finds its entry gone and stops there
    }
    // Bounded and blocking: release may not return to the event loop first.
    const ProcessResult result = m_master->runNow(r.verifyCommand(QStringLiteral("KILL")), r.verifyInput(),
                                                  qMin(5000, m_config.commandTimeoutMs));
    qCInfo(
        lcRemote, "run %d released on host %s: %s", run, qUtf8Printable(m_config.name),
        qUtf8Printable(result.ok() ? QString::fromUtf8(result.out.trimmed()) : result.message(QStringLiteral("ssh"))));
}

} // namespace trainyard
