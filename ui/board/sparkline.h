#pragma once

#include <QColor>
#include <QRectF>
#include <QVector>

#include <limits>

class QPainter;

namespace trainyard {

/// Draws a small line chart of `values` in `rect` (cards and lane headers).
/// The range is the values' own unless `lo`/`hi` are given (e.g. 0–100 %);
/// unknown values (negative with a fixed range, NaN) leave gaps.
void paintSparkline(QPainter *painter, const QRectF &rect, const QVector<double> &values, const QColor &color,
                    double lo = std::numeric_limits<double>::quiet_NaN(),
                    double hi = std::numeric_limits<double>::quiet_NaN());

} // namespace trainyard
