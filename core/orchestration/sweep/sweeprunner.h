#pragma once

#include "records/runinfo.h"
#include "sweep/asha.h"
#include "sweep/sweepspec.h"

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

/// One trial as the Sweep view and `trainyard run` show it.
struct TrialInfo
{
    int index = -1;     ///< 0-based; named SweepSpec::trialName(sweep, index)
    QJsonObject values; ///< {"train.lr": 0.003, ...}
    RunId run = 0;      ///< 0 while it waits in the sweep's shared queue (not on a lane yet)
    enum class Phase {
        Waiting,  ///< not placed yet
        Training, ///< on a lane: queued there, starting or running
        Paused,   ///< ASHA paused it at a rung (checkpointed, slot freed)
        Stopped,  ///< stopped by the rule or by hand, for good
        Finished, ///< trained to the end (max)
        Failed    ///< failed, diverged or lost: out of the search
    };
    Phase phase = Phase::Waiting;
    int rung = -1;              ///< highest rung reached (ASHA), -1 if none
    double objective = qQNaN(); ///< best value so far (by the sweep's mode), NaN if none
    double resource = -1;       ///< latest epoch/step of an objective report
    QString reason;             ///< why it paused or stopped, for the card and details
};

/// Runs the experiment's sweeps on the board: keeps each sweep's shared
/// queue of trials and places the next one (a promotable paused trial
/// first, else a new trial) on whichever of its lanes has a free slot;
/// follows the trials' objective reports in the MetricStore and applies
/// early stopping (pause = stop with a checkpoint, promote = resume from
/// it, so the curve continues). Its state lives in the runs root
/// (`<runs_root>/.sweeps/<name>.json`, checked on reading as run folders
/// are) and is read back when the experiment is opened again.
class SweepRunner : public QObject
{
    Q_OBJECT
public:
    SweepRunner(Board *board, Dispatcher *dispatcher, RunActions *actions, RunRegistry *runs,
                const MetricStore *metrics, QObject *parent = nullptr);
    ~SweepRunner() override;

    /// Replaces the sweeps (on opening an experiment); reads their saved state from `runsRoot`.
    void setSweeps(const QList<SweepSpec> &sweeps, const QString &runsRoot);
    QList<SweepSpec> sweeps() const;
    const SweepSpec *sweep(const QString &name) const;
    /// Adds a sweep (built in the app); false and a message when invalid or its name is taken.
    bool addSweep(const SweepSpec &sweep, QString *error = nullptr);
    bool removeSweep(const QString &name, QString *error = nullptr); ///< only when none of its trials is active

    QList<TrialInfo> trials(const QString &sweep) const;
    /// The sweep of a run ("" for a run of no sweep) and its trial index.
    QString sweepOf(RunId run, int *trial = nullptr) const;
    /// One line: "rung 1: 27/27 · rung 2: 9 · best valid/mrr 0.312, trial 14: lr 0.003 dim 200".
    QString progressLine(const QString &sweep) const;
    bool isDone(const QString &sweep) const; ///< every trial ended (finished, stopped or failed)

    // Control.
    bool isPaused(const QString &sweep) const; ///< by pauseSweep (kept across a reopening)
    void pauseSweep(const QString &sweep);     ///< no new trials placed; running ones train on
    void resumeSweep(const QString &sweep);    ///< places trials again
    void stopSweep(const QString &sweep);      ///< stops every active trial (with a checkpoint), places none
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
