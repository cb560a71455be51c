#include "ui/plot/plotruns.h"

#include "metrics/metricstore.h"
#include "ui/common/runcolors.h"

#include <algorithm>

namespace trainyard {

PlotRuns::PlotRuns(RunColors *colors, QObject *parent)
    : QObject(parent)
    , m_colors(colors)
{
}

void PlotRuns::add(const QString &id, const QString &label, const QString &group, const CurveSource &source,
                   RunOrigin origin)
{
    PlotRun &run = m_runs[id];
    run.label = label;
    run.group = group.isEmpty() ? id : group;
    run.origin = origin;
    run.color = origin == RunOrigin::Past ? m_colors->pastColorFor(id) : m_colors->colorFor(id);
    run.curve = MetricCurve(source, m_upper);
    run.curve.setSmoothing(m_smoothing);
    run.curve.sync(); // what the store has already: the curve is whole from the start
    run.points = MetricCurve(source, m_lower);
    run.points.sync();
    const MetricStore *store = source.store;
    if (store && !m_stores.contains(store)) {
        m_stores.insert(store);
        connect(store, &MetricStore::updated, this,
                [this, store](const QList<RunId> &runs) { storeUpdated(store, runs); });
        // A store outlived by the plot (a closed session, a tool's): its series are gone.
        connect(store, &QObject::destroyed, this, [this, store] { forgetStore(store); });
    }
}

bool PlotRuns::remove(const QString &id)
{
    return m_runs.remove(id);
}

void PlotRuns::clear()
{
    m_runs.clear();
}

const PlotRun *PlotRuns::find(const QString &id) const
{
    auto it = m_runs.constFind(id);
    return it == m_runs.constEnd() ? nullptr : &it.value();
}

void PlotRuns::setSmoothing(double weight)
{
    m_smoothing = weight;
    for (PlotRun &run : m_runs) {
        run.curve.setSmoothing(weight);
    }
}

void PlotRuns::setMetrics(const QString &upper, const QString &lower)
{
    m_upper = upper;
    m_lower = lower;
    for (PlotRun &run : m_runs) {
        run.curve.setMetric(upper);
        run.points.setMetric(lower);
    }
}

bool PlotRuns::sync()
{
    bool changed = false;
    for (PlotRun &run : m_runs) {
        changed = run.curve.sync() || changed;
        changed = run.points.sync() || changed;
    }
    return changed;
}

QStringList PlotRuns::metrics(const QStringList &ids) const
{
    QStringList available;
    for (const QString &id : ids) {
        for (const QString &metric : at(id).curve.source().metrics()) {
            if (!available.contains(metric)) {
                available.append(metric);
            }
        }
    }
    std::sort(available.begin(), available.end());
    return available;
}

void PlotRuns::storeUpdated(const MetricStore *store, const QList<RunId> &runs)
{
    QStringList ids;
    for (auto it = m_runs.constBegin(); it != m_runs.constEnd(); ++it) {
        const CurveSource &source = it->curve.source();
        if (source.store == store && runs.contains(source.run)) {
            ids.append(it.key());
        }
    }
    if (!ids.isEmpty()) {
        Q_EMIT updated(ids);
    }
}

void PlotRuns::forgetStore(const MetricStore *store)
{
    m_stores.remove(store);
    QStringList ids;
    for (auto it = m_runs.begin(); it != m_runs.end();) {
        if (it->curve.source().store == store) {
            ids.append(it.key());
            it = m_runs.erase(it);
        } else {
            ++it;
        }
    }
    if (!ids.isEmpty()) {
        Q_EMIT forgotten(ids);
    }
}

} // namespace trainyard
