#include "plot/plotfeeder.h"

#include "dispatch/scheduler.h"
#include "metrics/metricrecord.h"
#include "metrics/metricstore.h"
#include "plot/plotwidget.h"
#include "runstore/runstore.h"

#include <QFileInfo>

#include <algorithm>
#include <limits>

namespace trainyard {

PlotFeeder::PlotFeeder(PlotWidget *plot, QObject *parent)
    : QObject(parent)
    , m_plot(plot)
{
}

void PlotFeeder::setSource(Scheduler *scheduler, MetricStore *metrics)
{
    if (m_metrics) {
        disconnect(m_metrics, nullptr, this, nullptr);
    }
    if (m_scheduler) {
        disconnect(m_scheduler, nullptr, this, nullptr);
    }
    m_scheduler = scheduler;
    m_metrics = metrics;
    m_fed.clear();
    m_selection.clear();
    m_pinned.clear();
    m_plot->clearRuns();
    if (m_metrics) {
        connect(m_metrics, &MetricStore::updated, this, &PlotFeeder::feed);
    }
    if (m_scheduler) {
        connect(m_scheduler, &Scheduler::runRemoved, this, [this](RunId id) {
            m_selection.removeAll(id);
            m_fed.remove(id);
            m_plot->removeRun(QString::number(id));
        });
        connect(m_scheduler, &Scheduler::reset, this, [this] { setSelection({}); });
    }
}

void PlotFeeder::setSelection(const QList<RunId> &ids)
{
    if (!m_scheduler || !m_metrics) {
        return;
    }
    for (auto it = m_fed.begin(); it != m_fed.end();) {
        if (!ids.contains(it.key())) {
            m_plot->removeRun(QString::number(it.key()));
            it = m_fed.erase(it);
        } else {
            ++it;
        }
    }
    m_selection.clear();
    for (RunId id : ids) {
        if (!m_scheduler->contains(id)) {
            continue;
        }
        m_selection.append(id);
        if (!m_fed.contains(id)) {
            const RunInfo run = m_scheduler->run(id);
            m_plot->addRun(QString::number(id), run.name, run.repeatCount > 1 ? run.group : run.name);
            feedRun(id, m_fed[id]);
        }
    }
    applySelection();
}

void PlotFeeder::applySelection()
{
    QStringList keys;
    for (RunId id : std::as_const(m_selection)) {
        keys.append(QString::number(id));
    }
    for (const QString &dir : std::as_const(m_pinned)) {
        keys.append(pastRunKey(dir));
    }
    m_plot->setSelectedRuns(keys);
}

QString PlotFeeder::pastRunKey(const QString &runDir)
{
    return QStringLiteral("past:") + runDir;
}

bool PlotFeeder::pinPastRun(const QString &runDir, const QString &label, QString *error)
{
    if (m_pinned.contains(runDir)) {
        return true;
    }
    const QString key = pastRunKey(runDir);
    m_plot->addRun(key, label, key);
    // The one reader of run folders; a finished run is read once.
    const QFileInfo dir(runDir);
    std::string name;
    const RunStore store(dir.absolutePath());
    int points = 0;
    store.readMetrics(dir.fileName(), 0, [&](const MetricRecord &record) {
        double loss = std::numeric_limits<double>::quiet_NaN();
        for (std::size_t i = 0; i < record.fieldCount; ++i) {
            if (!record.pointName(i, &name)) {
                continue;
            }
            const double value = record.fields[i].value;
            if (record.kind == MetricRecord::Kind::Metric && name == "loss") {
                loss = value;
            } else if (record.kind == MetricRecord::Kind::Eval) {
                m_plot->appendEval(key, double(record.step), double(record.epoch), record.wall,
                                   QString::fromStdString(name), value);
                ++points;
            }
        }
        if (record.kind == MetricRecord::Kind::Metric && record.step >= 0) {
            m_plot->appendMetric(key, double(record.step), double(record.epoch), record.wall, loss);
            ++points;
        }
    });
    if (points == 0) {
        m_plot->removeRun(key);
        if (error) {
            *error = tr("%1 has no curve to plot (no metric lines in its metrics.jsonl)").arg(runDir);
        }
        return false;
    }
    m_pinned.append(runDir);
    applySelection();
    return true;
}

void PlotFeeder::unpinPastRun(const QString &runDir)
{
    if (m_pinned.removeAll(runDir) > 0) {
        m_plot->removeRun(pastRunKey(runDir));
        applySelection();
    }
}

void PlotFeeder::feed(const QList<RunId> &runs)
{
    for (RunId id : runs) {
        auto it = m_fed.find(id);
        if (it != m_fed.end()) {
            feedRun(id, it.value());
        }
    }
}

double PlotFeeder::epochAt(RunId id, std::int64_t step) const
{
    const MetricSeries *epochs = m_metrics->series(id, QStringLiteral("epoch"));
    if (!epochs || epochs->isEmpty()) {
        return 0;
    }
    const std::int64_t *begin = epochs->steps();
    const std::int64_t *end = begin + epochs->size();
    const std::int64_t *it = std::lower_bound(begin, end, step);
    if (it == end) {
        --it;
    }
    return epochs->value(std::size_t(it - begin));
}

void PlotFeeder::feedRun(RunId id, Fed &fed)
{
    const QString key = QString::number(id);
    const MetricSeries *loss = m_metrics->series(id, QStringLiteral("loss"));
    const MetricSeries *epochs = m_metrics->series(id, QStringLiteral("epoch"));
    bool reset = loss && (loss->revision() != fed.lossRevision || loss->size() < fed.loss);
    for (auto it = fed.evalRevisions.constBegin(); it != fed.evalRevisions.constEnd() && !reset; ++it) {
        const MetricSeries *s = m_metrics->series(id, it.key());
        reset = !s || s->revision() != it.value();
    }
    if (reset) {
        // Points were replaced (a resumed worker re-reported steps): start over.
        m_plot->resetRunData(key);
        fed = Fed{};
    }
    if (loss) {
        fed.lossRevision = loss->revision();
        const bool aligned = epochs && epochs->size() == loss->size();
        for (std::size_t i = fed.loss; i < loss->size(); ++i) {
            const double epoch =
                aligned && epochs->step(i) == loss->step(i) ? epochs->value(i) : epochAt(id, loss->step(i));
            m_plot->appendMetric(key, double(loss->step(i)), epoch, loss->wall(i), loss->value(i));
        }
        fed.loss = loss->size();
    }
    for (const QString &name : m_metrics->metricNames(id)) {
        // Evaluation metrics are named "<split>/<metric>".
        if (!name.contains(QLatin1Char('/'))) {
            continue;
        }
        const MetricSeries *s = m_metrics->series(id, name);
        std::size_t &count = fed.evals[name];
        for (std::size_t i = count; i < s->size(); ++i) {
            m_plot->appendEval(key, double(s->step(i)), epochAt(id, s->step(i)), s->wall(i), name, s->value(i));
        }
        count = s->size();
        fed.evalRevisions.insert(name, s->revision());
    }
}

} // namespace trainyard
