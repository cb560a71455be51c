#pragma once

#include <QObject>
#include <QString>

#include <functional>

class QCPItemStraightLine;
class QCustomPlot;
class QLabel;
class QMouseEvent;

namespace trainyard {

/// The hover read-out of a plot: a dashed vertical line under the mouse and
/// the values there, written into a label. The line lives on its own
/// buffered layer, so following the mouse redraws only that layer, not
/// every curve.
class PlotHover : public QObject
{
    Q_OBJECT
public:
    /// The read-out text at x (in the plot's x unit); empty when there is nothing to read.
    using Readout = std::function<QString(double x)>;

    PlotHover(QCustomPlot *plot, QLabel *label, Readout readout, QObject *parent = nullptr);

    /// Takes the line and the read-out away (the mouse left; an export must not show them).
    void hide();
    bool isShown() const;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void onMouseMove(QMouseEvent *event);

    QCustomPlot *m_plot;
    QLabel *m_label;
    Readout m_readout;
    QCPItemStraightLine *m_cursor;
};

} // namespace trainyard
