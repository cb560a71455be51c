#include "commands/progressprinter.h"

#include "orchestration/board/board.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/ingest/ingestion.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/session.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sys/ioctl.h>
#include <unistd.h>

namespace trainyard {

namespace {

QString duration(double seconds)
{
    if (seconds < 0 || !std::isfinite(seconds)) {
        return QStringLiteral("--:--");
    }
    const qint64 s = static_cast<qint64>(seconds + 0.5);
    if (s >= 3600) {
        return QStringLiteral("%1:%2:%3")
            .arg(s / 3600)
            .arg((s / 60) % 60, 2, 10, QLatin1Char('0'))
            .arg(s % 60, 2, 10, QLatin1Char('0'));
    }
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

} // namespace

ProgressPrinter::ProgressPrinter(Session *session, bool terminal)
    : m_orchestrator(session->orchestrator())
    , m_terminal(terminal)
{
    connect(m_orchestrator->runs(), &RunRegistry::changed, this, &ProgressPrinter::onRunChanged);
    connect(m_orchestrator->ingestion(), &Ingestion::progressChanged, this, [this](const QList<RunId> &ids) {
        if (!m_terminal) {
            for (RunId id : ids) {
                plainProgress(id);
            }
        }
    });
    connect(m_orchestrator->dispatcher(), &Dispatcher::warning, this,
            [this](const QString &text) { message(QStringLiteral("warning: ") + text); });
    for (RunId id : m_orchestrator->board()->runIds()) {
        m_lastState.insert(id, m_orchestrator->runs()->value(id).state);
    }
    if (m_terminal) {
        connect(&m_timer, &QTimer::timeout, this, &ProgressPrinter::redraw);
        m_timer.start(250);
    }
}

void ProgressPrinter::message(const QString &text)
{
    clearBlock();
    std::fprintf(stdout, "%s\n", qPrintable(text));
    std::fflush(stdout);
    redraw();
}

void ProgressPrinter::redraw()
{
    if (!m_terminal) {
        return;
    }
    clearBlock();
    const int width = terminalWidth();
    const QList<RunId> ids = m_orchestrator->board()->runIds();
    for (RunId id : ids) {
        QString line = progressLine(m_orchestrator->runs()->value(id));
        if (line.size() > width - 1) {
            line = line.left(width - 1);
        }
        std::fprintf(stdout, "%s\n", qPrintable(line));
    }
    const QString count = QStringLiteral("%1 of %2 finished")
                              .arg(m_orchestrator->dispatcher()->finishedCount())
                              .arg(m_orchestrator->dispatcher()->totalCount());
    std::fprintf(stdout, "%s\n", qPrintable(count));
    m_drawn = static_cast<int>(ids.size()) + 1;
    std::fflush(stdout);
}

void ProgressPrinter::finish()
{
    m_timer.stop();
    redraw();
    m_drawn = 0; // leave the last picture on screen
}

void ProgressPrinter::clearBlock()
{
    if (m_terminal && m_drawn > 0) {
        std::fprintf(stdout, "\x1b[%dA\x1b[J", m_drawn);
        m_drawn = 0;
    }
}

int ProgressPrinter::terminalWidth()
{
    struct winsize ws
    {};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) {
        return ws.ws_col;
    }
    return 120;
}

QString ProgressPrinter::progressLine(const RunInfo &run) const
{
    int nameWidth = 12;
    for (RunId id : m_orchestrator->board()->runIds()) {
        nameWidth = std::max<int>(nameWidth, static_cast<int>(m_orchestrator->runs()->value(id).name.size()));
    }
    QString line = run.name.leftJustified(nameWidth + 1);
    const int barWidth = 20;
    const double fraction = std::max(0.0, runProgress(run)); // steps or time budget
    const int filled = static_cast<int>(fraction * barWidth + 0.5);
    line += QLatin1Char('[') + QString(filled, QLatin1Char('#')) + QString(barWidth - filled, QLatin1Char('-'))
            + QStringLiteral("] ");
    line += QStringLiteral("%1% ").arg(static_cast<int>(fraction * 100), 3);
    line += runStateName(run.state).leftJustified(9);
    if (run.step >= 0) {
        line += QStringLiteral(" step %1").arg(run.step);
        if (run.totalSteps > 0) {
            line += QLatin1Char('/') + QString::number(run.totalSteps);
        }
    }
    if (run.stepsPerSecond > 0) {
        line += QStringLiteral("  %1 it/s").arg(run.stepsPerSecond, 0, 'f', 1);
    }
    if (!std::isnan(run.loss)) {
        line += QStringLiteral("  loss %1").arg(run.loss, 0, 'g', 4);
    }
    if (isActive(run.state) && run.etaSeconds >= 0) {
        line += QStringLiteral("  ETA ") + duration(run.etaSeconds);
    }
    if (!isActive(run.state) && !run.message.isEmpty() && run.state != RunState::Finished) {
        line += QStringLiteral("  ") + run.message;
    }
    return line;
}

void ProgressPrinter::plainProgress(RunId id)
{
    const RunInfo run = m_orchestrator->runs()->value(id);
    const double fraction = runProgress(run);
    if (fraction <= 0) {
        return;
    }
    const int tenth = static_cast<int>(10.0 * fraction);
    if (tenth <= m_lastTenth.value(id, 0) || tenth >= 10) {
        return;
    }
    m_lastTenth.insert(id, tenth);
    std::fprintf(stdout, "%s\n", qPrintable(progressLine(run)));
    std::fflush(stdout);
}

void ProgressPrinter::onRunChanged(RunId id)
{
    const RunInfo run = m_orchestrator->runs()->value(id);
    // A batch job says more while it starts: pending, and why; a run of a
    // GPU lane why it waits ("waits: cuda:3 busy — ...") or that it is back
    // after running out of memory.
    const QString said = run.state == RunState::Starting || isQueuedWithReason(run) ? run.message : QString();
    if (m_lastState.value(id, RunState::Queued) == run.state && m_lastSaid.value(id) == said) {
        return;
    }
    m_lastState.insert(id, run.state);
    m_lastSaid.insert(id, said);
    const QString job = run.jobId.isEmpty() ? QString() : QStringLiteral("job %1").arg(run.jobId);
    QString text;
    switch (run.state) {
    case RunState::Starting:
        text = QStringLiteral("%1: starting on %2").arg(run.name, run.device.toString());
        if (!said.isEmpty()) {
            text += QStringLiteral(" (%1%2)").arg(job.isEmpty() ? QString() : job + QStringLiteral(", "), said);
        }
        break;
    case RunState::Running:
        text = job.isEmpty() ? QStringLiteral("%1: running (pid %2)").arg(run.name).arg(run.pid)
                             : QStringLiteral("%1: running (%2 on %3)").arg(run.name, job, run.host);
        break;
    case RunState::Queued:
        if (!said.isEmpty()) {
            text = QStringLiteral("%1: %2").arg(run.name, said);
        }
        break;
    case RunState::Stalled:
        text = QStringLiteral("%1: stalled: %2").arg(run.name, run.message);
        break;
    case RunState::Stopping:
        text = QStringLiteral("%1: stopping").arg(run.name);
        break;
    default:
        if (isTerminal(run.state)) {
            text = QStringLiteral("%1: %2").arg(run.name, runStateName(run.state));
            if (run.started.isValid() && run.ended.isValid()) {
                text += QStringLiteral(" after ") + duration(run.started.msecsTo(run.ended) / 1000.0);
            }
            if (!std::isnan(run.loss)) {
                text += QStringLiteral(", loss %1").arg(run.loss, 0, 'g', 4);
            }
            if (!run.message.isEmpty()) {
                text += QStringLiteral(" (") + run.message + QLatin1Char(')');
            }
        }
    }
    if (text.isEmpty()) {
        return;
    }
    if (m_terminal) {
        // On a terminal the block shows states; only endings and waits get a line.
        if (isTerminal(run.state) || run.state == RunState::Queued) {
            message(text);
        }
    } else {
        std::fprintf(stdout, "%s\n", qPrintable(text));
        std::fflush(stdout);
    }
}

} // namespace trainyard
