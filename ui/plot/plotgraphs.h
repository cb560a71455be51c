#pragma once

#include "plot/losscurve.h"
#include "plot/plotruns.h"
#include "plot/repeatband.h"

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
    QString evalMetric; ///< Drawn in the evaluation plot
    bool follow = true; ///< Fit the ranges to the data
};

/// Draws the selected runs into the two plots: one QCustomPlot graph per run
/// and per repeat group (≥ 2 selected repeats: a mean line in a band over
/// the steps every repeat reached, each repeat's own line past them), each
/// thinned to the pixels it covers, the axes fitted to what is drawn, and
/// the hover read-out of the same values. The evaluation points are read
/// from the store as they are.
class PlotGraphs
{
public:
    PlotGraphs(QCustomPlot *loss, QCustomPlot *eval, PlotAxes *axes, const PlotRuns *runs);

    /// New graphs for `selected` (ids of registered runs), grouped as `band` says.
    void rebuild(const QStringList &selected, RepeatBand band);
    /// Fits the ranges (when following) and hands every graph its points.
    void update(const PlotView &view);
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
    QList<const LossCurve *> groupCurves(const Group &group) const;
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
