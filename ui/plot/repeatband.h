#pragma once

#include "ui/plot/metriccurve.h"

#include <QList>
#include <QVector>

namespace trainyard {

/// How the plots draw the repeats of one spec: each as its own line, or
/// their mean with a band from the lowest to the highest, or of ±1 standard
/// deviation around the mean.
enum class RepeatBand {
    Lines,
    MinMax,
    Std
};

/// A group of repeats drawn as one mean line inside a band.
struct BandSeries
{
    QVector<double> xs;
    QVector<double> mean;
    QVector<double> upper;
    QVector<double> lower;
};

/// The x range in which every curve has finite points: from the latest first
/// finite point to the earliest last one. False when there is none (a curve
/// without finite points yet, or curves that do not overlap).
bool commonExtent(const QList<const MetricCurve *> &curves, XAxis axis, double *first, double *last);

/// The mean and band of `curves` (their smoothed values) on an even grid of
/// at most min(buckets, 1000) points over [lo, hi], clipped to their
/// commonExtent(): a mean of the repeats that happen to be there would jump
/// where one ends. A grid point where a curve has no finite value (next to a
/// NaN) is NaN in all three series, a gap. `band` MinMax or Std (Lines draws
/// no band).
BandSeries repeatBand(const QList<const MetricCurve *> &curves, XAxis axis, double lo, double hi, int buckets,
                      RepeatBand band);

} // namespace trainyard
