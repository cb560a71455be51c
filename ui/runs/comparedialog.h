#pragma once

#include "ui/plot/metriccurve.h"
#include "ui/plot/plotruns.h"
#include "ui/runs/runrow.h"

#include <QDialog>
#include <QStringList>

class QCheckBox;
class QTreeWidget;

namespace trainyard {

class PlotWidget;
class RunColors;

/// Two runs side by side, as W&B's and MLflow's run comparison: their
/// results (state, step, loss, evaluations, duration) and their specs
/// resolved with the catalogue's defaults (RunSpecView::flattened), a row a
/// key, the keys whose values differ marked (and on request the only ones
/// shown); below, both runs' loss and evaluation curves in a plot of its
/// own that reads them where they are (a CurveSource each: the session's
/// MetricStore for a run of the open experiment, the plot feeder's pinned
/// past runs for another): no point is copied.
class CompareDialog : public QDialog
{
    Q_OBJECT
public:
    struct Side
    {
        RunRow row;                         ///< what the runs table shows of it (its resolved spec too)
        QString plotKey;                    ///< its key in the plots (its colour)
        CurveSource curves;                 ///< where its points are; no store: no curves
        RunOrigin origin = RunOrigin::Live; ///< a past run is drawn as the main plot draws it
    };
    CompareDialog(const Side &a, const Side &b, RunColors *colors, QWidget *parent = nullptr);

    /// The keys ("train.lr", "Loss") whose values differ, in the table's order.
    QStringList differingKeys() const { return m_differing; }
    /// Shows only the rows that differ.
    void setOnlyDifferences(bool on);
    QTreeWidget *table() const { return m_table; }
    PlotWidget *plot() const { return m_plot; }
    /// The side's text of `key` as the table shows it (-1 when no row has the key).
    QString valueText(const QString &key, int side) const;

private:
    void fill(const Side &a, const Side &b);

    QTreeWidget *m_table;
    QCheckBox *m_onlyDifferences;
    PlotWidget *m_plot;
    QStringList m_differing;
};

} // namespace trainyard
