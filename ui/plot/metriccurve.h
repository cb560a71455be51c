#pragma once

#include "orchestration/records/runinfo.h"

#include <QString>
#include <QStringList>
#include <QVector>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace trainyard {

class MetricSeries;
class MetricStore;

/// Which quantity the x axis of a plot shows.
enum class XAxis {
    Step,
    Epoch,
    Wall
};

/// Where a plotted run's points are: one run of a MetricStore (the session's,
/// or one a tool or the past-run pins filled through MetricStore::add). The
/// plots read the store's series and never copy a point; the series are
/// looked up on each use, so a run cleared from the store reads as empty.
struct CurveSource
{
    const MetricStore *store = nullptr;
    RunId run = 0;

    const MetricSeries *series(const QString &metric) const;
    /// The epochs of the run's metric lines: the one record of epochs.
    const MetricSeries *epochs() const { return series(QStringLiteral("epoch")); }
    /// Every metric of the run a plot can show: each series of the store but
    /// those that say when, not what (MetricStore::isBookkeeping): the loss,
    /// "lr", a script's own ("grad_norm"), "valid/mrr", ...
    QStringList metrics() const;
    /// The epoch drawn at `step`: that of the first metric line at or after
    /// it, else the last one's; 0 without epochs. Non-decreasing in the step
    /// whenever the epochs are.
    static double epochAt(const MetricSeries *epochs, std::int64_t step);
};

/// One metric of one run as the plots draw it (the loss, a learning rate,
/// an evaluation metric, ...): a view of the store's series for that name
/// (no copy of the points) with what drawing needs on top: the EMA-smoothed
/// values (a float cache, kept up to date incrementally, none without
/// smoothing), the extremes of the finite points, and the decimation that
/// thins only the drawing. sync() catches up with the store; a resumed run's
/// cut is the store's (MetricSeries::add), and the view follows it by
/// recomputing.
class MetricCurve
{
public:
    MetricCurve() = default;
    explicit MetricCurve(const CurveSource &source, const QString &metric = QStringLiteral("loss"))
        : m_source(source)
        , m_metric(metric)
    {
    }
    const CurveSource &source() const { return m_source; }
    /// The store's name of the metric viewed.
    const QString &metric() const { return m_metric; }
    /// Views another metric of the run (read at the next sync()).
    void setMetric(const QString &metric);

    /// Reads what arrived in the store since the last call (everything
    /// again after a cut); true when the curve changed.
    bool sync();

    /// The points read by the last sync().
    qsizetype size() const { return m_size; }
    bool isEmpty() const { return m_size == 0; }
    double x(XAxis axis, qsizetype i) const;
    double value(qsizetype i) const;
    double smoothed(qsizetype i) const;
    /// The extremes of the drawable points (0 when there is none: check hasFinite()).
    double minValue() const { return m_min; }
    double maxValue() const { return m_max; }
    double minPositiveValue() const { return m_minPositive; }
    /// The first and last drawable points (-1 when there is none).
    bool hasFinite() const { return m_firstFinite >= 0; }
    qsizetype firstFinite() const { return m_firstFinite; }
    qsizetype lastFinite() const { return m_lastFinite; }
    /// Whether the plots can draw a value: finite and within float range (a
    /// diverged loss of 1e300 is a gap, never the top of the axis).
    static bool drawable(double v) { return std::fabs(v) <= double(std::numeric_limits<float>::max()); }

    /// TensorBoard's smoothing: debiased exponential moving average, weight in [0, 1).
    void setSmoothing(double weight);
    double smoothing() const { return m_weight; }

    /// First index with x >= value (x is non-decreasing in every axis).
    qsizetype lowerBound(XAxis axis, double value) const;
    /// Smoothed value at x, linearly interpolated; false outside the curve
    /// and next to a point that is not drawable.
    bool valueAt(XAxis axis, double x, double *value) const;

    /// The smoothed points with x in [lo, hi] (plus one either side so lines
    /// reach the edges), thinned to at most two points (min and max) per
    /// bucket when there are more than 2 × `buckets` of them. A point that
    /// is not drawable comes out as NaN, which breaks the drawn line there; a
    /// thinned bucket takes its extremes from its drawable points.
    void decimate(XAxis axis, double lo, double hi, int buckets, QVector<double> *xs, QVector<double> *ys) const;

    /// Bytes this view holds beside the store's points (capacity of its
    /// caches): the memory benchmark's plot share.
    std::size_t bytesHeld() const;

private:
    /// The extremes of drawable points, as they are found.
    struct Extremes
    {
        double lo;
        double hi;
        double positive; ///< The smallest above 0
        void add(double v)
        {
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
            positive = v > 0 && v < positive ? v : positive;
        }
    };
    Extremes extremesBefore(qsizetype from) const;
    void keep(const Extremes &e);
    void reset();
    void append(qsizetype from);
    void resmooth(qsizetype from);
    void orderWall(qsizetype i);
    void orderEpochs();
    template <typename Values>
    void decimateValues(const Values *values, XAxis axis, qsizetype begin, qsizetype end, int buckets,
                        QVector<double> *xs, QVector<double> *ys) const;

    CurveSource m_source;
    QString m_metric;
    const MetricSeries *m_series = nullptr; ///< As of the last sync()
    const MetricSeries *m_epochs = nullptr; ///< As of the last sync()
    std::uint64_t m_seriesSerial = 0;
    quint64 m_seriesRevision = 0;
    std::uint64_t m_epochSerial = 0;
    quint64 m_epochRevision = 0;
    std::size_t m_epochCount = 0;
    qsizetype m_size = 0;

    std::vector<float> m_smoothed; ///< Empty when smoothing is off
    // Binary search needs x in order. The store keeps what workers sent; in
    // the rare run whose walls or epochs go back (or are NaN) the view keeps
    // a non-decreasing copy of that axis, and otherwise none.
    std::vector<double> m_orderedWall;
    std::vector<double> m_orderedEpoch;
    bool m_epochsOrdered = true; ///< else m_orderedEpoch holds each point's epoch
    bool m_epochAligned = true;  ///< epoch series has this curve's steps, index for index

    double m_weight = 0.0;
    double m_emaLast = 0.0;   ///< Biased EMA after the last point
    double m_emaDebias = 1.0; ///< weight^count for the debias term
    double m_min = 0.0;
    double m_max = 0.0;
    double m_minPositive = 0.0;
    qsizetype m_firstFinite = -1;
    qsizetype m_lastFinite = -1;
};

} // namespace trainyard
