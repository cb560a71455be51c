#pragma once

#include <QString>
#include <QVector>

#include <vector>

namespace trainyard {

/// Which quantity the x axis of a plot shows.
enum class XAxis {
    Step,
    Epoch,
    Wall
};

/// The full-resolution loss curve of one run, as the plots keep it: every
/// point ever received (nothing is thinned here), an EMA-smoothed copy kept up
/// to date incrementally, and the decimation that thins only the drawing.
class RunCurve
{
public:
    /// Appends one point. A step at or before the last one drops the points
    /// from that step on and the curve continues from it (a resumed worker
    /// re-reports them): resumePosition(), the rule MetricSeries follows too.
    void append(double step, double epoch, double wall, double loss);
    void clear();

    qsizetype size() const { return qsizetype(m_step.size()); }
    bool isEmpty() const { return m_step.empty(); }
    double x(XAxis axis, qsizetype i) const;
    double loss(qsizetype i) const { return m_loss[size_t(i)]; }
    double smoothed(qsizetype i) const { return m_smoothed.empty() ? m_loss[size_t(i)] : m_smoothed[size_t(i)]; }
    double lastLoss() const { return m_loss.empty() ? 0.0 : m_loss.back(); }
    /// The extremes of the finite points (0 when there is none: check hasFinite()).
    double minLoss() const { return m_min; }
    double maxLoss() const { return m_max; }
    double minPositiveLoss() const { return m_minPositive; }
    /// The first and last points with a finite loss (-1 when there is none).
    bool hasFinite() const { return m_firstFinite >= 0; }
    qsizetype firstFinite() const { return m_firstFinite; }
    qsizetype lastFinite() const { return m_lastFinite; }

    /// TensorBoard's smoothing: debiased exponential moving average, weight in [0, 1).
    void setSmoothing(double weight);
    double smoothing() const { return m_weight; }

    /// First index with x >= value (x is non-decreasing in every axis).
    qsizetype lowerBound(XAxis axis, double value) const;
    /// Smoothed value at x, linearly interpolated; false outside the curve
    /// and next to a non-finite point.
    bool valueAt(XAxis axis, double x, double *value) const;

    /// The smoothed points with x in [lo, hi] (plus one either side so lines
    /// reach the edges), thinned to at most two points (min and max) per
    /// bucket when there are more than 2 × `buckets` of them. A non-finite
    /// point comes out as NaN, which breaks the drawn line there; a thinned
    /// bucket takes its extremes from its finite points.
    void decimate(XAxis axis, double lo, double hi, int buckets, QVector<double> *xs, QVector<double> *ys) const;

    /// Bytes held per point (for the memory benchmark).
    static constexpr int bytesPerPoint() { return 8 + 4 + 4 + 4 + 4; }
    /// Bumped on every change, so views can skip unchanged curves.
    quint64 revision() const { return m_revision; }

private:
    void truncateFrom(size_t index);
    void resmooth(size_t from);
    void noteFinite(size_t index);

    std::vector<double> m_step;
    std::vector<float> m_epoch;
    std::vector<float> m_wall;
    std::vector<float> m_loss;
    std::vector<float> m_smoothed; ///< Empty when smoothing is off
    double m_weight = 0.0;
    double m_emaLast = 0.0;   ///< Biased EMA after the last point
    double m_emaDebias = 1.0; ///< weight^count for the debias term
    double m_min = 0.0;
    double m_max = 0.0;
    double m_minPositive = 0.0;
    qsizetype m_firstFinite = -1;
    qsizetype m_lastFinite = -1;
    quint64 m_revision = 0;
};

} // namespace trainyard
