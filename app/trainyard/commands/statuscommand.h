#pragma once

#include <QStringList>

namespace trainyard {

// `trainyard status FILE.json [--json]`: one line per run of an experiment
// (state, progress, lane, GPU(s), host or job, why it waits), as the
// runs table shows them (RunStatusRow). When a Trainyard holds the
// experiment (the desktop app or `trainyard run`) it is asked over its
// control socket ("status": read only, no token); else each run's folder
// says its last known state. Starts, signals and writes nothing. `args` is
// the command line from the command's name on; a QCoreApplication must
// exist. Returns 0 when printed, 1 when printed from the folders because
// the Trainyard that holds the experiment did not answer, 2 for a bad
// command line or experiment file.
int statusCommand(const QStringList &args);

} // namespace trainyard
