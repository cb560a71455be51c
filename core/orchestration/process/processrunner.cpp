#include "orchestration/process/processrunner.h"

#include "orchestration/logcategories.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QProcess>

#include <memory>

namespace trainyard {

namespace {

void configure(QProcess &process, const ProcessCommand &command)
{
    process.setProgram(command.program);
    process.setArguments(command.args);
    process.setProcessChannelMode(QProcess::SeparateChannels);
    if (!command.env.isEmpty()) {
        process.setProcessEnvironment(command.env);
    }
    if (!command.workingDirectory.isEmpty()) {
        process.setWorkingDirectory(command.workingDirectory);
    }
}

int remaining(const QDeadlineTimer &deadline)
{
    return int(std::max<qint64>(1, deadline.remainingTime()));
}

} // namespace

QString ProcessResult::message(const QString &program) const
{
    if (!started) {
        return errorString.isEmpty() ? QStringLiteral("%1 could not be run").arg(program)
                                     : QStringLiteral("%1 could not be run: %2").arg(program, errorString);
    }
    if (timedOut) {
        return QStringLiteral("%1 did not answer in time").arg(program);
    }
    QStringList lines;
    const QList<QByteArray> raw = err.trimmed().split('\n');
    for (const QByteArray &line : raw) {
        const QString text = QString::fromUtf8(line).trimmed();
        if (!text.isEmpty()) {
            lines << text;
        }
    }
    if (!lines.isEmpty()) {
        return lines.join(QStringLiteral("; "));
    }
    if (crashed) {
        return QStringLiteral("%1 crashed").arg(program);
    }
    return QStringLiteral("%1 failed (exit %2)").arg(program).arg(exitCode);
}

Process::Process(QObject *parent)
    : QObject(parent)
{
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this, [this] {
        qCWarning(lcProcess, "%s did not answer in time; killed", qUtf8Printable(m_program));
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(1000);
        m_result.timedOut = true;
        m_result.exitCode = -1;
        m_result.out = m_process->readAllStandardOutput();
        m_result.err = m_process->readAllStandardError();
        settle();
    });
}

Process::~Process()
{
    // Killed without an answer: the caller that owns this is going away.
    stopProgram();
}

void Process::stopProgram()
{
    m_deadline.stop();
    m_running = false;
    m_pending = false;
    if (!m_process) {
        return;
    }
    m_process->disconnect(this);
    if (m_process->state() != QProcess::NotRunning) {
        m_process->kill();
        m_process->waitForFinished(1000);
    }
    m_process->deleteLater(); // this may run inside one of its signals
    m_process = nullptr;
}

void Process::cancel()
{
    stopProgram();
}

void Process::start(const ProcessCommand &command, int timeoutMs)
{
    stopProgram();
    m_result = ProcessResult();
    m_program = command.program;
    m_running = true;
    m_process = new QProcess(this);
    configure(*m_process, command);
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        m_result.crashed = status != QProcess::NormalExit;
        m_result.exitCode = m_result.crashed ? -1 : code;
        if (m_result.crashed) {
            m_result.errorString = m_process->errorString();
        }
        m_result.out = m_process->readAllStandardOutput();
        m_result.err = m_process->readAllStandardError();
        settle();
    });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart) {
            return; // a crash or a kill also ends in finished()
        }
        qCWarning(lcProcess, "%s could not be run: %s", qUtf8Printable(m_program),
                  qUtf8Printable(m_process->errorString()));
        m_result.started = false;
        m_result.errorString = m_process->errorString();
        settle();
    });
    if (timeoutMs > 0) {
        m_deadline.start(timeoutMs);
    }
    qCDebug(lcProcess, "%s %s", qUtf8Printable(command.program), qUtf8Printable(command.args.join(QLatin1Char(' '))));
    m_starting = true;
    m_process->start();
    m_starting = false;
    if (m_process && m_process->state() != QProcess::NotRunning) {
        if (!command.input.isEmpty()) {
            m_process->write(command.input);
        }
        m_process->closeWriteChannel();
    }
}

void Process::settle()
{
    m_deadline.stop();
    m_running = false;
    m_pending = true;
    // Out of this object's hands before the answer: the answer may delete
    // this Process (its caller went away), and the QProcess may still be
    // inside the signal that brought it.
    m_process->disconnect(this);
    m_process->setParent(nullptr);
    m_process->deleteLater();
    m_process = nullptr;
    if (m_starting) { // QProcess can fail inside start(): the caller hears it from the event loop
        QMetaObject::invokeMethod(this, &Process::deliver, Qt::QueuedConnection);
    } else {
        deliver();
    }
}

void Process::deliver()
{
    if (!m_pending) {
        return;
    }
    m_pending = false;
    Q_EMIT done(m_result); // nothing after this: the receiver may have deleted this
}

bool Process::waitForFinished(int ms)
{
    if (m_pending) {
        deliver();
        return true;
    }
    if (!m_running) {
        return true;
    }
    QPointer<Process> self(this);
    QProcess *process = m_process;
    process->waitForFinished(ms); // emits finished() or errorOccurred() within when it ends
    return !self || !self->m_running;
}

ProcessResult Process::runNow(const ProcessCommand &command, int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    QProcess process;
    configure(process, command);
    qCDebug(lcProcess, "%s %s", qUtf8Printable(command.program), qUtf8Printable(command.args.join(QLatin1Char(' '))));
    process.start();
    ProcessResult result;
    const auto killed = [&] {
        qCWarning(lcProcess, "%s did not answer in time; killed", qUtf8Printable(command.program));
        process.kill();
        process.waitForFinished(1000);
        result.timedOut = true;
        result.out = process.readAllStandardOutput();
        result.err = process.readAllStandardError();
        return result;
    };
    if (!process.waitForStarted(remaining(deadline))) {
        if (process.error() != QProcess::FailedToStart) {
            return killed();
        }
        qCWarning(lcProcess, "%s could not be run: %s", qUtf8Printable(command.program),
                  qUtf8Printable(process.errorString()));
        result.started = false;
        result.errorString = process.errorString();
        return result;
    }
    if (!command.input.isEmpty()) {
        process.write(command.input);
    }
    process.closeWriteChannel();
    if (!process.waitForFinished(remaining(deadline))) {
        return killed();
    }
    result.crashed = process.exitStatus() != QProcess::NormalExit;
    result.exitCode = result.crashed ? -1 : process.exitCode();
    if (result.crashed) {
        result.errorString = process.errorString();
    }
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

ProcessRunner::ProcessRunner(int timeoutMs, QString binDir, int maxRunning)
    : m_timeoutMs(timeoutMs)
    , m_binDir(std::move(binDir))
    , m_maxRunning(qMax(1, maxRunning))
{
}

QString ProcessRunner::shellQuote(const QString &word)
{
    QString quoted = word;
    quoted.replace(QLatin1Char('\''), QLatin1String("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

ProcessCommand ProcessRunner::command(const QString &program, const QStringList &args) const
{
    const QString resolved = m_binDir.isEmpty() ? program : QDir(m_binDir).filePath(program);
    if (m_ssh.isEmpty()) {
        return ProcessCommand{resolved, args, {}, {}, {}};
    }
    // ssh joins its words into one line for the remote shell: each is quoted
    // so that no value is ever interpreted there.
    QStringList remote{shellQuote(resolved)};
    for (const QString &arg : args) {
        remote << shellQuote(arg);
    }
    return ProcessCommand{m_ssh.first(), m_ssh.mid(1) + QStringList{remote.join(QLatin1Char(' '))}, {}, {}, {}};
}

void ProcessRunner::run(const QString &program, const QStringList &args, const QByteArray &input,
                        const QProcessEnvironment &env, QObject *context, Done done)
{
    m_waiting.push_back(Call{program, args, input, env, context, std::move(done)});
    startWaiting();
}

void ProcessRunner::startWaiting()
{
    while (m_running < m_maxRunning && !m_waiting.empty()) {
        Call call = std::move(m_waiting.front());
        m_waiting.pop_front();
        if (call.context) { // its caller is gone: nobody wants the answer
            launch(std::move(call));
        }
    }
}

void ProcessRunner::launch(Call call)
{
    ProcessCommand what = command(call.program, call.args);
    what.input = call.input;
    if (m_ssh.isEmpty()) {
        what.env = call.env;
    }
    // The Process is the context's child: destroyed with it, it kills its
    // program and answers nothing. The guard keeps an answer from reaching a
    // half-destroyed caller all the same (QPointer is cleared before an
    // object's children are deleted). The runner is its context's (the
    // launcher's): alive while the guard is.
    auto *process = new Process(call.context);
    const QPointer<QObject> guard(call.context);
    ++m_running;
    QObject::connect(process, &Process::done, process,
                     [this, process, guard, done = std::move(call.done)](const ProcessResult &answer) {
                         const ProcessResult result = answer; // `done` may delete the Process
                         process->deleteLater();
                         if (!guard) {
                             return;
                         }
                         --m_running;
                         done(result);
                         if (guard) { // `done` may have destroyed the caller, and this runner with it
                             startWaiting();
                         }
                     });
    process->start(what, m_timeoutMs);
}

ProcessResult ProcessRunner::runNow(const QString &program, const QStringList &args, const QByteArray &input,
                                    int timeoutMs) const
{
    ProcessCommand what = command(program, args);
    what.input = input;
    return Process::runNow(what, timeoutMs);
}

} // namespace trainyard
