#include "orchestration/launch/locallauncher.h"

#include "orchestration/launch/workerprocess.h"
#include "orchestration/logcategories.h"
#include "orchestration/runstore/runstore.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>

#include <csignal>
#include <sys/stat.h>
#include <unistd.h>

namespace trainyard {

namespace {

using AttachResult = Launcher::AttachResult;

// How long release() waits for a run's other processes after SIGKILL.
constexpr int kReleaseBoundMs = 2000;

// /proc/PID/WHAT (cmdline, environ) split at its NULs; empty when unreadable
// (another user's process).
QList<QByteArray> procStrings(qint64 pid, const QString &what)
{
    QFile file(QStringLiteral("/proc/%1/%2").arg(pid).arg(what));
    if (!file.open(QIODevice::ReadOnly)) {
        return {};
    }
    QList<QByteArray> strings = file.readAll().split('\0');
    if (!strings.isEmpty() && strings.last().isEmpty()) {
        strings.removeLast();
    }
    return strings;
}

// Why `pid` (whose start time matched) is not the run `expected` describes;
// empty when it is. The state file only claims the pid: the process itself
// must be the user's own, started with the run's token, and be the run's
// worker (its executable, --run-dir the run folder) or program
// (TRAINYARD_RUN_DIR the run folder; a program may exec another, a shell
// script its python, so its argv is not compared).
QString notTheRun(qint64 pid, const LaunchSpec &expected)
{
    struct stat st
    {};
    if (::stat(QFile::encodeName(QStringLiteral("/proc/%1").arg(pid)).constData(), &st) != 0) {
        return QStringLiteral("pid %1 cannot be inspected").arg(pid);
    }
    if (st.st_uid != ::geteuid()) {
        return QStringLiteral("pid %1 is another user's process (uid %2), not this run's").arg(pid).arg(st.st_uid);
    }
    QHash<QByteArray, QByteArray> environment;
    for (const QByteArray &entry : procStrings(pid, QStringLiteral("environ"))) {
        const qsizetype eq = entry.indexOf('=');
        if (eq > 0) {
            environment.insert(entry.left(eq), entry.mid(eq + 1));
        }
    }
    const QString runDir = QDir::cleanPath(expected.runDir);
    if (expected.isProgram()) {
        const QString dir = QString::fromLocal8Bit(environment.value(QByteArrayLiteral("TRAINYARD_RUN_DIR")));
        if (dir.isEmpty() || QDir::cleanPath(dir) != runDir) {
            return QStringLiteral("pid %1 is not this run's program (its TRAINYARD_RUN_DIR is not %2)")
                .arg(pid)
                .arg(runDir);
        }
    } else {
        QString exe = QFile::symLinkTarget(QStringLiteral("/proc/%1/exe").arg(pid));
        if (exe.endsWith(QLatin1String(" (deleted)"))) { // the worker was rebuilt or updated since
            exe.chop(10);
        }
        const QFileInfo program(expected.program);
        const QString want = program.canonicalFilePath().isEmpty() ? QDir::cleanPath(program.absoluteFilePath())
                                                                   : program.canonicalFilePath();
        if (expected.program.isEmpty() || exe != want) {
            return QStringLiteral("pid %1 runs %2, not this run's worker %3")
                .arg(pid)
                .arg(exe.isEmpty() ? QStringLiteral("an unknown program") : exe,
                     expected.program.isEmpty() ? QStringLiteral("(none recorded)") : expected.program);
        }
        const QList<QByteArray> argv = procStrings(pid, QStringLiteral("cmdline"));
        const qsizetype at = argv.indexOf(QByteArrayLiteral("--run-dir"));
        if (at < 0 || at + 1 >= argv.size() || QDir::cleanPath(QString::fromLocal8Bit(argv.at(at + 1))) != runDir) {
            return QStringLiteral("pid %1 is a worker, but not this run's (its --run-dir is not %2)")
                .arg(pid)
                .arg(runDir);
        }
    }
    if (expected.token.isEmpty()
        || environment.value(QByteArrayLiteral("TRAINYARD_TOKEN")) != expected.token.toUtf8()) {
        return QStringLiteral("pid %1 was not started with this run's token").arg(pid);
    }
    return {};
}

} // namespace

LocalLauncher::LocalLauncher(QObject *parent)
    : Launcher(parent)
{
}

LocalLauncher::~LocalLauncher()
{
    const QList<RunId> runs = m_workers.keys();
    for (RunId run : runs) {
        release(run);
    }
}

ProcessTree LocalLauncher::Worker::tree() const
{
    return ProcessTree(process ? process->pid() : 0, startTicks, token);
}

LocalLauncher::Worker LocalLauncher::take(RunId run)
{
    const auto it = m_workers.find(run);
    if (it == m_workers.end()) {
        return {};
    }
    const Worker w = *it;
    m_workers.erase(it);
    w.process->disconnect(this);
    if (w.end) {
        w.end->disconnect(this);
        w.end->deleteLater();
    }
    return w;
}

void LocalLauncher::watch(RunId run, WorkerProcess *process)
{
    connect(process, &WorkerProcess::finished, this,
            [this, run, process](int exitCode, int signal) { topExited(run, process, exitCode, signal); });
}

void LocalLauncher::topExited(RunId run, WorkerProcess *process, int exitCode, int signal)
{
    const auto it = m_workers.find(run);
    if (it == m_workers.end() || it->process != process || it->end) {
        return;
    }
    qCInfo(lcLauncher, "run %d: top pid %lld exited, code %d, signal %d", run, static_cast<long long>(process->pid()),
           exitCode, signal);
    const bool killed = it->killed;
    auto *end = new ProcessTreeEnd(it->tree(), this);
    it->end = end;
    const auto finish = [this, run, process, exitCode, signal] {
        take(run);
        process->deleteLater();
        qCInfo(lcLauncher, "run %d exited, code %d, signal %d", run, exitCode, signal);
        Q_EMIT exited(run, exitCode, signal);
    };
    connect(end, &ProcessTreeEnd::waiting, this,
            [this, run](const QString &message) { Q_EMIT lingering(run, message); });
    connect(end, &ProcessTreeEnd::done, this, finish);
    if (!end->begin(killed)) { // nothing else of the run: the common case
        finish();
    }
}

void LocalLauncher::start(RunId run, const LaunchSpec &spec)
{
    release(run); // never two processes for one run
    auto *process = new WorkerProcess(this);
    m_workers.insert(run, Worker{process, 0, spec.token});
    connect(process, &WorkerProcess::started, this, [this, run, process] {
        const auto it = m_workers.find(run);
        if (it == m_workers.end() || it->process != process) {
            return;
        }
        it->startTicks = RunStore::processStartTicks(process->pid());
        qCInfo(lcLauncher, "run %d started, pid %lld", run, static_cast<long long>(process->pid()));
        Q_EMIT started(run, process->pid(), QString());
    });
    connect(process, &WorkerProcess::failed, this, [this, run, process](const QString &message) {
        if (m_workers.value(run).process != process) {
            return;
        }
        take(run);
        process->deleteLater();
        qCWarning(lcLauncher, "run %d failed to launch: %s", run, qUtf8Printable(message));
        Q_EMIT failedToLaunch(run, message);
    });
    watch(run, process);
    process->start(spec);
}

void LocalLauncher::terminate(RunId run)
{
    const Worker w = m_workers.value(run);
    // The top process only: it checkpoints while its DataLoader workers and
    // ranks still live; the rest is ended once it exits.
    if (w.process && !w.end) {
        qCInfo(lcLauncher, "run %d: SIGTERM to pid %lld", run, static_cast<long long>(w.process->pid()));
        w.process->terminate();
    }
}

void LocalLauncher::kill(RunId run)
{
    const auto it = m_workers.find(run);
    if (it == m_workers.end()) {
        return;
    }
    it->killed = true;
    if (it->end) {
        it->end->killNow(); // may end the run from in here
        return;
    }
    const QList<ProcessTree::Process> tree = it->tree().processes();
    qCInfo(lcLauncher, "run %d: SIGKILL to %s", run,
           qUtf8Printable(tree.isEmpty() ? QStringLiteral("pid %1").arg(it->process->pid())
                                         : ProcessTree::describe(tree)));
    ProcessTree::signal(tree, SIGKILL);
    it->process->kill(); // the top, also when /proc could not tell it
}

AttachResult LocalLauncher::attach(RunId run, const QJsonObject &handle, const LaunchSpec &expected, QString *why)
{
    const QString handleKind = handle.value(QStringLiteral("kind")).toString(kind());
    const qint64 pid = handle.value(QStringLiteral("pid")).toInteger();
    const qint64 ticks = handle.value(QStringLiteral("start_ticks")).toInteger();
    QString reason;
    AttachResult result = AttachResult::Gone;
    if (handleKind != kind()) {
        reason = QStringLiteral("a %1 run; this session launches locally").arg(handleKind);
    } else if (pid <= 0 || ticks <= 0) {
        reason = QStringLiteral("no pid and start time to check");
    } else if (RunStore::processStartTicks(pid) != ticks) {
        reason = QStringLiteral("pid %1 has ended (or is another process now)").arg(pid);
    } else if (!(reason = notTheRun(pid, expected)).isEmpty()) {
        result = AttachResult::NotOurs;
    }
    if (!reason.isEmpty()) {
        qCInfo(lcLauncher, "run %d not attached: %s", run, qUtf8Printable(reason));
        if (why) {
            *why = reason;
        }
        return result;
    }
    release(run);
    auto *process = new WorkerProcess(this);
    m_workers.insert(run, Worker{process, ticks, expected.token});
    watch(run, process);
    process->attach(pid);
    qCInfo(lcLauncher, "run %d attached to pid %lld", run, static_cast<long long>(pid));
    return AttachResult::Attached;
}

QJsonObject LocalLauncher::handle(RunId run) const
{
    const Worker w = m_workers.value(run);
    if (!w.process || w.process->pid() <= 0) {
        return {};
    }
    const qint64 ticks = w.startTicks > 0 ? w.startTicks : RunStore::processStartTicks(w.process->pid());
    return QJsonObject{{QStringLiteral("kind"), kind()},
                       {QStringLiteral("pid"), w.process->pid()},
                       {QStringLiteral("start_ticks"), ticks}};
}

void LocalLauncher::detach(RunId run)
{
    if (WorkerProcess *process = take(run).process) {
        qCInfo(lcLauncher, "run %d left running, pid %lld", run, static_cast<long long>(process->pid()));
        process->detach();
        delete process;
    }
}

void LocalLauncher::release(RunId run)
{
    const Worker w = take(run);
    if (!w.process) {
        return;
    }
    const ProcessTree tree = w.tree();
    ProcessTree::signal(tree.processes(), SIGKILL);
    w.process->kill();
    delete w.process; // our child: reaped (waits briefly, no event loop)
    // The rest are not our children: gone from /proc once the kernel
    // has ended them (or zombies of their parent, which are not listed).
    tree.killNow(kReleaseBoundMs);
}

} // namespace trainyard
