#pragma once

// Logging categories of the orchestration core's run machinery. Quiet by
// default (warnings only); turn one on with e.g.
//   QT_LOGGING_RULES="trainyard.supervisor.debug=true;trainyard.launcher.info=true"

#include <QLoggingCategory>

namespace trainyard {

Q_DECLARE_LOGGING_CATEGORY(lcScheduler)  // "trainyard.scheduler": the façade, board replacement
Q_DECLARE_LOGGING_CATEGORY(lcDispatcher) // "trainyard.dispatcher": which run starts where, idle
Q_DECLARE_LOGGING_CATEGORY(lcSupervisor) // "trainyard.supervisor": run states, stop escalation, reattach, shutdown
Q_DECLARE_LOGGING_CATEGORY(lcLauncher)   // "trainyard.launcher": processes (or jobs) started, signalled, attached

} // namespace trainyard
