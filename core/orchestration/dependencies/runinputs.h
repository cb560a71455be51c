#pragma once

#include "orchestration/experiment/afterreference.h"
#include "orchestration/records/runinfo.h"

#include <QJsonObject>
#include <QString>

namespace trainyard {

class Dependencies;
class MetricStore;
class RunRegistry;

// What a run gets from the runs it runs after (docs/experiment-format.md#inputs):
// each one's name, run folder, final checkpoint (the last one it reported,
// an absolute path to a regular file, else null) and summary (its state,
// last step, epoch, loss, wall and evaluations), in the order of its
// "after". A start writes them to RUN_DIR/inputs.json, which
// TRAINYARD_INPUTS names (the Python module's `run.inputs`), and puts them
// where `{after.NAME.FIELD}` asks (a program's argv, a worker run's
// train.init_from).
class RunInputs
{
public:
    RunInputs(const Dependencies *dependencies, const RunRegistry *runs, const MetricStore *metrics);

    static QString path(const QString &runDir); // RUN_DIR/inputs.json

    // {"inputs": [{"after": NAME AS WRITTEN, "name", "dir", "checkpoint",
    //  "state", "summary": {...}}, ...]}
    QJsonObject inputs(RunId id) const;
    // "NAME.dir", "NAME.checkpoint" of each run it runs after (and of a
    // name that stands for one run: rounds' last aggregate).
    afterref::Values values(RunId id) const;
    // Why `id` cannot start yet with what its predecessors left (a
    // `{after.NAME.checkpoint}` of a run without a checkpoint); empty when
    // it can.
    QString missing(RunId id) const;
    // `spec` with its train.init_from's `{after.…}` in place (a worker run's).
    QJsonObject resolvedSpec(RunId id, const QJsonObject &spec) const;
    // Writes RUN_DIR/inputs.json for `id` (a link there is replaced, not followed).
    bool write(RunId id, const QString &runDir, QString *error) const;
    // The checkpoint `run` reported, when it is a regular file of this
    // user's inside its own folder with no link on the way; else empty.
    static QString checkpointOf(const RunInfo &run);

private:
    const Dependencies *m_dependencies;
    const RunRegistry *m_runs;
    const MetricStore *m_metrics;
};

} // namespace trainyard
