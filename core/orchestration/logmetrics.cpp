#include "logmetrics.h"

namespace trainyard {

Q_LOGGING_CATEGORY(lcMetrics, "trainyard.metrics", QtInfoMsg)
Q_LOGGING_CATEGORY(lcRunStore, "trainyard.runstore", QtInfoMsg)

} // namespace trainyard
