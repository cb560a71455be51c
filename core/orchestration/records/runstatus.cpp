#include "orchestration/records/runstatus.h"

#include "orchestration/records/runrecord.h"

#include <QJsonValue>

#include <algorithm>
#include <cmath>

namespace trainyard {

namespace {

QString firstLine(const QString &text)
{
    return text.section(QLatin1Char('\n'), 0, 0).trimmed();
}

// "120/1000 12%", "step 40", "epoch 3 45%", "100%"; empty when nothing is known.
QString progressText(qint64 step, qint64 totalSteps, qint64 epoch, double fraction)
{
    QString text;
    if (step >= 0) {
        text = totalSteps > 0 ? QStringLiteral("%1/%2").arg(step).arg(totalSteps) : QStringLiteral("step %1").arg(step);
    } else if (epoch >= 0) {
        text = QStringLiteral("epoch %1").arg(epoch);
    }
    if (fraction >= 0) {
        const QString percent = QStringLiteral("%1%").arg(int(std::floor(fraction * 100)));
        text = text.isEmpty() ? percent : text + QLatin1Char(' ') + percent;
    }
    return text;
}

// The GPU(s) of the device a run was given: "cuda:0", "cuda:0,1" (a remote
// host's as that host names them); empty for a CPU or a batch job's node.
QString gpusOf(const Device &device)
{
    if (!device.isGpu()) {
        return {};
    }
    return device.isRemote() ? device.remoteDevice() : device.toString();
}

// Where it runs: the host of an ssh lane, a batch job, a local process.
QString whereOf(const RunInfo &run)
{
    if (!run.jobId.isEmpty()) {
        return QStringLiteral("job %1").arg(run.jobId);
    }
    if (run.device.isRemote()) {
        return run.host.isEmpty() ? run.device.host() : run.host;
    }
    if (run.pid > 0 && isActive(run.state)) {
        return QStringLiteral("pid %1").arg(run.pid);
    }
    return {};
}

// Why it ended badly (failed, diverged, lost): its message's first line.
QString failureOf(const RunInfo &run)
{
    const bool bad = run.state == RunState::Failed || run.state == RunState::Diverged || run.state == RunState::Lost;
    return bad ? firstLine(run.message) : QString();
}

void fillProgress(RunStatusRow *row, const RunInfo &run)
{
    row->step = run.step;
    row->totalSteps = run.totalSteps;
    row->epoch = run.epoch;
    row->fraction = runProgress(run);
    row->progress = progressText(row->step, row->totalSteps, row->epoch, row->fraction);
}

} // namespace

RunStatusRow RunStatusRow::live(const RunInfo &run, const LaneInfo &lane, int laneBusy)
{
    RunStatusRow row;
    row.name = run.name;
    row.state = runStateName(run.state);
    fillProgress(&row, run);
    row.lane = lane.title;
    if (isActive(run.state) || isTerminal(run.state)) {
        row.gpus = gpusOf(run.device);
        row.where = whereOf(run);
    }
    // Why it waits, in the words the board's card shows.
    if (isPendingInQueue(run)) {
        row.reason = QStringLiteral("in the batch queue: %1").arg(run.queueReason);
    } else if (run.state == RunState::Waiting) {
        row.reason = firstLine(run.message);
    } else if (run.state == RunState::Queued) {
        if (run.held) {
            row.reason = QStringLiteral("held: waits for its own Start");
        } else if (isQueuedWithReason(run)) {
            row.reason = firstLine(run.message);
        } else if (!lane.waitReason.isEmpty()) {
            row.reason = firstLine(lane.waitReason);
        } else if (laneBusy >= lane.slotCount) {
            row.reason = QStringLiteral("lane full (%1 of %2 slots busy)").arg(laneBusy).arg(lane.slotCount);
        }
        // Else nothing holds it back but the start itself (Start all, the next dispatch).
    } else {
        row.reason = failureOf(run);
    }
    return row;
}

int RunStatusRow::busySlots(const LaneInfo &lane, const std::function<RunState(RunId)> &stateOf)
{
    return int(std::count_if(lane.runs.cbegin(), lane.runs.cend(), [&](RunId id) { return isActive(stateOf(id)); }));
}

RunStatusRow RunStatusRow::past(const RunRecord &record, const QString &lane)
{
    RunStatusRow row;
    row.name = record.info.name;
    row.state = record.stateName();
    fillProgress(&row, record.info);
    if (!record.hasStatus && record.hasDone && record.doneStatus == QLatin1String("finished")) {
        row.fraction = 1; // finished by its done line alone
        row.progress = progressText(row.step, row.totalSteps, row.epoch, row.fraction);
    }
    row.lane = lane;
    row.gpus = gpusOf(record.info.device);
    RunInfo where = record.info;
    where.pid = 0; // a pid of the past names no process now
    row.where = whereOf(where);
    if (record.hasStatus && !isTerminal(record.info.state)) {
        // Its folder says it runs or waits, but nothing holds the experiment:
        // that is its last known word, not news.
        row.reason = QStringLiteral("no Trainyard holds the experiment: its last known state");
    } else if (record.hasStatus) {
        row.reason = failureOf(record.info);
    }
    return row;
}

RunStatusRow RunStatusRow::neverStarted(const QString &name, const QString &lane)
{
    RunStatusRow row;
    row.name = name;
    row.state = kNeverStarted;
    row.lane = lane;
    return row;
}

QJsonObject RunStatusRow::toJson() const
{
    return {
        {QStringLiteral("name"), name},
        {QStringLiteral("state"), state},
        {QStringLiteral("progress"), progress},
        {QStringLiteral("step"), step},
        {QStringLiteral("total_steps"), totalSteps},
        {QStringLiteral("epoch"), epoch},
        {QStringLiteral("fraction"), fraction},
        {QStringLiteral("lane"), lane},
        {QStringLiteral("gpus"), gpus},
        {QStringLiteral("where"), where},
        {QStringLiteral("reason"), reason},
    };
}

RunStatusRow RunStatusRow::fromJson(const QJsonObject &o)
{
    RunStatusRow row;
    row.name = o.value(QStringLiteral("name")).toString();
    row.state = o.value(QStringLiteral("state")).toString();
    row.progress = o.value(QStringLiteral("progress")).toString();
    row.step = o.value(QStringLiteral("step")).toInteger(-1);
    row.totalSteps = o.value(QStringLiteral("total_steps")).toInteger(-1);
    row.epoch = o.value(QStringLiteral("epoch")).toInteger(-1);
    row.fraction = o.value(QStringLiteral("fraction")).toDouble(-1);
    row.lane = o.value(QStringLiteral("lane")).toString();
    row.gpus = o.value(QStringLiteral("gpus")).toString();
    row.where = o.value(QStringLiteral("where")).toString();
    row.reason = o.value(QStringLiteral("reason")).toString();
    return row;
}

bool RunStatusRow::operator==(const RunStatusRow &o) const
{
    return name == o.name && state == o.state && progress == o.progress && step == o.step && totalSteps == o.totalSteps
           && epoch == o.epoch && fraction == o.fraction && lane == o.lane && gpus == o.gpus && where == o.where
           && reason == o.reason;
}

} // namespace trainyard
