#include "orchestration/launch/workerprocess.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QTimer>

#include <cerrno>
#include <csignal>
#include <sys/types.h>
#include <unistd.h>

namespace trainyard {

WorkerProcess::WorkerProcess(QObject *parent)
    : QObject(parent)
{
}

WorkerProcess::~WorkerProcess()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        // Never leave an orphan by accident: detach() is the explicit way.
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(3000);
    }
}

QString WorkerProcess::findWorkerProgram()
{
    const QString fromEnv = qEnvironmentVariable("TRAINYARD_WORKER");
    if (!fromEnv.isEmpty()) {
        return QFileInfo(fromEnv).isExecutable() ? QFileInfo(fromEnv).absoluteFilePath() : QString();
    }
    if (QCoreApplication::instance()) {
        const QString beside = QCoreApplication::applicationDirPath() + QStringLiteral("/trainyard-worker");
        if (QFileInfo(beside).isExecutable()) {
            return beside;
        }
    }
    return QStandardPaths::findExecutable(QStringLiteral("trainyard-worker"));
}

QString WorkerProcess::findPythonModule(const QString &workerProgram)
{
    if (workerProgram.isEmpty()) {
        return {};
    }
    const QDir folder(QFileInfo(workerProgram).absolutePath() + QStringLiteral("/../python"));
    return QFileInfo::exists(folder.filePath(QStringLiteral("trainyard/__init__.py")))
               ? QDir::cleanPath(folder.absolutePath())
               : QString();
}

void WorkerProcess::start(const Launch &launch)
{
    if (launch.program.isEmpty() && !launch.isProgram()) {
        QTimer::singleShot(0, this, [this] {
            Q_EMIT failed(tr("trainyard-worker not found (set TRAINYARD_WORKER or install it beside trainyard)"));
        });
        return;
    }
    m_process = new QProcess(this);
    m_process->setProgram(launch.program);
    m_process->setArguments(launch.arguments());
    m_process->setWorkingDirectory(launch.workingDirectory());

    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // PCI order makes cuda:N mean the same GPU as NVML's index N.
    env.insert(QStringLiteral("CUDA_DEVICE_ORDER"), QStringLiteral("PCI_BUS_ID"));
    env.insert(QStringLiteral("CUDA_VISIBLE_DEVICES"), launch.visibleDevices());
    // Ours only: an orchestrator started from inside a run must not pass
    // that run's variables on.
    for (const QString &key : LaunchSpec::runVariableNames()) {
        env.remove(key);
    }
    for (const auto &[key, value] : launch.environment()) {
        env.insert(key, value);
    }
    m_process->setProcessEnvironment(env);

    // Straight to the file, no pipe: the worker never blocks on us and
    // keeps logging if we go away.
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    m_process->setStandardOutputFile(launch.runDir + QStringLiteral("/worker.log"), QIODevice::Append);
    m_process->setStandardInputFile(QProcess::nullDevice());
    // Its own session: a terminal's Ctrl-C or hang-up reaches the
    // orchestrator, which stops workers gracefully, not the workers.
    m_process->setChildProcessModifier([] { ::setsid(); });

    connect(m_process, &QProcess::started, this, [this] {
        m_pid = m_process->processId();
        Q_EMIT started();
    });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            Q_EMIT failed(tr("cannot start %1: %2").arg(m_process->program(), m_process->errorString()));
        }
    });
    connect(m_process, &QProcess::finished, this, &WorkerProcess::onFinished);
    m_process->start();
}

void WorkerProcess::onFinished(int exitCode, QProcess::ExitStatus status)
{
    if (status == QProcess::CrashExit) {
        Q_EMIT finished(-1, exitCode > 0 ? exitCode : SIGKILL);
    } else {
        Q_EMIT finished(exitCode, 0);
    }
}

void WorkerProcess::attach(qint64 pid)
{
    m_pid = pid;
    m_attached = true;
    m_poll = new QTimer(this);
    connect(m_poll, &QTimer::timeout, this, &WorkerProcess::pollAttached);
    m_poll->start(250);
}

void WorkerProcess::pollAttached()
{
    if (::kill(static_cast<pid_t>(m_pid), 0) == 0 || errno != ESRCH) {
        return;
    }
    m_poll->stop();
    // Not our child: its exit status is not ours to read; the worker's
    // "done" line (socket or metrics.jsonl) tells how it ended.
    Q_EMIT finished(-1, 0);
}

bool WorkerProcess::isRunning() const
{
    if (m_process) {
        return m_process->state() != QProcess::NotRunning;
    }
    if (m_attached) {
        return m_poll && m_poll->isActive();
    }
    return false;
}

void WorkerProcess::terminate()
{
    if (m_pid > 0 && isRunning()) {
        ::kill(static_cast<pid_t>(m_pid), SIGTERM);
    }
}

void WorkerProcess::kill()
{
    if (m_pid > 0 && isRunning()) {
        ::kill(static_cast<pid_t>(m_pid), SIGKILL);
    }
}

void WorkerProcess::detach()
{
    if (m_process) {
        // The QProcess would kill its child when destroyed; it is let go on
        // purpose (a few hundred bytes) so the worker trains on.
        m_process->disconnect(this);
        m_process->setParent(nullptr);
        m_process = nullptr;
    }
    if (m_poll) {
        m_poll->stop();
    }
    m_attached = false;
}

} // namespace trainyard
