#pragma once

#include <QStringList>

namespace trainyard {

// `trainyard export [--runs NAME[,NAME...]] PATH > runs.csv`: the curves of
// runs, read from their run folders, as CSV (MetricsCsvWriter:
// run,step,epoch,wall,metric,value) on stdout. PATH is an experiment file, a
// runs root or one run folder (ExportSource tells which). Needs no display
// and no open session: it only reads, so it works while the runs train.
// `args` start with "export" (the command's name); a QCoreApplication must
// exist. Returns the exit status: 0 written; 1 a run has no metrics.jsonl,
// or the CSV could not be written; 2 bad command line, experiment file,
// folder or run name. `--summary` writes one row per run instead
// (run,sweep,trial,state, the spec's values, each metric's final and best):
// the runs of the lanes and the trials of the sweeps. `--tensorboard DIR`
// writes TensorBoard event files instead (TensorBoardExport: one subfolder
// per run, a sweep trial's parameters for the hparams plugin).
int exportCommand(const QStringList &args);

} // namespace trainyard
