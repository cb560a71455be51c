#include "orchestration/ingest/ingestion.h"

#include "orchestration/runstore/receivedmetrics.h"

#include "metrics/metricstore.h"
#include "orchestration/logcategories.h"
#include "orchestration/records/applyrecord.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/receivedmetrics.h"
#include "orchestration/runstore/runstore.h"
#include "protocol/metricline.h"
#include "protocol/metricrecord.h"
#include "protocol/protocol.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace trainyard {

Ingestion::Ingestion(RunRegistry *runs, RunStore *store, MetricStore *metrics, QObject *parent)
    : QObject(parent)
    , m_runs(runs)
    , m_store(store)
    , m_metrics(metrics)
{
    m_progressTimer.setSingleShot(true);
    m_progressTimer.setInterval(33);
    connect(&m_progressTimer, &QTimer::timeout, this, &Ingestion::flushProgress);
    connect(&m_follow, &QTimer::timeout, this, &Ingestion::followFiles);
    m_follow.start(1000);
}

Ingestion::~Ingestion() = default;

Ingestion::Run *Ingestion::find(RunId id)
{
    auto it = m_tracks.find(id);
    if (it == m_tracks.end()) {
        if (!m_runs->contains(id)) {
            return nullptr;
        }
        it = m_tracks.try_emplace(id, id).first;
    }
    return &it->second;
}

void Ingestion::beginRun(RunId id, bool fresh)
{
    Run *r = find(id);
    if (!r) {
        return;
    }
    if (fresh) {
        m_metrics->removeRun(id);
        r->metricsOffset = 0;
    } else if (const RunInfo *info = m_runs->find(id); info && ReceivedMetrics::setAside(m_store->runDir(info->name))) {
        // The resumed worker reports the steps after its checkpoint again.
        r->metricsOffset = qMin(r->metricsOffset, ReceivedMetrics::bytes(m_store->runDir(info->name)));
    }
    r->ended = false;
    r->doneSeen = false;
    r->unkept.clear();
    r->doneExit = -1;
    r->doneStatus.clear();
    r->lines = 0;
    r->metricSeen = false;
    r->nonFiniteLossFrom = -1;
    r->rateStep = -1;
    // Said by the start that follows (its Starting).
    m_runs->update(
        id,
        [fresh](RunInfo &info) {
            if (fresh) {
                info.step = info.epoch = info.totalSteps = -1;
                info.loss = std::numeric_limits<double>::quiet_NaN();
                info.memBytes = -1;
                info.summary.clear();
                info.recipe.clear();
                info.checkpoint.clear();
            }
            info.stepsPerSecond = 0;
            info.etaSeconds = -1;
        },
        RunRegistry::Notify::Quiet);
}

void Ingestion::resetCurves(RunId id)
{
    if (Run *r = find(id)) {
        m_metrics->removeRun(id);
        r->metricsOffset = 0;
    }
}

Ingestion::Done Ingestion::done(RunId id) const
{
    const auto it = m_tracks.find(id);
    if (it == m_tracks.end()) {
        return {};
    }
    const Run &r = it->second;
    return Done{r.doneSeen, r.doneStatus, r.doneExit, r.lines, r.metricSeen, r.nonFiniteLossFrom};
}

void Ingestion::forget(RunId id)
{
    m_tracks.erase(id);
    m_followed.erase(id);
    m_progressDirty.removeAll(id);
    m_metrics->removeRun(id);
}

void Ingestion::clear()
{
    m_tracks.clear();
    m_followed.clear();
    m_progressDirty.clear();
    m_progressTimer.stop();
    m_metrics->clear();
}

// ---- metrics ---------------------------------------------------------------

void Ingestion::markProgress(Run *r)
{
    if (!r->progressDirty) {
        r->progressDirty = true;
        m_progressDirty << r->id;
    }
    if (!m_progressTimer.isActive()) {
        m_progressTimer.start();
    }
}

void Ingestion::handleRecord(RunId id, const MetricRecord &record)
{
    if (!m_runs->contains(id)) {
        return;
    }
    if (const Run *r = find(id); r && r->ended) {
        // Lines still in the socket's buffer when the attempt ended: its
        // file, read at the end, holds them (a program writes it first).
        return;
    }
    if (m_heard) {
        m_heard(id);
    }
    if (record.kind == protocol::MessageType::Hello) {
        Q_EMIT helloReceived(id, record);
        return;
    }
    if (Run *r = find(id)) {
        ingest(r, record);
    }
}

void Ingestion::ingest(Run *r, const MetricRecord &record)
{
    const RunId id = r->id;
    ++r->lines;
    // The run's state as its folder's history reads the same line, then its
    // points (a metric line's numbers, an evaluation's). Announced batched
    // (progressChanged), not line by line.
    m_runs->update(
        id,
        [&](RunInfo &info) {
            if (applyRecord(info, record)) {
                updateRate(r, info);
            }
        },
        RunRegistry::Notify::Quiet);
    m_metrics->add(id, record);
    if (record.kind == protocol::MessageType::Metric) {
        r->metricSeen = true;
        // A program's NaN loss is a gap in the curve; lasting to the end, divergence.
        if (const double *loss = record.value("loss")) {
            if (std::isfinite(*loss)) {
                r->nonFiniteLossFrom = -1;
            } else if (r->nonFiniteLossFrom < 0) {
                r->nonFiniteLossFrom = record.step;
            }
        }
        markProgress(r);
    } else if (record.kind == protocol::MessageType::Summary) {
        markProgress(r);
    } else if (record.kind == protocol::MessageType::Done) {
        r->doneSeen = true;
        r->doneStatus = QString::fromStdString(record.status);
        r->doneExit = record.exitCode;
    }
}

void Ingestion::updateRate(Run *r, RunInfo &info)
{
    // A resumed run's step and clock go back to its checkpoint's: a new window.
    if (r->rateStep < 0 || info.wall < r->rateWall || info.step < r->rateStep) {
        r->rateStep = info.step;
        r->rateWall = info.wall;
        // A time budget says when it ends before any rate does.
        info.etaSeconds = estimatedSecondsLeft(info.step, info.totalSteps, info.stepsPerSecond, budgetLeft(info));
        return;
    }
    const double dt = info.wall - r->rateWall;
    if (dt < 1.0) {
        return;
    }
    const double rate = (info.step - r->rateStep) / dt;
    info.stepsPerSecond = info.stepsPerSecond > 0 ? 0.5 * info.stepsPerSecond + 0.5 * rate : rate;
    r->rateStep = info.step;
    r->rateWall = info.wall;
    info.etaSeconds = estimatedSecondsLeft(info.step, info.totalSteps, info.stepsPerSecond, budgetLeft(info));
}

void Ingestion::flushProgress()
{
    if (m_progressDirty.isEmpty()) {
        return;
    }
    const QList<RunId> ids = m_progressDirty;
    m_progressDirty.clear();
    for (RunId id : ids) {
        if (Run *r = find(id)) {
            r->progressDirty = false;
        }
    }
    Q_EMIT progressChanged(ids);
}

void Ingestion::ingestMetricsFile(RunId id)
{
    if (Run *r = find(id)) {
        ingestMetricsFile(r);
    }
}

int Ingestion::followMetricsFile(RunId id)
{
    Run *r = find(id);
    return r ? ingestMetricsFile(r) : 0;
}

void Ingestion::followFiles()
{
    // A copy: listeners of the lines may start or stop runs.
    const std::vector<RunId> ids(m_followed.begin(), m_followed.end());
    for (RunId id : ids) {
        if (m_followed.count(id) == 0) {
            continue; // ended meanwhile
        }
        const int records = followMetricsFile(id);
        Q_EMIT followed(id, records, metricsFileProblem(id));
    }
}

QString Ingestion::metricsFileProblem(RunId id) const
{
    const auto it = m_tracks.find(id);
    if (it == m_tracks.end()) {
        return {};
    }
    const Run &r = it->second;
    return r.unkept.isEmpty() || r.fileProblem.isEmpty() ? r.fileProblem + r.unkept
                                                         : r.fileProblem + QStringLiteral("; ") + r.unkept;
}

int Ingestion::ingestMetricsFile(Run *r)
{
    const RunInfo *info = m_runs->find(r->id);
    if (!info) {
        return 0;
    }
    const RunStore::ReadResult result =
        m_store->readMetrics(info->name, r->metricsOffset, [&](const MetricRecord &record) { ingest(r, record); });
    r->metricsOffset = result.offset;
    if (result.error != r->fileProblem && !result.error.isEmpty()) {
        qCWarning(lcMetrics).noquote() << result.error; // once, not every second
    }
    r->fileProblem = result.error;
    if (result.records > 0 && !r->progressDirty) {
        r->progressDirty = true;
        m_progressDirty << r->id;
        m_progressTimer.start();
    }
    return int(result.records);
}

void Ingestion::ingestEnded(RunId id)
{
    // Before the read: reading the file puts its steps over the curve, and
    // the points after its last one would go with them.
    keepReceived(id);
    ingestMetricsFile(id);
    if (Run *r = find(id)) {
        r->ended = true;
    }
}

void Ingestion::keepReceived(RunId id)
{
    Run *r = find(id);
    const RunInfo *info = m_runs->find(id);
    const QString dir = info ? m_store->runDir(info->name) : QString();
    if (!r || dir.isEmpty()) {
        return;
    }
    qint64 fileStep = -1;
    bool fileDone = false;
    ReceivedMetrics::lastInFile(dir, &fileStep, &fileDone);
    const bool doneMissing = r->doneSeen && !fileDone;
    if (info->step <= fileStep && !doneMissing) {
        return;
    }
    const QByteArray points = ReceivedMetrics::linesAfter(*m_metrics, id, fileStep, info->totalSteps);
    if (points.isEmpty() && !doneMissing) {
        return; // its step is an earlier attempt's: nothing is missing
    }
    const QByteArray lines = points + (doneMissing ? ReceivedMetrics::doneLine(r->doneStatus, r->doneExit) : "");
    QString error;
    if (ReceivedMetrics::write(dir, fileStep, lines, &error)) {
        qCWarning(lcMetrics,
                  "%s: its metrics.jsonl ends at step %lld; steps to %lld that came over the socket are "
                  "kept in %s",
                  qUtf8Printable(info->name), static_cast<long long>(fileStep), static_cast<long long>(info->step),
                  qUtf8Printable(ReceivedMetrics::fileName()));
        return;
    }
    // What Trainyard says is in a file: the last step that is.
    m_runs->update(
        id, [fileStep](RunInfo &run) { run.step = fileStep; }, RunRegistry::Notify::Quiet);
    r->unkept =
        QStringLiteral("the steps after %1 reached Trainyard but could not be kept (%2)").arg(fileStep).arg(error);
}

} // namespace trainyard
