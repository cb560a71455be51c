#pragma once

#include "metrics/runid.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace trainyard {

struct MetricRecord;

// The one rule for a re-reported step, applied in MetricSeries::add (the
// store holds the one copy of each point; the plots read it): a worker that
// resumes from a checkpoint reports the steps after the checkpoint again, so
// the curve must continue from there. A step after the last one goes
// at the end; a step at or before it goes where the first point at or after it
// was, and every point from there on is dropped. Returns that index (the size
// for a new step). `points` must be sorted by step, which the rule keeps true;
// `stepOf` reads a point's step.
template <typename Points, typename Step, typename StepOf>
std::size_t resumePosition(const Points &points, Step step, StepOf stepOf)
{
    if (points.empty() || step > stepOf(points.back())) {
        return static_cast<std::size_t>(points.size());
    }
    const auto it = std::lower_bound(points.begin(), points.end(), step,
                                     [&](const auto &point, Step s) { return stepOf(point) < s; });
    return static_cast<std::size_t>(it - points.begin());
}

// The same for a column of steps.
template <typename Step>
std::size_t resumePosition(const std::vector<Step> &steps, Step step)
{
    return resumePosition(steps, step, [](Step s) { return s; });
}

// One metric of one run at full resolution, stored in columns (step, wall,
// value: 24 bytes a point, growth capped at 1/4 so at most 30 bytes a point
// are reserved). Points are kept sorted by step; a step at or before the last
// one follows resumePosition(): the points from that step on are dropped and
// the series continues from there.
class MetricSeries
{
public:
    std::size_t size() const { return m_step.size(); }
    bool isEmpty() const { return m_step.empty(); }
    const std::int64_t *steps() const { return m_step.data(); }
    const double *walls() const { return m_wall.data(); }
    const double *values() const { return m_value.data(); }
    std::int64_t step(std::size_t i) const { return m_step[i]; }
    double wall(std::size_t i) const { return m_wall[i]; }
    double value(std::size_t i) const { return m_value[i]; }
    double lastValue() const { return m_value.empty() ? 0.0 : m_value.back(); }

    // Incremented whenever existing points are dropped (a re-reported step);
    // a reader that only appends since its last look can compare it.
    quint64 revision() const { return m_revision; }
    // Unique to this series among all series of the process (never reused),
    // so a view holding what it read can tell a series removed and another
    // created at the same address from the one it read.
    std::uint64_t serial() const { return m_serial; }

    void add(std::int64_t step, double wall, double value);
    std::size_t bytesReserved() const;

private:
    void grow();
    std::vector<std::int64_t> m_step;
    std::vector<double> m_wall;
    std::vector<double> m_value;
    quint64 m_revision = 0;
    std::uint64_t m_serial = nextSerial();
    static std::uint64_t nextSerial();
};

// Every metric of every run. Metric names: "loss", "lr", "samples_per_s",
// "mem_bytes", "epoch" from metric lines; "<split>/<key>" (e.g. "valid/mrr",
// "valid/hits@10", "test/accuracy") from eval lines. Updates are collected
// and announced in one batched signal at most every `batchIntervalMs`
// (default 33 ms, ~30 Hz), so a GUI can redraw at that pace however fast
// points arrive.
class MetricStore : public QObject
{
    Q_OBJECT
public:
    explicit MetricStore(QObject *parent = nullptr);
    ~MetricStore() override;

    // Interns a metric name; ids are dense and stable for the store's life.
    int metricId(const QString &name);
    int metricId(const char *name, std::size_t length);
    int metricId(const std::string &name); ///< a name as a line spells it, found without a copy
    QString metricName(int id) const;

    void add(RunId run, int metric, std::int64_t step, double wall, double value);
    void add(RunId run, const QString &metric, std::int64_t step, double wall, double value);
    // The points of one metric or eval record, under MetricRecord::pointName's names.
    void add(RunId run, const MetricRecord &record);

    // nullptr when the run has no such metric (yet).
    const MetricSeries *series(RunId run, const QString &metric) const;
    const MetricSeries *series(RunId run, int metric) const;
    QStringList metricNames(RunId run) const;
    // Whether a series says when its points were taken rather than what was
    // measured: a metric line's "epoch", an eval line's "<split>/epoch" (and
    // a "step", "wall" or "total_steps" under a split). Neither a plot
    // offers them as metrics nor the CSV writes them as values (the epochs
    // fill its epoch column): the one rule for both.
    static bool isBookkeeping(const QString &name);
    QList<RunId> runs() const;

    void removeRun(RunId run);
    void clear();

    std::size_t pointCount() const;
    std::size_t bytesReserved() const; // column storage of every series

    void setBatchInterval(int ms);
    // Emits the pending batch now (tests, end of a file load).
    void flush();

Q_SIGNALS:
    // Runs whose series grew or changed since the last batch.
    void updated(const QList<trainyard::RunId> &runs);

private:
    struct RunSeries
    {
        std::vector<std::unique_ptr<MetricSeries>> byMetric; // index = metric id
    };
    MetricSeries *seriesFor(RunId run, int metric);

    QHash<RunId, RunSeries *> m_runs;
    QHash<QString, int> m_ids;
    // The same, by the name as a line spells it: a point at line rate finds
    // its id without making a QString (short names fit std::string's inline buffer).
    std::unordered_map<std::string, int> m_keyIds;
    QStringList m_names;
    QSet<RunId> m_dirty;
    RunId m_lastDirty = 0;
    RunId m_cachedRun = 0; // last run written to, and its series
    RunSeries *m_cachedSeries = nullptr;
    QTimer m_timer;
};

} // namespace trainyard
