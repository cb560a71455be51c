#pragma once

#include "metrics/metricstore.h"
#include "orchestration/records/runinfo.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>

namespace trainyard {

class PlotWidget;
class ExperimentDocument;

/// Tells the plots which runs to draw and where their points are: the
/// selected runs of the session, as runs of its MetricStore (the plot reads
/// the store and redraws on its updated() signal; nothing is copied). Runs
/// that are not selected are dropped from the plot, so its caches follow the
/// selection, not the experiment. Runs of past experiments can be pinned
/// beside them: read once from their folders into a store of the feeder's
/// own (through MetricStore::add, so the same rules apply), drawn whatever
/// the board's selection, until unpinned.
class PlotFeeder : public QObject
{
    Q_OBJECT
public:
    PlotFeeder(PlotWidget *plot, QObject *parent = nullptr);

    /// Plots the runs of `document`, from its metrics (nullptr: none).
    void setSource(ExperimentDocument *document);
    void setSelection(const QList<RunId> &ids);
    QList<RunId> selection() const { return m_selection; }
    /// Pins the past run in `runDir` (its metrics.jsonl read through the
    /// RunStore) to the plots as `label`; false, with `error`, when it has no
    /// curve to draw.
    bool pinPastRun(const QString &runDir, const QString &label, QString *error = nullptr);
    void unpinPastRun(const QString &runDir);
    bool isPinned(const QString &runDir) const { return m_pinned.contains(runDir); }
    /// The pinned past runs' points.
    const MetricStore &pastRuns() const { return m_past; }
    /// The run of pastRuns() of the pinned past run in `runDir` (0: not pinned).
    RunId pastRunId(const QString &runDir) const { return m_pastIds.value(runDir); }
    /// The plot's key of a pinned past run.
    static QString pastRunKey(const QString &runDir);

private:
    void applySelection();

    PlotWidget *m_plot;
    QPointer<ExperimentDocument> m_document;
    MetricStore *m_metrics = nullptr;
    MetricStore m_past; ///< Pinned past runs, under ids of the feeder's

    QList<RunId> m_selection;
    QStringList m_pinned;            ///< Run folders of pinned past runs, in pinning order
    QHash<QString, RunId> m_pastIds; ///< Run folder -> its id in m_past
    RunId m_nextPastId = 1;
};

} // namespace trainyard
