#include "ui/plot/repeatband.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainyard {

bool commonExtent(const QList<const MetricCurve *> &curves, XAxis axis, double *first, double *last)
{
    if (curves.isEmpty()) {
        return false;
    }
    *first = std::numeric_limits<double>::lowest();
    *last = std::numeric_limits<double>::max();
    for (const MetricCurve *c : curves) {
        if (!c->hasFinite()) {
            return false;
        }
        *first = std::max(*first, c->x(axis, c->firstFinite()));
        *last = std::min(*last, c->x(axis, c->lastFinite()));
    }
    return *first <= *last;
}

BandSeries repeatBand(const QList<const MetricCurve *> &curves, XAxis axis, double lo, double hi, int buckets,
                      RepeatBand band)
{
    BandSeries out;
    double first = 0;
    double last = 0;
    if (!commonExtent(curves, axis, &first, &last)) {
        return out;
    }
    const double a = std::max(first, lo);
    const double b = std::min(last, hi);
    if (a > b) {
        return out;
    }
    const int n = b > a ? std::max(2, std::min(buckets, 1000)) : 1;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    out.xs.reserve(n);
    out.mean.reserve(n);
    out.upper.reserve(n);
    out.lower.reserve(n);
    for (int i = 0; i < n; ++i) {
        const double x = n == 1 ? a : a + (b - a) * i / (n - 1);
        double sum = 0;
        double sumSq = 0;
        double mn = std::numeric_limits<double>::max();
        double mx = std::numeric_limits<double>::lowest();
        bool complete = true;
        for (const MetricCurve *c : curves) {
            double v = 0;
            if (!c->valueAt(axis, x, &v)) {
                complete = false;
                break;
            }
            sum += v;
            sumSq += v * v;
            mn = std::min(mn, v);
            mx = std::max(mx, v);
        }
        out.xs.append(x);
        if (!complete) {
            out.mean.append(nan);
            out.upper.append(nan);
            out.lower.append(nan);
            continue;
        }
        const double m = sum / double(curves.size());
        out.mean.append(m);
        if (band == RepeatBand::Std) {
            const double sd = std::sqrt(std::max(0.0, sumSq / double(curves.size()) - m * m));
            out.upper.append(m + sd);
            out.lower.append(m - sd);
        } else {
            out.upper.append(mx);
            out.lower.append(mn);
        }
    }
    return out;
}

} // namespace trainyard
