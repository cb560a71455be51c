#pragma once

#include "orchestration/experiment/sweepspec.h"
#include "orchestration/sweep/sweeprunner.h"

#include <QColor>
#include <QList>
#include <QSet>
#include <QStringList>
#include <QWidget>

#include <optional>

namespace trainyard {

/// A sweep's parallel-coordinates plot: one vertical axis per searched key,
/// then the objective; one polyline per trial, coloured by its objective
/// (best bright). Log axes for log_uniform keys, categories for non-numeric
/// values. Dragging along an axis brushes a range of it (a click clears
/// it); trials outside any brushed range are greyed, and `filterChanged`
/// tells the table to show only the others.
class ParallelCoordinatesPlot : public QWidget
{
    Q_OBJECT
public:
    explicit ParallelCoordinatesPlot(QWidget *parent = nullptr);

    void setSweep(const SweepSpec &sweep, const QList<TrialInfo> &trials);

    int axisCount() const { return int(m_axes.size()); }
    QString axisKey(int axis) const { return m_axes.at(axis).key; } ///< the objective's axis: its metric
    bool axisIsLogarithmic(int axis) const { return m_axes.at(axis).log; }
    /// The axis' range in its values (categories: 0 .. n-1).
    double axisLow(int axis) const { return m_axes.at(axis).low; }
    double axisHigh(int axis) const { return m_axes.at(axis).high; }

    /// Brushes `axis` to [low, high] in its values (either order); clearBrush removes it.
    void setBrush(int axis, double low, double high);
    void clearBrush(int axis);
    void clearBrushes();
    bool hasBrush(int axis) const;

    /// The trials inside every brushed range; nullopt while nothing is brushed.
    std::optional<QSet<int>> visibleTrials() const;
    bool isSelected(int trialIndex) const;

    /// Where an axis and a value of it are drawn (mouse tests, hit testing).
    double axisX(int axis) const;
    double valueY(int axis, double value) const;
    /// The colour of an objective on the sweep's scale (best bright, worst dark).
    QColor objectiveColor(double objective) const;

    QSize sizeHint() const override { return {640, 300}; }

Q_SIGNALS:
    void filterChanged();

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;

private:
    struct Axis
    {
        QString key;
        bool log = false;
        bool objective = false;
        QStringList categories; ///< non-empty: categorical
        double low = 0;
        double high = 1;
        std::optional<std::pair<double, double>> brush;
    };
    double trialValue(const Axis &axis, const TrialInfo &trial) const; ///< NaN when it has none
    double fraction(const Axis &axis, double value) const;             ///< 0 bottom, 1 top; NaN outside
    double valueAt(int axis, double y) const;
    int axisNear(double x) const;
    QRectF plotRect() const;

    SweepSpec m_sweep;
    QList<TrialInfo> m_trials;
    QList<Axis> m_axes;
    double m_objLow = 0;
    double m_objHigh = 1;
    int m_dragAxis = -1;
    double m_dragStart = 0;
};

} // namespace trainyard
