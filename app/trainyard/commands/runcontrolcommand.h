#pragma once

#include <QStringList>

namespace trainyard {

// `trainyard stop|pause|resume FILE.json RUN...`: asks the Trainyard that
// holds the experiment (the desktop app or `trainyard run`) to stop, pause
// or resume runs of it, as its own buttons would: that orchestrator stays
// the one owner of each run (its stop escalation, its records, its cards).
// The run is found in the runs root's state file (RunStore::readState: the
// user's own 0600 file, else refused); its token there is what the request
// carries, and the orchestrator acts only when it is the live run's own.
// No pid is signalled here. `args` is the command line from the command's
// name on; a QCoreApplication must exist. Returns 0 when every request was
// carried out, 1 when one was not (the run is not live, nothing holds the
// experiment, the orchestrator refused), 2 for a bad command line,
// experiment file or run name.
int stopCommand(const QStringList &args);
int pauseCommand(const QStringList &args);
int resumeCommand(const QStringList &args);

} // namespace trainyard
