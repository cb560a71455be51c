// qcustomplot.h uses `foreach` in its own templates; our code never does.
#undef QT_NO_FOREACH

#include "ui/plot/plotaxes.h"

#include "ui/plot/plotlegend.h"
#include "ui/plot/plotlinearticker.h"
#include "ui/plot/plotlogticker.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cstdlib>

namespace trainyard {

namespace {

QCPTextElement *setupPlot(QCustomPlot *plot, const QString &title)
{
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->setNoAntialiasingOnDrag(true);
    plot->setPlottingHint(QCP::phFastPolylines, true);
    plot->plotLayout()->insertRow(0);
    auto *text = new QCPTextElement(plot, title, QFont(plot->font().family(), 10, QFont::Bold));
    plot->plotLayout()->addElement(0, 0, text);
    plot->xAxis->setLabel(PlotAxes::axisName(XAxis::Step));
    plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new PlotLinearTicker));
    // A short plot (a small or scaled screen) gets fewer y ticks, a label's
    // height and more apart: five labels in 60 px were drawn over each other.
    // (Linear ticks only, on a plot laid out on screen.)
    QObject::connect(plot, &QCustomPlot::beforeReplot, plot, [plot] {
        auto *linear = dynamic_cast<PlotLinearTicker *>(plot->yAxis->ticker().data());
        if (!linear || !plot->isVisible()) {
            return;
        }
        const int room = plot->axisRect()->height();
        const int label = QFontMetrics(plot->yAxis->tickLabelFont()).height();
        linear->setTickCount(std::clamp(room / (2 * std::max(1, label)), 2, 5));
    });
    return text;
}

QCPItemText *addHint(QCustomPlot *plot)
{
    auto *hint = new QCPItemText(plot);
    hint->position->setType(QCPItemPosition::ptAxisRectRatio);
    hint->position->setCoords(0.5, 0.5);
    hint->setColor(QColor(0, 0, 0, 140));
    hint->setFont(QFont(plot->font().family(), 11));
    hint->setSelectable(false);
    hint->setVisible(false);
    return hint;
}

void showHint(QCPItemText *hint, const QString &text)
{
    hint->setText(text);
    hint->setVisible(!text.isEmpty());
}

// Where an axis without data rests: the last data's range would claim data that is not drawn.
const QCPRange neutralRange(0, 1);
const QCPRange neutralLogRange(0.1, 10);

} // namespace

PlotAxes::PlotAxes(QCustomPlot *loss, QCustomPlot *eval, QObject *parent)
    : QObject(parent)
    , m_loss(loss)
    , m_eval(eval)
{
    m_lossTitle = setupPlot(m_loss, tr("Training loss"));
    m_evalTitle = setupPlot(m_eval, tr("Evaluation"));
    m_lossLegend = new PlotLegend(m_loss);
    m_evalLegend = new PlotLegend(m_eval);
    m_eval->yAxis->setNumberFormat(QStringLiteral("gbd")); // powers of ten typeset, as the loss axis
    m_eval->yAxis->setNumberPrecision(3);
    m_loss->yAxis->setLabel(tr("loss"));
    m_lossHint = addHint(m_loss);
    m_evalHint = addHint(m_eval);
    m_loss->xAxis->setRange(neutralRange);
    m_eval->xAxis->setRange(neutralRange);
    m_loss->yAxis->setRange(neutralRange);
    m_eval->yAxis->setRange(neutralRange);
    // Keep both plots on one x range.
    connect(m_loss->xAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this](const QCPRange &r) {
        if (m_settingRange) {
            return;
        }
        m_settingRange = true;
        m_eval->xAxis->setRange(r);
        m_eval->replot(QCustomPlot::rpQueuedReplot);
        m_settingRange = false;
        Q_EMIT xRangeChanged();
    });
    connect(m_eval->xAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this](const QCPRange &r) {
        if (m_settingRange) {
            return;
        }
        m_settingRange = true;
        m_loss->xAxis->setRange(r);
        m_settingRange = false;
        Q_EMIT xRangeChanged();
    });
}

QString PlotAxes::axisName(XAxis axis)
{
    switch (axis) {
    case XAxis::Epoch:
        return tr("epoch");
    case XAxis::Wall:
        return tr("wall time (s)");
    case XAxis::Step:
        break;
    }
    return tr("step");
}

void PlotAxes::setLogScale(bool on)
{
    m_log = on;
    if (on) {
        m_loss->yAxis->setScaleType(QCPAxis::stLogarithmic);
        m_loss->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new PlotLogTicker));
        // Short labels: "0.002", "0.25", "5·10⁻⁵" (powers typeset), not "0.00200000".
        m_loss->yAxis->setNumberFormat(QStringLiteral("gb"));
        m_loss->yAxis->setNumberPrecision(3);
    } else {
        m_loss->yAxis->setScaleType(QCPAxis::stLinear);
        m_loss->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new PlotLinearTicker));
        m_loss->yAxis->setNumberFormat(QStringLiteral("gbd"));
        m_loss->yAxis->setNumberPrecision(6);
    }
}

void PlotAxes::setXAxis(XAxis axis)
{
    m_loss->xAxis->setLabel(axisName(axis));
    m_eval->xAxis->setLabel(axisName(axis));
}

void PlotAxes::setCurveMetric(const QString &metric)
{
    m_lossTitle->setText(metric == QLatin1String("loss") ? tr("Training loss") : metric);
    m_loss->yAxis->setLabel(metric);
}

void PlotAxes::setEvalMetric(const QString &metric)
{
    // An evaluation metric is "<split>/<name>"; another metric plotted here is named as it is.
    m_evalTitle->setText(metric.isEmpty()                    ? tr("Evaluation")
                         : metric.contains(QLatin1Char('/')) ? tr("Evaluation: %1").arg(metric)
                                                             : metric);
    m_eval->yAxis->setLabel(metric);
}

bool PlotAxes::alignMargins()
{
    // Two QCustomPlot widgets cannot share a QCPMarginGroup: each gets what
    // the other needs as its minimum instead. Left: the wider tick labels.
    const int left = std::max(m_loss->axisRect()->margins().left(), m_eval->axisRect()->margins().left());
    bool changed = false;
    for (QCustomPlot *plot : {m_loss, m_eval}) {
        QMargins minimum = plot->axisRect()->minimumMargins();
        if (minimum.left() != left && plot->axisRect()->margins().left() != left) {
            minimum.setLeft(left);
            plot->axisRect()->setMinimumMargins(minimum);
            changed = true;
        }
    }
    // Right: the wider legend column, as room after the axes' end (the two
    // plots are as wide as each other, one above the other).
    const int lossGap = m_loss->width() - m_loss->axisRect()->rect().right();
    const int evalGap = m_eval->width() - m_eval->axisRect()->rect().right();
    if (lossGap != evalGap) {
        QCPAxisRect *rect = (lossGap < evalGap ? m_loss : m_eval)->axisRect();
        QMargins minimum = rect->minimumMargins();
        minimum.setRight(rect->margins().right() + std::abs(lossGap - evalGap));
        rect->setMinimumMargins(minimum);
        changed = true;
    }
    return changed;
}

void PlotAxes::resetMargins()
{
    for (QCustomPlot *plot : {m_loss, m_eval}) {
        QMargins minimum = plot->axisRect()->minimumMargins();
        minimum.setLeft(0);
        minimum.setRight(0);
        plot->axisRect()->setMinimumMargins(minimum);
    }
}

void PlotAxes::fit(const DataExtent &e)
{
    m_settingRange = true;
    if (e.xMin <= e.xMax) {
        // A little room on both sides: an evaluation marker at the last step
        // would otherwise be cut in half by the axis' edge.
        const double span = e.xMax - e.xMin;
        const double pad = span > 0 ? 0.02 * span : 1.0;
        m_loss->xAxis->setRange(e.xMin - pad, e.xMax + pad);
        m_eval->xAxis->setRange(e.xMin - pad, e.xMax + pad);
    } else {
        m_loss->xAxis->setRange(neutralRange);
        m_eval->xAxis->setRange(neutralRange);
    }
    if (e.yMin <= e.yMax) {
        if (m_log) {
            m_loss->yAxis->setRange(e.yMin / 1.2, e.yMax * 1.2);
        } else {
            const double pad = e.yMax > e.yMin ? 0.05 * (e.yMax - e.yMin) : 0.5;
            m_loss->yAxis->setRange(e.yMin - pad, e.yMax + pad);
        }
    } else {
        m_loss->yAxis->setRange(m_log ? neutralLogRange : neutralRange);
    }
    if (e.evalMin <= e.evalMax) {
        const double pad = e.evalMax > e.evalMin ? 0.05 * (e.evalMax - e.evalMin) : 0.05;
        m_eval->yAxis->setRange(e.evalMin - pad, e.evalMax + pad);
    } else {
        m_eval->yAxis->setRange(neutralRange);
    }
    m_settingRange = false;
}

bool PlotAxes::fitLegends()
{
    const bool loss = m_lossLegend->fit();
    const bool eval = m_evalLegend->fit();
    return loss || eval;
}

void PlotAxes::setHints(const QString &loss, const QString &eval)
{
    showHint(m_lossHint, loss);
    showHint(m_evalHint, eval);
}

} // namespace trainyard
