#pragma once

#include <QStringList>

namespace trainyard {

// `trainyard check [--cpu-fallback] FILE.json`: everything that would make
// the experiment's runs fail before their first step, found without starting
// anything: the file (keys, types, ranges, model types against the worker's
// catalogue, unique names), each run's data (folders and files exist, first
// lines parse) and the lanes' GPUs. `args` is the command line from the
// command's name on; a QCoreApplication must exist. Returns 0 when all is
// well, 2 with every problem listed on stderr.
int checkCommand(const QStringList &args);

} // namespace trainyard
