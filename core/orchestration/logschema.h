#pragma once

#include <QLoggingCategory>

namespace trainyard {

// Logging categories of the run-spec schema: where the worker's catalogue
// comes from (cache hits, worker runs, stale or corrupt cache files) and how
// experiment files are checked against it. Enable with
// QT_LOGGING_RULES="trainyard.catalogue.debug=true;trainyard.experiment.debug=true".
Q_DECLARE_LOGGING_CATEGORY(lcCatalogue)  // "trainyard.catalogue"
Q_DECLARE_LOGGING_CATEGORY(lcExperiment) // "trainyard.experiment"

} // namespace trainyard
