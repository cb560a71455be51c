#pragma once

// qcustomplot.h uses `foreach` in its own templates; our code never does.
#undef QT_NO_FOREACH

#include <qcustomplot.h>

namespace trainyard {

/// Ticks for a linear value axis whose labels always tell the ticks apart:
/// as many significant digits as the tick step needs at the range's
/// magnitude (at least the axis' precision), and written alike: all with a
/// power of ten when the values are that large or small (mem_bytes,
/// samples_per_s), none otherwise. A fixed precision labelled evaluation
/// ticks 0.01175 and 0.0118 both "0.0118"; "g" mixed "750000" with "1·10⁶".
class PlotLinearTicker : public QCPAxisTicker
{
protected:
    QVector<double> createTickVector(double tickStep, const QCPRange &range) override;
    QString getTickLabel(double tick, const QLocale &locale, QChar formatChar, int precision) override;

private:
    int m_digits = 0;      ///< Significant digits the ticks of the last range need
    bool m_powers = false; ///< Every label with a power of ten
    double m_step = 0;
};

} // namespace trainyard
