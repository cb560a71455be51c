#pragma once

#include <QStringList>

namespace trainyard {

// `trainyard probe-slots --device DEV --spec RUN.json [--levels 1,2,4]
// [--steps N]`: measures how many copies of a run spec the device should
// train side by side and remembers the advice for the desktop app (a
// QCoreApplication must exist). `args` is the command line from the
// command's name on. Returns 0 when measured, 1 when a copy failed or on
// Ctrl-C, 2 for bad arguments or a bad spec.
int probeSlotsCommand(const QStringList &args);

} // namespace trainyard
