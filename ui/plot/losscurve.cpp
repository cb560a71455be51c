#include "plot/losscurve.h"

#include "metrics/metricstore.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainyard {

const MetricSeries *CurveSource::series(const QString &metric) const
{
    return store ? store->series(run, metric) : nullptr;
}

QStringList CurveSource::evalMetrics() const
{
    QStringList names;
    if (!store) {
        return names;
    }
    for (const QString &name : store->metricNames(run)) {
        // Evaluation metrics are named "<split>/<metric>"; an eval line's epoch says when, not how well.
        if (name.contains(QLatin1Char('/')) && !name.endsWith(QLatin1String("/epoch"))) {
            names.append(name);
        }
    }
    return names;
}

double CurveSource::epochAt(const MetricSeries *epochs, std::int64_t step)
{
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

bool LossCurve::drawable(double v)
{
    return std::fabs(v) <= double(std::numeric_limits<float>::max()); // false for NaN
}

void LossCurve::reset()
{
    m_size = 0;
    m_smoothed.clear();
    m_orderedWall.clear();
    m_emaLast = 0;
    m_emaDebias = 1;
    m_min = m_max = m_minPositive = 0;
    m_firstFinite = m_lastFinite = -1;
}

bool LossCurve::sync()
{
    const MetricSeries *loss = m_source.loss();
    const MetricSeries *epochs = m_source.epochs();
    bool changed = false;
    if (loss != m_loss
        || (loss
            && (loss->serial() != m_lossSerial || loss->revision() != m_lossRevision
                || qsizetype(loss->size()) < m_size))) {
        // A resumed run: the store cut the series (or it is another one). Start over.
        changed = m_size > 0;
        reset();
        m_loss = loss;
        m_lossSerial = loss ? loss->serial() : 0;
        m_lossRevision = loss ? loss->revision() : 0;
    }
    if (epochs != m_epochs
        || (epochs
            && (epochs->serial() != m_epochSerial || epochs->revision() != m_epochRevision
                || epochs->size() < m_epochCount))) {
        changed = changed || m_size > 0;
        m_epochs = epochs;
        m_epochSerial = epochs ? epochs->serial() : 0;
        m_epochRevision = epochs ? epochs->revision() : 0;
        m_epochCount = 0;
        m_orderedEpoch.clear();
        m_epochsOrdered = true;
        m_epochAligned = true;
        for (qsizetype i = 0; i < m_size && m_epochAligned; ++i) {
            m_epochAligned =
                epochs && std::size_t(i) < epochs->size() && epochs->step(std::size_t(i)) == loss->step(std::size_t(i));
        }
    }
    if (epochs && epochs->size() > m_epochCount) {
        for (std::size_t j = m_epochCount; j < epochs->size() && m_epochsOrdered; ++j) {
            const double v = epochs->value(j);
            m_epochsOrdered = std::isfinite(v) && (j == 0 || v >= epochs->value(j - 1));
        }
        m_epochCount = epochs->size();
        changed = true;
    }
    const qsizetype n = loss ? qsizetype(loss->size()) : 0;
    if (n > m_size) {
        append(m_size);
        changed = true;
    }
    if (!m_epochsOrdered && changed) {
        orderEpochs();
    }
    return changed;
}

void LossCurve::append(qsizetype from)
{
    // One pass over the new points with everything in locals: the first
    // read of a long run (10 M points) is this loop and resmooth().
    const qsizetype n = qsizetype(m_loss->size());
    const std::int64_t *steps = m_loss->steps();
    const double *walls = m_loss->walls();
    const std::int64_t *epochSteps = m_epochs ? m_epochs->steps() : nullptr;
    const qsizetype epochCount = m_epochs ? qsizetype(m_epochs->size()) : 0;
    const double *values = m_loss->values();
    bool aligned = m_epochAligned;
    double lo = m_min;
    double hi = m_max;
    double positive = m_minPositive;
    qsizetype first = m_firstFinite;
    qsizetype last = m_lastFinite;
    for (qsizetype i = from; i < n; ++i) {
        aligned = aligned && i < epochCount && epochSteps[i] == steps[i];
        if (!m_orderedWall.empty() || !(std::isfinite(walls[i]) && (i == 0 || walls[i] >= walls[i - 1]))) {
            orderWall(i);
        }
        // The extremes of the drawable points (what the axes fit).
        const double v = values[i];
        if (!drawable(v)) {
            continue;
        }
        if (first < 0) {
            first = i;
            lo = hi = v;
        }
        last = i;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        if (v > 0 && (positive <= 0 || v < positive)) {
            positive = v;
        }
    }
    m_epochAligned = aligned;
    m_min = lo;
    m_max = hi;
    m_minPositive = positive;
    m_firstFinite = first;
    m_lastFinite = last;
    m_size = n;
    if (m_weight > 0) {
        resmooth(from);
    }
}

void LossCurve::orderWall(qsizetype i)
{
    const std::size_t u = std::size_t(i);
    const double wall = m_loss->wall(u);
    if (m_orderedWall.empty()) {
        if (std::isfinite(wall) && (i == 0 || wall >= m_loss->wall(u - 1))) {
            return; // in order: x reads the store's walls
        }
        // The first wall out of order: from here on the view keeps its own, non-decreasing walls.
        m_orderedWall.reserve(m_loss->size());
        m_orderedWall.assign(m_loss->walls(), m_loss->walls() + u);
    }
    const double last = m_orderedWall.empty() ? 0.0 : m_orderedWall.back();
    m_orderedWall.push_back(std::isfinite(wall) ? std::max(wall, last) : last);
}

void LossCurve::orderEpochs()
{
    // Epochs that go back (or are NaN): each point's epoch, never below the one before.
    m_orderedEpoch.clear();
    m_orderedEpoch.reserve(std::size_t(m_size));
    double last = 0;
    for (qsizetype i = 0; i < m_size; ++i) {
        const double v = CurveSource::epochAt(m_epochs, m_loss->step(std::size_t(i)));
        last = std::isfinite(v) ? std::max(v, last) : last;
        m_orderedEpoch.push_back(last);
    }
}

double LossCurve::x(XAxis axis, qsizetype i) const
{
    const std::size_t u = std::size_t(i);
    switch (axis) {
    case XAxis::Epoch:
        if (!m_epochsOrdered) {
            return m_orderedEpoch[u];
        }
        if (!m_epochs) {
            return 0;
        }
        return m_epochAligned ? m_epochs->value(u) : CurveSource::epochAt(m_epochs, m_loss->step(u));
    case XAxis::Wall:
        return m_orderedWall.empty() ? m_loss->wall(u) : m_orderedWall[u];
    case XAxis::Step:
        break;
    }
    return double(m_loss->step(u));
}

double LossCurve::loss(qsizetype i) const
{
    return m_loss->value(std::size_t(i));
}

double LossCurve::smoothed(qsizetype i) const
{
    return m_smoothed.empty() ? loss(i) : double(m_smoothed[std::size_t(i)]);
}

void LossCurve::setSmoothing(double weight)
{
    weight = std::clamp(weight, 0.0, 0.999);
    if (weight == m_weight) {
        return;
    }
    m_weight = weight;
    m_smoothed.clear();
    m_smoothed.shrink_to_fit(); // off: no cache at all
    m_emaLast = 0;
    m_emaDebias = 1;
    if (m_weight > 0) {
        resmooth(0);
    }
}

void LossCurve::resmooth(qsizetype from)
{
    // Growth by a quarter, as the store's columns: at most 5 bytes a point reserved.
    const std::size_t needed = std::size_t(m_size);
    if (m_smoothed.capacity() < needed) {
        m_smoothed.reserve(std::max(needed, m_smoothed.capacity() + m_smoothed.capacity() / 4));
    }
    m_smoothed.resize(needed);
    if (std::size_t(from) >= needed) {
        return; // nothing new (nor, before the first sync, any series)
    }
    const double *values = m_loss->values();
    float *out = m_smoothed.data();
    const double w = m_weight;
    double ema = m_emaLast;
    double debias = m_emaDebias;
    for (qsizetype i = from; i < m_size; ++i) {
        const double v = values[i];
        if (!drawable(v)) {
            // A NaN or inf point stays as is, like TensorBoard, and does not poison the average.
            out[i] = std::isnan(v) ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
            continue;
        }
        ema = ema * w + (1 - w) * v;
        debias *= w;
        out[i] = float(ema / (1 - debias));
    }
    m_emaLast = ema;
    m_emaDebias = debias;
}

qsizetype LossCurve::lowerBound(XAxis axis, double value) const
{
    if (axis == XAxis::Step) {
        const std::int64_t *steps = m_size ? m_loss->steps() : nullptr;
        return std::lower_bound(steps, steps + m_size, value, [](std::int64_t a, double b) { return double(a) < b; })
               - steps;
    }
    qsizetype lo = 0;
    qsizetype hi = m_size;
    while (lo < hi) {
        const qsizetype mid = lo + (hi - lo) / 2;
        if (x(axis, mid) < value) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

bool LossCurve::valueAt(XAxis axis, double xv, double *value) const
{
    if (m_size == 0 || xv < x(axis, 0) || xv > x(axis, m_size - 1)) {
        return false;
    }
    const qsizetype i = lowerBound(axis, xv);
    if (i >= m_size) {
        *value = smoothed(m_size - 1);
        return drawable(*value);
    }
    const double x1 = x(axis, i);
    if (i == 0 || x1 == xv) {
        *value = smoothed(i);
        return drawable(*value);
    }
    const double x0 = x(axis, i - 1);
    const double t = x1 > x0 ? (xv - x0) / (x1 - x0) : 1.0;
    *value = smoothed(i - 1) + t * (smoothed(i) - smoothed(i - 1));
    return drawable(smoothed(i - 1)) && drawable(smoothed(i));
}

void LossCurve::decimate(XAxis axis, double lo, double hi, int buckets, QVector<double> *xs, QVector<double> *ys) const
{
    xs->clear();
    ys->clear();
    if (m_size == 0) {
        return;
    }
    const qsizetype begin = std::max<qsizetype>(0, lowerBound(axis, lo) - 1);
    // One point past `hi` too (lowerBound may land on `hi` itself).
    const qsizetype end = std::min<qsizetype>(m_size, lowerBound(axis, hi) + 2);
    buckets = std::max(1, buckets);
    if (m_smoothed.empty()) {
        decimateValues(m_loss->values(), axis, begin, end, buckets, xs, ys);
    } else {
        decimateValues(m_smoothed.data(), axis, begin, end, buckets, xs, ys);
    }
}

template <typename Values>
void LossCurve::decimateValues(const Values *values, XAxis axis, qsizetype begin, qsizetype end, int buckets,
                               QVector<double> *xs, QVector<double> *ys) const
{
    const qsizetype n = end - begin;
    // QCustomPlot breaks a line at NaN but draws an infinity as a line to the edge.
    const auto shown = [values](qsizetype i) {
        const double v = values[i];
        return drawable(v) ? v : std::numeric_limits<double>::quiet_NaN();
    };
    if (n <= 2 * qsizetype(buckets)) {
        xs->reserve(n);
        ys->reserve(n);
        for (qsizetype i = begin; i < end; ++i) {
            xs->append(x(axis, i));
            ys->append(shown(i));
        }
        return;
    }
    // Min and max per bucket, in the order they occur, so spikes survive thinning.
    xs->reserve(2 * buckets + 2);
    ys->reserve(2 * buckets + 2);
    xs->append(x(axis, begin));
    ys->append(shown(begin));
    for (int b = 0; b < buckets; ++b) {
        const qsizetype i0 = begin + 1 + (n - 2) * b / buckets;
        const qsizetype i1 = begin + 1 + (n - 2) * (b + 1) / buckets;
        qsizetype iMin = -1;
        qsizetype iMax = -1;
        for (qsizetype i = i0; i < i1; ++i) {
            const Values v = values[i];
            if (!drawable(double(v))) {
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
                // Nothing drawable here: a gap, not a line across it.
                xs->append(x(axis, i0));
                ys->append(std::numeric_limits<double>::quiet_NaN());
            }
            continue;
        }
        const qsizetype first = std::min(iMin, iMax);
        const qsizetype second = std::max(iMin, iMax);
        xs->append(x(axis, first));
        ys->append(double(values[first]));
        if (second != first) {
            xs->append(x(axis, second));
            ys->append(double(values[second]));
        }
    }
    xs->append(x(axis, end - 1));
    ys->append(shown(end - 1));
}

std::size_t LossCurve::bytesHeld() const
{
    return sizeof(*this) + m_smoothed.capacity() * sizeof(float)
           + (m_orderedWall.capacity() + m_orderedEpoch.capacity()) * sizeof(double);
}

} // namespace trainyard
