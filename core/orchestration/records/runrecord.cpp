#include "orchestration/records/runrecord.h"

#include "metrics/metricstore.h"
#include "orchestration/records/applyrecord.h"
#include "protocol/metricrecord.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace trainyard {

QString RunRecord::stateName() const
{
    if (hasStatus) {
        return runStateName(info.state);
    }
    if (hasDone && !doneStatus.isEmpty()) {
        return doneStatus;
    }
    return QStringLiteral("unknown");
}

const RunRecord::Eval *RunRecord::finalEval(const QString &metric) const
{
    const QString suffix = QLatin1Char('/') + metric;
    const auto test = evals.constFind(QStringLiteral("test") + suffix);
    if (test != evals.constEnd()) {
        return &test.value();
    }
    const Eval *latest = nullptr;
    for (auto it = evals.constBegin(); it != evals.constEnd(); ++it) {
        if (it.key().endsWith(suffix) && (!latest || it->lastStep > latest->lastStep)) {
            latest = &it.value();
        }
    }
    return latest;
}

RunRecord RunRecord::live(const RunInfo &info, const MetricStore &metrics)
{
    RunRecord run;
    run.info = info;
    run.hasStatus = true;
    if (const MetricSeries *rates = metrics.series(info.id, QStringLiteral("samples_per_s"))) {
        for (std::size_t i = 0; i < rates->size(); ++i) {
            run.usage.samplesPerSecondSum += rates->value(i);
        }
        run.usage.samplesPerSecondReports = std::int64_t(rates->size());
        if (!rates->isEmpty()) {
            run.usage.lastSamplesPerSecond = rates->lastValue();
        }
    }
    if (const MetricSeries *mem = metrics.series(info.id, QStringLiteral("mem_bytes"))) {
        for (std::size_t i = 0; i < mem->size(); ++i) {
            run.usage.peakMemBytes = std::max(run.usage.peakMemBytes, mem->value(i));
        }
    }
    for (const QString &name : metrics.metricNames(info.id)) {
        const MetricSeries *series = metrics.series(info.id, name);
        // Evaluations are the series named "<split>/<metric>"; an eval
        // line's epoch (epochs completed) says when, not how well.
        if (!name.contains(QLatin1Char('/')) || MetricStore::isBookkeeping(name) || !series || series->isEmpty()) {
            continue;
        }
        Eval &eval = run.evals[name];
        for (std::size_t i = 0; i < series->size(); ++i) {
            const double value = series->value(i);
            if (std::isnan(eval.best) || value > eval.best) {
                eval.best = value;
                eval.bestStep = series->step(i);
            }
        }
        eval.last = series->lastValue();
        eval.lastStep = series->step(series->size() - 1);
    }
    return run;
}

void RunRecord::add(const MetricRecord &record)
{
    applyRecord(info, record); // as live ingestion takes it
    switch (record.kind) {
    case protocol::MessageType::Metric:
        if (const double *rate = record.value("samples_per_s")) {
            usage.lastSamplesPerSecond = *rate;
            usage.samplesPerSecondSum += *rate;
            ++usage.samplesPerSecondReports;
        }
        if (const double *mem = record.value("mem_bytes")) {
            usage.peakMemBytes = std::max(usage.peakMemBytes, *mem);
        }
        break;
    case protocol::MessageType::Eval: {
        std::string name;
        for (std::size_t i = 0; i < record.fieldCount; ++i) {
            if (record.fields[i].name == "epoch" || !record.pointName(i, &name)) {
                continue; // epochs completed: when, not how well
            }
            Eval &eval = evals[QString::fromStdString(name)];
            const double value = record.fields[i].value;
            eval.last = value;
            eval.lastStep = record.step;
            if (std::isnan(eval.best) || value > eval.best) {
                eval.best = value;
                eval.bestStep = record.step;
            }
        }
        break;
    }
    case protocol::MessageType::Done:
        hasDone = true;
        doneStatus = QString::fromStdString(record.status);
        doneExitCode = record.exitCode;
        break;
    default: // the rest is the run's state (applyRecord)
        break;
    }
}

void RunRecord::clearMetrics()
{
    const RunInfo empty;
    info.step = empty.step;
    info.epoch = empty.epoch;
    info.loss = empty.loss;
    info.totalSteps = empty.totalSteps;
    info.wall = empty.wall;
    info.summary.clear();
    info.recipe.clear();
    info.checkpoint.clear();
    info.memBytes = empty.memBytes;
    usage = Usage();
    hasDone = false;
    doneStatus.clear();
    doneExitCode = -1;
    evals.clear();
    metricsOffset = 0;
}

} // namespace trainyard
