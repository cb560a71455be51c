#include "ui/plot/plotlinearticker.h"

#include <algorithm>
#include <cmath>

namespace trainyard {

namespace {

// Outside this range of magnitudes every label of an axis is written with a
// power of ten ("7.5·10⁵", "1·10⁶"), not some with one and some without.
constexpr double smallestPlain = 1e-4;
constexpr double largestPlain = 1e6;

} // namespace

QVector<double> PlotLinearTicker::createTickVector(double tickStep, const QCPRange &range)
{
    // Digits from the largest magnitude down to the step's: ticks 0.01175
    // and 0.0118 (step 0.00005, magnitude 0.01) need 4, 1000.5 and 1001 5.
    const double magnitude = std::max(std::abs(range.lower), std::abs(range.upper));
    m_digits = 0;
    m_powers = false;
    m_step = tickStep;
    if (tickStep > 0 && magnitude > 0 && std::isfinite(tickStep) && std::isfinite(magnitude)) {
        const int top = int(std::floor(std::log10(magnitude)));
        const int bottom = int(std::floor(std::log10(tickStep) + 1e-9));
        // A step of 2.5 or 0.25 has one digit more than its power of ten.
        const double mantissa = tickStep / std::pow(10.0, bottom);
        const int extra = std::abs(mantissa - std::round(mantissa)) > 1e-6 ? 1 : 0;
        m_digits = std::clamp(top - bottom + 1 + extra, 1, 15);
        m_powers = magnitude >= largestPlain || magnitude < smallestPlain;
    }
    return QCPAxisTicker::createTickVector(tickStep, range);
}

QString PlotLinearTicker::getTickLabel(double tick, const QLocale &locale, QChar formatChar, int precision)
{
    const int digits = std::max(precision, m_digits);
    if (!m_powers) {
        return QCPAxisTicker::getTickLabel(tick, locale, formatChar, digits);
    }
    // The tick with its power of ten (the axis typesets "e+05" as "·10⁵"),
    // the mantissa without trailing zeros: "7.5e+05", "1e+06".
    if (std::abs(tick) < 1e-9 * m_step) {
        return QStringLiteral("0");
    }
    QString text = locale.toString(tick, 'e', std::max(0, m_digits - 1));
    const qsizetype e = text.indexOf(QLatin1Char('e'));
    qsizetype end = e;
    while (end > 0 && text.at(end - 1) == QLatin1Char('0')) {
        --end;
    }
    if (end > 0 && text.at(end - 1) == locale.decimalPoint().front()) {
        --end;
    }
    text.remove(end, e - end);
    return text;
}

} // namespace trainyard
