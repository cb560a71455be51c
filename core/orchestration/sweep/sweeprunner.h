#pragma once

#include "orchestration/dependencies/sweeptrials.h"
#include "orchestration/experiment/sweepspec.h"
#include "orchestration/records/runinfo.h"
#include "orchestration/sweep/asha.h"

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>

namespace trainyard {

class Board;
class Dispatcher;
class MetricStore;
class RunActions;
class RunRegistry;

/// Runs the experiment's sweeps on the board: keeps each sweep's shared
/// queue of trials and places the next one (a promotable paused trial
/// first, else a new trial) on whichever of its lanes has a free slot;
/// follows the trials' objective reports in the MetricStore and applies
/// early stopping (pause = stop with a checkpoint, promote = resume from
/// it, so the curve continues). Its state lives in the runs root
/// (`<runs_root>/.sweeps/<name>.json`, checked on reading as run folders
/// are) and is read back when the experiment is opened again.
class SweepRunner : public QObject, public SweepTrials
{
    Q_OBJECT
public:
    SweepRunner(Board *board, Dispatcher *dispatcher, RunActions *actions, RunRegistry *runs,
                const MetricStore *metrics, QObject *parent = nullptr);
    ~SweepRunner() override;

    /// Replaces the sweeps (on opening an experiment); reads their saved state from `runsRoot`.
    void setSweeps(const QList<SweepSpec> &sweeps, const QString &runsRoot);
    QList<SweepSpec> sweeps() const override;
    const SweepSpec *sweep(const QString &name) const override;
    /// Adds a sweep (built in the app); false and a message when invalid or its name is taken.
    bool addSweep(const SweepSpec &sweep, QString *error = nullptr);
    bool removeSweep(const QString &name, QString *error = nullptr); ///< only when none of its trials is active

    QList<TrialInfo> trials(const QString &sweep) const override;
    /// The sweep of a run ("" for a run of no sweep) and its trial index.
    QString sweepOf(RunId run, int *trial = nullptr) const;
    /// One line: "rung 1: 27/27 · rung 2: 9 · best valid/mrr 0.312, trial 14: lr 0.003 dim 200".
    QString progressLine(const QString &sweep) const;
    bool isDone(const QString &sweep) const override; ///< every trial ended (finished, stopped or failed)

    // Control.
    bool isPaused(const QString &sweep) const; ///< by pauseSweep (kept across a reopening)
    void pauseSweep(const QString &sweep);     ///< no new trials placed; running ones train on
    void resumeSweep(const QString &sweep);    ///< places trials again
    /// "Start sweep": places its trials now, also while the board dispatches nothing else.
    void startSweep(const QString &sweep) { resumeSweep(sweep); }
    void stopSweep(const QString &sweep); ///< stops every active trial (with a checkpoint), places none
    bool addTrials(const QString &sweep, int count, QString *error = nullptr);    ///< random: more samples
    bool promoteTrial(const QString &sweep, int trial, QString *error = nullptr); ///< resume a paused one now
    bool stopTrial(const QString &sweep, int trial, QString *error = nullptr);    ///< for good

    /// Places trials into free slots now (the Dispatcher calls it when a slot frees).
    void fill();
    /// How many runs lane N holds at once (a pool: its slots on each of its
    /// GPUs); unset, its slots.
    void setLaneCapacity(std::function<int(int lane)> capacity);

Q_SIGNALS:
    void sweepsChanged();                     ///< added, removed, replaced
    void trialsChanged(const QString &sweep); ///< a trial placed, reported, paused, promoted or ended
    void warning(const QString &text);

private:
    struct State;
    std::unique_ptr<State> d;
};

} // namespace trainyard
