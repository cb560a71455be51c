#include "logcategories.h"

namespace trainyard {

Q_LOGGING_CATEGORY(lcScheduler, "trainyard.scheduler", QtWarningMsg)
Q_LOGGING_CATEGORY(lcDispatcher, "trainyard.dispatcher", QtWarningMsg)
Q_LOGGING_CATEGORY(lcSupervisor, "trainyard.supervisor", QtWarningMsg)
Q_LOGGING_CATEGORY(lcLauncher, "trainyard.launcher", QtWarningMsg)

} // namespace trainyard
