// qcustomplot.h uses `foreach` in its own templates; our code never does.
#undef QT_NO_FOREACH

#include "ui/plot/plotgraphs.h"

#include "ui/plot/plotaxes.h"
#include "ui/plot/plotlegend.h"

#include <QCoreApplication>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainyard {

namespace {

const QString groupPrefix = QStringLiteral("group:");

// Above this many points the lower plot draws a line without markers (a
// dense metric such as samples_per_s); evaluations are few and each is marked.
constexpr qsizetype maxMarkedPoints = 300;

QString meanLabel(const QString &group, int members)
{
    return QCoreApplication::translate("trainyard::PlotWidget", "%1 (mean of %n)", nullptr, members).arg(group);
}

// Whether run key `a` comes before `b`: run ids by number, other keys by text.
bool keyBefore(const QString &a, const QString &b)
{
    bool aIsId = false;
    bool bIsId = false;
    const qint64 x = a.toLongLong(&aIsId);
    const qint64 y = b.toLongLong(&bIsId);
    if (aIsId && bIsId) {
        return x < y;
    }
    return aIsId != bIsId ? aIsId : a < b;
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
    return meanLabel(group, int(m_groups.value(group).runs.size()));
}

void PlotGraphs::rebuild(const QStringList &selected, RepeatBand band)
{
    m_axes->lossLegend()->clear(); // before its graphs go
    m_axes->evalLegend()->clear();
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
        // A past run is dashed as well as darker: never taken for a live one.
        const Qt::PenStyle style = run.origin == RunOrigin::Past ? Qt::DashLine : Qt::SolidLine;
        QCPGraph *line = m_loss->addGraph();
        line->setName(run.label);
        line->setAdaptiveSampling(false); // we thin ourselves, by min and max per pixel
        if (band != RepeatBand::Lines && members.size() >= 2) {
            if (!m_groups.contains(run.group)) {
                m_groups.insert(run.group, addGroup(run.group, members));
            }
            // A member's own line, drawn only where the group's mean is not
            // (outside the steps every member reached): see updateLossData.
            QColor member = run.color;
            member.setAlpha(150);
            line->setPen(QPen(member, 1, style));
        } else {
            line->setPen(QPen(run.color, 1, style));
        }
        m_lossGraphs.insert(id, line);
        QCPGraph *points = m_eval->addGraph();
        points->setPen(QPen(run.color, 1.5, style));
        points->setName(run.label);
        points->setAdaptiveSampling(false);
        m_evalGraphs.insert(id, points);
    }
}

PlotGraphs::Group PlotGraphs::addGroup(const QString &name, const QStringList &members)
{
    Group g;
    g.runs = members;
    // The first member's colour (by run id), whatever order the runs were selected in.
    g.color = runAt(*std::min_element(members.begin(), members.end(), keyBefore)).color;
    // A band that reads as one: filled enough to see on white, and edged.
    QColor fill = g.color;
    fill.setAlpha(bandFillAlpha);
    QColor edge = g.color;
    edge.setAlpha(bandEdgeAlpha);
    g.upper = m_loss->addGraph();
    g.lower = m_loss->addGraph();
    g.upper->setPen(QPen(edge, 1));
    g.lower->setPen(QPen(edge, 1));
    g.lower->setBrush(fill);
    g.lower->setChannelFillGraph(g.upper);
    g.mean = m_loss->addGraph();
    g.mean->setPen(QPen(g.color, 2));
    g.mean->setName(meanLabel(name, int(members.size())));
    return g;
}

void PlotGraphs::update(const PlotView &view)
{
    updateRanges(view);
    updateLossData(view.xAxis, view.band);
    updateEvalData(view);
    updateLegends();
}

void PlotGraphs::updateLegends()
{
    // Only what has something to show: a run without the chosen metric
    // (yet) is not listed, in either plot.
    QList<QCPAbstractPlottable *> loss;
    QList<QCPAbstractPlottable *> eval;
    QStringList groupsListed;
    for (const QString &id : std::as_const(m_selected)) {
        const PlotRun &run = runAt(id);
        const auto group = m_groups.constFind(run.group);
        if (group == m_groups.constEnd()) {
            if (run.curve.hasFinite()) {
                loss.append(m_lossGraphs.value(id));
            }
        } else if (!groupsListed.contains(run.group)) {
            const QList<const MetricCurve *> curves = groupCurves(*group);
            if (std::any_of(curves.begin(), curves.end(), [](const MetricCurve *c) { return c->hasFinite(); })) {
                groupsListed.append(run.group);
                loss.append(group->mean);
            }
        }
        if (run.points.hasFinite()) {
            eval.append(m_evalGraphs.value(id));
        }
    }
    m_axes->lossLegend()->setEntries(loss);
    m_axes->evalLegend()->setEntries(eval);
}

void PlotGraphs::updateRanges(const PlotView &view)
{
    if (!view.follow) {
        return;
    }
    DataExtent e;
    for (const QString &id : std::as_const(m_selected)) {
        const MetricCurve &c = runAt(id).curve;
        if (c.hasFinite()) {
            e.xMin = std::min(e.xMin, c.x(view.xAxis, 0));
            e.xMax = std::max(e.xMax, c.x(view.xAxis, c.size() - 1));
            const double lo = view.log ? c.minPositiveValue() : c.minValue();
            if (!view.log || lo > 0) {
                e.yMin = std::min(e.yMin, lo);
            }
            e.yMax = std::max(e.yMax, c.maxValue());
        }
        const MetricCurve &p = runAt(id).points;
        if (p.hasFinite()) {
            e.xMin = std::min(e.xMin, p.x(view.xAxis, p.firstFinite()));
            e.xMax = std::max(e.xMax, p.x(view.xAxis, p.lastFinite()));
            e.evalMin = std::min(e.evalMin, p.minValue());
            e.evalMax = std::max(e.evalMax, p.maxValue());
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

QList<const MetricCurve *> PlotGraphs::groupCurves(const Group &group) const
{
    QList<const MetricCurve *> curves;
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
    const MetricCurve &c = run.curve;
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
    const QCPRange range = m_eval->xAxis->range();
    const int buckets = std::max(64, m_eval->axisRect()->width() / 2);
    QVector<double> xs;
    QVector<double> ys;
    for (auto it = m_evalGraphs.constBegin(); it != m_evalGraphs.constEnd(); ++it) {
        const PlotRun &run = runAt(it.key());
        // As the store has them (no smoothing), thinned only when dense.
        run.points.decimate(view.xAxis, range.lower, range.upper, buckets, &xs, &ys);
        QCPGraph *graph = it.value();
        graph->setData(xs, ys, true);
        const bool marked = run.points.size() <= maxMarkedPoints;
        const QCPScatterStyle::ScatterShape shape = !marked                         ? QCPScatterStyle::ssNone
                                                    : run.origin == RunOrigin::Past ? QCPScatterStyle::ssSquare
                                                                                    : QCPScatterStyle::ssDisc;
        if (graph->scatterStyle().shape() != shape) {
            graph->setScatterStyle(QCPScatterStyle(shape, QPen(run.color, 1.5), QBrush(run.color), 5));
        }
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
