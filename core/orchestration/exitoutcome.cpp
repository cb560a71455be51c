#include "exitoutcome.h"

#include "exitcode.h"

#include <QFile>
#include <QList>
#include <QStringList>

#include <csignal>
#include <cstring>

namespace trainyard {

namespace {

QString exitMeaning(int code)
{
    const std::string_view text = protocol::exitMeaning(code);
    return QString::fromLatin1(text.data(), qsizetype(text.size()));
}

} // namespace

QString logTail(const QString &runDir, int maxLines)
{
    QFile file(runDir + QStringLiteral("/worker.log"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    if (file.size() > 8192)
        file.seek(file.size() - 8192);
    QStringList lines;
    for (const QByteArray &raw : file.readAll().split('\n')) {
        // Several lines keep their indentation (a traceback's); one is trimmed.
        const QString line = QString::fromUtf8(maxLines > 1 ? raw : raw.trimmed());
        if (!line.trimmed().isEmpty())
            lines << line.left(300);
    }
    const qsizetype traceback = lines.lastIndexOf(QStringLiteral("Traceback (most recent call last):"));
    if (traceback >= 0 && maxLines > 1)
        lines = lines.mid(traceback);
    if (lines.size() > maxLines)
        lines = lines.mid(lines.size() - maxLines);
    return lines.join(QLatin1Char('\n'));
}

QString signalName(int sig)
{
    const char *abbrev = sigabbrev_np(sig);
    const char *text = sigdescr_np(sig);
    if (!abbrev || !text)
        return QStringLiteral("signal %1").arg(sig);
    return QStringLiteral("signal %1 (SIG%2: %3)").arg(sig).arg(QString::fromLatin1(abbrev), QString::fromLatin1(text));
}

RunState stateForExit(int code)
{
    using protocol::ExitCode;
    if (!protocol::isKnownExit(code))
        return RunState::Failed;
    switch (static_cast<ExitCode>(code)) {
    case ExitCode::Finished:
        return RunState::Finished;
    case ExitCode::Diverged:
        return RunState::Diverged;
    case ExitCode::Stopped:
    case ExitCode::Requeue: // a launcher that resubmits never reports it; elsewhere Start resumes it
        return RunState::Stopped;
    case ExitCode::Failed:
    case ExitCode::BadInput:
        return RunState::Failed;
    }
    return RunState::Failed;
}

ExitOutcome exitOutcome(const ExitFacts &f)
{
    ExitOutcome out;
    out.exitCode = f.exitCode;
    // A program run's exit status is its own, not protocol::ExitCode. After
    // a Stop these mean it obeyed; a shell or launcher (bash, torchrun)
    // reports its child's SIGTERM as 128 + 15.
    const bool stopSignal = f.signal == SIGTERM || f.signal == SIGINT;
    const bool stopStatus = f.exitCode == 0 || f.exitCode == protocol::toInt(protocol::ExitCode::Stopped)
                            || f.exitCode == 128 + SIGTERM || f.exitCode == 128 + SIGINT;
    const QString what = f.program ? QStringLiteral("program") : QStringLiteral("worker");
    if (f.cancelled && f.pending) {
        out.state = RunState::Cancelled;
        out.message = QStringLiteral("cancelled before it started (was pending: %1)").arg(f.pendingReason);
    } else if (f.signal > 0) {
        const bool stopped = f.program && f.stopAsked && !f.killed && stopSignal;
        out.state = stopped ? RunState::Stopped : RunState::Failed;
        out.message = f.killed  ? f.killMessage + QStringLiteral(" (%1)").arg(signalName(f.signal))
                      : stopped ? QStringLiteral("stopped on request (%1)").arg(signalName(f.signal))
                      : !f.jobId.isEmpty() && f.signal == SIGTERM
                          ? QStringLiteral("job %1 was CANCELLED outside Trainyard (scancel, an administrator): %2")
                                .arg(f.jobId, signalName(f.signal))
                          : QStringLiteral("killed by %1").arg(signalName(f.signal));
    } else if (f.exitCode >= 0 && !f.program) {
        out.state = stateForExit(f.exitCode);
        out.message = QStringLiteral("exit %1: %2").arg(f.exitCode).arg(exitMeaning(f.exitCode));
    } else if (f.exitCode >= 0) {
        const bool stopped = f.stopAsked && stopStatus;
        out.state = stopped ? RunState::Stopped : f.exitCode == 0 ? RunState::Finished : RunState::Failed;
        out.message =
            (stopped ? QStringLiteral("stopped on request (exit %1)") : QStringLiteral("exit %1")).arg(f.exitCode);
    } else if (f.doneSeen) {
        // Attached after a restart, not our child: its "done" line is all we know.
        out.exitCode = f.doneExit;
        out.state = f.doneExit >= 0 ? stateForExit(f.doneExit) : RunState::Failed;
        out.message = QStringLiteral("reported %1 (exit %2)").arg(f.doneStatus).arg(f.doneExit);
    } else if (f.pending) {
        out.state = RunState::Failed;
        out.message = QStringLiteral("left the queue without running (was pending: %1)").arg(f.pendingReason);
    } else {
        out.state = RunState::Failed;
        out.message = QStringLiteral("the %1 ended without reporting how (killed while Trainyard was away?)").arg(what);
    }
    // A worker's last line says why; a program's (a Python traceback) takes more.
    if (f.program && out.state == RunState::Failed) {
        const QString tail = logTail(f.runDir, 20);
        if (!tail.isEmpty())
            out.message += QStringLiteral(" — worker.log:\n") + tail;
    } else if (!f.program && (out.state == RunState::Failed || out.state == RunState::Diverged)) {
        const QString last = logTail(f.runDir, 1);
        if (!last.isEmpty())
            out.message += QStringLiteral(" — worker.log: ") + last;
    }
    return out;
}

} // namespace trainyard
