#include "repeatband.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainyard {

BandSeries repeatBand(const QList<const RunCurve *> &curves, XAxis axis, double lo, double hi, int buckets,
                      RepeatBand band)
{
    BandSeries out;
    double first = std::numeric_limits<double>::max();
    double last = std::numeric_limits<double>::lowest();
    for (const RunCurve *c : curves) {
        if (!c->isEmpty()) {
            first = std::min(first, c->x(axis, 0));
            last = std::max(last, c->x(axis, c->size() - 1));
        }
    }
    if (first > last) {
        return out;
    }
    const double a = std::max(first, lo);
    const double b = std::min(last, hi);
    const int n = b > a ? std::min(buckets, 1000) : 1;
    out.xs.reserve(n);
    for (int i = 0; i < n; ++i) {
        const double x = n == 1 ? a : a + (b - a) * i / (n - 1);
        double sum = 0;
        double sumSq = 0;
        double mn = std::numeric_limits<double>::max();
        double mx = std::numeric_limits<double>::lowest();
        int count = 0;
        for (const RunCurve *c : curves) {
            double v = 0;
            if (c->valueAt(axis, x, &v) && std::isfinite(v)) {
                sum += v;
                sumSq += v * v;
                mn = std::min(mn, v);
                mx = std::max(mx, v);
                ++count;
            }
        }
        if (count == 0) {
            continue;
        }
        const double m = sum / count;
        out.xs.append(x);
        out.mean.append(m);
        if (band == RepeatBand::Std) {
            const double sd = std::sqrt(std::max(0.0, sumSq / count - m * m));
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
