#include "orchestration/supervision/exitoutcome.h"

#include "metrics/runfile.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runspec/runspecview.h"
#include "orchestration/runstore/runstore.h"
#include "protocol/exitcode.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QList>
#include <QRegularExpression>
#include <QStringList>

#include <algorithm>
#include <csignal>
#include <cstring>

namespace trainyard {

namespace {

// A program's failure message shows this much of worker.log's end: a
// chained Python traceback of a few frames a part, whole.
constexpr int kProgramTailLines = 40;

QString exitMeaning(int code)
{
    const std::string_view text = protocol::exitMeaning(code);
    return QString::fromLatin1(text.data(), qsizetype(text.size()));
}

QString exitStatusWord(int code)
{
    const std::string_view text = protocol::exitStatusName(code);
    return QString::fromLatin1(text.data(), qsizetype(text.size()));
}

// The state a done line's status names; an unknown word goes by its exit_code.
RunState doneState(const QString &status, int doneExit)
{
    for (int code = 0; protocol::isKnownExit(code); ++code) {
        if (status == exitStatusWord(code)) {
            return stateForExit(code);
        }
    }
    return doneExit >= 0 ? stateForExit(doneExit) : RunState::Failed;
}

// The line Python prints between two parts of a chained exception.
bool isChainSentence(const QString &line)
{
    return line == QLatin1String("The above exception was the direct cause of the following exception:")
           || line == QLatin1String("During handling of the above exception, another exception occurred:");
}

} // namespace

QString outOfMemoryLine(const QString &runDir)
{
    // PyTorch's, the CUDA runtime's and cuBLAS's words for it.
    static const QRegularExpression oom(
        QStringLiteral("CUDA out of memory|OutOfMemoryError|CUDA error: out of memory|CUBLAS_STATUS_ALLOC_FAILED"));
    const QStringList lines = logTail(runDir, 200).split(QLatin1Char('\n'));
    for (qsizetype i = lines.size() - 1; i >= 0; --i) {
        if (oom.match(lines.at(i)).hasMatch()) {
            return lines.at(i).trimmed();
        }
    }
    return {};
}

QString logTail(const QString &runDir, int maxLines)
{
    QFile file;
    if (!openRegularFile(runDir + QStringLiteral("/worker.log"), &file, nullptr)) {
        return {}; // absent, or a link or a FIFO: never followed, never waited on
    }
    const qint64 window = 16384;
    const bool partial = file.size() > window;
    if (partial) {
        file.seek(file.size() - window);
    }
    QStringList lines;
    const QList<QByteArray> raws = file.readAll().split('\n');
    for (qsizetype i = partial ? 1 : 0; i < raws.size(); ++i) { // a window's first line is a piece
        // Several lines keep their indentation (a traceback's); one is trimmed.
        const QString line = QString::fromUtf8(maxLines > 1 ? raws.at(i) : raws.at(i).trimmed());
        if (!line.trimmed().isEmpty()) {
            lines << line.left(300);
        }
    }
    qsizetype start = 0;
    if (maxLines > 1) {
        // Python prints a chained exception's parts first cause first, each
        // a traceback of its own, joined by one of these sentences.
        const QString traceback = QStringLiteral("Traceback (most recent call last):");
        start = lines.lastIndexOf(traceback);
        while (start > 0 && isChainSentence(lines.at(start - 1))) {
            const qsizetype earlier = lines.lastIndexOf(traceback, start - 2);
            start = earlier < 0 ? 0 : earlier; // 0: the chain began before what was read
            if (earlier < 0) {
                break;
            }
        }
        lines = lines.mid(std::max<qsizetype>(start, 0));
    }
    // Kept from the window's first line: what came before it is not shown.
    const bool cut = partial && start <= 0;
    qsizetype dropped = 0;
    if (lines.size() > maxLines) {
        const qsizetype kept = maxLines > 1 ? maxLines - 1 : maxLines; // one line for the marker
        dropped = lines.size() - kept;
        lines = lines.mid(dropped);
    }
    if (maxLines > 1 && (dropped > 0 || cut)) {
        lines.prepend(dropped > 0 ? QStringLiteral("\u2026 %1 lines cut, see worker.log").arg(dropped)
                                  : QStringLiteral("\u2026 earlier lines cut, see worker.log"));
    }
    return lines.join(QLatin1Char('\n'));
}

RunState stateForExit(int code)
{
    using protocol::ExitCode;
    if (!protocol::isKnownExit(code)) {
        return RunState::Failed;
    }
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

ExitFacts ExitFacts::reported(const RunInfo &run, const Ingestion::Done &done)
{
    ExitFacts facts;
    facts.doneSeen = done.seen;
    facts.doneStatus = done.status;
    facts.doneExit = done.exitCode;
    facts.lines = done.lines;
    facts.metricSeen = done.metricSeen;
    facts.nonFiniteLossFrom = done.nonFiniteLossFrom;
    facts.runDir = run.runDir;
    facts.program = RunSpecView(run.spec).isProgram();
    return facts;
}

void recordOutcome(const RunStore &store, RunInfo *r)
{
    const QString dir = store.runDir(r->name);
    const QFileInfo folder(dir);
    if (!dir.isEmpty() && !folder.exists() && !folder.isSymLink()) {
        const bool made = QDir().mkdir(dir);
        r->message += made ? QStringLiteral(" (its run folder %1 was gone; made again for status.json)").arg(dir)
                           : QStringLiteral(" (its run folder %1 is gone and cannot be made again: the outcome "
                                            "is kept in this session only)")
                                 .arg(dir);
        if (!made) {
            return;
        }
    }
    QString error;
    if (!store.writeStatus(*r, &error)) {
        r->message += QStringLiteral(" (") + error + QLatin1Char(')');
    }
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
    const QString cancelledOutside =
        QStringLiteral("job %1 was CANCELLED outside Trainyard (scancel, an administrator): %2");
    // Exit 0 with nothing to show: a worker always reports steps and a done
    // line; a program is judged only once it used the module (it wrote lines).
    const bool neverReported =
        f.exitCode == 0 && f.signal <= 0 && !f.doneSeen && !f.metricSeen && !f.stopAsked && (!f.program || f.lines > 0);
    if (f.cancelled && f.pending) {
        out.state = RunState::Cancelled;
        out.message = QStringLiteral("cancelled before it started (was pending: %1)").arg(f.pendingReason);
    } else if (!f.queueEnd.isEmpty()) {
        // The queue ended it (a time limit, a failed launch): its words, not a signal number.
        out.state = RunState::Failed;
        out.message = f.queueEnd;
    } else if (f.signal > 0 && f.killed) {
        out.state = RunState::Failed;
        out.message = f.killMessage + QStringLiteral(" (%1)").arg(signalName(f.signal));
    } else if (f.doneSeen) {
        // The done line wins: a run that checkpointed and wrote "stopped"
        // after a SIGTERM from outside is stopped, whatever its exit status.
        out.state = doneState(f.doneStatus, f.doneExit);
        const RunState byExit =
            f.program ? (f.exitCode == 0 ? RunState::Finished : RunState::Failed) : stateForExit(f.exitCode);
        const bool exitAgrees = f.signal <= 0 && f.exitCode >= 0 && byExit == out.state;
        if (f.signal <= 0 && f.exitCode < 0) {
            // Attached after a restart, not our child: its done line is all we know.
            out.exitCode = f.doneExit;
            out.message = QStringLiteral("reported %1 (exit %2)").arg(f.doneStatus).arg(f.doneExit);
        } else if (out.state == RunState::Stopped && f.stopAsked) {
            out.message = QStringLiteral("stopped on request (%1)")
                              .arg(f.signal > 0 ? signalName(f.signal) : QStringLiteral("exit %1").arg(f.exitCode));
        } else if (exitAgrees) {
            out.message = f.program ? QStringLiteral("exit %1").arg(f.exitCode)
                                    : QStringLiteral("exit %1: %2").arg(f.exitCode).arg(exitMeaning(f.exitCode));
        } else {
            const QString ending =
                f.signal <= 0
                    ? (f.program
                           ? QStringLiteral("the program exited %1").arg(f.exitCode)
                           : QStringLiteral("the worker exited %1 (%2)").arg(f.exitCode).arg(exitMeaning(f.exitCode)))
                : !f.jobId.isEmpty() && f.signal == SIGTERM && !f.stopAsked
                    ? cancelledOutside.arg(f.jobId, signalName(f.signal))
                    : QStringLiteral("the %1 was killed by %2").arg(what, signalName(f.signal));
            out.message = QStringLiteral("reported %1 in its done line; %2").arg(f.doneStatus, ending);
        }
    } else if (f.signal > 0) {
        // A TERM after a Stop of ours is that stop, never "cancelled outside".
        const bool stopped = f.stopAsked && stopSignal;
        out.state = stopped ? RunState::Stopped : RunState::Failed;
        out.message = stopped ? QStringLiteral("stopped on request (%1)").arg(signalName(f.signal))
                      : !f.jobId.isEmpty() && f.signal == SIGTERM
                          ? cancelledOutside.arg(f.jobId, signalName(f.signal))
                          : QStringLiteral("killed by %1").arg(signalName(f.signal));
    } else if (neverReported) {
        out.state = RunState::Failed;
        out.message = f.program ? QStringLiteral("exited 0 without a step or a done line although it used the "
                                                 "trainyard module (os._exit() skips the done line)")
                                : QStringLiteral("exited 0 but never reported a step or a done line — not "
                                                 "trainyard-worker? see worker.log");
    } else if (f.exitCode >= 0 && !f.program) {
        out.state = stateForExit(f.exitCode);
        out.message = QStringLiteral("exit %1: %2").arg(f.exitCode).arg(exitMeaning(f.exitCode));
    } else if (f.exitCode >= 0) {
        const bool stopped = f.stopAsked && stopStatus;
        out.state = stopped ? RunState::Stopped : f.exitCode == 0 ? RunState::Finished : RunState::Failed;
        out.message =
            (stopped ? QStringLiteral("stopped on request (exit %1)") : QStringLiteral("exit %1")).arg(f.exitCode);
    } else if (f.pending) {
        out.state = RunState::Failed;
        out.message = QStringLiteral("left the queue without running (was pending: %1)").arg(f.pendingReason);
    } else {
        out.state = RunState::Failed;
        out.message = QStringLiteral("the %1 ended without reporting how (killed while Trainyard was away?)").arg(what);
    }
    // A program's loss may turn NaN and come back (a gap in the curve); one
    // that stays non-finite to the end diverged, as a worker's would have.
    if ((out.state == RunState::Finished || (out.state == RunState::Diverged && f.program))
        && f.nonFiniteLossFrom >= 0) {
        out.state = RunState::Diverged;
        out.message = QStringLiteral("diverged: the loss was NaN or infinite from step %1 to the end (%2)")
                          .arg(f.nonFiniteLossFrom)
                          .arg(out.message);
    }
    // A worker's last line says why; a program's (a Python traceback) takes
    // more. Out of GPU memory says so first, with the line that says it.
    if (out.state == RunState::Failed) {
        if (const QString oom = outOfMemoryLine(f.runDir); !oom.isEmpty()) {
            out.message = QStringLiteral("%1 (%2) — worker.log: %3").arg(kOutOfMemory, out.message, oom);
            return out;
        }
    }
    if (f.program && out.state == RunState::Failed) {
        const QString tail = logTail(f.runDir, kProgramTailLines);
        if (!tail.isEmpty()) {
            out.message += QStringLiteral(" — worker.log:\n") + tail;
        }
    } else if (!f.program && (out.state == RunState::Failed || out.state == RunState::Diverged)) {
        const QString last = logTail(f.runDir, 1);
        if (!last.isEmpty()) {
            out.message += QStringLiteral(" — worker.log: ") + last;
        }
    }
    return out;
}

void recordKilled(RunRegistry *runs, RunStore *store, RunId id, const QString &message)
{
    runs->update(
        id,
        [&](RunInfo &run) {
            run.state = RunState::Failed;
            run.message = message;
            run.connected = false;
            run.ended = QDateTime::currentDateTimeUtc();
        },
        RunRegistry::Notify::Quiet);
    if (const RunInfo *r = runs->find(id)) {
        store->writeStatus(*r);
    }
}

} // namespace trainyard
