#pragma once

// trainyard_metrics's logging category, quiet by default (warnings only):
//   QT_LOGGING_RULES="trainyard.metrics.debug=true"
// The orchestration core's categories are in core/orchestration/logcategories.h.

#include <QLoggingCategory>

namespace trainyard {

Q_DECLARE_LOGGING_CATEGORY(lcMetrics) // "trainyard.metrics": metrics.jsonl, worker messages as records, CSV

} // namespace trainyard
