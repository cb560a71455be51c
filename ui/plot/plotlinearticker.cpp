#include "plot/plotlinearticker.h"

#include <algorithm>
#include <cmath>

namespace trainyard {

QVector<double> PlotLinearTicker::createTickVector(double tickStep, const QCPRange &range)
{
    // Digits from the largest magnitude down to the step's: ticks 0.01175
    // and 0.0118 (step 0.00005, magnitude 0.01) need 4, 1000.5 and 1001 5.
    const double magnitude = std::max(std::abs(range.lower), std::abs(range.upper));
    m_digits = 0;
    if (tickStep > 0 && magnitude > 0 && std::isfinite(tickStep) && std::isfinite(magnitude)) {
        const int top = int(std::floor(std::log10(magnitude)));
        const int bottom = int(std::floor(std::log10(tickStep) + 1e-9));
        // A step of 2.5 or 0.25 has one digit more than its power of ten.
        const double mantissa = tickStep / std::pow(10.0, bottom);
        const int extra = std::abs(mantissa - std::round(mantissa)) > 1e-6 ? 1 : 0;
        m_digits = std::clamp(top - bottom + 1 + extra, 1, 15);
    }
    return QCPAxisTicker::createTickVector(tickStep, range);
}

QString PlotLinearTicker::getTickLabel(double tick, const QLocale &locale, QChar formatChar, int precision)
{
    return QCPAxisTicker::getTickLabel(tick, locale, formatChar, std::max(precision, m_digits));
}

} // namespace trainyard
