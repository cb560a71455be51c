#include "ui/runs/runrow.h"

#include "metrics/metricstore.h"
#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/records/runrecord.h"
#include "orchestration/runspec/runspecview.h"
#include "ui/runs/paramcolumns.h"

#include <QMutex>
#include <QSet>

#include <cmath>

namespace trainyard {

namespace {

// The run's final evaluation of `metric` (the test split's when it has one).
double finalOf(const RunRecord &run, const QString &metric)
{
    const RunRecord::Eval *eval = run.finalEval(metric);
    return eval ? eval->last : qQNaN();
}

double lastOf(const MetricStore *metrics, RunId id, const QString &metric)
{
    for (const QString &split : {QStringLiteral("test/"), QStringLiteral("valid/"), QStringLiteral("train/")}) {
        const MetricSeries *s = metrics->series(id, split + metric);
        if (s && !s->isEmpty()) {
            return s->lastValue();
        }
    }
    return qQNaN();
}

} // namespace

RunRow RunRow::live(RunId id, const RunInfo &run, const RunStatusRow &status, const MetricStore *metrics,
                    const QString &experiment, const RunNotes &notes, const ModelCatalogue &catalogue,
                    const QJsonObject &reported)
{
    RunRow row;
    row.id = id;
    row.experiment = experiment;
    row.name = run.name;
    row.model = RunSpecView(run.spec).kindLabel();
    row.data = RunSpecView(run.spec).dataSummary();
    row.status = status;
    row.state = status.state;
    row.step = status.step;
    row.loss = run.loss;
    if (metrics) {
        row.mrr = lastOf(metrics, id, QStringLiteral("mrr"));
        row.hits10 = lastOf(metrics, id, QStringLiteral("hits@10"));
        row.accuracy = lastOf(metrics, id, QStringLiteral("accuracy"));
    }
    row.started = run.started;
    row.ended = run.ended;
    row.trained = isTerminal(run.state) ? trainedSeconds(run) : -1;
    row.runDir = run.runDir;
    row.notes = notes;
    row.reported = reported;
    row.summary = run.summary;
    row.recipe = run.recipe;
    row.setSpec(run.spec, catalogue);
    return row;
}

RunRow RunRow::past(const RunRecord &run, const QString &experiment, const ModelCatalogue &catalogue,
                    const QJsonObject &reported, const RunRow *previous)
{
    RunRow row;
    row.experiment = experiment;
    row.name = run.info.name;
    row.model = RunSpecView(run.info.spec).kindLabel();
    row.data = RunSpecView(run.info.spec).dataSummary();
    row.status = RunStatusRow::past(run, QString());
    row.state = row.status.state;
    row.step = row.status.step;
    row.loss = run.info.loss;
    row.mrr = finalOf(run, QStringLiteral("mrr"));
    row.hits10 = finalOf(run, QStringLiteral("hits@10"));
    row.accuracy = finalOf(run, QStringLiteral("accuracy"));
    row.started = run.info.started;
    row.ended = run.info.ended;
    row.trained = isTerminal(run.info.state) ? trainedSeconds(run.info) : -1;
    row.runDir = run.info.runDir;
    row.notes = run.notes;
    row.reported = reported;
    row.summary = run.info.summary;
    row.recipe = run.info.recipe;
    if (previous && previous->spec == run.info.spec && previous->reported == reported
        && previous->summary == row.summary && previous->recipe == row.recipe) {
        // Only its metrics or notes changed: resolving and flattening again
        // would give the same.
        row.spec = previous->spec;
        row.params = previous->params;
    } else {
        row.setSpec(run.info.spec, catalogue);
    }
    return row;
}

void RunRow::setSpec(const QJsonObject &newSpec, const ModelCatalogue &catalogue)
{
    spec = newSpec;
    QJsonObject resolved = catalogue.resolve(newSpec, recipe);
    if (!reported.isEmpty()) {
        // The run's own word on what it used: the spec's values, which it
        // was given, and the script's defaults beside them.
        QJsonObject config = resolved.value(QStringLiteral("config")).toObject();
        for (auto it = reported.constBegin(); it != reported.constEnd(); ++it) {
            config.insert(it.key(), it.value());
        }
        resolved.insert(QStringLiteral("config"), config);
    }
    params.clear();
    for (const RunSpecView::Param &p : RunSpecView(resolved).flattened()) {
        if (ParamColumns::isParam(p.key)) {
            params.insert(internedKey(p.key), p.value);
        }
    }
    for (auto it = summary.constBegin(); it != summary.constEnd(); ++it) {
        params.insert(internedKey(summaryKey(it.key())),
                      std::isfinite(it.value()) ? QJsonValue(it.value()) : QJsonValue());
    }
}

QString RunRow::summaryKey(const QString &name)
{
    return QStringLiteral("summary.") + name;
}

QString RunRow::internedKey(const QString &key)
{
    // Ten thousand rows hold the same forty keys: one copy of each (rows are
    // made on the past runs' thread pool, hence the lock).
    static QMutex lock;
    static QSet<QString> keys;
    const QMutexLocker locker(&lock);
    const auto it = keys.constFind(key);
    return it != keys.constEnd() ? *it : *keys.insert(key);
}

} // namespace trainyard
