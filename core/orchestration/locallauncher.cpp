#include "locallauncher.h"

#include "logcategories.h"
#include "runstore.h"
#include "workerprocess.h"

namespace trainyard {

LocalLauncher::LocalLauncher(QObject *parent)
    : Launcher(parent)
{
}

LocalLauncher::~LocalLauncher()
{
    const QList<RunId> runs = m_workers.keys();
    for (RunId run : runs)
        release(run);
}

WorkerProcess *LocalLauncher::take(RunId run)
{
    const auto it = m_workers.find(run);
    if (it == m_workers.end())
        return nullptr;
    WorkerProcess *process = it->process;
    m_workers.erase(it);
    process->disconnect(this);
    return process;
}

void LocalLauncher::start(RunId run, const LaunchSpec &spec)
{
    release(run); // never two processes for one run
    auto *process = new WorkerProcess(this);
    m_workers.insert(run, Worker{process, 0});
    connect(process, &WorkerProcess::started, this, [this, run, process] {
        const auto it = m_workers.find(run);
        if (it == m_workers.end() || it->process != process)
            return;
        it->startTicks = RunStore::processStartTicks(process->pid());
        qCInfo(lcLauncher, "run %d started, pid %lld", run, static_cast<long long>(process->pid()));
        Q_EMIT started(run, process->pid(), QString());
    });
    connect(process, &WorkerProcess::failed, this, [this, run, process](const QString &message) {
        if (m_workers.value(run).process != process)
            return;
        take(run);
        process->deleteLater();
        qCWarning(lcLauncher, "run %d failed to launch: %s", run, qUtf8Printable(message));
        Q_EMIT failedToLaunch(run, message);
    });
    connect(process, &WorkerProcess::finished, this, [this, run, process](int exitCode, int signal) {
        if (m_workers.value(run).process != process)
            return;
        take(run);
        process->deleteLater();
        qCInfo(lcLauncher, "run %d exited, code %d, signal %d", run, exitCode, signal);
        Q_EMIT exited(run, exitCode, signal);
    });
    process->start(spec);
}

void LocalLauncher::terminate(RunId run)
{
    if (WorkerProcess *process = m_workers.value(run).process) {
        qCInfo(lcLauncher, "run %d: SIGTERM to pid %lld", run, static_cast<long long>(process->pid()));
        process->terminate();
    }
}

void LocalLauncher::kill(RunId run)
{
    if (WorkerProcess *process = m_workers.value(run).process) {
        qCInfo(lcLauncher, "run %d: SIGKILL to pid %lld", run, static_cast<long long>(process->pid()));
        process->kill();
    }
}

bool LocalLauncher::attach(RunId run, const QJsonObject &handle, QString *why)
{
    const QString handleKind = handle.value(QStringLiteral("kind")).toString(kind());
    const qint64 pid = handle.value(QStringLiteral("pid")).toInteger();
    const qint64 ticks = handle.value(QStringLiteral("start_ticks")).toInteger();
    QString reason;
    if (handleKind != kind())
        reason = QStringLiteral("a %1 run; this session launches locally").arg(handleKind);
    else if (pid <= 0 || ticks <= 0)
        reason = QStringLiteral("no pid and start time to check");
    else if (RunStore::processStartTicks(pid) != ticks)
        reason = QStringLiteral("pid %1 has ended (or is another process now)").arg(pid);
    if (!reason.isEmpty()) {
        qCInfo(lcLauncher, "run %d not attached: %s", run, qUtf8Printable(reason));
        if (why)
            *why = reason;
        return false;
    }
    release(run);
    auto *process = new WorkerProcess(this);
    m_workers.insert(run, Worker{process, ticks});
    connect(process, &WorkerProcess::finished, this, [this, run, process](int exitCode, int signal) {
        if (m_workers.value(run).process != process)
            return;
        take(run);
        process->deleteLater();
        qCInfo(lcLauncher, "attached run %d ended", run);
        Q_EMIT exited(run, exitCode, signal);
    });
    process->attach(pid);
    qCInfo(lcLauncher, "run %d attached to pid %lld", run, static_cast<long long>(pid));
    return true;
}

QJsonObject LocalLauncher::handle(RunId run) const
{
    const Worker w = m_workers.value(run);
    if (!w.process || w.process->pid() <= 0)
        return {};
    const qint64 ticks = w.startTicks > 0 ? w.startTicks : RunStore::processStartTicks(w.process->pid());
    return QJsonObject{{QStringLiteral("kind"), kind()},
                       {QStringLiteral("pid"), w.process->pid()},
                       {QStringLiteral("start_ticks"), ticks}};
}

void LocalLauncher::detach(RunId run)
{
    if (WorkerProcess *process = take(run)) {
        qCInfo(lcLauncher, "run %d left running, pid %lld", run, static_cast<long long>(process->pid()));
        process->detach();
        delete process;
    }
}

void LocalLauncher::release(RunId run)
{
    if (WorkerProcess *process = take(run)) {
        process->kill();
        delete process; // our child: reaped (waits briefly, no event loop)
    }
}

} // namespace trainyard
