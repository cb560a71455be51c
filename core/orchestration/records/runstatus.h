#pragma once

#include "orchestration/records/runinfo.h"

#include <QJsonObject>
#include <QString>

#include <functional>

namespace trainyard {

struct RunRecord;

// One run as `trainyard status` prints it and the runs table's State and
// Step columns show it: both take it from here, so they cannot disagree.
// Built from a live run (RunInfo and its lane, as the orchestrator holds
// them) or from a run folder after the fact (RunRecord).
struct RunStatusRow
{
    QString name;
    QString state;    // runStateName's word (status.json's), or kNeverStarted
    QString progress; // "120/1000 12%", "step 40", "epoch 3", "100%"; empty when unknown
    qint64 step = -1;
    qint64 totalSteps = -1;
    qint64 epoch = -1;
    double fraction = -1; // runProgress: [0, 1], -1 when unknown
    QString lane;         // the lane's title as the board shows it
    QString gpus;         // the GPU(s) it runs or ran on; empty: none (CPU, not started)
    QString where;        // an ssh lane's host, a batch job's id ("job 123"), a local pid ("pid 42"); empty: none
    // Why it waits (the scheduler's words, the runs it waits for), or why it
    // failed, diverged or was lost (its message's first line); else empty.
    QString reason;

    // A live run of the open experiment in `lane` (LaneDevices::lane);
    // `laneBusy` the lane's runs that hold a slot now (its full lane is why a
    // plain queued run waits).
    static RunStatusRow live(const RunInfo &run, const LaneInfo &lane, int laneBusy);
    // The runs of `lane` that hold a slot now (`stateOf` tells a run's state).
    static int busySlots(const LaneInfo &lane, const std::function<RunState(RunId)> &stateOf);
    // A run as its folder tells it (no Trainyard holds the experiment): its
    // last known state (RunRecord::stateName).
    static RunStatusRow past(const RunRecord &record, const QString &lane);
    // A run of the file that has no folder yet.
    static RunStatusRow neverStarted(const QString &name, const QString &lane);

    QJsonObject toJson() const;
    static RunStatusRow fromJson(const QJsonObject &object);
    bool operator==(const RunStatusRow &other) const;
};

// The state of a run of the file that has no folder and no Trainyard to queue it.
inline const QString kNeverStarted = QStringLiteral("never started");

} // namespace trainyard
