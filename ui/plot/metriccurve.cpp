#include "ui/plot/metriccurve.h"

#include "metrics/metricstore.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainyard {

const MetricSeries *CurveSource::series(const QString &metric) const
{
    return store ? store->series(run, metric) : nullptr;
}

QStringList CurveSource::metrics() const
{
    QStringList names;
    if (!store) {
        return names;
    }
    for (const QString &name : store->metricNames(run)) {
        if (!MetricStore::isBookkeeping(name)) {
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

namespace {

// The first reads of a long run (10 M points) are these scans: each checks
// a chunk with no branch inside it, so the compiler can vectorize, and only
// a chunk that fails is looked at point by point.
constexpr qsizetype scanChunk = 4096;

/// Whether the two step columns agree at every index in [from, n).
bool stepsMatch(const std::int64_t *a, const std::int64_t *b, qsizetype from, qsizetype n)
{
    for (qsizetype c = from; c < n; c += scanChunk) {
        const qsizetype e = std::min(n, c + scanChunk);
        std::int64_t differ = 0;
        for (qsizetype i = c; i < e; ++i) {
            differ |= a[i] ^ b[i];
        }
        if (differ != 0) {
            return false;
        }
    }
    return true;
}

/// The first index in [from, n) whose value is not finite or goes back; n if none.
qsizetype firstOutOfOrder(const double *x, qsizetype from, qsizetype n)
{
    const auto bad = [x](qsizetype i) { return !(std::isfinite(x[i]) && (i == 0 || x[i] >= x[i - 1])); };
    for (qsizetype c = from; c < n; c += scanChunk) {
        const qsizetype e = std::min(n, c + scanChunk);
        // Non-decreasing between two finite ends means finite throughout (NaN fails every comparison).
        bool ordered = std::isfinite(x[c]) && std::isfinite(x[e - 1]);
        for (qsizetype i = std::max<qsizetype>(c, 1); i < e; ++i) {
            ordered &= x[i] >= x[i - 1];
        }
        if (!ordered) {
            for (qsizetype i = c; i < e; ++i) {
                if (bad(i)) {
                    return i;
                }
            }
        }
    }
    return n;
}

} // namespace

void MetricCurve::reset()
{
    m_size = 0;
    m_smoothed.clear();
    m_orderedWall.clear();
    m_emaLast = 0;
    m_emaDebias = 1;
    m_min = m_max = m_minPositive = 0;
    m_firstFinite = m_lastFinite = -1;
    m_epochAligned = true; // checked again from the first point by append()
}

bool MetricCurve::sync()
{
    const MetricSeries *series = m_source.series(m_metric);
    const MetricSeries *epochs = m_source.epochs();
    bool changed = false;
    if (series != m_series
        || (series
            && (series->serial() != m_seriesSerial || series->revision() != m_seriesRevision
                || qsizetype(series->size()) < m_size))) {
        // A resumed run: the store cut the series (or it is another one). Start over.
        changed = m_size > 0;
        reset();
        m_series = series;
        m_seriesSerial = series ? series->serial() : 0;
        m_seriesRevision = series ? series->revision() : 0;
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
            m_epochAligned = epochs && std::size_t(i) < epochs->size()
                             && epochs->step(std::size_t(i)) == series->step(std::size_t(i));
        }
    }
    if (epochs && epochs->size() > m_epochCount) {
        m_epochsOrdered = m_epochsOrdered
                          && firstOutOfOrder(epochs->values(), qsizetype(m_epochCount), qsizetype(epochs->size()))
                                 == qsizetype(epochs->size());
        m_epochCount = epochs->size();
        changed = true;
    }
    const qsizetype n = series ? qsizetype(series->size()) : 0;
    if (n > m_size) {
        append(m_size);
        changed = true;
    }
    if (!m_epochsOrdered && changed) {
        orderEpochs();
    }
    return changed;
}

void MetricCurve::append(qsizetype from)
{
    const qsizetype n = qsizetype(m_series->size());
    m_epochAligned = m_epochAligned && m_epochs && qsizetype(m_epochs->size()) >= n
                     && stepsMatch(m_epochs->steps(), m_series->steps(), from, n);
    const qsizetype unordered = m_orderedWall.empty() ? firstOutOfOrder(m_series->walls(), from, n) : from;
    for (qsizetype i = unordered; i < n; ++i) {
        orderWall(i);
    }

    const double *values = m_series->values();
    if (m_firstFinite < 0) {
        for (qsizetype i = from; i < n && m_firstFinite < 0; ++i) {
            m_firstFinite = drawable(values[i]) ? i : -1;
        }
    }
    for (qsizetype i = n - 1; i >= from; --i) {
        if (drawable(values[i])) {
            m_lastFinite = i;
            break;
        }
    }
    m_size = n;
    // One more pass over the values, the one that reads them all: the
    // smoothing when it is on, and the extremes with it.
    if (m_weight > 0) {
        resmooth(from);
    } else {
        Extremes e = extremesBefore(from);
        for (qsizetype i = from; i < n; ++i) {
            const double v = values[i];
            if (drawable(v)) {
                e.add(v);
            }
        }
        keep(e);
    }
}

MetricCurve::Extremes MetricCurve::extremesBefore(qsizetype from) const
{
    const double inf = std::numeric_limits<double>::infinity();
    if (from == 0 || m_firstFinite < 0 || m_firstFinite >= from) {
        return Extremes{inf, -inf, inf};
    }
    return Extremes{m_min, m_max, m_minPositive > 0 ? m_minPositive : inf};
}

void MetricCurve::keep(const Extremes &e)
{
    if (m_firstFinite < 0) {
        return; // nothing drawable: all stay 0
    }
    m_min = e.lo;
    m_max = e.hi;
    m_minPositive = e.positive < std::numeric_limits<double>::infinity() ? e.positive : 0.0;
}

void MetricCurve::orderWall(qsizetype i)
{
    const std::size_t u = std::size_t(i);
    const double wall = m_series->wall(u);
    if (m_orderedWall.empty()) {
        if (std::isfinite(wall) && (i == 0 || wall >= m_series->wall(u - 1))) {
            return; // in order: x reads the store's walls
        }
        // The first wall out of order: from here on the view keeps its own, non-decreasing walls.
        m_orderedWall.reserve(m_series->size());
        m_orderedWall.assign(m_series->walls(), m_series->walls() + u);
    }
    const double last = m_orderedWall.empty() ? 0.0 : m_orderedWall.back();
    m_orderedWall.push_back(std::isfinite(wall) ? std::max(wall, last) : last);
}

void MetricCurve::orderEpochs()
{
    // Epochs that go back (or are NaN): each point's epoch, never below the one before.
    m_orderedEpoch.clear();
    m_orderedEpoch.reserve(std::size_t(m_size));
    double last = 0;
    for (qsizetype i = 0; i < m_size; ++i) {
        const double v = CurveSource::epochAt(m_epochs, m_series->step(std::size_t(i)));
        last = std::isfinite(v) ? std::max(v, last) : last;
        m_orderedEpoch.push_back(last);
    }
}

double MetricCurve::x(XAxis axis, qsizetype i) const
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
        return m_epochAligned ? m_epochs->value(u) : CurveSource::epochAt(m_epochs, m_series->step(u));
    case XAxis::Wall:
        return m_orderedWall.empty() ? m_series->wall(u) : m_orderedWall[u];
    case XAxis::Step:
        break;
    }
    return double(m_series->step(u));
}

double MetricCurve::value(qsizetype i) const
{
    return m_series->value(std::size_t(i));
}

double MetricCurve::smoothed(qsizetype i) const
{
    return m_smoothed.empty() ? value(i) : double(m_smoothed[std::size_t(i)]);
}

void MetricCurve::setMetric(const QString &metric)
{
    m_metric = metric; // the next sync() sees another series and starts over
}

void MetricCurve::setSmoothing(double weight)
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

void MetricCurve::resmooth(qsizetype from)
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
    const double *values = m_series->values();
    float *out = m_smoothed.data();
    const double w = m_weight;
    const double c = 1 - w;
    double ema = m_emaLast;
    double debias = m_emaDebias;
    Extremes extremes = extremesBefore(from);
    // One point: the definition.
    const auto smooth = [&](qsizetype i) {
        const double v = values[i];
        if (!drawable(v)) {
            // A NaN or inf point stays as is, like TensorBoard, and does not poison the average.
            out[i] = std::isnan(v) ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
            return;
        }
        extremes.add(v);
        ema = ema * w + c * v;
        debias *= w;
        out[i] = float(ema / (1 - debias));
    };
    qsizetype i = from;
    for (; i < m_size && 1 - debias != 1.0; ++i) {
        smooth(i);
    }
    // From here the debias divisor is exactly 1. Four points at a time, so
    // that only every fourth average waits for the one before it (the EMA's
    // chain of dependent multiplies is what bounds the first read of a long
    // run); `debias` need not shrink further, 1 - debias stays 1.
    const double w2 = w * w;
    const double w3 = w2 * w;
    const double w4 = w2 * w2;
    for (; i + 4 <= m_size; i += 4) {
        const double a = values[i];
        const double b = values[i + 1];
        const double d = values[i + 2];
        const double e = values[i + 3];
        if (!(drawable(a) && drawable(b) && drawable(d) && drawable(e))) {
            for (qsizetype j = i; j < i + 4; ++j) {
                smooth(j);
            }
            continue;
        }
        extremes.add(a);
        extremes.add(b);
        extremes.add(d);
        extremes.add(e);
        const double s1 = c * a;
        const double s2 = s1 * w + c * b;
        const double s3 = s2 * w + c * d;
        const double s4 = s3 * w + c * e;
        out[i] = float(ema * w + s1);
        out[i + 1] = float(ema * w2 + s2);
        out[i + 2] = float(ema * w3 + s3);
        ema = ema * w4 + s4;
        out[i + 3] = float(ema);
    }
    for (; i < m_size; ++i) {
        smooth(i);
    }
    m_emaLast = ema;
    m_emaDebias = debias;
    keep(extremes);
}

qsizetype MetricCurve::lowerBound(XAxis axis, double value) const
{
    if (axis == XAxis::Step) {
        const std::int64_t *steps = m_size ? m_series->steps() : nullptr;
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

bool MetricCurve::valueAt(XAxis axis, double xv, double *value) const
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

void MetricCurve::decimate(XAxis axis, double lo, double hi, int buckets, QVector<double> *xs,
                           QVector<double> *ys) const
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
        decimateValues(m_series->values(), axis, begin, end, buckets, xs, ys);
    } else {
        decimateValues(m_smoothed.data(), axis, begin, end, buckets, xs, ys);
    }
}

template <typename Values>
void MetricCurve::decimateValues(const Values *values, XAxis axis, qsizetype begin, qsizetype end, int buckets,
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
        Values lo = std::numeric_limits<Values>::infinity();
        Values hi = -lo;
        for (qsizetype i = i0; i < i1; ++i) {
            // The first of equal extremes; a point that is not drawable never counts.
            const Values v = values[i];
            const bool ok = drawable(double(v));
            if (ok && (iMin < 0 || v < lo)) {
                lo = v;
                iMin = i;
            }
            if (ok && (iMax < 0 || v > hi)) {
                hi = v;
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

std::size_t MetricCurve::bytesHeld() const
{
    return sizeof(*this) + m_smoothed.capacity() * sizeof(float)
           + (m_orderedWall.capacity() + m_orderedEpoch.capacity()) * sizeof(double);
}

} // namespace trainyard
