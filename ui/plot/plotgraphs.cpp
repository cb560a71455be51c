// qcustomplot.h uses `foreach` in its own templates; our code never does.
#undef QT_NO_FOREACH

// How PlotWidget draws its selected runs: one QCustomPlot graph per run and
// per repeat group, each thinned to the pixels it covers, the axes fitted to
// what is drawn, and the hover read-out of the same values. The widget's
// state, settings and exports are in plotwidget.cpp.

#include "plot/plotwidget.h"

#include "metrics/metricstore.h"
#include "plot/plotaxes.h"

#include <QLabel>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainyard {

namespace {

const QString groupPrefix = QStringLiteral("group:");

} // namespace

const PlotWidget::Run &PlotWidget::runAt(const QString &id) const
{
    // Never m_runs[id] or value() in const code: those copy a run's points.
    return *m_runs.constFind(id);
}

QString PlotWidget::groupLabel(const QString &group) const
{
    return tr("%1 (mean of %n)", nullptr, int(m_groups.value(group).runs.size())).arg(group);
}

void PlotWidget::rebuildGraphs()
{
    m_loss->clearGraphs();
    m_eval->clearGraphs();
    m_groups.clear();
    m_drawnPoints.clear();
    for (Run &run : m_runs) {
        run.lossGraph = nullptr;
        run.evalGraph = nullptr;
        run.drawnRevision = ~quint64(0);
    }
    // Repeats of one spec become a group when at least two are selected.
    QMap<QString, QStringList> byGroup;
    for (const QString &id : std::as_const(m_selected)) {
        byGroup[runAt(id).group].append(id);
    }
    for (const QString &id : std::as_const(m_selected)) {
        Run &run = m_runs[id];
        const QStringList &members = byGroup.value(run.group);
        const bool grouped = m_band != Band::Lines && members.size() >= 2;
        if (grouped) {
            if (!m_groups.contains(run.group)) {
                Group g;
                g.runs = members;
                g.color = run.color;
                QColor fill = g.color;
                fill.setAlpha(60);
                g.upper = m_loss->addGraph();
                g.lower = m_loss->addGraph();
                g.upper->setPen(Qt::NoPen);
                g.lower->setPen(Qt::NoPen);
                g.lower->setBrush(fill);
                g.lower->setChannelFillGraph(g.upper);
                g.mean = m_loss->addGraph();
                g.mean->setPen(QPen(g.color, 2));
                m_groups.insert(run.group, g);
                g.mean->setName(groupLabel(run.group));
                m_loss->legend->removeItem(m_loss->legend->itemWithPlottable(g.upper));
                m_loss->legend->removeItem(m_loss->legend->itemWithPlottable(g.lower));
            }
            // A member's own line, drawn only where the group's mean is not
            // (outside the steps every member reached): see updateLossData.
            QColor member = run.color;
            member.setAlpha(150);
            run.lossGraph = m_loss->addGraph();
            run.lossGraph->setPen(QPen(member, 1));
            run.lossGraph->setName(run.label);
            run.lossGraph->setAdaptiveSampling(false);
            m_loss->legend->removeItem(m_loss->legend->itemWithPlottable(run.lossGraph));
        } else {
            run.lossGraph = m_loss->addGraph();
            run.lossGraph->setPen(QPen(run.color, 1));
            run.lossGraph->setName(run.label);
            run.lossGraph->setAdaptiveSampling(false); // we thin ourselves, by min and max per pixel
        }
        run.evalGraph = m_eval->addGraph();
        run.evalGraph->setPen(QPen(run.color, 1.5));
        run.evalGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, run.color, run.color, 5));
        run.evalGraph->setName(run.label);
    }
    m_axes->updateLegends();
    updateHints();
    if (m_selected.isEmpty()) {
        m_readout->setText(tr("Select runs on the board or in the table to plot them."));
    } else {
        m_readout->setText(tr("Hover over the plot to read values; wheel zooms, drag pans, Ctrl+drag zooms to a box, "
                              "double-click fits."));
    }
}

void PlotWidget::updateRanges()
{
    if (!m_follow) {
        return;
    }
    DataExtent e;
    for (const QString &id : std::as_const(m_selected)) {
        const Run &run = runAt(id);
        const RunCurve &c = run.curve;
        if (c.hasFinite()) {
            e.xMin = std::min(e.xMin, c.x(m_xAxis, 0));
            e.xMax = std::max(e.xMax, c.x(m_xAxis, c.size() - 1));
            const double lo = m_log ? c.minPositiveLoss() : c.minLoss();
            if (!m_log || lo > 0) {
                e.yMin = std::min(e.yMin, lo);
            }
            e.yMax = std::max(e.yMax, c.maxLoss());
        }
        for (const EvalPoint &p : run.evals.value(m_evalMetric)) {
            if (!std::isfinite(p.value)) {
                continue; // drawn as a gap; it must not stretch the axis
            }
            e.xMin = std::min(e.xMin, evalX(p));
            e.xMax = std::max(e.xMax, evalX(p));
            e.evalMin = std::min(e.evalMin, p.value);
            e.evalMax = std::max(e.evalMax, p.value);
        }
    }
    m_axes->fit(e);
}

void PlotWidget::updateLossData()
{
    const QCPRange range = m_loss->xAxis->range();
    const int buckets = std::max(64, m_loss->axisRect()->width() / 2);
    QVector<double> xs;
    QVector<double> ys;
    for (const QString &id : std::as_const(m_selected)) {
        Run &run = m_runs[id];
        if (!run.lossGraph) {
            continue;
        }
        if (m_groups.contains(run.group)) {
            decimateOutsideGroup(run, range.lower, range.upper, buckets, &xs, &ys);
        } else {
            run.curve.decimate(m_xAxis, range.lower, range.upper, buckets, &xs, &ys);
        }
        run.lossGraph->setData(xs, ys, true);
        m_drawnPoints.insert(id, int(xs.size()));
    }
    for (auto it = m_groups.begin(); it != m_groups.end(); ++it) {
        updateGroupData(it.key(), it.value(), range.lower, range.upper, buckets);
    }
    // Smooth lines while they are few; past that, antialiasing costs more
    // frame time than it adds (16 streaming runs stay under 16 ms a frame).
    int drawn = 0;
    for (int n : std::as_const(m_drawnPoints)) {
        drawn += n;
    }
    m_loss->setNotAntialiasedElements(drawn > 12000 ? QCP::aePlottables : QCP::aeNone);
}

QList<const RunCurve *> PlotWidget::groupCurves(const Group &group) const
{
    QList<const RunCurve *> curves;
    for (const QString &id : std::as_const(group.runs)) {
        curves.append(&runAt(id).curve);
    }
    return curves;
}

void PlotWidget::decimateOutsideGroup(const Run &run, double lo, double hi, int buckets, QVector<double> *xs,
                                      QVector<double> *ys) const
{
    // Past the steps every repeat reached (and before them, when one starts
    // late) the group has no mean: there its members are drawn one by one,
    // so a repeat that ran longer is still seen.
    const RunCurve &c = run.curve;
    double first = 0;
    double last = 0;
    if (!commonExtent(groupCurves(*m_groups.constFind(run.group)), m_xAxis, &first, &last)) {
        c.decimate(m_xAxis, lo, hi, buckets, xs, ys);
        return;
    }
    xs->clear();
    ys->clear();
    QVector<double> px;
    QVector<double> py;
    if (c.x(m_xAxis, c.firstFinite()) < first && lo < first) {
        c.decimate(m_xAxis, lo, std::min(hi, first), buckets, &px, &py);
        *xs = px;
        *ys = py;
    }
    if (c.x(m_xAxis, c.lastFinite()) > last && hi > last) {
        c.decimate(m_xAxis, std::max(lo, last), hi, buckets, &px, &py);
        if (!xs->isEmpty()) {
            xs->append(xs->last()); // the two parts are not one line
            ys->append(std::numeric_limits<double>::quiet_NaN());
        }
        for (qsizetype i = 0; i < px.size(); ++i) {
            if (xs->isEmpty() || px.at(i) > xs->last()) {
                xs->append(px.at(i));
                ys->append(py.at(i));
            }
        }
    }
}

void PlotWidget::updateGroupData(const QString &name, Group &group, double lo, double hi, int buckets)
{
    const BandSeries series = repeatBand(groupCurves(group), m_xAxis, lo, hi, buckets, m_band);
    group.mean->setData(series.xs, series.mean, true);
    group.upper->setData(series.xs, series.upper, true);
    group.lower->setData(series.xs, series.lower, true);
    m_drawnPoints.insert(groupPrefix + name, int(series.xs.size()));
}

double PlotWidget::evalX(const EvalPoint &p) const
{
    switch (m_xAxis) {
    case XAxis::Epoch:
        return p.epoch;
    case XAxis::Wall:
        return p.wall;
    case XAxis::Step:
        break;
    }
    return p.step;
}

void PlotWidget::updateEvalData()
{
    for (const QString &id : std::as_const(m_selected)) {
        Run &run = m_runs[id];
        if (!run.evalGraph) {
            continue;
        }
        QVector<double> xs;
        QVector<double> ys;
        for (const EvalPoint &p : run.evals.value(m_evalMetric)) {
            xs.append(evalX(p));
            ys.append(p.value);
        }
        run.evalGraph->setData(xs, ys, true);
    }
}

QString PlotWidget::readoutAt(double mouseX) const
{
    // Steps are whole: the read-out is at the step under the mouse, never "step 65.9671".
    const double x = m_xAxis == XAxis::Step ? std::round(mouseX) : mouseX;
    QStringList parts;
    parts.append(QStringLiteral("<b>%1 %2</b>")
                     .arg(PlotAxes::axisName(m_xAxis),
                          m_xAxis == XAxis::Step ? QString::number(qint64(x)) : QString::number(x, 'g', 6)));
    QStringList done;
    for (const QString &id : std::as_const(m_selected)) {
        const Run &run = runAt(id);
        if (m_groups.contains(run.group)) {
            if (done.contains(run.group)) {
                continue;
            }
            done.append(run.group);
            // The mean as drawn: only where every member has a value; elsewhere the members.
            const QStringList &members = m_groups.constFind(run.group)->runs;
            double sum = 0;
            QStringList each;
            for (const QString &member : members) {
                const Run &m = runAt(member);
                double v = 0;
                if (m.curve.valueAt(m_xAxis, x, &v)) {
                    sum += v;
                    each.append(QStringLiteral("<span style=\"color:%1\">■</span> %2: %3")
                                    .arg(m.color.name(), m.label.toHtmlEscaped(), QString::number(v, 'g', 5)));
                }
            }
            if (each.size() == members.size()) {
                parts.append(QStringLiteral("<span style=\"color:%1\">■</span> %2: %3")
                                 .arg(run.color.name(), groupLabel(run.group).toHtmlEscaped(),
                                      QString::number(sum / double(members.size()), 'g', 5)));
            } else {
                parts.append(each);
            }
            continue;
        }
        double v = 0;
        if (run.curve.valueAt(m_xAxis, x, &v)) {
            parts.append(QStringLiteral("<span style=\"color:%1\">■</span> %2: %3")
                             .arg(run.color.name(), run.label.toHtmlEscaped(), QString::number(v, 'g', 5)));
        }
    }
    return parts.join(QLatin1String("&nbsp;&nbsp; "));
}

} // namespace trainyard
