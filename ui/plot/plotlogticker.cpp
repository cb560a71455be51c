#include "ui/plot/plotlogticker.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <utility>

namespace trainyard {

namespace {

// Past this many decades the powers of ten alone are too dense: QCustomPlot
// then labels every second (or further) power.
constexpr int maxDecades = 12;

// m × 10^e for each mantissa, from the decade below the range to the one above.
QVector<double> series(const QCPRange &range, std::initializer_list<double> mantissas)
{
    QVector<double> ticks;
    const int lo = int(std::floor(std::log10(range.lower)));
    const int hi = int(std::ceil(std::log10(range.upper)));
    for (int e = lo; e <= hi; ++e) {
        for (double m : mantissas) {
            ticks.append(m * std::pow(10.0, e));
        }
    }
    return ticks;
}

int countIn(const QCPRange &range, const QVector<double> &ticks)
{
    int n = 0;
    for (double t : ticks) {
        n += range.contains(t) ? 1 : 0;
    }
    return n;
}

// A range is readable with a set of ticks when no label is far from any
// point of it: at most this share of the (log) range from either end to the
// nearest label (a curve that starts near 13 over labels 6..10 was not),
// at most the second between two labels.
constexpr double maxEndGap = 0.25;
constexpr double maxInnerGap = 0.4;

// How far the ticks in range leave the range unlabelled, as the larger
// excess over the limits above (<= 0: readable).
double excessGap(const QCPRange &range, const QVector<double> &ticks)
{
    const double lo = std::log(range.lower);
    const double span = std::log(range.upper) - lo;
    double previous = -1;
    double excess = -1;
    for (double t : ticks) {
        if (!range.contains(t)) {
            continue;
        }
        const double at = (std::log(t) - lo) / span;
        excess = std::max(excess, previous < 0 ? at - maxEndGap : at - previous - maxInnerGap);
        previous = at;
    }
    return previous < 0 ? 1.0 : std::max(excess, 1 - previous - maxEndGap);
}

bool isTick(double value, const QVector<double> &ticks)
{
    for (double t : ticks) {
        if (std::abs(value - t) <= 1e-9 * t) {
            return true;
        }
    }
    return false;
}

} // namespace

QVector<double> PlotLogTicker::createTickVector(double tickStep, const QCPRange &range)
{
    m_spacing = Spacing::Decades;
    if (!(range.lower > 0) || !(range.upper > range.lower) || std::log10(range.upper / range.lower) > maxDecades) {
        return QCPAxisTickerLog::createTickVector(tickStep, range);
    }
    QVector<double> ticks = series(range, {1});
    if (countIn(range, ticks) >= 3) {
        return ticks;
    }
    // Sparse to dense, the first that labels the whole range; else the one
    // that comes closest.
    const QVector<std::pair<Spacing, QVector<double>>> candidates{
        {Spacing::Mantissas, series(range, {1, 2, 5})},
        {Spacing::Even, QCPAxisTicker::createTickVector(QCPAxisTicker::getTickStep(range), range)},
        {Spacing::Mantissas, series(range, {1, 2, 3, 4, 5, 6, 7, 8, 9})},
    };
    double best = std::numeric_limits<double>::max();
    for (const auto &[spacing, candidate] : candidates) {
        const double excess = countIn(range, candidate) >= 2 ? excessGap(range, candidate) : 1.0;
        if (excess < best) {
            best = excess;
            m_spacing = spacing;
            ticks = candidate;
        }
        if (excess <= 0) {
            break;
        }
    }
    return ticks;
}

QVector<double> PlotLogTicker::createSubTickVector(int subTickCount, const QVector<double> &ticks)
{
    if (ticks.size() < 2) {
        return {};
    }
    switch (m_spacing) {
    case Spacing::Decades:
        // 2..9 between two successive powers of ten; nothing between wider steps.
        return std::abs(ticks.at(1) / ticks.at(0) - 10) < 1e-6
                   ? QCPAxisTickerLog::createSubTickVector(subTickCount, ticks)
                   : QVector<double>();
    case Spacing::Mantissas: {
        // The whole mantissas that are not labelled.
        QVector<double> subTicks;
        for (double t : series(QCPRange(ticks.first(), ticks.last()), {1, 2, 3, 4, 5, 6, 7, 8, 9})) {
            if (t > ticks.first() && t < ticks.last() && !isTick(t, ticks)) {
                subTicks.append(t);
            }
        }
        return subTicks;
    }
    case Spacing::Even:
        break;
    }
    return QCPAxisTicker::createSubTickVector(QCPAxisTicker::getSubTickCount(ticks.at(1) - ticks.at(0)), ticks);
}

} // namespace trainyard
