#include "slurmcommand.h"

#include "logcategories.h"

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

SlurmProcessRunner::SlurmProcessRunner(int timeoutMs, QString binDir)
    : m_timeoutMs(timeoutMs)
    , m_binDir(std::move(binDir))
{
}

QString SlurmProcessRunner::resolve(const QString &program) const
{
    return m_binDir.isEmpty() ? program : QDir(m_binDir).filePath(program);
}

void SlurmProcessRunner::run(const QString &program, const QStringList &args, const QByteArray &input,
                             const QProcessEnvironment &env, QObject *context, Done done)
{
    auto *process = new QProcess(context);
    process->setProgram(resolve(program));
    process->setArguments(args);
    if (!env.isEmpty())
        process->setProcessEnvironment(env);
    // One answer per command, whichever of finish, failure to start or the
    // deadline comes first.
    // A QProcess destroyed with its context kills its program and may still
    // report it finished: the guard keeps that from reaching a half-destroyed
    // caller (QPointer is cleared before an object's children are deleted).
    auto answered = std::make_shared<bool>(false);
    const QPointer<QObject> guard(context);
    auto finish = [process, answered, guard, done](SlurmCommandResult result) {
        if (*answered)
            return;
        *answered = true;
        process->disconnect();
        if (!guard)
            return;
        process->deleteLater();
        done(result);
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
    qCDebug(lcSlurm, "%s %s", qUtf8Printable(program), qUtf8Printable(args.join(QLatin1Char(' '))));
    process->start();
    if (!input.isEmpty())
        process->write(input);
    process->closeWriteChannel();
}

SlurmCommandResult SlurmProcessRunner::runNow(const QString &program, const QStringList &args, int timeoutMs)
{
    QProcess process;
    process.start(resolve(program), args);
    SlurmCommandResult result;
    if (!process.waitForStarted(timeoutMs)) {
        result.started = false;
        return result;
    }
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
