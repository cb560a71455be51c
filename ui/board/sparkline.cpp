#include "ui/board/sparkline.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace trainyard {

void paintSparkline(QPainter *painter, const QRectF &rect, const QVector<double> &values, const QColor &color,
                    double lo, double hi)
{
    const bool fixed = !std::isnan(lo) && !std::isnan(hi);
    auto usable = [&](double v) { return std::isfinite(v) && (!fixed || v >= 0); };
    if (!fixed) {
        lo = std::numeric_limits<double>::max();
        hi = std::numeric_limits<double>::lowest();
        for (double v : values) {
            if (usable(v)) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        }
        if (lo > hi) {
            return;
        }
    }
    if (hi <= lo) {
        hi = lo + 1;
    }
    const int n = int(values.size());
    if (n == 0) {
        return;
    }
    QPainterPath line;
    QPainterPath area;
    bool drawing = false;
    QPointF first;
    QPointF last;
    for (int i = 0; i < n; ++i) {
        const double v = values.at(i);
        if (!usable(v)) {
            drawing = false;
            continue;
        }
        const double x = rect.left() + (n == 1 ? rect.width() : rect.width() * i / (n - 1));
        const double y = rect.bottom() - rect.height() * (std::clamp(v, lo, hi) - lo) / (hi - lo);
        const QPointF p(x, y);
        if (!drawing) {
            line.moveTo(p);
            if (area.isEmpty()) {
                first = p;
                area.moveTo(QPointF(x, rect.bottom()));
            }
            drawing = true;
        } else {
            line.lineTo(p);
        }
        area.lineTo(p);
        last = p;
    }
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    if (!area.isEmpty()) {
        area.lineTo(QPointF(last.x(), rect.bottom()));
        area.closeSubpath();
        QColor fill = color;
        fill.setAlpha(45);
        painter->fillPath(area, fill);
    }
    painter->setPen(QPen(color, 1.3));
    painter->drawPath(line);
    painter->restore();
}

} // namespace trainyard
