#include "commands/exportsource.h"

#include "commandline.h"
#include "orchestration/experiment/sweepspec.h"
#include "orchestration/runstore/tensorboardrun.h"

#include <QDir>
#include <QFileInfo>

namespace trainyard {

namespace {

// Whether an entry is there at all: a file, a folder, or a link (even one
// pointing nowhere), never followed.
bool entryExists(const QString &path)
{
    const QFileInfo info(path);
    return info.isSymLink() || info.exists();
}

} // namespace

bool ExportSource::isRunFolder(const QString &dir)
{
    for (const char *file : {"metrics.jsonl", "spec.json", "status.json"}) {
        if (entryExists(dir + QLatin1Char('/') + QLatin1String(file))) {
            return true;
        }
    }
    return TensorBoardRun::isRunFolder(dir); // TensorBoard's logs, read as a run (read only)
}

QString ExportSource::where() const
{
    return kind == Kind::ExperimentFile ? QStringLiteral("of ") + path : QStringLiteral("in ") + path;
}

std::optional<ExportSource> ExportSource::open(const QString &path, int *status)
{
    const auto fail = [status](const QString &text, int code) -> std::optional<ExportSource> {
        printError(text);
        *status = code;
        return std::nullopt;
    };
    const QFileInfo info(path);
    if (!info.exists()) {
        return fail(QStringLiteral("%1: no such file or folder").arg(path), kExitBadUsage);
    }
    ExportSource source;
    source.path = path;
    if (!info.isDir()) {
        QStringList errors;
        source.experiment = Experiment::load(path, &errors);
        if (!source.experiment) {
            for (const QString &e : std::as_const(errors)) {
                printError(e);
            }
            *status = kExitBadUsage;
            return std::nullopt;
        }
        source.kind = Kind::ExperimentFile;
        source.store.setRoot(RunStore::rootFor(*source.experiment, info.absoluteFilePath()));
        source.boardRuns = source.experiment->runNames();
        source.folders = source.store.runNames(); // real folders: a link is not a run
        // Its sweeps' trials, in order, then the folders' other runs.
        for (const SweepSpec &sweep : source.experiment->sweeps) {
            for (int i = 0; i < sweep.trialCount(); ++i) {
                if (source.folders.contains(SweepSpec::trialName(sweep.name, i))) {
                    source.boardRuns << SweepSpec::trialName(sweep.name, i);
                }
            }
        }
        return source;
    }

    // The folder as named (a link the user typed is theirs to follow);
    // nothing inside it is followed.
    const QString dir = info.canonicalFilePath();
    if (isRunFolder(dir)) {
        const QString name = QFileInfo(dir).fileName();
        if (!isSafeRunName(name) && RunStore::attemptNumber(name) == 0) {
            return fail(QStringLiteral("%1: a run folder's name must be 1–100 letters, digits or ._+@- not starting "
                                       "with '.' (rename it, or export the folder that holds it)")
                            .arg(path),
                        kExitBadUsage);
        }
        source.kind = Kind::RunFolder;
        source.store.setRoot(QFileInfo(dir).absolutePath());
        source.folders = QStringList{name};
        return source;
    }
    source.kind = Kind::RunsRoot;
    source.store.setRoot(dir);
    for (const QString &name : source.store.runNames()) {
        if (isRunFolder(source.store.runDir(name))) {
            source.folders << name;
        }
    }
    if (source.folders.isEmpty()) {
        return fail(QStringLiteral("%1: neither an experiment file, a runs root nor a run folder (no metrics.jsonl, "
                                   "spec.json, status.json or TensorBoard events file in it or in a folder in it)")
                        .arg(path),
                    kExitBadUsage);
    }
    return source;
}

} // namespace trainyard
