#pragma once

#include <QHash>
#include <QJsonValue>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace trainyard {

class Experiment;
class RunStore;

/// A run folder of a sweep's trial: its sweep, its trial (1-based, as in its
/// name), paused by it (ASHA: "stopped (promotable)").
struct TrialOf
{
    QString sweep;
    int trial = 0;
    bool paused = false;
};

/// Which run folders of `root` are the trials of `experiment`'s sweeps, and
/// the values their sweeps searched: what `trainyard export` and the
/// window's Export to TensorBoard tell about a trial.
class TrialParameters
{
public:
    using Values = QList<QPair<QString, QJsonValue>>;

    /// As each sweep's state file says, else the trial names its spec makes
    /// (the file only claims a folder is a trial's: its name is checked as
    /// SweepRunner checks it). A damaged state file adds to `warnings`.
    static QHash<QString, TrialOf> trialsOf(const Experiment &experiment, const QString &root,
                                            QStringList *warnings = nullptr);
    /// Each of `runs` that is a trial: each key of its sweep's space with
    /// the value its spec.json holds, in the space's order.
    static QHash<QString, Values> searched(const Experiment &experiment, const RunStore &store, const QStringList &runs,
                                           QStringList *warnings = nullptr);
};

} // namespace trainyard
