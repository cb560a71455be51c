// qcustomplot.h uses `foreach` in its own templates; our code never does.
#undef QT_NO_FOREACH

#include "ui/plot/plothover.h"

#include <QEvent>
#include <QLabel>

#include <qcustomplot.h>

namespace trainyard {

PlotHover::PlotHover(QCustomPlot *plot, QLabel *label, Readout readout, QObject *parent)
    : QObject(parent)
    , m_plot(plot)
    , m_label(label)
    , m_readout(std::move(readout))
{
    m_plot->setMouseTracking(true);
    m_plot->addLayer(QStringLiteral("cursor"), m_plot->layer(QStringLiteral("legend")), QCustomPlot::limAbove);
    m_plot->layer(QStringLiteral("cursor"))->setMode(QCPLayer::lmBuffered);
    m_cursor = new QCPItemStraightLine(m_plot);
    m_cursor->setLayer(QStringLiteral("cursor"));
    m_cursor->setPen(QPen(QColor(0, 0, 0, 90), 1, Qt::DashLine));
    m_cursor->setVisible(false);
    m_cursor->setSelectable(false);
    connect(m_plot, &QCustomPlot::mouseMove, this, &PlotHover::onMouseMove);
    m_plot->installEventFilter(this);
}

void PlotHover::hide()
{
    if (!m_cursor->visible()) {
        return;
    }
    m_cursor->setVisible(false);
    m_label->clear();
    m_cursor->layer()->replot();
}

bool PlotHover::isShown() const
{
    return m_cursor->visible();
}

bool PlotHover::eventFilter(QObject *watched, QEvent *event)
{
    // The line stayed where the mouse left the plot (and went into exported PNGs).
    if (watched == m_plot && event->type() == QEvent::Leave) {
        hide();
    }
    return QObject::eventFilter(watched, event);
}

void PlotHover::onMouseMove(QMouseEvent *event)
{
    const double x = m_plot->xAxis->pixelToCoord(event->position().x());
    const QString text = m_readout(x);
    if (text.isEmpty()) {
        return;
    }
    m_cursor->point1->setCoords(x, 0);
    m_cursor->point2->setCoords(x, 1);
    m_cursor->setVisible(true);
    m_label->setText(text);
    m_cursor->layer()->replot();
}

} // namespace trainyard
