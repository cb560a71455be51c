// qcustomplot.h uses `foreach` in its own templates; our code never does.
#undef QT_NO_FOREACH

#include "plot/plotwidget.h"

#include "common/runcolors.h"
#include "common/uilogcategories.h"
#include "metrics/metricscsvwriter.h"
#include "metrics/metricstore.h"
#include "plot/plotaxes.h"
#include "plot/plotcontrols.h"
#include "plot/plothover.h"
#include "plot/plotsettings.h"
#include "plot/plotzoom.h"

#include <QLabel>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace trainyard {

namespace {

constexpr int refreshIntervalMs = 33; // at most 30 redraws a second
constexpr int minPlotHeight = 120;    // a title, an axis and some curve

QString metricName(const QString &metric)
{
    return metric.section(QLatin1Char('/'), -1);
}

// The metric to show when the user's choice is not among `available`: the
// same metric of another split, else MRR or accuracy (validation first),
// else the first.
QString pickEvalMetric(const QStringList &available, const QString &wanted)
{
    if (available.contains(wanted)) {
        return wanted;
    }
    const auto find = [&](const QString &name) {
        QString any;
        for (const QString &m : available) {
            if (metricName(m) == name) {
                if (m.startsWith(QLatin1String("valid/"))) {
                    return m;
                }
                if (any.isEmpty()) {
                    any = m;
                }
            }
        }
        return any;
    };
    for (const QString &name : {metricName(wanted), QStringLiteral("mrr"), QStringLiteral("accuracy")}) {
        const QString m = name.isEmpty() ? QString() : find(name);
        if (!m.isEmpty()) {
            return m;
        }
    }
    return available.value(0);
}

} // namespace

PlotWidget::PlotWidget(RunColors *colors, QWidget *parent)
    : QWidget(parent)
    , m_colors(colors)
    , m_loss(new QCustomPlot(this))
    , m_eval(new QCustomPlot(this))
    , m_exporter(m_loss, m_eval)
    , m_axes(new PlotAxes(m_loss, m_eval, this))
    , m_readout(new QLabel(this))
    , m_controls(new PlotControls(m_smoothing, this))
    , m_hover(new PlotHover(
          m_loss, m_readout, [this](double x) { return m_selected.isEmpty() ? QString() : readoutAt(x); }, this))
    , m_timer(new QTimer(this))
{
    m_loss->setObjectName(QStringLiteral("lossPlot"));
    m_eval->setObjectName(QStringLiteral("evalPlot"));
    // A wheel, a drag or a box on the plot means the user looks at a part: stop following.
    for (QCustomPlot *plot : {m_loss, m_eval}) {
        auto *zoom = new PlotZoom(plot, this);
        connect(zoom, &PlotZoom::viewChosen, this, [this] {
            m_follow = false;
            m_dataDirty = true;
            scheduleRefresh();
        });
        connect(zoom, &PlotZoom::fitRequested, this, &PlotWidget::fitToData);
    }
    // A new x range (pan, zoom) is drawn thinned anew.
    connect(m_axes, &PlotAxes::xRangeChanged, this, [this] {
        m_dataDirty = true;
        scheduleRefresh();
    });

    connect(m_controls, &PlotControls::smoothingChosen, this, &PlotWidget::setSmoothing);
    connect(m_controls, &PlotControls::logScaleChosen, this, &PlotWidget::setLogScale);
    connect(m_controls, &PlotControls::xAxisChosen, this, &PlotWidget::setXAxis);
    connect(m_controls, &PlotControls::bandChosen, this, &PlotWidget::setBand);
    connect(m_controls, &PlotControls::evalMetricChosen, this, &PlotWidget::setEvalMetric);
    connect(m_controls, &PlotControls::fitRequested, this, &PlotWidget::fitToData);
    connect(m_controls, &PlotControls::exportRequested, this, &PlotWidget::exportDialog);

    m_readout->setObjectName(QStringLiteral("readout"));
    m_readout->setTextFormat(Qt::RichText);
    m_readout->setWordWrap(true);
    m_readout->setText(tr("Select runs on the board or in the table to plot them."));

    // Half the height each (the evaluation plot is the one that tells which
    // run is better); the user moves the split, but cannot drag a plot away.
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_loss);
    splitter->addWidget(m_eval);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);
    m_loss->setMinimumHeight(minPlotHeight);
    m_eval->setMinimumHeight(minPlotHeight);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_controls);
    layout->addWidget(splitter, 1);
    layout->addWidget(m_readout);

    updateHints();
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, [this] {
        const double ms = refreshNow();
        Q_UNUSED(ms);
    });
    m_sinceRefresh.start();
}

PlotWidget::~PlotWidget()
{
    if (m_saveTimer && m_saveTimer->isActive()) {
        writeSettings();
    }
}

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
        updateEvalMetrics();
        scheduleRefresh();
    }
}

void PlotWidget::resetRunData(const QString &id)
{
    auto it = m_runs.find(id);
    if (it != m_runs.end()) {
        it->curve.clear();
        it->evals.clear();
        if (m_selected.contains(id)) {
            updateEvalMetrics();
        }
        m_dataDirty = true;
        scheduleRefresh();
    }
}

void PlotWidget::clearRuns()
{
    m_runs.clear();
    m_selected.clear();
    m_structureDirty = true;
    updateEvalMetrics();
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
    // The core's rule for a re-reported step (after a resume): continue from it.
    points.resize(qsizetype(resumePosition(points, step, [](const EvalPoint &p) { return p.step; })));
    const bool newMetric = points.isEmpty();
    points.append(EvalPoint{step, epoch, wall, value});
    if (m_selected.contains(id)) {
        if (newMetric) {
            updateEvalMetrics();
        }
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
    m_axes->resetMargins();
    m_structureDirty = true;
    m_follow = true;
    updateEvalMetrics();
    scheduleRefresh();
}

void PlotWidget::setSmoothing(double weight)
{
    weight = std::clamp(weight, 0.0, 0.99);
    if (weight == m_smoothing) {
        return;
    }
    m_smoothing = weight;
    saveSettings();
    m_controls->setSmoothing(weight);
    for (Run &run : m_runs) {
        run.curve.setSmoothing(weight);
    }
    m_dataDirty = true;
    scheduleRefresh();
}

void PlotWidget::setLogScale(bool on)
{
    m_log = on;
    saveSettings();
    m_controls->setLogScale(on);
    m_axes->setLogScale(on);
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
    saveSettings();
    m_controls->setXAxis(axis);
    m_axes->setXAxis(axis);
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
    saveSettings();
    m_controls->setBand(band);
    m_structureDirty = true;
    scheduleRefresh();
}

void PlotWidget::setEvalMetric(const QString &metric)
{
    m_wantedMetric = metric;
    saveSettings();
    updateEvalMetrics();
}

void PlotWidget::rememberSettings()
{
    const PlotSettings s = PlotSettings::load(PlotSettings{m_smoothing, m_log, m_xAxis, m_band, m_wantedMetric});
    m_remember = false; // what was saved needs no saving
    setSmoothing(s.smoothing);
    setLogScale(s.logScale);
    setXAxis(s.xAxis);
    setBand(s.band);
    setEvalMetric(s.evalMetric);
    m_remember = true;
    if (!m_saveTimer) {
        m_saveTimer = new QTimer(this);
        m_saveTimer->setSingleShot(true);
        m_saveTimer->setInterval(500);
        connect(m_saveTimer, &QTimer::timeout, this, &PlotWidget::writeSettings);
    }
}

void PlotWidget::saveSettings()
{
    if (m_remember && m_saveTimer) {
        m_saveTimer->start();
    }
}

void PlotWidget::writeSettings() const
{
    PlotSettings{m_smoothing, m_log, m_xAxis, m_band, m_wantedMetric}.save();
}

void PlotWidget::updateEvalMetrics()
{
    QStringList available;
    for (const QString &id : std::as_const(m_selected)) {
        const Run &run = runAt(id);
        for (auto it = run.evals.constBegin(); it != run.evals.constEnd(); ++it) {
            if (!it.value().isEmpty() && !available.contains(it.key())) {
                available.append(it.key());
            }
        }
    }
    std::sort(available.begin(), available.end());
    const QString shown = pickEvalMetric(available, m_wantedMetric);
    m_evalMetrics = available;
    m_controls->setEvalMetrics(available, shown);
    if (shown != m_evalMetric) {
        m_evalMetric = shown;
        m_axes->setEvalMetric(shown);
        m_dataDirty = true;
        scheduleRefresh();
    }
    updateHints();
}

void PlotWidget::updateHints()
{
    if (m_selected.isEmpty()) {
        m_axes->setHints(tr("Select runs to plot"), QString());
    } else {
        m_axes->setHints(QString(), m_evalMetrics.isEmpty() ? tr("No evaluation yet") : QString());
    }
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
    if (m_axes->alignMargins()) {
        // Rare (the labels' width changed): once more with the shared margin.
        m_loss->replot(QCustomPlot::rpImmediateRefresh);
        m_eval->replot(QCustomPlot::rpImmediateRefresh);
    }
    m_sinceRefresh.restart();
    const double ms = timer.nsecsElapsed() / 1e6;
    Q_EMIT refreshed(ms);
    return ms;
}

bool PlotWidget::hoverShown() const
{
    return m_hover->isShown();
}

bool PlotWidget::exportPng(const QString &file, int width, int height)
{
    m_hover->hide(); // the file shows the curves, not where the mouse was
    refreshNow();
    return m_exporter.writePng(file, width, height);
}

bool PlotWidget::exportPdf(const QString &file)
{
    m_hover->hide();
    refreshNow();
    return m_exporter.writePdf(file);
}

bool PlotWidget::exportCsv(const QString &file, QString *error) const
{
    return MetricsCsvWriter::writeFile(
        file,
        [this](MetricsCsvWriter &csv) {
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
                        // An evaluation point knows its epoch (the feeder gave it one); else its step's.
                        const auto step = std::int64_t(p.step);
                        const double epoch =
                            std::isfinite(p.epoch) && p.epoch >= 0 ? p.epoch : MetricsCsvWriter::epochOf(&epochs, step);
                        csv.writeValue(run.label, step, epoch, p.wall, it.key(), p.value);
                    }
                }
            }
        },
        error);
}

void PlotWidget::exportDialog(const QString &format)
{
    const QString file = PlotExporter::askFileName(this, format);
    if (file.isEmpty()) {
        return;
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
        PlotExporter::showFailure(this, file, error);
        return;
    }
    qCInfo(lcPlot).noquote() << "exported" << m_selected.size() << "runs to" << file;
}

} // namespace trainyard
