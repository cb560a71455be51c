#include "logschema.h"

namespace trainyard {

// Warnings by default: `trainyard run` prints what the user must know itself,
// so a cache rebuild or a worker run stays off the terminal unless asked for.
Q_LOGGING_CATEGORY(lcCatalogue, "trainyard.catalogue", QtWarningMsg)
Q_LOGGING_CATEGORY(lcExperiment, "trainyard.experiment", QtWarningMsg)

} // namespace trainyard
