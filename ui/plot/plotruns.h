#pragma once

#include "plot/losscurve.h"

#include <QColor>
#include <QHash>
#include <QObject>
#include <QSet>
#include <QStringList>

namespace trainyard {

class RunColors;

/// A run the plots know: how it is labelled and coloured, the repeats it
/// belongs to, and its loss curve (a view of the store).
struct PlotRun
{
    QString label;
    QString group;
    QColor color;
    LossCurve curve;
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
    void add(const QString &id, const QString &label, const QString &group, const CurveSource &source);
    bool remove(const QString &id);
    void clear();
    bool contains(const QString &id) const { return m_runs.contains(id); }
    /// id must be registered.
    const PlotRun &at(const QString &id) const { return *m_runs.constFind(id); }
    const PlotRun *find(const QString &id) const;

    void setSmoothing(double weight);
    /// Every curve catches up with its store; true when one changed.
    bool sync();
    /// The evaluation metrics the runs `ids` have, sorted.
    QStringList evalMetrics(const QStringList &ids) const;

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
    QHash<QString, PlotRun> m_runs;
    QSet<const MetricStore *> m_stores; ///< Whose updated() is followed
};

} // namespace trainyard
