#pragma once

#include "ui/plot/metriccurve.h"
#include "ui/plot/plotruns.h"
#include "ui/plot/repeatband.h"

#include <QColor>
#include <QHash>
#include <QMap>
#include <QStringList>

class QCPGraph;
class QCustomPlot;

namespace trainyard {

class PlotAxes;

/// How the plots show their runs.
struct PlotView
{
    XAxis xAxis = XAxis::Step;
    bool log = false;
    RepeatBand band = RepeatBand::MinMax;
    QString curveMetric = QStringLiteral("loss"); ///< Drawn in the upper plot
    QString evalMetric;                           ///< Drawn in the lower plot
    bool follow = true;                           ///< Fit the ranges to the data
};

/// Draws the selected runs into the two plots: in the upper one a QCustomPlot
/// graph per run and per repeat group (≥ 2 selected repeats: a mean line in
/// the colour of the group's first run, in an edged band over the steps
/// every repeat reached, each repeat's own line past them), in the lower one
/// each run's points as they are; each thinned to the pixels it covers, the
/// axes fitted to what is drawn, the legends listing the runs that have
/// something to show, and the hover read-out of the same values. Past runs
/// are dashed.
class PlotGraphs
{
public:
    PlotGraphs(QCustomPlot *loss, QCustomPlot *eval, PlotAxes *axes, const PlotRuns *runs);

    /// New graphs for `selected` (ids of registered runs), grouped as `band` says.
    void rebuild(const QStringList &selected, RepeatBand band);
    /// Fits the ranges (when following) and hands every graph its points.
    void update(const PlotView &view);
    /// The band's fill and edge opacity (of 255): seen on white, curves seen through it.
    static constexpr int bandFillAlpha = 90;
    static constexpr int bandEdgeAlpha = 170;

    /// The points the loss plot draws for a run or a group ("group:NAME"), after thinning.
    int drawnPointCount(const QString &key) const { return m_drawnPoints.value(key, -1); }
    /// The text the hover read-out shows at x (in the x unit of `axis`).
    QString readoutAt(XAxis axis, double x) const;

private:
    struct Group
    {
        QStringList runs;
        QColor color;
        QCPGraph *mean = nullptr;
        QCPGraph *upper = nullptr;
        QCPGraph *lower = nullptr;
    };

    const PlotRun &runAt(const QString &id) const { return m_runs->at(id); }
    QString groupLabel(const QString &group) const;
    Group addGroup(const QString &name, const QStringList &members);
    void updateLegends();
    QList<const MetricCurve *> groupCurves(const Group &group) const;
    void updateRanges(const PlotView &view);
    void updateLossData(XAxis axis, RepeatBand band);
    void decimateOutsideGroup(const PlotRun &run, XAxis axis, double lo, double hi, int buckets, QVector<double> *xs,
                              QVector<double> *ys) const;
    void updateEvalData(const PlotView &view);

    QCustomPlot *m_loss;
    QCustomPlot *m_eval;
    PlotAxes *m_axes;
    const PlotRuns *m_runs;
    QStringList m_selected;
    QHash<QString, QCPGraph *> m_lossGraphs; ///< In a group: its line outside the steps all reached
    QHash<QString, QCPGraph *> m_evalGraphs;
    QMap<QString, Group> m_groups; ///< Groups drawn as bands
    QHash<QString, int> m_drawnPoints;
};

} // namespace trainyard
