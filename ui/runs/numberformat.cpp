#include "ui/runs/numberformat.h"

#include <algorithm>
#include <cmath>

namespace trainyard {

namespace {

// The digits after the point of `value` rounded to `significant` digits,
// trailing zeros dropped: 0.0012 -> 4, 2.5 -> 1, 300 -> 0.
int decimalsOf(double value, int significant)
{
    const double magnitude = std::fabs(value);
    if (magnitude == 0) {
        return 0;
    }
    const int exponent = int(std::floor(std::log10(magnitude)));
    int decimals = std::max(0, significant - 1 - exponent);
    if (decimals > 15) {
        return decimals; // far below anything fixed notation shows
    }
    auto scaled = std::llround(magnitude * std::pow(10.0, decimals));
    while (decimals > 0 && scaled % 10 == 0) {
        scaled /= 10;
        --decimals;
    }
    return decimals;
}

} // namespace

void NumberFormat::add(double value)
{
    if (!std::isfinite(value)) {
        return;
    }
    const double magnitude = std::fabs(value);
    m_largest = std::max(m_largest, magnitude);
    if (std::floor(value) != value || magnitude >= 1e15) {
        m_integers = false;
    }
    const int decimals = decimalsOf(value, kSignificant);
    m_decimals = std::max(m_decimals, decimals);
    if (magnitude > 0) {
        const int exponent = int(std::floor(std::log10(magnitude)));
        m_mantissa = std::max(m_mantissa, std::max(0, decimals + exponent));
    }
}

void NumberFormat::merge(const NumberFormat &other)
{
    m_integers = m_integers && other.m_integers;
    m_decimals = std::max(m_decimals, other.m_decimals);
    m_mantissa = std::max(m_mantissa, other.m_mantissa);
    m_largest = std::max(m_largest, other.m_largest);
}

NumberFormat::Style NumberFormat::style() const
{
    if (m_integers) {
        return Style::Integer;
    }
    return m_decimals <= kMaxDecimals && m_largest < 1e9 ? Style::Fixed : Style::Scientific;
}

int NumberFormat::digits() const
{
    switch (style()) {
    case Style::Integer:
        return 0;
    case Style::Fixed:
        return m_decimals;
    case Style::Scientific:
        return std::min(m_mantissa, kSignificant - 1);
    }
    return 0;
}

QString NumberFormat::text(double value) const
{
    if (!std::isfinite(value)) {
        return std::isnan(value) ? QString() : QString::number(value);
    }
    switch (style()) {
    case Style::Integer:
        return QString::number(qint64(value));
    case Style::Fixed:
        return QString::number(value, 'f', digits());
    case Style::Scientific:
        return QString::number(value, 'e', digits());
    }
    return {};
}

} // namespace trainyard
