#pragma once

#include "orchestration/catalogue/modelcatalogue.h"

#include <QString>

#include <optional>

namespace trainyard {

// The catalogue the headless commands check run specs against: the worker's
// `--list-models`, from the catalogue cache when the worker has not changed.
// When the worker cannot give one, prints a warning saying so and returns
// nullopt: the commands then check structurally and each worker checks its
// own spec as its run starts. Without a worker program (empty) it returns
// nullopt silently: the command reports the missing worker itself.
std::optional<ModelCatalogue> workerCatalogue(const QString &workerProgram);

} // namespace trainyard
