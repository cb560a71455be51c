#pragma once

#include "ui/plot/metriccurve.h"
#include "ui/plot/plotexporter.h"
#include "ui/plot/plotgraphs.h"
#include "ui/plot/plotmetricchoice.h"
#include "ui/plot/plotruns.h"
#include "ui/plot/plotsettings.h"
#include "ui/plot/repeatband.h"

#include <QStringList>
#include <QWidget>

class QCustomPlot;
class QLabel;
class QTimer;

namespace trainyard {

class PlotAxes;
class PlotControls;
class PlotHover;
class RunColors;

/// Live plots of the selected runs: the training loss (or any metric the
/// user picks) on top, one smoothed line per run, or per group of repeats a
/// mean line with a min–max or ±std band over the steps every repeat
/// reached, each repeat's own line past them; an evaluation metric (or any
/// other picked) below, point by point. Holds no point of its own: each run
/// is a CurveSource, a run of a MetricStore, read through MetricCurve views
/// (the smoothing cache and the thinning of what is drawn). Redraws when a store
/// announces new points (MetricStore::updated, its one batching timer) and,
/// once per event-loop pass, after a change of settings or view. The
/// settings row (PlotControls) and what of it the app remembers
/// (PlotSettings), the metric each plot shows (PlotMetricChoice), the graphs
/// (PlotGraphs), the axes and legends (PlotAxes, PlotLegend, the tickers), zooming (PlotZoom), the hover read-out (PlotHover), the
/// repeat bands (repeatBand) and exports (PlotExporter) are parts of their own.
class PlotWidget : public QWidget
{
    Q_OBJECT
public:
    using Band = RepeatBand;

    explicit PlotWidget(RunColors *colors, QWidget *parent = nullptr);

    /// Registers a run whose points are `source`'s; `group` ties repeats of
    /// one spec together; a past run is drawn in the past palette, dashed.
    /// A run whose store goes away is forgotten.
    void addRun(const QString &id, const QString &label, const QString &group, const CurveSource &source,
                RunOrigin origin = RunOrigin::Live);
    void removeRun(const QString &id);
    void clearRuns();
    /// The runs drawn (none are drawn until selected).
    void setSelectedRuns(const QStringList &ids);
    QStringList selectedRuns() const { return m_selected; }

    void setSmoothing(double weight);
    double smoothing() const { return m_smoothing; }
    void setLogScale(bool on);
    bool logScale() const { return m_view.log; }
    void setXAxis(XAxis axis);
    XAxis xAxis() const { return m_view.xAxis; }
    void setBand(Band band);
    Band band() const { return m_view.band; }
    /// The user's pick of the upper plot's metric ("loss", "lr", "grad_norm",
    /// ...), shown whenever a selected run has it; else the loss is.
    void setCurveMetric(const QString &metric);
    QString curveMetric() const { return m_view.curveMetric; }
    /// The user's pick of the lower plot's metric, shown whenever a selected
    /// run has it ("mrr" alone: that metric of any split); else an
    /// evaluation metric they have is (PlotMetricChoice).
    void setEvalMetric(const QString &metric);
    /// The metric the lower plot shows (empty when the selected runs have none).
    QString evalMetric() const { return m_view.evalMetric; }
    /// The metrics the selected runs have, offered by both pickers.
    QStringList availableMetrics() const { return m_metrics.available(); }
    /// Restores the settings the user chose last time (PlotSettings) and
    /// remembers each change from now on. The app's window calls it; a plot
    /// drawn by a tool does not, so it neither reads nor changes them.
    void rememberSettings();

    /// Returns to following the data after a zoom or pan.
    void fitToData();
    bool following() const { return m_view.follow; }

    /// The loss curve of one run as last drawn (tests, the benchmark).
    const MetricCurve *curve(const QString &id) const;
    /// The points the loss plot draws for a run or a group ("group:NAME"), after thinning.
    int drawnPointCount(const QString &key) const { return m_graphs.drawnPointCount(key); }
    /// The text the hover read-out shows for x (in the current axis unit).
    QString readoutAt(double x) const { return m_graphs.readoutAt(m_view.xAxis, x); }
    /// Whether the hover line and read-out are on screen.
    bool hoverShown() const;

    bool exportPng(const QString &file, int width = 0, int height = 0);
    bool exportPdf(const QString &file);
    /// The selected runs' every metric as the store holds it, through the
    /// writer `trainyard export` uses (MetricsCsvWriter::writeRun).
    bool exportCsv(const QString &file, QString *error) const;

    /// Reads what the stores have, updates the graphs and redraws at once;
    /// returns milliseconds spent (the benchmark's replot time per frame).
    double refreshNow();
    QCustomPlot *lossPlot() const { return m_loss; }
    QCustomPlot *evalPlot() const { return m_eval; }

Q_SIGNALS:
    /// After each redraw, with the milliseconds it took.
    void refreshed(double ms);

private:
    void runsUpdated(const QStringList &ids);
    void runsForgotten(const QStringList &ids);
    void scheduleRefresh();
    void updateMetrics();
    void showMetrics();
    void updateHints();
    PlotSettings settings() const;
    void saveSettings(); ///< Remembers a change, when rememberSettings() was called

    // Before the widgets: PlotControls is built from them in the constructor.
    double m_smoothing = 0.6;
    PlotView m_view;

    PlotRuns *m_runs;
    QCustomPlot *m_loss;
    QCustomPlot *m_eval;
    PlotExporter m_exporter;
    PlotAxes *m_axes;
    QLabel *m_readout;
    PlotControls *m_controls;
    PlotHover *m_hover;
    QTimer *m_timer; ///< Zero-delay: one redraw per event-loop pass after changes
    PlotGraphs m_graphs;

    QStringList m_selected;
    PlotMetricChoice m_metrics;
    PlotSettingsSaver *m_saver = nullptr; ///< Created by rememberSettings()
    bool m_structureDirty = true;
    bool m_dataDirty = true;
};

} // namespace trainyard
