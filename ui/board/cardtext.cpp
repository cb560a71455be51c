#include "board/cardtext.h"

#include "experiment/runspecview.h"
#include "metrics/metricstore.h"

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
    if (run.state == RunState::Finished) {
        return 1.0;
    }
    return run.totalSteps > 0 && run.step >= 0 ? std::min(1.0, double(run.step) / double(run.totalSteps)) : -1.0;
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

QString CardText::toolTip(const RunInfo &run)
{
    QString text = run.message.isEmpty()
                       ? QStringLiteral("%1 (%2)").arg(run.name, runStateName(run.state))
                       : QStringLiteral("%1 (%2): %3").arg(run.name, runStateName(run.state), run.message);
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
