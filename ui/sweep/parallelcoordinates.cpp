#include "ui/sweep/parallelcoordinates.h"

#include "orchestration/runspec/runspecview.h"

#include <QMouseEvent>
#include <QPainter>
#include <QVarLengthArray>

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainyard {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Viridis at five stops: perceptually even, readable for colour-blind users.
QColor colormap(double t)
{
    static const QColor stops[] = {QColor(68, 1, 84), QColor(59, 82, 139), QColor(33, 145, 140), QColor(94, 201, 98),
                                   QColor(253, 231, 37)};
    t = std::clamp(t, 0.0, 1.0) * 4;
    const int i = std::min(3, int(t));
    const double f = t - i;
    const QColor &a = stops[i];
    const QColor &b = stops[i + 1];
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * f),
                            float(a.greenF() + (b.greenF() - a.greenF()) * f),
                            float(a.blueF() + (b.blueF() - a.blueF()) * f));
}

QString tickText(double v)
{
    return QString::number(v, 'g', 3);
}

} // namespace

ParallelCoordinatesPlot::ParallelCoordinatesPlot(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("sweepParallelCoordinates"));
    setMinimumHeight(100); // the Sweeps tab must leave the board room on a small or scaled screen
    setMouseTracking(false);
}

void ParallelCoordinatesPlot::setSweep(const SweepSpec &sweep, const QList<TrialInfo> &trials)
{
    // Brushes stay on axes that stay (a new report must not clear the user's filter).
    QHash<QString, std::pair<double, double>> brushes;
    for (const Axis &a : std::as_const(m_axes)) {
        if (a.brush) {
            brushes.insert(a.key + (a.objective ? QStringLiteral("#objective") : QString()), *a.brush);
        }
    }
    const bool sameSweep = m_sweep.name == sweep.name;
    m_sweep = sweep;
    m_trials = trials;
    m_axes.clear();
    for (const SweepParameter &p : sweep.space) {
        if (p.kind == SweepParameter::Kind::Fixed) {
            continue;
        }
        Axis axis;
        axis.key = p.key;
        axis.log = p.isLogarithmic();
        if (p.kind == SweepParameter::Kind::Values) {
            const bool numeric =
                std::all_of(p.values.begin(), p.values.end(), [](const QJsonValue &v) { return v.isDouble(); });
            if (numeric) {
                axis.low = std::numeric_limits<double>::infinity();
                axis.high = -axis.low;
                for (const QJsonValue &v : p.values) {
                    axis.low = std::min(axis.low, v.toDouble());
                    axis.high = std::max(axis.high, v.toDouble());
                }
            } else {
                for (const QJsonValue &v : p.values) {
                    axis.categories << RunSpecView::valueText(v);
                }
                axis.low = 0;
                axis.high = std::max<qsizetype>(1, axis.categories.size() - 1);
            }
        } else {
            axis.low = p.low;
            axis.high = p.high;
        }
        m_axes << axis;
    }
    Axis objective;
    objective.key = sweep.objective;
    objective.objective = true;
    m_objLow = std::numeric_limits<double>::infinity();
    m_objHigh = -m_objLow;
    for (const TrialInfo &t : trials) {
        if (std::isfinite(t.objective) && t.phase != TrialInfo::Phase::Failed) {
            m_objLow = std::min(m_objLow, t.objective);
            m_objHigh = std::max(m_objHigh, t.objective);
        }
    }
    if (!std::isfinite(m_objLow)) {
        m_objLow = 0;
        m_objHigh = 1;
    }
    objective.low = m_objLow;
    objective.high = m_objHigh;
    m_axes << objective;
    if (sameSweep) {
        for (Axis &a : m_axes) {
            const auto it = brushes.constFind(a.key + (a.objective ? QStringLiteral("#objective") : QString()));
            if (it != brushes.cend()) {
                a.brush = *it;
            }
        }
    }
    update();
    Q_EMIT filterChanged();
}

double ParallelCoordinatesPlot::trialValue(const Axis &axis, const TrialInfo &trial) const
{
    if (axis.objective) {
        return trial.phase == TrialInfo::Phase::Failed ? kNaN : trial.objective;
    }
    const QJsonValue v = trial.values.value(axis.key);
    if (!axis.categories.isEmpty()) {
        const qsizetype i = axis.categories.indexOf(RunSpecView::valueText(v));
        return i < 0 ? kNaN : double(i);
    }
    return v.isDouble() ? v.toDouble() : kNaN;
}

double ParallelCoordinatesPlot::fraction(const Axis &axis, double value) const
{
    if (!std::isfinite(value)) {
        return kNaN;
    }
    double lo = axis.low;
    double hi = axis.high;
    if (axis.log) {
        if (value <= 0 || lo <= 0) {
            return kNaN;
        }
        value = std::log10(value);
        lo = std::log10(lo);
        hi = std::log10(hi);
    }
    if (hi <= lo) {
        return 0.5; // one value: mid-axis
    }
    return (value - lo) / (hi - lo);
}

QRectF ParallelCoordinatesPlot::plotRect() const
{
    return QRectF(60, 34, std::max(10, width() - 120), std::max(10, height() - 34 - 22));
}

double ParallelCoordinatesPlot::axisX(int axis) const
{
    const QRectF r = plotRect();
    const int n = axisCount();
    return n <= 1 ? r.center().x() : r.left() + r.width() * axis / (n - 1);
}

double ParallelCoordinatesPlot::valueY(int axis, double value) const
{
    const QRectF r = plotRect();
    const double f = fraction(m_axes.at(axis), value);
    return r.bottom() - (std::isnan(f) ? 0 : std::clamp(f, 0.0, 1.0)) * r.height();
}

double ParallelCoordinatesPlot::valueAt(int axis, double y) const
{
    const QRectF r = plotRect();
    const Axis &a = m_axes.at(axis);
    const double f = std::clamp((r.bottom() - y) / r.height(), 0.0, 1.0);
    if (a.log && a.low > 0 && a.high > 0) {
        return std::pow(10.0, std::log10(a.low) + f * (std::log10(a.high) - std::log10(a.low)));
    }
    return a.low + f * (a.high - a.low);
}

int ParallelCoordinatesPlot::axisNear(double x) const
{
    for (int i = 0; i < axisCount(); ++i) {
        if (std::abs(axisX(i) - x) <= 12) {
            return i;
        }
    }
    return -1;
}

void ParallelCoordinatesPlot::setBrush(int axis, double low, double high)
{
    if (axis < 0 || axis >= axisCount()) {
        return;
    }
    m_axes[axis].brush = std::make_pair(std::min(low, high), std::max(low, high));
    update();
    Q_EMIT filterChanged();
}

void ParallelCoordinatesPlot::clearBrush(int axis)
{
    if (axis < 0 || axis >= axisCount() || !m_axes.at(axis).brush) {
        return;
    }
    m_axes[axis].brush.reset();
    update();
    Q_EMIT filterChanged();
}

void ParallelCoordinatesPlot::clearBrushes()
{
    for (Axis &a : m_axes) {
        a.brush.reset();
    }
    update();
    Q_EMIT filterChanged();
}

bool ParallelCoordinatesPlot::hasBrush(int axis) const
{
    return axis >= 0 && axis < axisCount() && m_axes.at(axis).brush.has_value();
}

std::optional<QSet<int>> ParallelCoordinatesPlot::visibleTrials() const
{
    const bool any = std::any_of(m_axes.begin(), m_axes.end(), [](const Axis &a) { return a.brush.has_value(); });
    if (!any) {
        return std::nullopt;
    }
    QSet<int> visible;
    for (const TrialInfo &t : m_trials) {
        bool inside = true;
        for (const Axis &a : m_axes) {
            if (a.brush) {
                const double v = trialValue(a, t);
                inside = inside && !std::isnan(v) && v >= a.brush->first && v <= a.brush->second;
            }
        }
        if (inside) {
            visible.insert(t.index);
        }
    }
    return visible;
}

bool ParallelCoordinatesPlot::isSelected(int trialIndex) const
{
    const std::optional<QSet<int>> visible = visibleTrials();
    return !visible || visible->contains(trialIndex);
}

QColor ParallelCoordinatesPlot::objectiveColor(double objective) const
{
    if (!std::isfinite(objective)) {
        return QColor(150, 150, 150);
    }
    double t = m_objHigh > m_objLow ? (objective - m_objLow) / (m_objHigh - m_objLow) : 1.0;
    if (!m_sweep.maximize) {
        t = 1 - t;
    }
    return colormap(t);
}

void ParallelCoordinatesPlot::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF r = plotRect();
    if (m_trials.isEmpty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No trials yet"));
    }
    const std::optional<QSet<int>> visible = visibleTrials();
    // Thin aliased lines for many trials: a thousand wide antialiased ones take more than a frame's time.
    const bool many = m_trials.size() > 200;
    p.setRenderHint(QPainter::Antialiasing, !many);
    // Greyed trials first, so the selected ones lie on top; the best last.
    QList<TrialInfo> order = m_trials;
    std::stable_sort(order.begin(), order.end(), [&](const TrialInfo &a, const TrialInfo &b) {
        const bool sa = !visible || visible->contains(a.index);
        const bool sb = !visible || visible->contains(b.index);
        if (sa != sb) {
            return !sa;
        }
        const double oa = std::isfinite(a.objective) ? a.objective : (m_sweep.maximize ? -1e300 : 1e300);
        const double ob = std::isfinite(b.objective) ? b.objective : (m_sweep.maximize ? -1e300 : 1e300);
        return m_sweep.maximize ? oa < ob : oa > ob;
    });
    for (const TrialInfo &t : std::as_const(order)) {
        const bool selected = !visible || visible->contains(t.index);
        QColor c = selected ? objectiveColor(t.phase == TrialInfo::Phase::Failed ? kNaN : t.objective)
                            : QColor(200, 200, 200, 110);
        QPen pen(c, selected && many ? 1.0 : selected ? 1.8 : 1.0);
        if (t.phase == TrialInfo::Phase::Failed) {
            pen.setStyle(Qt::DashLine);
        }
        p.setPen(pen);
        // Polylines, not paths: a path is filled as an outline, several times slower with a thousand trials.
        QVarLengthArray<QPointF, 16> line;
        const auto flush = [&] {
            if (line.size() > 1) {
                p.drawPolyline(line.data(), int(line.size()));
            }
            line.clear();
        };
        for (int i = 0; i < axisCount(); ++i) {
            const double f = fraction(m_axes.at(i), trialValue(m_axes.at(i), t));
            if (std::isnan(f)) {
                flush(); // a gap where the trial has no value (the objective not reported yet)
                continue;
            }
            line.append(QPointF(axisX(i), r.bottom() - std::clamp(f, 0.0, 1.0) * r.height()));
        }
        flush();
    }
    // Axes, their titles, end ticks and brushes on top of the lines.
    p.setRenderHint(QPainter::Antialiasing);
    const QColor text = palette().color(QPalette::Text);
    QFontMetricsF fm(font());
    for (int i = 0; i < axisCount(); ++i) {
        const Axis &a = m_axes.at(i);
        const double x = axisX(i);
        p.setPen(QPen(text, 1.2));
        p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
        QString title = a.key.isEmpty() ? tr("objective") : a.key;
        if (a.log) {
            title += tr(" (log)");
        }
        const double tw = fm.horizontalAdvance(title);
        p.drawText(QPointF(std::clamp(x - tw / 2, 2.0, width() - tw - 2), r.top() - 18), title);
        const auto label = [&](double value, const QString &s) {
            const double y = valueY(i, value);
            p.drawLine(QPointF(x - 3, y), QPointF(x, y));
            p.drawText(QRectF(x - 58, y - 8, 54, 16), Qt::AlignRight | Qt::AlignVCenter, s);
        };
        if (!a.categories.isEmpty()) {
            for (int c = 0; c < a.categories.size(); ++c) {
                label(c, a.categories.at(c));
            }
        } else {
            label(a.low, tickText(a.low));
            if (a.high != a.low) {
                label(a.high, tickText(a.high));
            }
        }
        if (a.brush) {
            const double y1 = valueY(i, a.brush->second);
            const double y0 = valueY(i, a.brush->first);
            p.setPen(QPen(QColor(30, 90, 200), 1));
            p.setBrush(QColor(30, 90, 200, 60));
            p.drawRect(QRectF(x - 7, std::min(y0, y1), 14, std::max(2.0, std::abs(y0 - y1))));
            p.setBrush(Qt::NoBrush);
        }
    }
}

void ParallelCoordinatesPlot::mousePressEvent(QMouseEvent *event)
{
    m_dragAxis = event->button() == Qt::LeftButton ? axisNear(event->position().x()) : -1;
    m_dragStart = event->position().y();
    if (m_dragAxis < 0) {
        QWidget::mousePressEvent(event);
    }
}

void ParallelCoordinatesPlot::mouseMoveEvent(QMouseEvent *event)
{
    if (m_dragAxis < 0) {
        return;
    }
    if (std::abs(event->position().y() - m_dragStart) >= 3) {
        setBrush(m_dragAxis, valueAt(m_dragAxis, m_dragStart), valueAt(m_dragAxis, event->position().y()));
    }
}

void ParallelCoordinatesPlot::mouseReleaseEvent(QMouseEvent *event)
{
    if (m_dragAxis < 0) {
        return;
    }
    if (std::abs(event->position().y() - m_dragStart) < 3) {
        clearBrush(m_dragAxis); // a click on an axis clears its brush
    } else {
        setBrush(m_dragAxis, valueAt(m_dragAxis, m_dragStart), valueAt(m_dragAxis, event->position().y()));
    }
    m_dragAxis = -1;
}

} // namespace trainyard
