#pragma once

#include "orchestration/records/runinfo.h"
#include "orchestration/records/runnotes.h"
#include "orchestration/records/runstatus.h"

#include <QDateTime>
#include <QHash>
#include <QJsonObject>
#include <QJsonValue>
#include <QMap>
#include <QString>

namespace trainyard {

class MetricStore;
class ModelCatalogue;
struct RunRecord;

/// One row of the runs table, whether a live run of the open experiment (its
/// RunInfo and the MetricStore) or a past run (its RunRecord): what the fixed
/// columns show, and its spec resolved and flattened for the hyperparameter
/// columns.
struct RunRow
{
    QString experiment;
    QString name;
    QString model; ///< RunSpecView::kindLabel (a program run: its script)
    QString data;  ///< RunSpecView::dataSummary
    QString state; ///< status.state
    /// State, progress, lane and why it waits, as `trainyard status` prints
    /// them (the one builder, RunStatusRow); a past row's lane is empty.
    RunStatusRow status;
    qint64 step = -1;
    double loss = qQNaN();
    double mrr = qQNaN();
    double hits10 = qQNaN();
    double accuracy = qQNaN();
    QDateTime started;
    QDateTime ended;
    double trained = -1; ///< trainedSeconds() of the run, -1 while unknown or running
    QString runDir;
    RunId id = 0; ///< 0 for past runs
    RunNotes notes;
    QJsonObject spec;              ///< as spec.json holds it
    QJsonObject reported;          ///< params.json: the config the run reports it used (a program run)
    QMap<QString, double> summary; ///< a program's run.summary (RunInfo::summary)
    QString recipe;                ///< the recipe "auto" chose (RunInfo::recipe)
    /// The spec resolved with the catalogue's defaults and `reported` in
    /// "config", flattened, by key (RunSpecView::flattened), without the
    /// fixed columns' keys; and `summary` as "summary.<name>" (a NaN as
    /// null); the keys are shared by every row (internedKey).
    QHash<QString, QJsonValue> params;

    /// Live run `run` (id `id`) with its `status` (RunStatusRow::live); its
    /// evaluations are the last of the store's series (the test split's,
    /// else valid's, else train's).
    static RunRow live(RunId id, const RunInfo &run, const RunStatusRow &status, const MetricStore *metrics,
                       const QString &experiment, const RunNotes &notes, const ModelCatalogue &catalogue,
                       const QJsonObject &reported = {});
    /// Past run `run`; its evaluations are its final ones (RunRecord::finalEval).
    /// `previous`, the row it was, lends its `params` when the spec and
    /// what the run reported are the same (the catalogue must be too).
    static RunRow past(const RunRecord &run, const QString &experiment, const ModelCatalogue &catalogue,
                       const QJsonObject &reported = {}, const RunRow *previous = nullptr);
    /// Sets `spec` and resolves it with `catalogue` again (its defaults),
    /// `reported` over its "config": a program run's script defaults
    /// (trainyard.init(config=)) show as config.<name> beside the spec's.
    void setSpec(const QJsonObject &spec, const ModelCatalogue &catalogue);

    /// The column key of summary value `name`: "summary.<name>".
    static QString summaryKey(const QString &name);
    /// The one copy of a hyperparameter's key all rows share.
    static QString internedKey(const QString &key);
};

} // namespace trainyard
