#pragma once

#include "orchestration/experiment/experiment.h"
#include "orchestration/runstore/runstore.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace trainyard {

// What `trainyard export PATH` reads, told apart by what PATH is: an
// experiment file (its board's runs and the other run folders of its runs
// root), a runs root (every run folder in it: `./trainyard-runs` of scripts
// run outside Trainyard, or an experiment's), or one run folder (a folder
// holding metrics.jsonl, spec.json or status.json). The folder named may be
// a link the user made; inside it nothing is followed (RunStore::runNames
// lists no link, every file is read with openRegularFile).
struct ExportSource
{
    enum class Kind {
        ExperimentFile,
        RunsRoot,
        RunFolder,
    };

    Kind kind = Kind::RunFolder;
    QString path;                         // as given, for messages
    std::optional<Experiment> experiment; // an experiment file's
    RunStore store;
    // The runs the experiment's board names (repeats expanded, then its
    // sweeps' trials that have a folder), in board order; empty otherwise.
    QStringList boardRuns;
    // The run folders under the store's root: every one for an experiment
    // or a runs root, the one for a run folder.
    QStringList folders;

    // Which one `path` is; nullopt after printing why it is none of them
    // (each message names the path), with the exit status in `status`.
    static std::optional<ExportSource> open(const QString &path, int *status);

    // Whether `dir` looks like a run folder: it holds metrics.jsonl,
    // spec.json or status.json (even as a link, so that one is refused
    // with its reason rather than ignored), or TensorBoard's events files
    // (TensorBoardRun: read as a run's metrics).
    static bool isRunFolder(const QString &dir);
    // What the runs are called in messages: "of EXPERIMENT.json", "in DIR".
    QString where() const;
};

} // namespace trainyard
