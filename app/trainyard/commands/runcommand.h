#pragma once

#include <QStringList>

namespace trainyard {

// `trainyard run FILE.json | --demo [options]`: trains every run of an
// experiment headless (a QCoreApplication must exist; no display needed).
// `args` is the command line from the command's name on ("run", ...).
// Returns 0 when every run finished, 1 when one did not, 2 for a bad
// command line or experiment file.
int runCommand(const QStringList &args);

} // namespace trainyard
