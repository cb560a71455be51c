#pragma once

#include <QStringList>

namespace trainyard {

// `trainyard export [--runs NAME[,NAME...]] EXPERIMENT.json > runs.csv`: the
// curves of an experiment's runs, read from their run folders, as CSV
// (MetricsCsvWriter: run,step,epoch,wall,metric,value) on stdout. Needs no
// display and no open session: it only reads, so it works while the
// experiment trains. `args` start with "export" (the command's name); a
// QCoreApplication must exist. Returns the exit status: 0 written; 1 a run
// has no metrics.jsonl, or the CSV could not be written; 2 bad command line,
// experiment file or run name. `--summary` writes one row per run instead
// (run,sweep,trial,state, the spec's values, each metric's final and best):
// the runs of the lanes and the trials of the sweeps.
int exportCommand(const QStringList &args);

} // namespace trainyard
