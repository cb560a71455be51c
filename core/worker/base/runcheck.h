#pragma once

#include <string>

namespace trainyard {

// `trainyard-worker --check --spec FILE`: what would make the run fail
// before its first step, found without training: the spec against the
// catalogue, and a quick look at its data (the loaders' own checks on the
// files' first lines and headers). When all is well it prints nothing, or,
// for a model with recipes, one JSON line on stdout: the recipe "auto"
// chooses for the graph, and the values a run of "auto" gets ({"recipe",
// "reason", "values"}: worker/base/recipe.h; the whole graph is read for
// it). Else
// "trainyard-worker: MESSAGE" on stderr. Returns the exit status: 0, or
// 2 (ExitCode::BadInput). Needs no run folder and writes nothing.
int checkRun(const std::string &specPath);

} // namespace trainyard
