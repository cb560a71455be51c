#pragma once

#include <QObject>

class QCustomPlot;
class QMouseEvent;
class QRect;

namespace trainyard {

/// How the user picks the part of a plot to look at: the wheel zooms and a
/// drag pans (QCustomPlot's own), Ctrl+drag draws a box and zooms to it, and
/// a double-click asks to follow the data again.
class PlotZoom : public QObject
{
    Q_OBJECT
public:
    explicit PlotZoom(QCustomPlot *plot, QObject *parent = nullptr);

Q_SIGNALS:
    /// The user took over the view (wheel, press, box): stop following the data.
    void viewChosen();
    /// A double-click: show all the data and follow it.
    void fitRequested();

private:
    void onPress(QMouseEvent *event);
    void zoomTo(const QRect &box);

    QCustomPlot *m_plot;
};

} // namespace trainyard
