#pragma once

#include "ui/plot/metriccurve.h"
#include "ui/plot/repeatband.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

namespace trainyard {

/// The plot settings the desktop app keeps across restarts, under "plot/" in
/// the app's QSettings: the smoothing, log scale, x axis, how repeats are
/// drawn and the metric the user picked for each plot. Values that are
/// missing or that this version cannot read leave the defaults given to load().
struct PlotSettings
{
    double smoothing = 0.6;
    bool logScale = false;
    XAxis xAxis = XAxis::Step;
    RepeatBand band = RepeatBand::MinMax;
    QString curveMetric; ///< The upper plot's (empty: the loss)
    QString evalMetric;  ///< The lower plot's (empty: an evaluation metric)

    static PlotSettings load(const PlotSettings &defaults);
    void save() const;
};

/// Saves the settings half a second after the last change (a slider drag is
/// many changes), and at once when it goes (with the plot that owns it).
class PlotSettingsSaver : public QObject
{
    Q_OBJECT
public:
    explicit PlotSettingsSaver(QObject *parent = nullptr);
    ~PlotSettingsSaver() override;
    void remember(const PlotSettings &settings);

private:
    PlotSettings m_pending;
    QTimer m_timer;
};

} // namespace trainyard
