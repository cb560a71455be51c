#include "logcategories.h"

namespace trainyard {

Q_LOGGING_CATEGORY(lcOrchestrator, "trainyard.orchestrator", QtWarningMsg)
Q_LOGGING_CATEGORY(lcDispatcher, "trainyard.dispatcher", QtWarningMsg)
Q_LOGGING_CATEGORY(lcRuns, "trainyard.runs", QtWarningMsg)
Q_LOGGING_CATEGORY(lcSupervisor, "trainyard.supervisor", QtWarningMsg)
Q_LOGGING_CATEGORY(lcLauncher, "trainyard.launcher", QtWarningMsg)
Q_LOGGING_CATEGORY(lcSlurm, "trainyard.slurm", QtWarningMsg)
Q_LOGGING_CATEGORY(lcProcess, "trainyard.process", QtWarningMsg)
Q_LOGGING_CATEGORY(lcRemote, "trainyard.remote", QtWarningMsg)
Q_LOGGING_CATEGORY(lcRunStore, "trainyard.runstore", QtWarningMsg)
Q_LOGGING_CATEGORY(lcCatalogue, "trainyard.catalogue", QtWarningMsg)
Q_LOGGING_CATEGORY(lcExperiment, "trainyard.experiment", QtWarningMsg)
Q_LOGGING_CATEGORY(lcOnEnd, "trainyard.onend", QtWarningMsg)
Q_LOGGING_CATEGORY(lcDocument, "trainyard.document", QtWarningMsg)

} // namespace trainyard
