#pragma once

#include "ui/plot/metriccurve.h"

#include <QObject>
#include <QString>

#include <limits>

class QCPItemText;
class QCPTextElement;
class QCustomPlot;

namespace trainyard {

class PlotLegend;

/// What the visible data spans: x over both plots, y of the loss plot
/// (positive values only on a log scale) and of the evaluation plot. Empty
/// (min > max) in a direction without data.
struct DataExtent
{
    double xMin = std::numeric_limits<double>::max();
    double xMax = std::numeric_limits<double>::lowest();
    double yMin = std::numeric_limits<double>::max();
    double yMax = std::numeric_limits<double>::lowest();
    double evalMin = std::numeric_limits<double>::max();
    double evalMax = std::numeric_limits<double>::lowest();
};

/// The axes of the two plots, loss (or another chosen metric) above
/// evaluation: their titles, legends (PlotLegend) and labels (PlotLinearTicker,
/// PlotLogTicker), the upper plot's linear or log scale, one x range for
/// both (a pan or zoom on either moves the other), and fitting the ranges to
/// the data with a margin.
class PlotAxes : public QObject
{
    Q_OBJECT
public:
    PlotAxes(QCustomPlot *loss, QCustomPlot *eval, QObject *parent = nullptr);

    /// "step", "epoch" or "wall time (s)".
    static QString axisName(XAxis axis);

    void setLogScale(bool on);
    void setXAxis(XAxis axis);
    /// Titles and labels the upper plot for the metric it shows.
    void setCurveMetric(const QString &metric);
    /// Titles and labels the lower plot for the metric it shows.
    void setEvalMetric(const QString &metric);
    /// Shows all of `extent` (the x range of both plots and each y range); a
    /// direction without data gets a neutral range, never the last data's.
    void fit(const DataExtent &extent);
    PlotLegend *lossLegend() const { return m_lossLegend; }
    PlotLegend *evalLegend() const { return m_evalLegend; }
    /// After a replot: each legend laid out for the room it has (PlotLegend::fit).
    /// True when a plot needs another replot.
    bool fitLegends();
    /// After a replot: both plots' axes start and end at the same x on screen
    /// (the wider tick labels, the wider legend), so a step lines up across
    /// them. True when a margin changed and the plots need another replot.
    bool alignMargins();
    /// Lets the margins shrink again (a new selection, other labels).
    void resetMargins();
    /// A short text in the middle of each plot (empty: none), for a plot
    /// that has nothing to show.
    void setHints(const QString &loss, const QString &eval);

Q_SIGNALS:
    /// The user moved the shared x range (fit() does not report).
    void xRangeChanged();

private:
    QCustomPlot *m_loss;
    QCustomPlot *m_eval;
    QCPTextElement *m_lossTitle = nullptr;
    QCPTextElement *m_evalTitle = nullptr;
    PlotLegend *m_lossLegend = nullptr;
    PlotLegend *m_evalLegend = nullptr;
    QCPItemText *m_lossHint = nullptr;
    QCPItemText *m_evalHint = nullptr;
    bool m_log = false;
    bool m_settingRange = false;
};

} // namespace trainyard
