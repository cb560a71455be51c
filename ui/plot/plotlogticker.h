#pragma once

// qcustomplot.h uses `foreach` in its own templates; our code never does.
#undef QT_NO_FOREACH

#include <qcustomplot.h>

namespace trainyard {

/// Ticks for the loss plot's log scale that always label the range, however
/// little of it there is: the powers of ten when three or more are in range,
/// else the first of 1, 2 and 5 times them, evenly spaced ticks, 1 to 9
/// times them that leaves no stretch of the range far from a label (near
/// its ends above all), else the one that comes closest. QCustomPlot's own
/// log ticker labels only the powers of ten, so a loss between 0.3 and 60
/// read "1" and "10" and nothing below 1; and 6 to 10 alone was labelled
/// under a curve that starts near 13.
class PlotLogTicker : public QCPAxisTickerLog
{
protected:
    QVector<double> createTickVector(double tickStep, const QCPRange &range) override;
    QVector<double> createSubTickVector(int subTickCount, const QVector<double> &ticks) override;

private:
    enum class Spacing {
        Decades,
        Mantissas,
        Even
    };
    Spacing m_spacing = Spacing::Decades;
};

} // namespace trainyard
