#pragma once

#include <QString>

namespace trainyard {

/// One way of writing every number of a runs-table column, chosen from the
/// numbers it holds, so they read alike and line up: integers as integers;
/// else a fixed number of decimals, enough to give each number four
/// significant digits (0.0100, 0.0010, 0.0001: never 1e-04 next to 0.001);
/// else, when that would take more than six decimals or the numbers are
/// huge, scientific notation with one mantissa length (1.235e-04,
/// 4.100e-02). Numbers are added one by one (add) or from another column's
/// share (merge: the past runs' and the live ones').
class NumberFormat
{
public:
    enum class Style {
        Integer,
        Fixed,
        Scientific
    };

    /// Takes `value` into the choice (NaN and infinities are left out).
    void add(double value);
    void merge(const NumberFormat &other);

    Style style() const;
    /// Decimals (Fixed) or mantissa decimals (Scientific); 0 for Integer.
    int digits() const;
    /// `value` written this way ("—" never: an empty string for NaN).
    QString text(double value) const;

    bool operator==(const NumberFormat &o) const { return style() == o.style() && digits() == o.digits(); }
    bool operator!=(const NumberFormat &o) const { return !(*this == o); }

    static constexpr int kSignificant = 4; ///< digits each number keeps
    static constexpr int kMaxDecimals = 6; ///< more: scientific

private:
    bool m_integers = true;
    int m_decimals = 0;   ///< the most decimals a number needs
    int m_mantissa = 0;   ///< the most mantissa decimals a number needs
    double m_largest = 0; ///< the largest magnitude
};

} // namespace trainyard
