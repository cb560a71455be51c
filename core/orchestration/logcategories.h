#pragma once

// The orchestration core's logging categories, one per area. Quiet by
// default (warnings only); turn one on with e.g.
//   QT_LOGGING_RULES="trainyard.supervisor.debug=true;trainyard.launcher.info=true"
// The desktop app's own are in ui/common/uilogcategories.h.

#include "metrics/metricslogging.h" // lcMetrics, trainyard_metrics's

#include <QLoggingCategory>

namespace trainyard {

Q_DECLARE_LOGGING_CATEGORY(lcOrchestrator) // "trainyard.orchestrator": the board replaced
Q_DECLARE_LOGGING_CATEGORY(lcDispatcher)   // "trainyard.dispatcher": which run starts where, idle
Q_DECLARE_LOGGING_CATEGORY(lcRuns)         // "trainyard.runs": run records, a state change the table refuses
Q_DECLARE_LOGGING_CATEGORY(lcSupervisor)   // "trainyard.supervisor": run states, stop escalation, reattach, shutdown
Q_DECLARE_LOGGING_CATEGORY(lcLauncher)     // "trainyard.launcher": processes (or jobs) started, signalled, attached
Q_DECLARE_LOGGING_CATEGORY(lcSlurm)        // "trainyard.slurm": sbatch, squeue, scontrol, scancel and what they said
Q_DECLARE_LOGGING_CATEGORY(lcProcess)  // "trainyard.process": programs run (commands, checks), failed starts, deadlines
Q_DECLARE_LOGGING_CATEGORY(lcRemote)   // "trainyard.remote": hosts over ssh: the master, starts, signals, polls
Q_DECLARE_LOGGING_CATEGORY(lcRunStore) // "trainyard.runstore": run folders, status.json, the state file, history
Q_DECLARE_LOGGING_CATEGORY(lcCatalogue)  // "trainyard.catalogue": the worker's catalogue, its cache
Q_DECLARE_LOGGING_CATEGORY(lcExperiment) // "trainyard.experiment": experiment files and their checks
Q_DECLARE_LOGGING_CATEGORY(lcOnEnd)      // "trainyard.onend": on_end commands run, failed, timed out
Q_DECLARE_LOGGING_CATEGORY(lcDocument)   // "trainyard.document": the open experiment's edits, a refused one

} // namespace trainyard
