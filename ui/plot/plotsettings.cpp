#include "ui/plot/plotsettings.h"

#include "ui/app/appsettings.h"

#include <algorithm>
#include <cmath>

namespace trainyard {

namespace {

const QString smoothingKey = QStringLiteral("plot/smoothing");
const QString logScaleKey = QStringLiteral("plot/logScale");
const QString xAxisKey = QStringLiteral("plot/xAxis");
const QString bandKey = QStringLiteral("plot/band");
const QString curveMetricKey = QStringLiteral("plot/curveMetric");
const QString evalMetricKey = QStringLiteral("plot/evalMetric");

// Names, not enum numbers, in the file: a reordered enum must not change what a saved file means.
QString xAxisName(XAxis axis)
{
    switch (axis) {
    case XAxis::Epoch:
        return QStringLiteral("epoch");
    case XAxis::Wall:
        return QStringLiteral("wall");
    case XAxis::Step:
        break;
    }
    return QStringLiteral("step");
}

QString bandName(RepeatBand band)
{
    switch (band) {
    case RepeatBand::Lines:
        return QStringLiteral("lines");
    case RepeatBand::Std:
        return QStringLiteral("std");
    case RepeatBand::MinMax:
        break;
    }
    return QStringLiteral("minmax");
}

} // namespace

PlotSettings PlotSettings::load(const PlotSettings &defaults)
{
    const QSettings s = appSettings();
    PlotSettings out = defaults;
    bool ok = false;
    const double smoothing = s.value(smoothingKey).toDouble(&ok);
    if (ok && std::isfinite(smoothing)) {
        out.smoothing = std::clamp(smoothing, 0.0, 0.99);
    }
    const QVariant log = s.value(logScaleKey);
    if (log.isValid()) {
        out.logScale = log.toBool();
    }
    const QString axis = s.value(xAxisKey).toString();
    for (XAxis a : {XAxis::Step, XAxis::Epoch, XAxis::Wall}) {
        if (axis == xAxisName(a)) {
            out.xAxis = a;
        }
    }
    const QString band = s.value(bandKey).toString();
    for (RepeatBand b : {RepeatBand::Lines, RepeatBand::MinMax, RepeatBand::Std}) {
        if (band == bandName(b)) {
            out.band = b;
        }
    }
    if (s.contains(curveMetricKey)) {
        out.curveMetric = s.value(curveMetricKey).toString();
    }
    if (s.contains(evalMetricKey)) {
        out.evalMetric = s.value(evalMetricKey).toString();
    }
    return out;
}

void PlotSettings::save() const
{
    QSettings s = appSettings();
    s.setValue(smoothingKey, smoothing);
    s.setValue(logScaleKey, logScale);
    s.setValue(xAxisKey, xAxisName(xAxis));
    s.setValue(bandKey, bandName(band));
    s.setValue(curveMetricKey, curveMetric);
    s.setValue(evalMetricKey, evalMetric);
}

PlotSettingsSaver::PlotSettingsSaver(QObject *parent)
    : QObject(parent)
{
    m_timer.setSingleShot(true);
    m_timer.setInterval(500);
    connect(&m_timer, &QTimer::timeout, this, [this] { m_pending.save(); });
}

PlotSettingsSaver::~PlotSettingsSaver()
{
    if (m_timer.isActive()) {
        m_pending.save();
    }
}

void PlotSettingsSaver::remember(const PlotSettings &settings)
{
    m_pending = settings;
    m_timer.start();
}

} // namespace trainyard
