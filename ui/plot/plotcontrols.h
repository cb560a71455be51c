#pragma once

#include "ui/plot/metriccurve.h"
#include "ui/plot/repeatband.h"

#include <QStringList>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QSlider;

namespace trainyard {

/// The row of settings above the plots (two rows where one does not fit): smoothing, log scale, the x axis
/// quantity, how repeats are drawn, the metric each plot shows (the upper
/// and the lower picker), "Fit" and the "Export" menu. It only shows and reports choices; the PlotWidget
/// applies them and calls the setters back, which report nothing new.
class PlotControls : public QWidget
{
    Q_OBJECT
public:
    explicit PlotControls(double smoothing, QWidget *parent = nullptr);

    void setSmoothing(double weight);
    void setLogScale(bool on);
    void setXAxis(XAxis axis);
    void setBand(RepeatBand band);
    /// Lists `metrics` in both pickers and shows `upper` and `lower` (each
    /// one of them, or not listed) as chosen.
    void setMetrics(const QStringList &metrics, const QString &upper, const QString &lower);

    /// As narrow as the two rows it wraps into.
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void smoothingChosen(double weight);
    void logScaleChosen(bool on);
    void xAxisChosen(trainyard::XAxis axis);
    void bandChosen(trainyard::RepeatBand band);
    /// Only the user's pick in a list (not setMetrics()).
    void curveMetricChosen(const QString &metric);
    void evalMetricChosen(const QString &metric);
    void fitRequested();
    /// "png", "pdf" or "csv".
    void exportRequested(const QString &format);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    int topWidthWithoutPickers() const;

    QSlider *m_smoothSlider;
    QLabel *m_smoothLabel;
    QCheckBox *m_logBox;
    QComboBox *m_xBox;
    QComboBox *m_bandBox;
    QComboBox *m_curveBox;
    QComboBox *m_evalBox;
    QWidget *m_pickers;    ///< the metric pickers, on the first row or the second
    QHBoxLayout *m_top;    ///< the first row
    QHBoxLayout *m_bottom; ///< the second row, empty while all fits on one
    bool m_twoRows = false;
};

} // namespace trainyard
