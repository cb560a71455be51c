// qcustomplot.h uses `foreach` in its own templates; our code never does.
#undef QT_NO_FOREACH

#include "ui/plot/plotzoom.h"

#include <QMouseEvent>

#include <qcustomplot.h>

namespace trainyard {

namespace {

// Smaller than this either way, a "box" is a Ctrl+click or a slip of the hand.
constexpr int minBoxPixels = 5;

} // namespace

PlotZoom::PlotZoom(QCustomPlot *plot, QObject *parent)
    : QObject(parent)
    , m_plot(plot)
{
    QCPSelectionRect *rect = m_plot->selectionRect();
    rect->setPen(QPen(QColor(40, 90, 200), 1, Qt::DashLine));
    rect->setBrush(QColor(40, 90, 200, 40));
    // srmCustom, not srmZoom: QCustomPlot's own box zoom zooms into a box of
    // any size, even a click's single pixel.
    connect(rect, &QCPSelectionRect::accepted, this, [this](const QRect &box, QMouseEvent *) { zoomTo(box); });
    connect(m_plot, &QCustomPlot::mousePress, this, &PlotZoom::onPress);
    connect(m_plot, &QCustomPlot::mouseWheel, this, &PlotZoom::viewChosen);
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, &PlotZoom::fitRequested);
}

void PlotZoom::onPress(QMouseEvent *event)
{
    // QCustomPlot looks at the mode right after this signal: so one plain
    // drag pans and the next, with Ctrl, draws a box.
    const bool box = event->button() == Qt::LeftButton && event->modifiers().testFlag(Qt::ControlModifier);
    m_plot->setSelectionRectMode(box ? QCP::srmCustom : QCP::srmNone);
    Q_EMIT viewChosen();
}

void PlotZoom::zoomTo(const QRect &box)
{
    const QRect inside = box.normalized().intersected(m_plot->axisRect()->rect());
    if (inside.width() < minBoxPixels || inside.height() < minBoxPixels) {
        return;
    }
    m_plot->axisRect()->zoom(QRectF(inside));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace trainyard
