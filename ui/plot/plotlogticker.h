#pragma once

// qcustomplot.h uses `foreach` in its own templates; our code never does.
#undef QT_NO_FOREACH

#include <qcustomplot.h>

namespace trainyard {

/// Ticks for the loss plot's log scale that always label the range, however
/// little of it there is: the powers of ten when three or more are in range,
/// else 1, 2 and 5 times them, else 1 to 9 times them, else (a range too
/// narrow for those) evenly spaced ticks. QCustomPlot's own log ticker
/// labels only the powers of ten, so a loss between 0.3 and 60 read "1" and
/// "10" and nothing below 1.
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
