#include "orchestration/session/onendcommands.h"

#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/experiment/onend.h"
#include "orchestration/experiment/shelltext.h"
#include "orchestration/logcategories.h"
#include "orchestration/process/processrunner.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"

#include <QDateTime>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QHash>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace trainyard {

namespace {

constexpr qsizetype kMaxOutput = 64 * 1024; // of each stream, in the log: a chatty command cannot fill the disk

// Appends `text` to the log at `path` as every run-folder file is written:
// no link followed, only a regular file, never blocking on a FIFO.
QString appendLog(const QString &path, const QByteArray &text)
{
    const int fd = ::open(QFile::encodeName(path).constData(),
                          O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
    if (fd < 0) {
        return errno == ELOOP ? QStringLiteral("%1 is a link; Trainyard does not follow links in run folders").arg(path)
                              : QStringLiteral("%1: %2").arg(path, QString::fromLocal8Bit(std::strerror(errno)));
    }
    struct stat st
    {};
    QString error;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        error = QStringLiteral("%1 is not a regular file").arg(path);
    }
    const char *data = text.constData();
    qsizetype left = error.isEmpty() ? text.size() : 0;
    while (left > 0) {
        const ssize_t n = ::write(fd, data, size_t(left));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            error = QStringLiteral("%1: %2").arg(path, QString::fromLocal8Bit(std::strerror(errno)));
            break;
        }
        data += n;
        left -= n;
    }
    ::close(fd);
    return error;
}

QByteArray bounded(const QByteArray &bytes)
{
    if (bytes.size() <= kMaxOutput) {
        return bytes;
    }
    return bytes.left(kMaxOutput)
           + QByteArrayLiteral("\n[… %1 more bytes not kept]\n")
                 .replace("%1", QByteArray::number(bytes.size() - kMaxOutput));
}

} // namespace

OnEndCommands::OnEndCommands(Dispatcher *dispatcher, const RunRegistry *runs, const RunStore *store, QObject *parent)
    : QObject(parent)
    , m_runs(runs)
    , m_store(store)
{
    connect(dispatcher, &Dispatcher::runEnded, this, &OnEndCommands::onRunEnded);
    connect(dispatcher, &Dispatcher::idle, this, &OnEndCommands::onIdle);
}

// The commands still running are killed with their Process (its children).
OnEndCommands::~OnEndCommands() = default;

void OnEndCommands::setExperiment(const QString &name, const QStringList &onEnd)
{
    m_name = name;
    m_onEnd = onEnd;
    m_endedSinceIdle = false;
}

void OnEndCommands::onRunEnded(RunId id, RunState state)
{
    m_endedSinceIdle = true;
    const RunInfo *run = m_runs->find(id);
    // A cancelled run never ran: there is nothing to tell of it.
    if (!run || run->onEnd.isEmpty() || state == RunState::Cancelled || !isTerminal(state)) {
        return;
    }
    const QHash<QString, QString> values{{QStringLiteral("name"), run->name},
                                         {QStringLiteral("state"), runStateName(state)},
                                         {QStringLiteral("folder"), run->runDir},
                                         {QStringLiteral("experiment"), m_name}};
    QStringList argv;
    QString error;
    if (!onend::substitute(run->onEnd, values, &argv, &error)) {
        Q_EMIT problem(QStringLiteral("on_end of %1: %2").arg(run->name, error)); // the file was checked: a bug
        return;
    }
    start(QStringLiteral("on_end of %1 (%2)").arg(run->name, runStateName(state)), argv, run->runDir);
}

void OnEndCommands::onIdle()
{
    if (m_onEnd.isEmpty() || !m_endedSinceIdle) {
        return; // an opening that found everything ended long ago is no end now
    }
    m_endedSinceIdle = false;
    const int failed =
        m_runs->count(RunState::Failed) + m_runs->count(RunState::Diverged) + m_runs->count(RunState::Lost);
    const QHash<QString, QString> values{
        {QStringLiteral("experiment"), m_name},
        {QStringLiteral("finished"), QString::number(m_runs->count(RunState::Finished))},
        {QStringLiteral("failed"), QString::number(failed)},
        {QStringLiteral("total"), QString::number(m_runs->size())},
        {QStringLiteral("folder"), m_store->root()}};
    QStringList argv;
    QString error;
    if (!onend::substitute(m_onEnd, values, &argv, &error)) {
        Q_EMIT problem(QStringLiteral("on_end of %1: %2").arg(m_name, error));
        return;
    }
    start(QStringLiteral("on_end of %1").arg(m_name), argv, m_store->root());
}

void OnEndCommands::start(const QString &what, const QStringList &argv, const QString &folder)
{
    qCInfo(lcOnEnd).noquote() << what << "starts:" << shellText(argv);
    auto *process = new Process(this);
    m_running << process;
    const QString header = QStringLiteral("== %1 %2: %3\n")
                               .arg(QDateTime::currentDateTimeUtc().toString(Qt::ISODate), what, shellText(argv));
    connect(process, &Process::done, this, [this, process, what, header, folder](const ProcessResult &result) {
        done(process, what, header, folder, result);
    });
    ProcessCommand command;
    command.program = argv.value(0);
    command.args = argv.mid(1);
    command.workingDirectory = QFileInfo(folder).isDir() ? folder : QDir::homePath();
    process->start(command, m_timeoutMs);
}

void OnEndCommands::done(Process *process, const QString &what, const QString &header, const QString &folder,
                         const ProcessResult &result)
{
    m_running.removeOne(process);
    process->deleteLater();
    QString outcome;
    if (!result.started) {
        outcome = QStringLiteral("could not be run: %1").arg(result.errorString);
    } else if (result.timedOut) {
        outcome = QStringLiteral("still running after %1 s: killed").arg(m_timeoutMs / 1000.0);
    } else if (result.crashed) {
        outcome = QStringLiteral("ended by a signal");
    } else {
        outcome = QStringLiteral("exit %1").arg(result.exitCode);
    }
    const QString log = QDir(folder).filePath(QStringLiteral("on_end.log"));
    QByteArray text = header.toUtf8();
    text += bounded(result.out) + bounded(result.err);
    if (!text.endsWith('\n')) {
        text += '\n';
    }
    text += QStringLiteral("== %1\n").arg(outcome).toUtf8();
    const QString logError =
        QFileInfo(folder).isDir() ? appendLog(log, text) : QStringLiteral("%1: no such folder").arg(folder);
    const bool ok = result.ok();
    if (!ok) {
        const QString where = logError.isEmpty() ? QStringLiteral(" (see %1)").arg(log) : QString();
        qCWarning(lcOnEnd).noquote() << what + QStringLiteral(": ") + outcome + where;
        Q_EMIT problem(QStringLiteral("%1: %2%3").arg(what, outcome, where));
    }
    if (!logError.isEmpty()) {
        qCWarning(lcOnEnd).noquote() << what << "log not written:" << logError;
        Q_EMIT problem(QStringLiteral("%1: its output was not kept: %2").arg(what, logError));
    }
    Q_EMIT ended(what, ok);
}

void OnEndCommands::finish()
{
    if (m_running.isEmpty()) {
        return;
    }
    // Each has a deadline (Process kills it there): this ends.
    QEventLoop loop;
    connect(this, &OnEndCommands::ended, &loop, [this, &loop] {
        if (m_running.isEmpty()) {
            loop.quit();
        }
    });
    loop.exec();
}

} // namespace trainyard
