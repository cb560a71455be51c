#pragma once

#include "records/runinfo.h"

#include <QHash>
#include <QList>
#include <QObject>

namespace trainyard {

class MetricStore;
class PlotWidget;
class Scheduler;

/// Feeds the plots from the core's MetricStore: the selected runs' full
/// history when they are selected, then only the new points of each batched
/// update. Runs that are not selected are dropped from the plot, so its
/// memory follows the selection, not the experiment. Runs of past
/// experiments can be pinned beside them: read once from their folders,
/// drawn whatever the board's selection, until unpinned.
class PlotFeeder : public QObject
{
    Q_OBJECT
public:
    PlotFeeder(PlotWidget *plot, QObject *parent = nullptr);

    void setSource(Scheduler *scheduler, MetricStore *metrics);
    void setSelection(const QList<RunId> &ids);
    QList<RunId> selection() const { return m_selection; }
    /// Reads whatever arrived for `runs` (the store's updated() does this).
    void feed(const QList<RunId> &runs);
    /// Pins the past run in `runDir` (its metrics.jsonl read through the
    /// RunStore) to the plots as `label`; false, with `error`, when it has no
    /// curve to draw.
    bool pinPastRun(const QString &runDir, const QString &label, QString *error = nullptr);
    void unpinPastRun(const QString &runDir);
    bool isPinned(const QString &runDir) const { return m_pinned.contains(runDir); }
    /// The plot's key of a pinned past run.
    static QString pastRunKey(const QString &runDir);

private:
    struct Fed
    {
        std::size_t loss = 0;
        quint64 lossRevision = 0;
        QHash<QString, std::size_t> evals;
        QHash<QString, quint64> evalRevisions;
    };
    void feedRun(RunId id, Fed &fed);
    double epochAt(RunId id, std::int64_t step) const;

    PlotWidget *m_plot;
    Scheduler *m_scheduler = nullptr;
    MetricStore *m_metrics = nullptr;
    void applySelection();

    QList<RunId> m_selection;
    QStringList m_pinned; ///< run folders of pinned past runs, in pinning order
    QHash<RunId, Fed> m_fed;
};

} // namespace trainyard
