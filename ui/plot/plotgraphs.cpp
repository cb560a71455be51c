// qcustomplot.h uses `foreach` in its own templates; our code never does.
#undef QT_NO_FOREACH

#include "plot/plotgraphs.h"

#include "metrics/metricstore.h"
#include "plot/plotaxes.h"

#include <QCoreApplication>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainyard {

namespace {

const QString groupPrefix = QStringLiteral("group:");

// Where an evaluation point is drawn: its step, its wall time, or the epoch
// of its step as the metric lines tell it (the one record of epochs).
double evalX(const MetricSeries &points, const MetricSeries *epochs, std::size_t i, XAxis axis)
{
    switch (axis) {
    case XAxis::Epoch:
        return CurveSource::epochAt(epochs, points.step(i));
    case XAxis::Wall:
        return points.wall(i);
    case XAxis::Step:
        break;
    }
    return double(points.step(i));
}

} // namespace

PlotGraphs::PlotGraphs(QCustomPlot *loss, QCustomPlot *eval, PlotAxes *axes, const PlotRuns *runs)
    : m_loss(loss)
    , m_eval(eval)
    , m_axes(axes)
    , m_runs(runs)
{
}

QString PlotGraphs::groupLabel(const QString &group) const
{
    return QCoreApplication::translate("trainyard::PlotWidget", "%1 (mean of %n)", nullptr,
                                       int(m_groups.value(group).runs.size()))
        .arg(group);
}

void PlotGraphs::rebuild(const QStringList &selected, RepeatBand band)
{
    m_loss->clearGraphs();
    m_eval->clearGraphs();
    m_groups.clear();
    m_drawnPoints.clear();
    m_lossGraphs.clear();
    m_evalGraphs.clear();
    m_selected = selected;
    // Repeats of one spec become a group when at least two are selected.
    QMap<QString, QStringList> byGroup;
    for (const QString &id : selected) {
        byGroup[runAt(id).group].append(id);
    }
    for (const QString &id : selected) {
        const PlotRun &run = runAt(id);
        const QStringList &members = byGroup.value(run.group);
        QCPGraph *line = m_loss->addGraph();
        line->setName(run.label);
        line->setAdaptiveSampling(false); // we thin ourselves, by min and max per pixel
        if (band != RepeatBand::Lines && members.size() >= 2) {
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
            line->setPen(QPen(member, 1));
            m_loss->legend->removeItem(m_loss->legend->itemWithPlottable(line));
        } else {
            line->setPen(QPen(run.color, 1));
        }
        m_lossGraphs.insert(id, line);
        QCPGraph *points = m_eval->addGraph();
        points->setPen(QPen(run.color, 1.5));
        points->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, run.color, run.color, 5));
        points->setName(run.label);
        m_evalGraphs.insert(id, points);
    }
    m_axes->updateLegends();
}

void PlotGraphs::update(const PlotView &view)
{
    updateRanges(view);
    updateLossData(view.xAxis, view.band);
    updateEvalData(view);
}

void PlotGraphs::updateRanges(const PlotView &view)
{
    if (!view.follow) {
        return;
    }
    DataExtent e;
    for (const QString &id : std::as_const(m_selected)) {
        const LossCurve &c = runAt(id).curve;
        if (c.hasFinite()) {
            e.xMin = std::min(e.xMin, c.x(view.xAxis, 0));
            e.xMax = std::max(e.xMax, c.x(view.xAxis, c.size() - 1));
            const double lo = view.log ? c.minPositiveLoss() : c.minLoss();
            if (!view.log || lo > 0) {
                e.yMin = std::min(e.yMin, lo);
            }
            e.yMax = std::max(e.yMax, c.maxLoss());
        }
        const MetricSeries *points = c.source().series(view.evalMetric);
        const MetricSeries *epochs = points ? c.source().epochs() : nullptr;
        for (std::size_t i = 0; points && i < points->size(); ++i) {
            const double v = points->value(i);
            if (!std::isfinite(v)) {
                continue; // drawn as a gap; it must not stretch the axis
            }
            const double x = evalX(*points, epochs, i, view.xAxis);
            e.xMin = std::min(e.xMin, x);
            e.xMax = std::max(e.xMax, x);
            e.evalMin = std::min(e.evalMin, v);
            e.evalMax = std::max(e.evalMax, v);
        }
    }
    m_axes->fit(e);
}

void PlotGraphs::updateLossData(XAxis axis, RepeatBand band)
{
    const QCPRange range = m_loss->xAxis->range();
    const int buckets = std::max(64, m_loss->axisRect()->width() / 2);
    QVector<double> xs;
    QVector<double> ys;
    for (auto it = m_lossGraphs.constBegin(); it != m_lossGraphs.constEnd(); ++it) {
        const PlotRun &run = runAt(it.key());
        if (m_groups.contains(run.group)) {
            decimateOutsideGroup(run, axis, range.lower, range.upper, buckets, &xs, &ys);
        } else {
            run.curve.decimate(axis, range.lower, range.upper, buckets, &xs, &ys);
        }
        it.value()->setData(xs, ys, true);
        m_drawnPoints.insert(it.key(), int(xs.size()));
    }
    for (auto it = m_groups.begin(); it != m_groups.end(); ++it) {
        Group &group = it.value();
        const BandSeries series = repeatBand(groupCurves(group), axis, range.lower, range.upper, buckets, band);
        group.mean->setData(series.xs, series.mean, true);
        group.upper->setData(series.xs, series.upper, true);
        group.lower->setData(series.xs, series.lower, true);
        m_drawnPoints.insert(groupPrefix + it.key(), int(series.xs.size()));
    }
    // Smooth lines while they are few; past that, antialiasing costs more
    // frame time than it adds (16 streaming runs stay under 16 ms a frame).
    int drawn = 0;
    for (int n : std::as_const(m_drawnPoints)) {
        drawn += n;
    }
    m_loss->setNotAntialiasedElements(drawn > 12000 ? QCP::aePlottables : QCP::aeNone);
}

QList<const LossCurve *> PlotGraphs::groupCurves(const Group &group) const
{
    QList<const LossCurve *> curves;
    for (const QString &id : std::as_const(group.runs)) {
        curves.append(&runAt(id).curve);
    }
    return curves;
}

void PlotGraphs::decimateOutsideGroup(const PlotRun &run, XAxis axis, double lo, double hi, int buckets,
                                      QVector<double> *xs, QVector<double> *ys) const
{
    // Past the steps every repeat reached (and before them, when one starts
    // late) the group has no mean: there its members are drawn one by one,
    // so a repeat that ran longer is still seen.
    const LossCurve &c = run.curve;
    double first = 0;
    double last = 0;
    if (!commonExtent(groupCurves(*m_groups.constFind(run.group)), axis, &first, &last)) {
        c.decimate(axis, lo, hi, buckets, xs, ys);
        return;
    }
    xs->clear();
    ys->clear();
    QVector<double> px;
    QVector<double> py;
    if (c.x(axis, c.firstFinite()) < first && lo < first) {
        c.decimate(axis, lo, std::min(hi, first), buckets, &px, &py);
        *xs = px;
        *ys = py;
    }
    if (c.x(axis, c.lastFinite()) > last && hi > last) {
        c.decimate(axis, std::max(lo, last), hi, buckets, &px, &py);
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

void PlotGraphs::updateEvalData(const PlotView &view)
{
    for (auto it = m_evalGraphs.constBegin(); it != m_evalGraphs.constEnd(); ++it) {
        const CurveSource &source = runAt(it.key()).curve.source();
        const MetricSeries *points = source.series(view.evalMetric);
        const MetricSeries *epochs = points ? source.epochs() : nullptr;
        QVector<double> xs;
        QVector<double> ys;
        for (std::size_t i = 0; points && i < points->size(); ++i) {
            xs.append(evalX(*points, epochs, i, view.xAxis));
            ys.append(points->value(i));
        }
        it.value()->setData(xs, ys, true);
    }
}

QString PlotGraphs::readoutAt(XAxis axis, double mouseX) const
{
    // Steps are whole: the read-out is at the step under the mouse, never "step 65.9671".
    const double x = axis == XAxis::Step ? std::round(mouseX) : mouseX;
    QStringList parts;
    parts.append(QStringLiteral("<b>%1 %2</b>")
                     .arg(PlotAxes::axisName(axis),
                          axis == XAxis::Step ? QString::number(qint64(x)) : QString::number(x, 'g', 6)));
    const auto entry = [](const QColor &color, const QString &label, double v) {
        return QStringLiteral("<span style=\"color:%1\">■</span> %2: %3")
            .arg(color.name(), label.toHtmlEscaped(), QString::number(v, 'g', 5));
    };
    QStringList done;
    for (const QString &id : std::as_const(m_selected)) {
        const PlotRun &run = runAt(id);
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
                const PlotRun &m = runAt(member);
                double v = 0;
                if (m.curve.valueAt(axis, x, &v)) {
                    sum += v;
                    each.append(entry(m.color, m.label, v));
                }
            }
            if (each.size() == members.size()) {
                parts.append(entry(run.color, groupLabel(run.group), sum / double(members.size())));
            } else {
                parts.append(each);
            }
            continue;
        }
        double v = 0;
        if (run.curve.valueAt(axis, x, &v)) {
            parts.append(entry(run.color, run.label, v));
        }
    }
    return parts.join(QLatin1String("&nbsp;&nbsp; "));
}

} // namespace trainyard
