// qcustomplot.h uses `foreach` in its own templates; our code never does.
#undef QT_NO_FOREACH

#include "ui/plot/plotwidget.h"

#include "metrics/metricstore.h"
#include "ui/common/runcolors.h"
#include "ui/plot/plotaxes.h"
#include "ui/plot/plotcontrols.h"
#include "ui/plot/plothover.h"
#include "ui/plot/plotlegend.h"
#include "ui/plot/plotsettings.h"
#include "ui/plot/plotzoom.h"

#include <QLabel>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace trainyard {

namespace {

constexpr int minPlotHeight = 100; // a title, an axis and some curve; the window fits 540 px at 200 %

} // namespace

PlotWidget::PlotWidget(RunColors *colors, QWidget *parent)
    : QWidget(parent)
    , m_runs(new PlotRuns(colors, this))
    , m_loss(new QCustomPlot(this))
    , m_eval(new QCustomPlot(this))
    , m_exporter(m_loss, m_eval)
    , m_axes(new PlotAxes(m_loss, m_eval, this))
    , m_readout(new QLabel(this))
    , m_controls(new PlotControls(m_smoothing, this))
    , m_hover(new PlotHover(
          m_loss, m_readout, [this](double x) { return m_selected.isEmpty() ? QString() : readoutAt(x); }, this))
    , m_timer(new QTimer(this))
    , m_graphs(m_loss, m_eval, m_axes, m_runs)
{
    m_runs->setSmoothing(m_smoothing); // the default applies to every run from the first
    m_loss->setObjectName(QStringLiteral("lossPlot"));
    m_eval->setObjectName(QStringLiteral("evalPlot"));
    // A wheel, a drag or a box on the plot means the user looks at a part: stop following.
    for (QCustomPlot *plot : {m_loss, m_eval}) {
        auto *zoom = new PlotZoom(plot, this);
        connect(zoom, &PlotZoom::viewChosen, this, [this] {
            m_view.follow = false;
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

    connect(m_runs, &PlotRuns::updated, this, &PlotWidget::runsUpdated);
    connect(m_runs, &PlotRuns::forgotten, this, &PlotWidget::runsForgotten);
    connect(m_controls, &PlotControls::smoothingChosen, this, &PlotWidget::setSmoothing);
    connect(m_controls, &PlotControls::logScaleChosen, this, &PlotWidget::setLogScale);
    connect(m_controls, &PlotControls::xAxisChosen, this, &PlotWidget::setXAxis);
    connect(m_controls, &PlotControls::bandChosen, this, &PlotWidget::setBand);
    connect(m_controls, &PlotControls::curveMetricChosen, this, &PlotWidget::setCurveMetric);
    connect(m_controls, &PlotControls::evalMetricChosen, this, &PlotWidget::setEvalMetric);
    connect(m_controls, &PlotControls::fitRequested, this, &PlotWidget::fitToData);
    connect(m_controls, &PlotControls::exportRequested, this, [this](const QString &format) {
        PlotExporter::exportAs(this, format, [this, format](const QString &file, QString *error) {
            return format == QLatin1String("png")   ? exportPng(file)
                   : format == QLatin1String("pdf") ? exportPdf(file)
                                                    : exportCsv(file, error);
        });
    });

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
    // Not a throttle: the stores batch their points (the one 30 Hz timer on
    // the way from a worker to the screen); this only folds the changes of
    // one event-loop pass (a slider drag, a new selection) into one redraw.
    m_timer->setSingleShot(true);
    m_timer->setInterval(0);
    connect(m_timer, &QTimer::timeout, this, [this] {
        const double ms = refreshNow();
        Q_UNUSED(ms);
    });
}

void PlotWidget::addRun(const QString &id, const QString &label, const QString &group, const CurveSource &source,
                        RunOrigin origin)
{
    m_runs->add(id, label, group, source, origin);
    m_structureDirty = true;
    scheduleRefresh();
}

void PlotWidget::removeRun(const QString &id)
{
    if (m_runs->remove(id)) {
        runsForgotten({id});
    }
}

void PlotWidget::clearRuns()
{
    m_runs->clear();
    const QStringList selected = m_selected; // runsForgotten() changes m_selected
    runsForgotten(selected);
}

void PlotWidget::runsForgotten(const QStringList &ids)
{
    for (const QString &id : ids) {
        m_selected.removeAll(id);
    }
    m_structureDirty = true;
    updateMetrics();
    scheduleRefresh();
}

void PlotWidget::runsUpdated(const QStringList &ids)
{
    // Drawn at once: the store's batching is the one pacing of the redraws.
    if (std::any_of(ids.begin(), ids.end(), [this](const QString &id) { return m_selected.contains(id); })) {
        updateMetrics(); // a metric may have arrived
        m_dataDirty = true;
        refreshNow();
    }
}

void PlotWidget::setSelectedRuns(const QStringList &ids)
{
    QStringList known;
    for (const QString &id : ids) {
        if (m_runs->contains(id) && !known.contains(id)) {
            known.append(id);
        }
    }
    if (known == m_selected) {
        return;
    }
    m_selected = known;
    m_axes->resetMargins();
    m_structureDirty = true;
    m_view.follow = true;
    updateMetrics();
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
    m_runs->setSmoothing(weight);
    m_dataDirty = true;
    scheduleRefresh();
}

void PlotWidget::setLogScale(bool on)
{
    m_view.log = on;
    saveSettings();
    m_controls->setLogScale(on);
    m_axes->setLogScale(on);
    m_view.follow = true;
    m_dataDirty = true;
    scheduleRefresh();
}

void PlotWidget::setXAxis(XAxis axis)
{
    if (axis == m_view.xAxis) {
        return;
    }
    m_view.xAxis = axis;
    saveSettings();
    m_controls->setXAxis(axis);
    m_axes->setXAxis(axis);
    m_view.follow = true;
    m_dataDirty = true;
    scheduleRefresh();
}

void PlotWidget::setBand(Band band)
{
    if (band == m_view.band) {
        return;
    }
    m_view.band = band;
    saveSettings();
    m_controls->setBand(band);
    m_structureDirty = true;
    scheduleRefresh();
}

void PlotWidget::setCurveMetric(const QString &metric)
{
    m_metrics.setWanted(PlotMetricChoice::Plot::Upper, metric);
    saveSettings();
    showMetrics();
}

void PlotWidget::setEvalMetric(const QString &metric)
{
    m_metrics.setWanted(PlotMetricChoice::Plot::Lower, metric);
    saveSettings();
    showMetrics();
}

void PlotWidget::rememberSettings()
{
    const PlotSettings s = PlotSettings::load(settings());
    delete m_saver;
    m_saver = nullptr; // what was saved needs no saving
    setSmoothing(s.smoothing);
    setLogScale(s.logScale);
    setXAxis(s.xAxis);
    setBand(s.band);
    setCurveMetric(s.curveMetric);
    setEvalMetric(s.evalMetric);
    m_saver = new PlotSettingsSaver(this);
}

PlotSettings PlotWidget::settings() const
{
    return PlotSettings{m_smoothing,
                        m_view.log,
                        m_view.xAxis,
                        m_view.band,
                        m_metrics.wanted(PlotMetricChoice::Plot::Upper),
                        m_metrics.wanted(PlotMetricChoice::Plot::Lower)};
}

void PlotWidget::saveSettings()
{
    if (m_saver) {
        m_saver->remember(settings());
    }
}

void PlotWidget::updateMetrics()
{
    m_metrics.setAvailable(m_runs->metrics(m_selected));
    showMetrics();
}

void PlotWidget::showMetrics()
{
    using Plot = PlotMetricChoice::Plot;
    m_controls->setMetrics(m_metrics.available(), m_metrics.shown(Plot::Upper), m_metrics.shown(Plot::Lower));
    if (m_metrics.shown(Plot::Upper) != m_view.curveMetric || m_metrics.shown(Plot::Lower) != m_view.evalMetric) {
        m_view.curveMetric = m_metrics.shown(Plot::Upper);
        m_view.evalMetric = m_metrics.shown(Plot::Lower);
        m_runs->setMetrics(m_view.curveMetric, m_view.evalMetric);
        m_axes->setCurveMetric(m_view.curveMetric);
        m_axes->setEvalMetric(m_view.evalMetric);
        m_view.follow = true; // other values: the last ranges mean nothing
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
        m_axes->setHints(QString(), m_view.evalMetric.isEmpty() ? tr("No evaluation yet") : QString());
    }
}

void PlotWidget::fitToData()
{
    m_view.follow = true;
    m_dataDirty = true;
    scheduleRefresh();
}

const MetricCurve *PlotWidget::curve(const QString &id) const
{
    const PlotRun *run = m_runs->find(id);
    return run ? &run->curve : nullptr;
}

void PlotWidget::scheduleRefresh()
{
    if (!m_timer->isActive()) {
        m_timer->start();
    }
}

double PlotWidget::refreshNow()
{
    QElapsedTimer timer;
    timer.start();
    m_timer->stop();
    m_dataDirty = m_runs->sync() || m_dataDirty;
    if (m_structureDirty) {
        m_graphs.rebuild(m_selected, m_view.band);
        updateHints();
        m_readout->setText(m_selected.isEmpty()
                               ? tr("Select runs on the board or in the table to plot them.")
                               : tr("Hover over the plot to read values; wheel zooms, drag pans, Ctrl+drag zooms to "
                                    "a box, double-click fits."));
    }
    if (m_dataDirty || m_structureDirty) {
        m_graphs.update(m_view);
    }
    m_structureDirty = false;
    m_dataDirty = false;
    m_loss->replot(QCustomPlot::rpImmediateRefresh);
    m_eval->replot(QCustomPlot::rpImmediateRefresh);
    // Rare (the legends' room or the labels' width changed): once more, the
    // legends laid out for their room, with the shared margin.
    const bool legends = m_axes->fitLegends();
    if (m_axes->alignMargins() || legends) {
        m_loss->replot(QCustomPlot::rpImmediateRefresh);
        m_eval->replot(QCustomPlot::rpImmediateRefresh);
    }
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
    // The legends laid out for the image's size, then for the screen's again.
    const auto [lossSize, evalSize] = m_exporter.pngSizes(width, height);
    m_axes->lossLegend()->layOutFor(lossSize);
    m_axes->evalLegend()->layOutFor(evalSize);
    const bool ok = m_exporter.writePng(file, width, height);
    m_axes->lossLegend()->layOutFor(m_loss->size());
    m_axes->evalLegend()->layOutFor(m_eval->size());
    return ok;
}

bool PlotWidget::exportPdf(const QString &file)
{
    m_hover->hide();
    refreshNow();
    return m_exporter.writePdf(file);
}

bool PlotWidget::exportCsv(const QString &file, QString *error) const
{
    QList<std::pair<QString, CurveSource>> runs;
    for (const QString &id : m_selected) {
        const PlotRun &run = m_runs->at(id);
        runs.append({run.label, run.curve.source()});
    }
    return PlotExporter::writeCsv(file, runs, error);
}

} // namespace trainyard
