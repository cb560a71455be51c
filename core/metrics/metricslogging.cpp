#include "metrics/metricslogging.h"

namespace trainyard {

Q_LOGGING_CATEGORY(lcMetrics, "trainyard.metrics", QtWarningMsg)

} // namespace trainyard
