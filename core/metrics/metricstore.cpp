#include "metrics/metricstore.h"

#include "protocol/metricrecord.h"

#include <algorithm>
#include <atomic>
#include <string>

namespace trainyard {

std::uint64_t MetricSeries::nextSerial()
{
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
}

void MetricSeries::grow()
{
    // A quarter more each time: amortised O(1) appends while keeping the
    // reserve (and so the bytes per point) within 25 % of what is used.
    const std::size_t n = m_step.size();
    const std::size_t capacity = std::max<std::size_t>(16, n + n / 4);
    m_step.reserve(capacity);
    m_wall.reserve(capacity);
    m_value.reserve(capacity);
}

void MetricSeries::add(std::int64_t step, double wall, double value)
{
    const std::size_t at = resumePosition(m_step, step);
    if (at < m_step.size()) {
        // A resumed worker: the curve continues from `step`. Shrinking keeps
        // the reserve, so the points that follow need no reallocation.
        ++m_revision;
        m_step.resize(at);
        m_wall.resize(at);
        m_value.resize(at);
    }
    if (m_step.size() == m_step.capacity()) {
        grow();
    }
    m_step.push_back(step);
    m_wall.push_back(wall);
    m_value.push_back(value);
}

std::size_t MetricSeries::bytesReserved() const
{
    return m_step.capacity() * sizeof(std::int64_t) + (m_wall.capacity() + m_value.capacity()) * sizeof(double);
}

MetricStore::MetricStore(QObject *parent)
    : QObject(parent)
{
    m_timer.setSingleShot(true);
    m_timer.setInterval(33);
    connect(&m_timer, &QTimer::timeout, this, &MetricStore::flush);
}

MetricStore::~MetricStore()
{
    clear();
}

int MetricStore::metricId(const QString &name)
{
    const auto it = m_ids.constFind(name);
    if (it != m_ids.constEnd()) {
        return it.value();
    }
    const int id = static_cast<int>(m_names.size());
    m_names << name;
    m_ids.insert(name, id);
    return id;
}

int MetricStore::metricId(const char *name, std::size_t length)
{
    return metricId(std::string(name, length));
}

int MetricStore::metricId(const std::string &name)
{
    const auto it = m_keyIds.find(name);
    if (it != m_keyIds.end()) {
        return it->second;
    }
    const int id = metricId(QString::fromStdString(name));
    m_keyIds.emplace(name, id);
    return id;
}

QString MetricStore::metricName(int id) const
{
    return id >= 0 && id < m_names.size() ? m_names.at(id) : QString();
}

MetricSeries *MetricStore::seriesFor(RunId run, int metric)
{
    if (run == m_cachedRun && m_cachedSeries && static_cast<std::size_t>(metric) < m_cachedSeries->byMetric.size()
        && m_cachedSeries->byMetric[static_cast<std::size_t>(metric)]) {
        return m_cachedSeries->byMetric[static_cast<std::size_t>(metric)].get();
    }
    RunSeries *&rs = m_runs[run];
    if (!rs) {
        rs = new RunSeries;
    }
    if (static_cast<std::size_t>(metric) >= rs->byMetric.size()) {
        rs->byMetric.resize(static_cast<std::size_t>(metric) + 1);
    }
    auto &slot = rs->byMetric[static_cast<std::size_t>(metric)];
    if (!slot) {
        slot = std::make_unique<MetricSeries>();
    }
    m_cachedRun = run;
    m_cachedSeries = rs;
    return slot.get();
}

void MetricStore::add(RunId run, int metric, std::int64_t step, double wall, double value)
{
    seriesFor(run, metric)->add(step, wall, value);
    // Consecutive points mostly come from one run: skip the set insert.
    if (run != m_lastDirty) {
        m_dirty.insert(run);
        m_lastDirty = run;
    }
    if (!m_timer.isActive()) {
        m_timer.start();
    }
}

void MetricStore::add(RunId run, const QString &metric, std::int64_t step, double wall, double value)
{
    add(run, metricId(metric), step, wall, value);
}

void MetricStore::add(RunId run, const MetricRecord &record)
{
    std::string name;
    for (std::size_t i = 0; i < record.fieldCount; ++i) {
        if (const std::string *key = record.pointKey(i, &name)) {
            add(run, metricId(*key), record.step, record.wall, record.fields[i].value);
        }
    }
}

const MetricSeries *MetricStore::series(RunId run, int metric) const
{
    const RunSeries *rs = m_runs.value(run);
    if (!rs || metric < 0 || static_cast<std::size_t>(metric) >= rs->byMetric.size()) {
        return nullptr;
    }
    return rs->byMetric[static_cast<std::size_t>(metric)].get();
}

const MetricSeries *MetricStore::series(RunId run, const QString &metric) const
{
    return series(run, m_ids.value(metric, -1));
}

QStringList MetricStore::metricNames(RunId run) const
{
    QStringList names;
    const RunSeries *rs = m_runs.value(run);
    if (!rs) {
        return names;
    }
    for (std::size_t i = 0; i < rs->byMetric.size(); ++i) {
        if (rs->byMetric[i]) {
            names << m_names.at(static_cast<qsizetype>(i));
        }
    }
    return names;
}

bool MetricStore::isBookkeeping(const QString &name)
{
    const QStringView field = QStringView(name).mid(name.lastIndexOf(QLatin1Char('/')) + 1);
    return field == QLatin1String("epoch") || field == QLatin1String("step") || field == QLatin1String("wall")
           || field == QLatin1String("total_steps");
}

QList<RunId> MetricStore::runs() const
{
    return m_runs.keys();
}

void MetricStore::removeRun(RunId run)
{
    if (run == m_cachedRun) {
        m_cachedSeries = nullptr;
    }
    delete m_runs.take(run);
    m_dirty.insert(run);
    if (!m_timer.isActive()) {
        m_timer.start();
    }
}

void MetricStore::clear()
{
    m_cachedSeries = nullptr;
    qDeleteAll(m_runs);
    m_runs.clear();
    m_dirty.clear();
    m_lastDirty = 0;
}

std::size_t MetricStore::pointCount() const
{
    std::size_t n = 0;
    for (const RunSeries *rs : m_runs) {
        for (const auto &s : rs->byMetric) {
            if (s) {
                n += s->size();
            }
        }
    }
    return n;
}

std::size_t MetricStore::bytesReserved() const
{
    std::size_t n = 0;
    for (const RunSeries *rs : m_runs) {
        for (const auto &s : rs->byMetric) {
            if (s) {
                n += s->bytesReserved() + sizeof(MetricSeries);
            }
        }
    }
    return n;
}

void MetricStore::setBatchInterval(int ms)
{
    m_timer.setInterval(ms);
}

void MetricStore::flush()
{
    m_timer.stop();
    if (m_dirty.isEmpty()) {
        return;
    }
    QList<RunId> runs(m_dirty.begin(), m_dirty.end());
    m_dirty.clear();
    m_lastDirty = 0;
    std::sort(runs.begin(), runs.end());
    Q_EMIT updated(runs);
}

} // namespace trainyard
