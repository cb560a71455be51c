#pragma once

// Logging categories of the metrics readers and writers and of the run
// folders (QT_LOGGING_RULES="trainyard.metrics.debug=true" shows the chatter).

#include <QLoggingCategory>

namespace trainyard {

// metrics.jsonl, worker messages as records, the CSV export.
Q_DECLARE_LOGGING_CATEGORY(lcMetrics)
// The run folders: spec.json, status.json, the state file, run history.
Q_DECLARE_LOGGING_CATEGORY(lcRunStore)

} // namespace trainyard
