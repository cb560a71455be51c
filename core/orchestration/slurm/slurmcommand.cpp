#include "slurm/slurmcommand.h"

#include "logcategories.h"
#include "slurm/slurmclusterconfig.h"
#include "slurm/slurmjob.h"

#include <QDir>
#include <QPointer>
#include <QProcess>
#include <QTimer>

#include <memory>

namespace trainyard {

QString SlurmCommandResult::message(const QString &program) const
{
    if (!started)
        return QStringLiteral("%1 could not be run (is the Slurm client installed?)").arg(program);
    if (timedOut)
        return QStringLiteral("%1 did not answer in time").arg(program);
    QStringList lines;
    const QList<QByteArray> raw = err.trimmed().split('\n');
    for (const QByteArray &line : raw) {
        const QString text = QString::fromUtf8(line).trimmed();
        if (!text.isEmpty())
            lines << text;
    }
    if (lines.isEmpty())
        return QStringLiteral("%1 failed (exit %2)").arg(program).arg(exitCode);
    return lines.join(QStringLiteral("; "));
}

SlurmProcessRunner::SlurmProcessRunner(int timeoutMs, QString binDir, int maxRunning)
    : m_timeoutMs(timeoutMs)
    , m_binDir(std::move(binDir))
    , m_maxRunning(qMax(1, maxRunning))
{
}

std::unique_ptr<SlurmCommandRunner> SlurmProcessRunner::forCluster(const SlurmClusterConfig &cluster)
{
    auto runner = std::make_unique<SlurmProcessRunner>(cluster.commandTimeoutMs);
    runner->setRemote(cluster.sshCommand);
    return runner;
}

QString SlurmProcessRunner::resolve(const QString &program) const
{
    return m_binDir.isEmpty() ? program : QDir(m_binDir).filePath(program);
}

QPair<QString, QStringList> SlurmProcessRunner::command(const QString &program, const QStringList &args) const
{
    if (m_ssh.isEmpty())
        return {resolve(program), args};
    // ssh joins its words into one line for the remote shell: each is quoted
    // so that no value is ever interpreted there.
    QStringList remote{SlurmJob::shellQuote(resolve(program))};
    for (const QString &arg : args)
        remote << SlurmJob::shellQuote(arg);
    return {m_ssh.first(), m_ssh.mid(1) + QStringList{remote.join(QLatin1Char(' '))}};
}

void SlurmProcessRunner::run(const QString &program, const QStringList &args, const QByteArray &input,
                             const QProcessEnvironment &env, QObject *context, Done done)
{
    m_waiting.push_back(Call{program, args, input, env, context, std::move(done)});
    startWaiting();
}

void SlurmProcessRunner::startWaiting()
{
    while (m_running < m_maxRunning && !m_waiting.empty()) {
        Call call = std::move(m_waiting.front());
        m_waiting.pop_front();
        if (call.context) // its caller is gone: nobody wants the answer
            launch(std::move(call));
    }
}

void SlurmProcessRunner::launch(Call call)
{
    const QString program = call.program;
    QObject *context = call.context;
    auto *process = new QProcess(context);
    const auto [executable, arguments] = command(program, call.args);
    process->setProgram(executable);
    process->setArguments(arguments);
    if (!call.env.isEmpty() && m_ssh.isEmpty())
        process->setProcessEnvironment(call.env);
    ++m_running;
    // One answer per command, whichever of finish, failure to start or the
    // deadline comes first.
    // A QProcess destroyed with its context kills its program and may still
    // report it finished: the guard keeps that from reaching a half-destroyed
    // caller (QPointer is cleared before an object's children are deleted).
    // The runner is its context's (the launcher's): alive while the guard is.
    auto answered = std::make_shared<bool>(false);
    const QPointer<QObject> guard(context);
    Done done = std::move(call.done);
    auto finish = [this, process, answered, guard, done](SlurmCommandResult result) {
        if (*answered)
            return;
        *answered = true;
        process->disconnect();
        if (!guard)
            return;
        process->deleteLater();
        --m_running;
        done(result);
        if (guard) // `done` may have destroyed the caller, and this runner with it
            startWaiting();
    };
    QObject::connect(process, &QProcess::finished, process, [process, finish](int code, QProcess::ExitStatus status) {
        SlurmCommandResult result;
        result.exitCode = status == QProcess::NormalExit ? code : -1;
        result.out = process->readAllStandardOutput();
        result.err = process->readAllStandardError();
        finish(result);
    });
    QObject::connect(process, &QProcess::errorOccurred, process, [process, finish, program](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart)
            return; // a crash or a kill also ends in finished()
        qCWarning(lcSlurm, "%s could not be run: %s", qUtf8Printable(program), qUtf8Printable(process->errorString()));
        SlurmCommandResult result;
        result.started = false;
        finish(result);
    });
    auto *deadline = new QTimer(process);
    deadline->setSingleShot(true);
    QObject::connect(deadline, &QTimer::timeout, process, [process, finish, program] {
        qCWarning(lcSlurm, "%s did not answer in time; killed", qUtf8Printable(program));
        SlurmCommandResult result;
        result.timedOut = true;
        process->kill();
        process->waitForFinished(1000);
        finish(result);
    });
    deadline->start(m_timeoutMs);
    qCDebug(lcSlurm, "%s %s", qUtf8Printable(program), qUtf8Printable(call.args.join(QLatin1Char(' '))));
    process->start();
    if (!call.input.isEmpty())
        process->write(call.input);
    process->closeWriteChannel();
}

SlurmCommandResult SlurmProcessRunner::runNow(const QString &program, const QStringList &args, int timeoutMs)
{
    return runNow(program, args, QByteArray(), timeoutMs);
}

SlurmCommandResult SlurmProcessRunner::runNow(const QString &program, const QStringList &args, const QByteArray &input,
                                              int timeoutMs)
{
    QProcess process;
    const auto [executable, arguments] = command(program, args);
    process.start(executable, arguments);
    SlurmCommandResult result;
    if (!process.waitForStarted(timeoutMs)) {
        result.started = false;
        return result;
    }
    if (!input.isEmpty())
        process.write(input);
    process.closeWriteChannel();
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished(1000);
        result.timedOut = true;
        return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

} // namespace trainyard
