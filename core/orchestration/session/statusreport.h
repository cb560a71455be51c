#pragma once

#include "orchestration/records/runstatus.h"

#include <QList>

namespace trainyard {

class Experiment;
class Orchestrator;
class RunStore;

// `trainyard status`'s lines, one per run, lane by lane in queue order.

// The open experiment's runs as its orchestrator holds them now: what the
// control socket's "status" request answers, and what the runs table's
// live rows show (RunStatusRow::live, the same builder).
QList<RunStatusRow> liveStatusReport(const Orchestrator &orchestrator);

// With no Trainyard holding the experiment: each run of the file as its
// folder tells it (its last known state), or never started; then the
// folders of runs the file no longer names (a sweep's trials, runs taken
// off the board), without a lane. Reads only.
QList<RunStatusRow> folderStatusReport(const Experiment &experiment, const RunStore &store);

} // namespace trainyard
