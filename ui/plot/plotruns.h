#pragma once

#include "ui/plot/metriccurve.h"

#include <QColor>
#include <QHash>
#include <QObject>
#include <QSet>
#include <QStringList>

namespace trainyard {

class RunColors;

/// Whether a plotted run belongs to the open experiment or is a past run
/// pinned beside it (drawn in the past palette, dashed).
enum class RunOrigin {
    Live,
    Past
};

/// A run the plots know: how it is labelled and coloured, the repeats it
/// belongs to, and its two curves (views of the store): the upper plot's
/// metric, smoothed, and the lower plot's, as it is.
struct PlotRun
{
    QString label;
    QString group;
    QColor color;
    RunOrigin origin = RunOrigin::Live;
    MetricCurve curve;  ///< The upper plot's metric ("loss" unless chosen)
    MetricCurve points; ///< The lower plot's metric (an evaluation metric unless chosen)
};

/// The runs a PlotWidget can draw, by key, each a CurveSource (a run of a
/// MetricStore), and when their data change: it follows each store's
/// batched updated() signal, and forgets the runs of a store that goes away.
class PlotRuns : public QObject
{
    Q_OBJECT
public:
    explicit PlotRuns(RunColors *colors, QObject *parent = nullptr);

    /// Registers (or replaces) run `id`; `group` ties repeats of one spec
    /// together (empty: a group of its own).
    void add(const QString &id, const QString &label, const QString &group, const CurveSource &source,
             RunOrigin origin = RunOrigin::Live);
    bool remove(const QString &id);
    void clear();
    bool contains(const QString &id) const { return m_runs.contains(id); }
    /// id must be registered.
    const PlotRun &at(const QString &id) const { return *m_runs.constFind(id); }
    const PlotRun *find(const QString &id) const;

    void setSmoothing(double weight);
    /// The metric every run's curve shows in the upper plot and in the lower.
    void setMetrics(const QString &upper, const QString &lower);
    /// Every curve catches up with its store; true when one changed.
    bool sync();
    /// The metrics the runs `ids` have (CurveSource::metrics), sorted.
    QStringList metrics(const QStringList &ids) const;

Q_SIGNALS:
    /// A store announced new or replaced points of these runs.
    void updated(const QStringList &ids);
    /// Runs were dropped because their store went away.
    void forgotten(const QStringList &ids);

private:
    void storeUpdated(const MetricStore *store, const QList<RunId> &runs);
    void forgetStore(const MetricStore *store);

    RunColors *m_colors;
    double m_smoothing = 0;
    QString m_upper = QStringLiteral("loss");
    QString m_lower;
    QHash<QString, PlotRun> m_runs;
    QSet<const MetricStore *> m_stores; ///< Whose updated() is followed
};

} // namespace trainyard
