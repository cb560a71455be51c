#include "plot/runcurve.h"

#include "metrics/metricstore.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainyard {

double RunCurve::x(XAxis axis, qsizetype i) const
{
    switch (axis) {
    case XAxis::Epoch:
        return m_epoch[size_t(i)];
    case XAxis::Wall:
        return m_wall[size_t(i)];
    case XAxis::Step:
        break;
    }
    return m_step[size_t(i)];
}

void RunCurve::append(double step, double epoch, double wall, double loss)
{
    // The core's rule for a re-reported step: continue from it (truncate what came after).
    const size_t at = resumePosition(m_step, step);
    if (at < m_step.size()) {
        truncateFrom(at);
    }
    m_step.push_back(step);
    // Epoch and wall must not go backwards (nor be NaN), or binary search breaks.
    const auto ordered = [](double v, const std::vector<float> &column) {
        const double last = column.empty() ? 0.0 : double(column.back());
        return float(std::isfinite(v) ? std::max(v, last) : last);
    };
    m_epoch.push_back(ordered(epoch, m_epoch));
    m_wall.push_back(ordered(wall, m_wall));
    m_loss.push_back(float(loss));
    noteFinite(m_loss.size() - 1);
    if (m_weight > 0) {
        resmooth(m_step.size() - 1);
    }
    ++m_revision;
}

void RunCurve::noteFinite(size_t index)
{
    // The stored float decides: a huge double (a diverging loss) is infinite
    // once stored and must not stretch the axes.
    const double v = m_loss[index];
    if (!std::isfinite(v)) {
        return;
    }
    if (m_firstFinite < 0) {
        m_firstFinite = qsizetype(index);
        m_min = m_max = v;
    }
    m_lastFinite = qsizetype(index);
    m_min = std::min(m_min, v);
    m_max = std::max(m_max, v);
    if (v > 0 && (m_minPositive <= 0 || v < m_minPositive)) {
        m_minPositive = v;
    }
}

void RunCurve::clear()
{
    m_step.clear();
    m_epoch.clear();
    m_wall.clear();
    m_loss.clear();
    m_smoothed.clear();
    m_emaLast = 0;
    m_emaDebias = 1;
    m_min = m_max = m_minPositive = 0;
    m_firstFinite = m_lastFinite = -1;
    ++m_revision;
}

void RunCurve::truncateFrom(size_t index)
{
    m_step.resize(index);
    m_epoch.resize(index);
    m_wall.resize(index);
    m_loss.resize(index);
    m_min = m_max = m_minPositive = 0;
    m_firstFinite = m_lastFinite = -1;
    for (size_t i = 0; i < m_loss.size(); ++i) {
        noteFinite(i);
    }
    if (m_weight > 0) {
        m_smoothed.clear();
        m_emaLast = 0;
        m_emaDebias = 1;
        resmooth(0);
    }
}

void RunCurve::setSmoothing(double weight)
{
    weight = std::clamp(weight, 0.0, 0.999);
    if (weight == m_weight) {
        return;
    }
    m_weight = weight;
    m_smoothed.clear();
    m_emaLast = 0;
    m_emaDebias = 1;
    if (m_weight > 0) {
        resmooth(0);
    }
    ++m_revision;
}

void RunCurve::resmooth(size_t from)
{
    m_smoothed.resize(from);
    for (size_t i = from; i < m_loss.size(); ++i) {
        const double v = m_loss[i];
        if (!std::isfinite(v)) {
            // A NaN or inf point stays as is, like TensorBoard, and does not poison the average.
            m_smoothed.push_back(float(v));
            continue;
        }
        m_emaLast = m_emaLast * m_weight + (1 - m_weight) * v;
        m_emaDebias *= m_weight;
        m_smoothed.push_back(float(m_emaLast / (1 - m_emaDebias)));
    }
}

qsizetype RunCurve::lowerBound(XAxis axis, double value) const
{
    switch (axis) {
    case XAxis::Epoch:
        return std::lower_bound(m_epoch.begin(), m_epoch.end(), value, [](float a, double b) { return a < b; })
               - m_epoch.begin();
    case XAxis::Wall:
        return std::lower_bound(m_wall.begin(), m_wall.end(), value, [](float a, double b) { return a < b; })
               - m_wall.begin();
    case XAxis::Step:
        break;
    }
    return std::lower_bound(m_step.begin(), m_step.end(), value) - m_step.begin();
}

bool RunCurve::valueAt(XAxis axis, double xv, double *value) const
{
    if (m_step.empty() || xv < x(axis, 0) || xv > x(axis, size() - 1)) {
        return false;
    }
    const qsizetype i = lowerBound(axis, xv);
    if (i >= size()) {
        *value = smoothed(size() - 1);
        return std::isfinite(*value);
    }
    const double x1 = x(axis, i);
    if (i == 0 || x1 == xv) {
        *value = smoothed(i);
        return std::isfinite(*value);
    }
    const double x0 = x(axis, i - 1);
    const double t = x1 > x0 ? (xv - x0) / (x1 - x0) : 1.0;
    *value = smoothed(i - 1) + t * (smoothed(i) - smoothed(i - 1));
    return std::isfinite(*value);
}

void RunCurve::decimate(XAxis axis, double lo, double hi, int buckets, QVector<double> *xs, QVector<double> *ys) const
{
    xs->clear();
    ys->clear();
    if (m_step.empty()) {
        return;
    }
    qsizetype begin = std::max<qsizetype>(0, lowerBound(axis, lo) - 1);
    // One point past `hi` too (lowerBound may land on `hi` itself).
    qsizetype end = std::min<qsizetype>(size(), lowerBound(axis, hi) + 2);
    const qsizetype n = end - begin;
    buckets = std::max(1, buckets);
    const float *values = m_smoothed.empty() ? m_loss.data() : m_smoothed.data();
    // QCustomPlot breaks a line at NaN but draws an infinity as a line to the edge.
    const auto drawable = [values](qsizetype i) {
        const double v = values[i];
        return std::isfinite(v) ? v : std::numeric_limits<double>::quiet_NaN();
    };
    if (n <= 2 * qsizetype(buckets)) {
        xs->reserve(n);
        ys->reserve(n);
        for (qsizetype i = begin; i < end; ++i) {
            xs->append(x(axis, i));
            ys->append(drawable(i));
        }
        return;
    }
    // Min and max per bucket, in the order they occur, so spikes survive thinning.
    xs->reserve(2 * buckets + 2);
    ys->reserve(2 * buckets + 2);
    xs->append(x(axis, begin));
    ys->append(drawable(begin));
    for (int b = 0; b < buckets; ++b) {
        const qsizetype i0 = begin + 1 + (n - 2) * b / buckets;
        const qsizetype i1 = begin + 1 + (n - 2) * (b + 1) / buckets;
        qsizetype iMin = -1;
        qsizetype iMax = -1;
        for (qsizetype i = i0; i < i1; ++i) {
            const float v = values[i];
            if (!std::isfinite(v)) {
                continue;
            }
            if (iMin < 0 || v < values[iMin]) {
                iMin = i;
            }
            if (iMax < 0 || v > values[iMax]) {
                iMax = i;
            }
        }
        if (iMin < 0) {
            if (i1 > i0) {
                // Nothing finite here: a gap, not a line across it.
                xs->append(x(axis, i0));
                ys->append(std::numeric_limits<double>::quiet_NaN());
            }
            continue;
        }
        const qsizetype first = std::min(iMin, iMax);
        const qsizetype second = std::max(iMin, iMax);
        xs->append(x(axis, first));
        ys->append(values[first]);
        if (second != first) {
            xs->append(x(axis, second));
            ys->append(values[second]);
        }
    }
    xs->append(x(axis, end - 1));
    ys->append(drawable(end - 1));
}

} // namespace trainyard
