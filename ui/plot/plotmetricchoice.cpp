#include "ui/plot/plotmetricchoice.h"

namespace trainyard {

bool PlotMetricChoice::setWanted(Plot plot, const QString &metric)
{
    (plot == Plot::Upper ? m_wantedUpper : m_wantedLower) = metric;
    return update();
}

bool PlotMetricChoice::setAvailable(const QStringList &metrics)
{
    m_available = metrics;
    return update();
}

bool PlotMetricChoice::update()
{
    const QString upper = shownFor(Plot::Upper, m_available, m_wantedUpper);
    const QString lower = shownFor(Plot::Lower, m_available, m_wantedLower);
    const bool changed = upper != m_shownUpper || lower != m_shownLower;
    m_shownUpper = upper;
    m_shownLower = lower;
    return changed;
}

QString PlotMetricChoice::shownFor(Plot plot, const QStringList &available, const QString &wanted)
{
    if (available.contains(wanted)) {
        return wanted;
    }
    if (plot == Plot::Upper) {
        // The loss; for runs that report none (a script logging only its
        // accuracy) their first training metric; the loss again for runs
        // that report nothing yet.
        const QString loss = QStringLiteral("loss");
        if (!available.contains(loss)) {
            for (const QString &m : available) {
                if (!m.contains(QLatin1Char('/'))) {
                    return m;
                }
            }
        }
        return loss;
    }
    const auto metricName = [](const QString &metric) { return metric.section(QLatin1Char('/'), -1); };
    const auto find = [&](const QString &name) {
        QString any;
        for (const QString &m : available) {
            if (m.contains(QLatin1Char('/')) && metricName(m) == name) {
                if (m.startsWith(QLatin1String("valid/"))) {
                    return m;
                }
                if (any.isEmpty()) {
                    any = m;
                }
            }
        }
        return any;
    };
    for (const QString &name : {metricName(wanted), QStringLiteral("mrr"), QStringLiteral("accuracy")}) {
        const QString m = name.isEmpty() ? QString() : find(name);
        if (!m.isEmpty()) {
            return m;
        }
    }
    // The first evaluation metric ("<split>/<name>"); a training metric only when picked.
    for (const QString &m : available) {
        if (m.contains(QLatin1Char('/'))) {
            return m;
        }
    }
    return QString();
}

} // namespace trainyard
