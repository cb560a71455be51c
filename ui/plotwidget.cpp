// qcustomplot.h uses `foreach` in its own templates; our code never does.
#undef QT_NO_FOREACH

#include "plotwidget.h"

#include "metricscsvwriter.h"
#include "metricstore.h"
#include "runcolors.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QSaveFile>
#include <QSlider>
#include <QSplitter>
#include <QTextStream>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainyard {

namespace {

constexpr int refreshIntervalMs = 33; // at most 30 redraws a second
const QString groupPrefix = QStringLiteral("group:");

void setupPlot(QCustomPlot *plot, const QString &title, QCPTextElement **titleElement)
{
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->setNoAntialiasingOnDrag(true);
    plot->setPlottingHint(QCP::phFastPolylines, true);
    plot->plotLayout()->insertRow(0);
    auto *text = new QCPTextElement(plot, title, QFont(plot->font().family(), 10, QFont::Bold));
    plot->plotLayout()->addElement(0, 0, text);
    if (titleElement) {
        *titleElement = text;
    }
    plot->legend->setVisible(true);
    plot->legend->setFont(QFont(plot->font().family(), 8));
    plot->legend->setBrush(QColor(255, 255, 255, 200));
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    plot->xAxis->setLabel(QObject::tr("step"));
}

QString axisName(XAxis axis)
{
    switch (axis) {
    case XAxis::Epoch:
        return QObject::tr("epoch");
    case XAxis::Wall:
        return QObject::tr("wall time (s)");
    case XAxis::Step:
        break;
    }
    return QObject::tr("step");
}

} // namespace

PlotWidget::PlotWidget(RunColors *colors, QWidget *parent)
    : QWidget(parent)
    , m_colors(colors)
    , m_loss(new QCustomPlot(this))
    , m_eval(new QCustomPlot(this))
    , m_readout(new QLabel(this))
    , m_smoothSlider(new QSlider(Qt::Horizontal, this))
    , m_smoothLabel(new QLabel(this))
    , m_logBox(new QCheckBox(tr("Log scale"), this))
    , m_xBox(new QComboBox(this))
    , m_bandBox(new QComboBox(this))
    , m_evalBox(new QComboBox(this))
    , m_timer(new QTimer(this))
{
    setupPlot(m_loss, tr("Training loss"), nullptr);
    setupPlot(m_eval, tr("Evaluation"), &m_evalTitle);
    // Evaluation metrics mostly rise: their legend goes where the curves are not.
    m_eval->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    m_eval->yAxis->setNumberFormat(QStringLiteral("g"));
    m_eval->yAxis->setNumberPrecision(3);
    m_loss->setObjectName(QStringLiteral("lossPlot"));
    m_eval->setObjectName(QStringLiteral("evalPlot"));
    m_loss->yAxis->setLabel(tr("loss"));
    m_loss->setMouseTracking(true);
    // The hover cursor lives on its own buffered layer: moving it redraws
    // only that layer, not every curve.
    m_loss->addLayer(QStringLiteral("cursor"), m_loss->layer(QStringLiteral("legend")), QCustomPlot::limAbove);
    m_loss->layer(QStringLiteral("cursor"))->setMode(QCPLayer::lmBuffered);
    m_cursor = new QCPItemStraightLine(m_loss);
    m_cursor->setLayer(QStringLiteral("cursor"));
    m_cursor->setPen(QPen(QColor(0, 0, 0, 90), 1, Qt::DashLine));
    m_cursor->setVisible(false);
    m_cursor->setSelectable(false);
    connect(m_loss, &QCustomPlot::mouseMove, this, &PlotWidget::onMouseMove);
    // A wheel or a drag on the plot means the user looks at a part: stop following.
    auto stopFollowing = [this] {
        m_follow = false;
        m_dataDirty = true;
        scheduleRefresh();
    };
    connect(m_loss, &QCustomPlot::mouseWheel, this, stopFollowing);
    connect(m_loss, &QCustomPlot::mousePress, this, stopFollowing);
    connect(m_eval, &QCustomPlot::mouseWheel, this, stopFollowing);
    connect(m_eval, &QCustomPlot::mousePress, this, stopFollowing);
    connect(m_loss, &QCustomPlot::mouseDoubleClick, this, &PlotWidget::fitToData);
    connect(m_eval, &QCustomPlot::mouseDoubleClick, this, &PlotWidget::fitToData);
    // Keep both plots on one x range, and re-thin the drawing for the new range.
    connect(m_loss->xAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this](const QCPRange &r) {
        if (m_settingRange) {
            return;
        }
        m_settingRange = true;
        m_eval->xAxis->setRange(r);
        m_eval->replot(QCustomPlot::rpQueuedReplot);
        m_settingRange = false;
        m_dataDirty = true;
        scheduleRefresh();
    });
    connect(m_eval->xAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this](const QCPRange &r) {
        if (m_settingRange) {
            return;
        }
        m_settingRange = true;
        m_loss->xAxis->setRange(r);
        m_settingRange = false;
        m_dataDirty = true;
        scheduleRefresh();
    });

    m_smoothSlider->setRange(0, 99);
    m_smoothSlider->setValue(int(std::round(m_smoothing * 100)));
    m_smoothSlider->setObjectName(QStringLiteral("smoothing"));
    m_smoothSlider->setToolTip(tr("TensorBoard-style smoothing (exponential moving average weight)"));
    m_smoothSlider->setMaximumWidth(160);
    m_smoothLabel->setText(QString::number(m_smoothing, 'f', 2));
    m_smoothLabel->setMinimumWidth(32);
    connect(m_smoothSlider, &QSlider::valueChanged, this, [this](int v) { setSmoothing(v / 100.0); });
    m_logBox->setObjectName(QStringLiteral("logScale"));
    connect(m_logBox, &QCheckBox::toggled, this, &PlotWidget::setLogScale);
    m_xBox->addItem(tr("Step"), int(XAxis::Step));
    m_xBox->addItem(tr("Epoch"), int(XAxis::Epoch));
    m_xBox->addItem(tr("Wall time"), int(XAxis::Wall));
    m_xBox->setObjectName(QStringLiteral("xAxis"));
    connect(m_xBox, &QComboBox::currentIndexChanged, this,
            [this](int) { setXAxis(XAxis(m_xBox->currentData().toInt())); });
    m_bandBox->addItem(tr("Repeats: separate lines"), int(Band::Lines));
    m_bandBox->addItem(tr("Repeats: mean, min–max band"), int(Band::MinMax));
    m_bandBox->addItem(tr("Repeats: mean, ±std band"), int(Band::Std));
    m_bandBox->setCurrentIndex(1);
    m_bandBox->setObjectName(QStringLiteral("band"));
    connect(m_bandBox, &QComboBox::currentIndexChanged, this,
            [this](int) { setBand(Band(m_bandBox->currentData().toInt())); });
    m_evalBox->setObjectName(QStringLiteral("evalMetric"));
    m_evalBox->setMinimumContentsLength(8);
    connect(m_evalBox, &QComboBox::currentTextChanged, this, [this](const QString &m) {
        if (!m.isEmpty()) {
            setEvalMetric(m);
        }
    });

    auto *fit = new QToolButton(this);
    fit->setText(tr("Fit"));
    fit->setToolTip(tr("Show all data and follow new points (or double-click the plot)"));
    connect(fit, &QToolButton::clicked, this, &PlotWidget::fitToData);
    auto *exportButton = new QToolButton(this);
    exportButton->setText(tr("Export"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    auto *exportMenu = new QMenu(exportButton);
    exportMenu->addAction(tr("PNG image…"), this, [this] { exportDialog(QStringLiteral("png")); });
    exportMenu->addAction(tr("PDF document…"), this, [this] { exportDialog(QStringLiteral("pdf")); });
    exportMenu->addAction(tr("CSV data…"), this, [this] { exportDialog(QStringLiteral("csv")); });
    exportButton->setMenu(exportMenu);

    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Smoothing"), this));
    controls->addWidget(m_smoothSlider);
    controls->addWidget(m_smoothLabel);
    controls->addWidget(m_logBox);
    controls->addWidget(new QLabel(tr("x:"), this));
    controls->addWidget(m_xBox);
    controls->addWidget(m_bandBox);
    controls->addWidget(new QLabel(tr("Eval:"), this));
    controls->addWidget(m_evalBox);
    controls->addStretch(1);
    controls->addWidget(fit);
    controls->addWidget(exportButton);

    m_readout->setObjectName(QStringLiteral("readout"));
    m_readout->setTextFormat(Qt::RichText);
    m_readout->setWordWrap(true);
    m_readout->setText(tr("Select runs on the board or in the table to plot them."));

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_loss);
    splitter->addWidget(m_eval);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(controls);
    layout->addWidget(splitter, 1);
    layout->addWidget(m_readout);

    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, [this] {
        const double ms = refreshNow();
        Q_UNUSED(ms);
    });
    m_sinceRefresh.start();
}

PlotWidget::~PlotWidget() = default;

void PlotWidget::addRun(const QString &id, const QString &label, const QString &group)
{
    Run &run = m_runs[id];
    run.label = label;
    run.group = group.isEmpty() ? id : group;
    run.color = m_colors->colorFor(id);
    run.curve.setSmoothing(m_smoothing);
    m_structureDirty = true;
    scheduleRefresh();
}

void PlotWidget::removeRun(const QString &id)
{
    if (m_runs.remove(id)) {
        m_selected.removeAll(id);
        m_structureDirty = true;
        scheduleRefresh();
    }
}

void PlotWidget::resetRunData(const QString &id)
{
    auto it = m_runs.find(id);
    if (it != m_runs.end()) {
        it->curve.clear();
        it->evals.clear();
        m_dataDirty = true;
        scheduleRefresh();
    }
}

void PlotWidget::clearRuns()
{
    m_runs.clear();
    m_selected.clear();
    m_structureDirty = true;
    scheduleRefresh();
}

void PlotWidget::appendMetric(const QString &id, double step, double epoch, double wall, double loss)
{
    auto it = m_runs.find(id);
    if (it == m_runs.end()) {
        return;
    }
    it->curve.append(step, epoch, wall, loss);
    if (m_selected.contains(id)) {
        m_dataDirty = true;
        scheduleRefresh();
    }
}

void PlotWidget::appendEval(const QString &id, double step, double epoch, double wall, const QString &metric,
                            double value)
{
    auto it = m_runs.find(id);
    if (it == m_runs.end()) {
        return;
    }
    QVector<EvalPoint> &points = it->evals[metric];
    // A re-reported step (after a resume) replaces the older value.
    while (!points.isEmpty() && points.constLast().step >= step) {
        points.removeLast();
    }
    points.append(EvalPoint{step, epoch, wall, value});
    if (m_evalBox->findText(metric) < 0) {
        m_evalBox->addItem(metric);
        // Prefer MRR (then accuracy) as the metric shown first.
        const bool preferred = metric.endsWith(QLatin1String("mrr")) && !m_evalMetric.endsWith(QLatin1String("mrr"));
        if (m_evalMetric.isEmpty() || preferred) {
            m_evalBox->setCurrentText(metric);
        }
    }
    if (m_selected.contains(id)) {
        m_dataDirty = true;
        scheduleRefresh();
    }
}

void PlotWidget::setSelectedRuns(const QStringList &ids)
{
    QStringList known;
    for (const QString &id : ids) {
        if (m_runs.contains(id) && !known.contains(id)) {
            known.append(id);
        }
    }
    if (known == m_selected) {
        return;
    }
    m_selected = known;
    m_structureDirty = true;
    m_follow = true;
    scheduleRefresh();
}

void PlotWidget::setSmoothing(double weight)
{
    weight = std::clamp(weight, 0.0, 0.99);
    if (weight == m_smoothing) {
        return;
    }
    m_smoothing = weight;
    m_smoothLabel->setText(QString::number(weight, 'f', 2));
    if (m_smoothSlider->value() != int(std::round(weight * 100))) {
        m_smoothSlider->setValue(int(std::round(weight * 100)));
    }
    for (Run &run : m_runs) {
        run.curve.setSmoothing(weight);
    }
    m_dataDirty = true;
    scheduleRefresh();
}

void PlotWidget::setLogScale(bool on)
{
    m_log = on;
    m_logBox->setChecked(on);
    if (on) {
        m_loss->yAxis->setScaleType(QCPAxis::stLogarithmic);
        m_loss->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    } else {
        m_loss->yAxis->setScaleType(QCPAxis::stLinear);
        m_loss->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    }
    m_follow = true;
    m_dataDirty = true;
    scheduleRefresh();
}

void PlotWidget::setXAxis(XAxis axis)
{
    if (axis == m_xAxis) {
        return;
    }
    m_xAxis = axis;
    m_xBox->setCurrentIndex(m_xBox->findData(int(axis)));
    m_loss->xAxis->setLabel(axisName(axis));
    m_eval->xAxis->setLabel(axisName(axis));
    m_follow = true;
    m_dataDirty = true;
    scheduleRefresh();
}

void PlotWidget::setBand(Band band)
{
    if (band == m_band) {
        return;
    }
    m_band = band;
    m_bandBox->setCurrentIndex(m_bandBox->findData(int(band)));
    m_structureDirty = true;
    scheduleRefresh();
}

void PlotWidget::setEvalMetric(const QString &metric)
{
    if (metric == m_evalMetric) {
        return;
    }
    m_evalMetric = metric;
    if (m_evalBox->currentText() != metric) {
        m_evalBox->setCurrentText(metric);
    }
    m_evalTitle->setText(tr("Evaluation: %1").arg(metric));
    m_eval->yAxis->setLabel(metric);
    m_dataDirty = true;
    scheduleRefresh();
}

QStringList PlotWidget::evalMetrics() const
{
    QStringList out;
    for (int i = 0; i < m_evalBox->count(); ++i) {
        out.append(m_evalBox->itemText(i));
    }
    return out;
}

void PlotWidget::fitToData()
{
    m_follow = true;
    m_dataDirty = true;
    scheduleRefresh();
}

const RunCurve *PlotWidget::curve(const QString &id) const
{
    auto it = m_runs.constFind(id);
    return it == m_runs.constEnd() ? nullptr : &it->curve;
}

int PlotWidget::drawnPointCount(const QString &key) const
{
    return m_drawnPoints.value(key, -1);
}

void PlotWidget::scheduleRefresh()
{
    if (m_timer->isActive()) {
        return;
    }
    // Throttle: the next redraw comes no sooner than 33 ms after the last one.
    const qint64 since = m_sinceRefresh.elapsed();
    m_timer->start(int(std::max<qint64>(0, refreshIntervalMs - since)));
}

double PlotWidget::refreshNow()
{
    QElapsedTimer timer;
    timer.start();
    m_timer->stop();
    if (m_structureDirty) {
        rebuildGraphs();
    }
    if (m_dataDirty || m_structureDirty) {
        updateRanges();
        updateLossData();
        updateEvalData();
    }
    m_structureDirty = false;
    m_dataDirty = false;
    m_loss->replot(QCustomPlot::rpImmediateRefresh);
    m_eval->replot(QCustomPlot::rpImmediateRefresh);
    m_sinceRefresh.restart();
    const double ms = timer.nsecsElapsed() / 1e6;
    Q_EMIT refreshed(ms);
    return ms;
}

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
    // A legend helps for a few lines; past that it hides the curves and costs
    // a text layout per frame (cards and the read-out name the runs).
    m_loss->legend->setVisible(m_loss->graphCount() > 0 && m_loss->graphCount() <= 8);
    m_eval->legend->setVisible(m_eval->graphCount() > 0 && m_eval->graphCount() <= 8);
    if (m_selected.isEmpty()) {
        m_readout->setText(tr("Select runs on the board or in the table to plot them."));
    } else {
        m_readout->setText(tr("Hover over the plot to read values; wheel zooms, drag pans, double-click fits."));
    }
}

void PlotWidget::updateRanges()
{
    if (!m_follow) {
        return;
    }
    double xMin = std::numeric_limits<double>::max();
    double xMax = std::numeric_limits<double>::lowest();
    double yMin = std::numeric_limits<double>::max();
    double yMax = std::numeric_limits<double>::lowest();
    double eMin = std::numeric_limits<double>::max();
    double eMax = std::numeric_limits<double>::lowest();
    for (const QString &id : std::as_const(m_selected)) {
        const Run &run = m_runs[id];
        const RunCurve &c = run.curve;
        if (!c.isEmpty()) {
            xMin = std::min(xMin, c.x(m_xAxis, 0));
            xMax = std::max(xMax, c.x(m_xAxis, c.size() - 1));
            const double lo = m_log ? c.minPositiveLoss() : c.minLoss();
            if (!m_log || lo > 0) {
                yMin = std::min(yMin, lo);
            }
            yMax = std::max(yMax, c.maxLoss());
        }
        for (const EvalPoint &p : run.evals.value(m_evalMetric)) {
            xMin = std::min(xMin, evalX(p));
            xMax = std::max(xMax, evalX(p));
            eMin = std::min(eMin, p.value);
            eMax = std::max(eMax, p.value);
        }
    }
    m_settingRange = true;
    if (xMin <= xMax) {
        const double pad = xMax > xMin ? 0.0 : 1.0;
        m_loss->xAxis->setRange(xMin - pad, xMax + pad);
        m_eval->xAxis->setRange(xMin - pad, xMax + pad);
    }
    if (yMin <= yMax) {
        if (m_log) {
            m_loss->yAxis->setRange(yMin / 1.2, yMax * 1.2);
        } else {
            const double pad = yMax > yMin ? 0.05 * (yMax - yMin) : 0.5;
            m_loss->yAxis->setRange(yMin - pad, yMax + pad);
        }
    }
    if (eMin <= eMax) {
        const double pad = eMax > eMin ? 0.05 * (eMax - eMin) : 0.05;
        m_eval->yAxis->setRange(eMin - pad, eMax + pad);
    }
    m_settingRange = false;
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
        run.curve.decimate(m_xAxis, range.lower, range.upper, buckets, &xs, &ys);
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

void PlotWidget::updateGroupData(const QString &name, Group &group, double lo, double hi, int buckets)
{
    // Mean and band on an even grid over the visible range, from each
    // repeat's smoothed curve; a repeat counts only where it has data, so the
    // band follows repeats as they finish.
    double first = std::numeric_limits<double>::max();
    double last = std::numeric_limits<double>::lowest();
    for (const QString &id : std::as_const(group.runs)) {
        const RunCurve &c = m_runs[id].curve;
        if (!c.isEmpty()) {
            first = std::min(first, c.x(m_xAxis, 0));
            last = std::max(last, c.x(m_xAxis, c.size() - 1));
        }
    }
    QVector<double> xs;
    QVector<double> mean;
    QVector<double> upper;
    QVector<double> lower;
    if (first <= last) {
        const double a = std::max(first, lo);
        const double b = std::min(last, hi);
        const int n = b > a ? std::min(buckets, 1000) : 1;
        xs.reserve(n);
        for (int i = 0; i < n; ++i) {
            const double x = n == 1 ? a : a + (b - a) * i / (n - 1);
            double sum = 0;
            double sumSq = 0;
            double mn = std::numeric_limits<double>::max();
            double mx = std::numeric_limits<double>::lowest();
            int count = 0;
            for (const QString &id : std::as_const(group.runs)) {
                double v = 0;
                if (m_runs[id].curve.valueAt(m_xAxis, x, &v) && std::isfinite(v)) {
                    sum += v;
                    sumSq += v * v;
                    mn = std::min(mn, v);
                    mx = std::max(mx, v);
                    ++count;
                }
            }
            if (count == 0) {
                continue;
            }
            const double m = sum / count;
            xs.append(x);
            mean.append(m);
            if (m_band == Band::Std) {
                const double sd = std::sqrt(std::max(0.0, sumSq / count - m * m));
                upper.append(m + sd);
                lower.append(m - sd);
            } else {
                upper.append(mx);
                lower.append(mn);
            }
        }
    }
    group.mean->setData(xs, mean, true);
    group.upper->setData(xs, upper, true);
    group.lower->setData(xs, lower, true);
    m_drawnPoints.insert(groupPrefix + name, int(xs.size()));
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

QString PlotWidget::readoutAt(double x) const
{
    QStringList parts;
    parts.append(QStringLiteral("<b>%1 %2</b>").arg(axisName(m_xAxis), QString::number(x, 'g', 6)));
    QStringList done;
    for (const QString &id : std::as_const(m_selected)) {
        const Run &run = runAt(id);
        if (m_groups.contains(run.group)) {
            if (done.contains(run.group)) {
                continue;
            }
            done.append(run.group);
            double sum = 0;
            int count = 0;
            for (const QString &member : m_groups.value(run.group).runs) {
                double v = 0;
                if (runAt(member).curve.valueAt(m_xAxis, x, &v)) {
                    sum += v;
                    ++count;
                }
            }
            if (count > 0) {
                parts.append(QStringLiteral("<span style=\"color:%1\">■</span> %2: %3")
                                 .arg(run.color.name(), groupLabel(run.group).toHtmlEscaped(),
                                      QString::number(sum / count, 'g', 5)));
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

void PlotWidget::onMouseMove(QMouseEvent *event)
{
    if (m_selected.isEmpty()) {
        return;
    }
    const double x = m_loss->xAxis->pixelToCoord(event->position().x());
    m_cursor->point1->setCoords(x, 0);
    m_cursor->point2->setCoords(x, 1);
    m_cursor->setVisible(true);
    m_readout->setText(readoutAt(x));
    m_cursor->layer()->replot();
}

bool PlotWidget::exportPng(const QString &file, int width, int height)
{
    refreshNow();
    // One image with both plots, the way they look on screen.
    const QPixmap lossPixmap = m_loss->toPixmap(width, height ? height * 3 / 5 : 0);
    const QPixmap evalPixmap = m_eval->toPixmap(width, height ? height * 2 / 5 : 0);
    QPixmap both(std::max(lossPixmap.width(), evalPixmap.width()), lossPixmap.height() + evalPixmap.height());
    both.fill(Qt::white);
    QPainter painter(&both);
    painter.drawPixmap(0, 0, lossPixmap);
    painter.drawPixmap(0, lossPixmap.height(), evalPixmap);
    painter.end();
    return both.save(file, "PNG");
}

bool PlotWidget::exportPdf(const QString &file)
{
    refreshNow();
    return m_loss->savePdf(file);
}

bool PlotWidget::exportCsv(const QString &file, QString *error) const
{
    return MetricsCsvWriter::writeFile(file, [this](MetricsCsvWriter &csv) {
        for (const QString &id : m_selected) {
            const Run &run = runAt(id);
            // The curve's points carry their metric lines' epochs: every point takes the epoch of its step.
            MetricSeries epochs;
            for (qsizetype i = 0; i < run.curve.size(); ++i) {
                epochs.add(std::int64_t(run.curve.x(XAxis::Step, i)), 0, run.curve.x(XAxis::Epoch, i));
            }
            // The curve keeps single precision: written as floats, so 0.1 does not come out as 0.10000000149.
            for (qsizetype i = 0; i < run.curve.size(); ++i) {
                const auto step = std::int64_t(run.curve.x(XAxis::Step, i));
                csv.writeFloatValue(run.label, step, float(MetricsCsvWriter::epochOf(&epochs, step)),
                                    float(run.curve.x(XAxis::Wall, i)), QStringLiteral("loss"),
                                    float(run.curve.loss(i)));
            }
            for (auto it = run.evals.constBegin(); it != run.evals.constEnd(); ++it) {
                for (const EvalPoint &p : it.value()) {
                    const auto step = std::int64_t(p.step);
                    csv.writeValue(run.label, step, MetricsCsvWriter::epochOf(&epochs, step), p.wall, it.key(),
                                   p.value);
                }
            }
        }
    }, error);
}

void PlotWidget::exportDialog(const QString &format)
{
    const QString filter = format == QLatin1String("png")   ? tr("PNG image (*.png)")
                           : format == QLatin1String("pdf") ? tr("PDF document (*.pdf)")
                                                            : tr("CSV data (*.csv)");
    QString file = QFileDialog::getSaveFileName(this, tr("Export plot"), QStringLiteral("loss.") + format, filter);
    if (file.isEmpty()) {
        return;
    }
    if (!file.endsWith(QLatin1Char('.') + format)) {
        file += QLatin1Char('.') + format;
    }
    QString error;
    bool ok = false;
    if (format == QLatin1String("png")) {
        ok = exportPng(file);
    } else if (format == QLatin1String("pdf")) {
        ok = exportPdf(file);
    } else {
        ok = exportCsv(file, &error);
    }
    if (!ok) {
        QMessageBox::warning(this, tr("Export plot"),
                             error.isEmpty() ? tr("Could not write %1.").arg(file) : error);
    }
}

} // namespace trainyard
