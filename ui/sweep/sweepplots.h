#pragma once

#include "orchestration/experiment/sweepspec.h"
#include "orchestration/sweep/sweeprunner.h"

#include <QList>
#include <QWidget>

class QComboBox;
class QCustomPlot;
class QLabel;
class QTableWidget;

namespace trainyard {

/// The objective against one searched key (a combo picks it): one point
/// per trial with an objective, failed trials left out; a log x axis
/// where the key's range is logarithmic, category ticks for non-numeric values.
class ObjectiveScatter : public QWidget
{
    Q_OBJECT
public:
    explicit ObjectiveScatter(QWidget *parent = nullptr);

    void setSweep(const SweepSpec &sweep, const QList<TrialInfo> &trials);
    /// Plots against `key` (one of the combo's); false when the sweep does not search it.
    bool setKey(const QString &key);
    QString key() const;
    QComboBox *keyCombo() const { return m_combo; }
    QCustomPlot *plot() const { return m_plot; }
    bool xIsLogarithmic() const;
    int pointCount() const;

private:
    void replot();

    QComboBox *m_combo;
    QCustomPlot *m_plot;
    SweepSpec m_sweep;
    QList<TrialInfo> m_trials;
};

/// The best objective found so far over the sweep's wall time, as a step line.
class BestSoFarPlot : public QWidget
{
    Q_OBJECT
public:
    /// One objective report: seconds since the sweep's first report, its value.
    struct Report
    {
        double time = 0;
        double value = 0;
    };

    explicit BestSoFarPlot(QWidget *parent = nullptr);

    void setReports(QList<Report> reports, bool maximize, const QString &objective);
    /// The step line's points (time, best so far): one per report that improved it.
    QList<Report> bestSteps() const { return m_steps; }
    QCustomPlot *plot() const { return m_plot; }

    static QList<Report> bestSoFar(QList<Report> reports, bool maximize);

private:
    QCustomPlot *m_plot;
    QList<Report> m_steps;
};

/// The rung ladder of an ASHA sweep: per rung its resource level and how
/// many trials were recorded there, continued past it, are paused or were
/// stopped at it.
class RungLadder : public QWidget
{
    Q_OBJECT
public:
    struct Rung
    {
        double resource = 0;
        int recorded = 0;
        int continued = 0;
        int paused = 0;
        int stopped = 0;
    };

    explicit RungLadder(QWidget *parent = nullptr);

    void setSweep(const SweepSpec &sweep, const QList<TrialInfo> &trials);
    /// The rungs of `sweep` counted over `trials` (empty unless the rule is ASHA).
    static QList<Rung> count(const SweepSpec &sweep, const QList<TrialInfo> &trials);
    QTableWidget *table() const { return m_table; }

private:
    QTableWidget *m_table;
    QLabel *m_none; ///< instead of the table when the sweep has no rungs
};

} // namespace trainyard
