#pragma once

#include <string>

namespace trainyard {

// `trainyard-worker --check --spec FILE`: what would make the run fail
// before its first step, found without training: the spec against the
// catalogue, and a quick look at its data (the loaders' own checks on the
// files' first lines and headers). Prints nothing when all is well, else
// "trainyard-worker: MESSAGE" on stderr. Returns the exit status: 0, or
// 2 (ExitCode::BadInput). Needs no run folder and writes nothing.
int checkRun(const std::string &specPath);

} // namespace trainyard
