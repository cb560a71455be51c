#pragma once

#include "plot/plotexporter.h"
#include "plot/repeatband.h"
#include "plot/runcurve.h"

#include <QColor>
#include <QElapsedTimer>
#include <QHash>
#include <QMap>
#include <QStringList>
#include <QWidget>

#include <memory>

class QCPGraph;
class QCustomPlot;
class QLabel;
class QTimer;

namespace trainyard {

class PlotAxes;
class PlotControls;
class PlotHover;
class RunColors;

/// Live plots of the selected runs: the training loss on top (one line per
/// run, or per group of repeats a mean line with a min–max or ±std band over
/// the steps every repeat reached, each repeat's own line past them) and an
/// evaluation metric below. Keeps every point at full resolution and only
/// thins what it draws; redraws at most 30 times a second, and only when
/// something changed. The settings row (PlotControls) and what of it the app
/// remembers (PlotSettings), the axes and legends (PlotAxes, PlotLogTicker),
/// zooming (PlotZoom), the hover read-out (PlotHover), the repeat bands
/// (repeatBand) and image export (PlotExporter) are parts of their own.
class PlotWidget : public QWidget
{
    Q_OBJECT
public:
    using Band = RepeatBand;

    explicit PlotWidget(RunColors *colors, QWidget *parent = nullptr);
    ~PlotWidget() override;

    /// Registers a run; `group` ties repeats of one spec together.
    void addRun(const QString &id, const QString &label, const QString &group);
    void removeRun(const QString &id);
    /// Forgets a run's points (before they are fed again from the start).
    void resetRunData(const QString &id);
    void clearRuns();
    bool hasRun(const QString &id) const { return m_runs.contains(id); }
    void appendMetric(const QString &id, double step, double epoch, double wall, double loss);
    void appendEval(const QString &id, double step, double epoch, double wall, const QString &metric, double value);
    /// The runs drawn (all registered runs by default is not assumed: none are drawn until selected).
    void setSelectedRuns(const QStringList &ids);
    QStringList selectedRuns() const { return m_selected; }

    void setSmoothing(double weight);
    double smoothing() const { return m_smoothing; }
    void setLogScale(bool on);
    bool logScale() const { return m_log; }
    void setXAxis(XAxis axis);
    XAxis xAxis() const { return m_xAxis; }
    void setBand(Band band);
    Band band() const { return m_band; }
    /// The user's choice of evaluation metric, shown whenever a selected run
    /// has it ("mrr" alone: that metric of any split); else one they have is.
    void setEvalMetric(const QString &metric);
    /// The metric shown (empty when the selected runs have none).
    QString evalMetric() const { return m_evalMetric; }
    /// The metrics the selected runs have, to choose from.
    QStringList evalMetrics() const { return m_evalMetrics; }
    /// Restores the settings the user chose last time (PlotSettings) and
    /// remembers each change from now on. The app's window calls it; a plot
    /// drawn by a tool does not, so it neither reads nor changes them.
    void rememberSettings();

    /// Returns to following the data after a zoom or pan.
    void fitToData();
    bool following() const { return m_follow; }

    /// Full-resolution data of one run (for tests and CSV export).
    const RunCurve *curve(const QString &id) const;
    /// The points the loss plot draws for a run or a group ("group:NAME"), after thinning.
    int drawnPointCount(const QString &key) const;
    /// The text the hover read-out shows for x (in the current axis unit).
    QString readoutAt(double x) const;
    /// Whether the hover line and read-out are on screen.
    bool hoverShown() const;

    bool exportPng(const QString &file, int width = 0, int height = 0);
    bool exportPdf(const QString &file);
    /// Long format, one line per value: run,step,epoch,wall,metric,value.
    bool exportCsv(const QString &file, QString *error) const;

    /// Updates the graphs and redraws at once; returns milliseconds spent
    /// (the benchmark's replot time per frame).
    double refreshNow();
    QCustomPlot *lossPlot() const { return m_loss; }
    QCustomPlot *evalPlot() const { return m_eval; }

Q_SIGNALS:
    /// After each redraw, with the milliseconds it took.
    void refreshed(double ms);

private:
    struct EvalPoint
    {
        double step, epoch, wall, value;
    };
    struct Run
    {
        QString label;
        QString group;
        QColor color;
        RunCurve curve;
        QMap<QString, QVector<EvalPoint>> evals;
        QCPGraph *lossGraph = nullptr; ///< In a group: its line outside the steps all reached
        QCPGraph *evalGraph = nullptr;
        quint64 drawnRevision = ~quint64(0);
    };
    struct Group
    {
        QStringList runs;
        QColor color;
        QCPGraph *mean = nullptr;
        QCPGraph *upper = nullptr;
        QCPGraph *lower = nullptr;
    };

    const Run &runAt(const QString &id) const; ///< id must be registered
    void scheduleRefresh();
    void rebuildGraphs();
    void updateLossData();
    void updateGroupData(const QString &name, Group &group, double lo, double hi, int buckets);
    QList<const RunCurve *> groupCurves(const Group &group) const;
    void decimateOutsideGroup(const Run &run, double lo, double hi, int buckets, QVector<double> *xs,
                              QVector<double> *ys) const;
    void updateEvalData();
    void updateEvalMetrics();
    void updateHints();
    /// Saves the settings half a second after the last change (a slider drag
    /// is many changes), and at once when the plot goes.
    void saveSettings();
    void writeSettings() const;
    void updateRanges();
    void exportDialog(const QString &format);
    QString groupLabel(const QString &group) const;
    double evalX(const EvalPoint &p) const;

    // Before the widgets: PlotControls is built from them in the constructor.
    double m_smoothing = 0.6;
    bool m_log = false;
    XAxis m_xAxis = XAxis::Step;
    Band m_band = Band::MinMax;

    RunColors *m_colors;
    QCustomPlot *m_loss;
    QCustomPlot *m_eval;
    PlotExporter m_exporter;
    PlotAxes *m_axes;
    QLabel *m_readout;
    PlotControls *m_controls;
    PlotHover *m_hover;
    QTimer *m_timer;
    QElapsedTimer m_sinceRefresh;

    QHash<QString, Run> m_runs;
    QStringList m_selected;
    QMap<QString, Group> m_groups; ///< Groups drawn as bands (≥ 2 selected repeats)
    QString m_evalMetric;          ///< Shown
    QString m_wantedMetric;        ///< The user's choice
    QStringList m_evalMetrics;     ///< The selected runs'
    bool m_follow = true;
    bool m_remember = false;
    QTimer *m_saveTimer = nullptr; ///< created by rememberSettings()
    bool m_structureDirty = true;
    bool m_dataDirty = true;
    QHash<QString, int> m_drawnPoints;
};

} // namespace trainyard
