#pragma once

#include "orchestration/records/runinfo.h"

#include <QString>

namespace trainyard {

// "signal 9 (SIGKILL: Killed)".
QString signalName(int signal);

// How a run ended, in words: the worker's exit status through the one table
// (protocol::exitMeaning), the signal that ended it, or that it has not ended.
QString exitText(const RunInfo &run);

} // namespace trainyard
