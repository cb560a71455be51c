#include "ui/runs/runusage.h"

#include "orchestration/records/runrecord.h"
#include "ui/board/carddelegate.h"

#include <QCoreApplication>
#include <QLocale>

#include <cmath>

namespace trainyard::runusage {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("trainyard::RunDetailsDialog", text);
}

QString dash()
{
    return QStringLiteral("—");
}

} // namespace

QString throughputText(const RunRecord &run)
{
    const RunRecord::Usage &u = run.usage;
    if (u.samplesPerSecondReports == 0) {
        return dash();
    }
    const QLocale locale;
    const QString mean = locale.toString(u.meanSamplesPerSecond(), 'f', 0);
    if (u.samplesPerSecondReports == 1) {
        return tr("%1 samples/s").arg(mean);
    }
    return tr("%1 samples/s (mean of %2 reports; last %3)")
        .arg(mean, locale.toString(qint64(u.samplesPerSecondReports)), locale.toString(u.lastSamplesPerSecond, 'f', 0));
}

QString memoryText(const RunRecord &run)
{
    const double last = run.info.memBytes;
    const double peak = run.usage.peakMemBytes;
    if (last < 0 && peak < 0) {
        return dash();
    }
    const QLocale locale;
    const auto size = [&locale](double bytes) { return locale.formattedDataSize(qint64(bytes), 1); };
    if (peak < 0 || peak <= last) {
        return size(last >= 0 ? last : peak);
    }
    return isActive(run.info.state) ? tr("%1 now (peak %2)").arg(size(last), size(peak))
                                    : tr("%1 at its peak (last %2)").arg(size(peak), size(last));
}

QString budgetText(const RunRecord &run, const QJsonObject &resolvedSpec)
{
    const QJsonObject train = resolvedSpec.value(QStringLiteral("train")).toObject();
    if (!train.contains(QStringLiteral("max_seconds"))) {
        return dash();
    }
    const QJsonValue budget = train.value(QStringLiteral("max_seconds"));
    if (!budget.isDouble() || budget.toDouble() <= 0) {
        return tr("none (train.max_seconds: null)");
    }
    const double seconds = budget.toDouble();
    const QString total = tr("%1 (train.max_seconds)").arg(CardDelegate::formatDuration(seconds));
    const double used = run.info.wall; // the worker's clock: resumed time counts, as the budget does
    if (used <= 0) {
        return total;
    }
    if (isActive(run.info.state)) {
        return tr("%1: %2 used, %3 left")
            .arg(total, CardDelegate::formatDuration(used),
                 CardDelegate::formatDuration(std::max(0.0, seconds - used)));
    }
    // Spent: the worker ends training with the final evaluation after it.
    return used >= seconds * 0.99
               ? tr("%1: spent, %2 used (it ended the training)").arg(total, CardDelegate::formatDuration(used))
               : tr("%1: %2 used").arg(total, CardDelegate::formatDuration(used));
}

} // namespace trainyard::runusage
