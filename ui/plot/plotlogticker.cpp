#include "plot/plotlogticker.h"

#include <cmath>
#include <initializer_list>

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
    m_spacing = Spacing::Mantissas;
    ticks = series(range, {1, 2, 5});
    if (countIn(range, ticks) >= 3) {
        return ticks;
    }
    ticks = series(range, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    if (countIn(range, ticks) >= 2) {
        return ticks;
    }
    m_spacing = Spacing::Even;
    return QCPAxisTicker::createTickVector(QCPAxisTicker::getTickStep(range), range);
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
