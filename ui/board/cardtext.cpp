#include "ui/board/cardtext.h"

#include "metrics/metricstore.h"
#include "orchestration/runspec/runspecview.h"

#include <QLocale>
#include <QRegularExpression>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace trainyard {

QString CardText::stateName(const RunInfo &run)
{
    return run.held && run.state == RunState::Queued ? tr("held") : runStateName(run.state);
}

double CardText::progress(const RunInfo &run)
{
    return runProgress(run); // steps or the time budget, whichever is further
}

QVector<double> CardText::lossHistory(const MetricSeries *series)
{
    QVector<double> out;
    if (!series || series->isEmpty()) {
        return out;
    }
    const std::size_t n = series->size();
    const std::size_t bins = std::min<std::size_t>(48, n);
    out.reserve(int(bins));
    for (std::size_t b = 0; b < bins; ++b) {
        const std::size_t i0 = n * b / bins;
        const std::size_t i1 = std::max(i0 + 1, n * (b + 1) / bins);
        // Long bins are sampled (at most 64 points each) so a huge run stays cheap.
        const std::size_t stride = std::max<std::size_t>(1, (i1 - i0) / 64);
        double sum = 0;
        int count = 0;
        for (std::size_t i = i0; i < i1; i += stride) {
            const double v = series->value(i);
            if (std::isfinite(v)) {
                sum += v;
                ++count;
            }
        }
        if (count > 0) {
            out.append(sum / count);
        }
    }
    return out;
}

QString CardText::detailLine(const RunInfo &run)
{
    QStringList parts;
    const QString kind = RunSpecView(run.spec).kindLabel();
    if (!kind.isEmpty()) {
        parts << kind;
    }
    if (!run.jobId.isEmpty() && isActive(run.state)) {
        // A batch job: its id, and its node once it runs (the lane names the partition).
        parts << tr("job %1").arg(run.jobId);
        if (run.queueReason.isEmpty() && !run.host.isEmpty()) {
            parts << run.host;
        }
    } else if (!run.device.isEmpty() && isActive(run.state)) {
        parts << run.device.toString();
    }
    if (run.memBytes >= 0 && isActive(run.state)) {
        parts << QLocale().formattedDataSize(qint64(run.memBytes), 1);
    }
    if (run.repeatCount > 1) {
        parts << tr("repeat %1/%2").arg(run.repeatIndex + 1).arg(run.repeatCount);
    }
    return parts.join(QStringLiteral(" · "));
}

QString CardText::failure(const QString &message)
{
    // exitOutcome's words: "<how it ended> — worker.log: <the log's last line>",
    // or for a program ":\n<its traceback or last lines>".
    static const QString logMark = QStringLiteral(" — worker.log:");
    const qsizetype mark = message.indexOf(logMark);
    const QString head = mark < 0 ? message : message.left(mark);
    QStringList tail;
    for (const QString &line :
         message.mid(mark < 0 ? message.size() : mark + logMark.size()).split(QLatin1Char('\n'))) {
        if (!line.trimmed().isEmpty()) {
            tail << line.trimmed();
        }
    }
    // A bare exit status says nothing the badge does not: the log's last word first.
    static const QRegularExpression bareExit(QStringLiteral("^(exit [0-9]+(: .*)?|the program exited [0-9]+)$"));
    if (!tail.isEmpty() && bareExit.match(head).hasMatch()) {
        // The status's own gloss ("bad input (spec, data or arguments)")
        // left out: in brackets it would close twice.
        static const QRegularExpression gloss(QStringLiteral(" \\([^()]*\\)$"));
        // A card's line is short: the worker's key problem without who says
        // it and the keys it expects (the tooltip and Details have them).
        static const QRegularExpression speaker(QStringLiteral("^trainyard-worker: [^ :]+\\.json: "));
        static const QRegularExpression expected(QStringLiteral(" \\(expected one of [^()]*\\)$"));
        const QString why = QString(tail.last()).remove(speaker).remove(expected);
        return QStringLiteral("%1 (%2)").arg(why.isEmpty() ? tail.last() : why, QString(head).remove(gloss));
    }
    return head.section(QLatin1Char('\n'), 0, 0);
}

QString CardText::statusLine(const RunInfo &run)
{
    if (!run.message.isEmpty()
        && (run.state == RunState::Failed || run.state == RunState::Diverged || run.state == RunState::Lost)) {
        return failure(run.message); // why, before anything else it reported
    }
    if (!run.sweep.isEmpty() && run.state == RunState::Stopped && !run.message.isEmpty()) {
        return run.message; // a paused or stopped trial: why ("rung 3 (epoch 9): valid/mrr 0.214 below ...")
    }
    if (std::isfinite(run.loss)) {
        QString text = tr("loss %1").arg(QString::number(run.loss, 'g', 4));
        if (run.step >= 0) {
            text += tr(" · step %1").arg(run.step);
        }
        return text;
    }
    if (!run.message.isEmpty()
        && (isTerminal(run.state) || !run.queueReason.isEmpty() || isActive(run.state) || run.state == RunState::Waiting
            || isQueuedWithReason(run))) {
        return run.message.section(QLatin1Char('\n'), 0, 0); // how it ended, why it waits ("waits for a, b"), a note
    }
    return {};
}

QString CardText::toolTip(const RunInfo &run)
{
    QString text = run.message.isEmpty()
                       ? QStringLiteral("%1 (%2)").arg(run.name, runStateName(run.state))
                       : QStringLiteral("%1 (%2): %3").arg(run.name, runStateName(run.state), run.message);
    // The card's lines in full (they are elided on the card).
    const QString detail = detailLine(run);
    if (!detail.isEmpty()) {
        text += QLatin1Char('\n') + detail;
    }
    const QString status = statusLine(run);
    if (!status.isEmpty() && !run.message.contains(status)) {
        text += QLatin1Char('\n') + status;
    }
    if (!run.after.isEmpty()) {
        text += QLatin1Char('\n') + tr("runs after %1").arg(run.after.join(QStringLiteral(", ")));
    }
    // The hyperparameters its spec sets (the defaults are in its details),
    // in the runs table's order; a long spec is cut, not the window.
    constexpr int kMaxLines = 14;
    QStringList lines;
    for (const RunSpecView::Param &p : RunSpecView(run.spec).flattened()) {
        if (p.key != QLatin1String("name")) {
            lines << QStringLiteral("%1 = %2").arg(p.key, RunSpecView::valueText(p.value));
        }
    }
    if (lines.size() > kMaxLines) {
        const int more = int(lines.size()) - kMaxLines;
        lines.resize(kMaxLines);
        lines << tr("… %n more in its details (Ctrl+I)", nullptr, more);
    }
    for (const QString &line : std::as_const(lines)) {
        text += QLatin1Char('\n') + line;
    }
    return text;
}

} // namespace trainyard
