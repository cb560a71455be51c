#pragma once

#include "plot/repeatband.h"
#include "plot/runcurve.h"

#include <QString>

namespace trainyard {

/// The plot settings the desktop app keeps across restarts, under "plot/" in
/// the app's QSettings: the smoothing, log scale, x axis, how repeats are
/// drawn and the user's evaluation metric. Values that are missing or that
/// this version cannot read leave the defaults given to load().
struct PlotSettings
{
    double smoothing = 0.6;
    bool logScale = false;
    XAxis xAxis = XAxis::Step;
    RepeatBand band = RepeatBand::MinMax;
    QString evalMetric;

    static PlotSettings load(const PlotSettings &defaults);
    void save() const;
};

} // namespace trainyard
