#include "commands/exportcommand.h"

#include "commandline.h"
#include "commands/exportsource.h"
#include "metrics/metricscsvwriter.h"
#include "metrics/metricstore.h"
#include "metrics/runfile.h"
#include "orchestration/catalogue/modelcatalogue.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/sweepspec.h"
#include "orchestration/launch/workerprocess.h"
#include "orchestration/records/applyrecord.h"
#include "orchestration/runspec/runspecview.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/runstore/tensorboardexport.h"
#include "orchestration/runstore/tensorboardrun.h"
#include "orchestration/sweep/trialparameters.h"
#include "protocol/metricrecord.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QLocale>
#include <QLoggingCategory>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace trainyard {

namespace {

int fail(const QString &text, int status)
{
    printError(text);
    return status;
}

// Which run folders are sweeps' trials, a damaged state file named.
QHash<QString, TrialOf> trialsOf(const Experiment &experiment, const QString &root)
{
    QStringList warnings;
    const QHash<QString, TrialOf> trials = TrialParameters::trialsOf(experiment, root, &warnings);
    for (const QString &warning : warnings) {
        printWarning(warning);
    }
    return trials;
}

QByteArray number(double value)
{
    return std::isnan(value) ? QByteArray() : QByteArray::number(value, 'g', QLocale::FloatingPointShortest);
}

// Whether a metric's best value is its lowest: losses and errors.
bool lowerIsBetter(const QString &metric)
{
    const QString last = metric.section(QLatin1Char('/'), -1).toLower();
    return last.contains(QStringLiteral("loss")) || last.contains(QStringLiteral("error"))
           || last == QStringLiteral("mse") || last == QStringLiteral("mae") || last == QStringLiteral("rmse")
           || last == QStringLiteral("nll") || last == QStringLiteral("perplexity");
}

// `--summary`: one row per run: run,sweep,trial,state, its spec's values
// flattened (RunSpecView), then each metric's final and best value (a
// sweep's objective by its mode, losses and errors lowest, else highest).
//
// A key the spec leaves out (a new run's model.dim, train.lr, ... under
// model.recipe "auto") is the value the run trained with, as the runs
// table and Compare show it: the spec resolved by the worker's catalogue
// with the recipe the run's log named (applyRecord reads it, as for them).
bool writeSummary(const Experiment &experiment, const RunStore &store, const QStringList &selected,
                  const ModelCatalogue *catalogue, QFile &out)
{
    const QHash<QString, TrialOf> trials = trialsOf(experiment, store.root());
    QHash<QString, bool> minimized; // the sweeps' objectives
    for (const SweepSpec &sweep : experiment.sweeps) {
        minimized.insert(sweep.objective, !sweep.maximize);
    }
    struct Row
    {
        QByteArray run, sweep, trial, state;
        QHash<QString, QString> params;
        QHash<QString, QPair<double, double>> metrics; // final, best
    };
    QList<Row> rows;
    QStringList paramKeys, metricNames;
    MetricStore metrics;
    for (const QString &name : selected) {
        Row row;
        row.run = MetricsCsvWriter::field(name);
        const TrialOf trial = trials.value(name);
        row.sweep = MetricsCsvWriter::field(trial.sweep);
        row.trial = trial.trial > 0 ? QByteArray::number(trial.trial) : QByteArray();
        // A FIFO or a link in place of status.json or spec.json is refused
        // by the store (never waited on, never followed): said here, as the
        // library's own warnings are off.
        for (const QString &file : {QStringLiteral("status.json"), QStringLiteral("spec.json")}) {
            QFile probe;
            QString why;
            if (!openRegularFile(store.runDir(name) + QLatin1Char('/') + file, &probe, &why) && !why.isEmpty()) {
                printWarning(why + QStringLiteral(": not read"));
            }
        }
        RunInfo info;
        const bool hasStatus = store.readStatus(name, &info);
        row.state = !hasStatus                                        ? QByteArray("unknown")
                    : trial.paused && info.state == RunState::Stopped ? QByteArray("stopped (promotable)")
                                                                      : runStateName(info.state).toUtf8();
        RunInfo reported; // what its log lines say of it: the recipe "auto" chose
        const RunStore::ReadResult read = store.readMetrics(name, 0, [&](const MetricRecord &record) {
            metrics.add(1, record);
            applyRecord(reported, record);
        });
        const QJsonObject spec = store.readSpec(name);
        for (const RunSpecView::Param &p :
             RunSpecView(catalogue ? catalogue->resolve(spec, reported.recipe) : spec).flattened()) {
            if (p.key == QStringLiteral("name")) {
                continue;
            }
            if (!paramKeys.contains(p.key)) {
                paramKeys << p.key;
            }
            row.params.insert(p.key, RunSpecView::valueText(p.value));
        }
        if (!read.error.isEmpty()) {
            printWarning(read.error);
        }
        for (const QString &metric : metrics.metricNames(1)) {
            if (metric == QStringLiteral("epoch") || metric.endsWith(QStringLiteral("/epoch"))) {
                continue; // the resource, not a result
            }
            const MetricSeries *series = metrics.series(1, metric);
            if (!series || series->isEmpty()) {
                continue;
            }
            const bool low = minimized.contains(metric) ? minimized.value(metric) : lowerIsBetter(metric);
            double best = qQNaN();
            for (std::size_t i = 0; i < series->size(); ++i) {
                const double v = series->value(i);
                if (!std::isnan(v) && (std::isnan(best) || (low ? v < best : v > best))) {
                    best = v;
                }
            }
            if (!metricNames.contains(metric)) {
                metricNames << metric;
            }
            row.metrics.insert(metric, {series->lastValue(), best});
        }
        metrics.removeRun(1);
        rows << row;
    }
    std::sort(metricNames.begin(), metricNames.end());
    QByteArray text = "run,sweep,trial,state";
    for (const QString &key : std::as_const(paramKeys)) {
        text += ',' + MetricsCsvWriter::field(key);
    }
    for (const QString &metric : std::as_const(metricNames)) {
        text += ',' + MetricsCsvWriter::field(metric + QStringLiteral(":final")) + ','
                + MetricsCsvWriter::field(metric + QStringLiteral(":best"));
    }
    text += '\n';
    for (const Row &row : std::as_const(rows)) {
        text += row.run + ',' + row.sweep + ',' + row.trial + ',' + row.state;
        for (const QString &key : std::as_const(paramKeys)) {
            text += ',' + (row.params.contains(key) ? MetricsCsvWriter::field(row.params.value(key)) : QByteArray());
        }
        for (const QString &metric : std::as_const(metricNames)) {
            const auto it = row.metrics.constFind(metric);
            text +=
                ',' + (it != row.metrics.constEnd() ? number(it->first) + ',' + number(it->second) : QByteArray(","));
        }
        text += '\n';
    }
    return out.write(text) == text.size() && out.flush();
}

// The worker's catalogue when a run of `selected` is a model's (a
// program's spec is all there is); else, or when there is no worker,
// nothing, said once.
std::optional<ModelCatalogue> summaryCatalogue(const RunStore &store, const QStringList &selected)
{
    const bool models = std::any_of(selected.begin(), selected.end(), [&](const QString &name) {
        const RunSpecView view(store.readSpec(name));
        return !view.isProgram() && !view.modelType().isEmpty();
    });
    if (!models) {
        return std::nullopt;
    }
    const QString worker = WorkerProcess::findWorkerProgram();
    QString error = QStringLiteral("no trainyard-worker found (set TRAINYARD_WORKER)");
    std::optional<ModelCatalogue> catalogue;
    if (!worker.isEmpty()) {
        ModelCatalogueLoader loader;
        catalogue = loader.loadBlocking(worker, &error);
    }
    if (!catalogue) {
        printWarning(
            QStringLiteral("%1: the keys a run's spec leaves to its recipe or the defaults are left empty").arg(error));
    }
    return catalogue;
}

// A sweep trial's parameters, for TensorBoard's hparams plugin (none for a
// runs root or a run folder: no sweep says which keys it searched).
QHash<QString, TrialParameters::Values> trialHParams(const ExportSource &source, const QStringList &selected)
{
    if (!source.experiment) {
        return {};
    }
    QStringList warnings;
    const auto values = TrialParameters::searched(*source.experiment, source.store, selected, &warnings);
    for (const QString &warning : warnings) {
        printWarning(warning);
    }
    return values;
}

// `--tensorboard DIR`: each run as a TensorBoard run under `dir`, refused
// as a whole before anything is written when a run's subfolder holds files.
int writeTensorBoard(const ExportSource &source, const QStringList &selected, const QString &dir)
{
    const QString refusal = TensorBoardExport::refusal(dir, selected);
    if (!refusal.isEmpty()) {
        return fail(refusal, 1);
    }
    const QHash<QString, TrialParameters::Values> hparams = trialHParams(source, selected);
    for (const QString &name : selected) {
        const TensorBoardExport::Result result =
            TensorBoardExport::writeRun(source.store, name, dir, hparams.value(name));
        if (!result.warning.isEmpty()) {
            printWarning(result.warning);
        }
        if (!result.ok) {
            return fail(result.error, 1);
        }
        printError(QStringLiteral("wrote %1 (%2 values)").arg(result.file).arg(result.scalars));
    }
    return 0;
}

} // namespace

int exportCommand(const QStringList &args)
{
    QCoreApplication::setApplicationName(QStringLiteral("trainyard")); // the default runs root depends on it
    // The command says itself what went wrong with a file, in its own words;
    // QT_LOGGING_RULES still turns the library's messages back on.
    QLoggingCategory::setFilterRules(
        QStringLiteral("trainyard.metrics.warning=false\ntrainyard.runstore.warning=false"));

    CommandLine commandLine(
        QStringLiteral("export"),
        {QStringLiteral("trainyard export [--runs NAME,...] EXPERIMENT.json | RUNS_ROOT | RUN_FOLDER > runs.csv"),
         QStringLiteral("trainyard export --summary [--runs NAME,...] EXPERIMENT.json | RUNS_ROOT | RUN_FOLDER > "
                        "summary.csv"),
         QStringLiteral("trainyard export --tensorboard DIR [--runs NAME,...] EXPERIMENT.json | RUNS_ROOT | "
                        "RUN_FOLDER")},
        QStringLiteral("Writes the metrics of runs, read from their run folders, as CSV on stdout:\n"
                       "run,step,epoch,wall,metric,value (one line per value). It reads an experiment's runs, every\n"
                       "run folder of a runs root (such as ./trainyard-runs of scripts run without Trainyard), or\n"
                       "one run folder; TensorBoard's logs (events.out.tfevents.* files) are read as run folders.\n"
                       "It only reads files, so it works while the runs train."));
    const QCommandLineOption runsOption(
        QStringLiteral("runs"), QStringLiteral("only these runs (repeat the option or separate names by commas)"),
        QStringLiteral("NAME,..."));
    commandLine.addOption(runsOption);
    const QCommandLineOption summaryOption(
        QStringLiteral("summary"),
        QStringLiteral("one row per run instead: run,sweep,trial,state, its parameters, each metric's final and best"));
    commandLine.addOption(summaryOption);
    const QCommandLineOption tensorBoardOption(
        QStringLiteral("tensorboard"),
        QStringLiteral("write TensorBoard event files instead: one subfolder of DIR per run (never into one that "
                       "holds files)"),
        QStringLiteral("DIR"));
    commandLine.addOption(tensorBoardOption);
    commandLine.addPositionalArgument(QStringLiteral("PATH"),
                                      QStringLiteral("an experiment file, a runs root or a run folder"),
                                      QStringLiteral("PATH"));
    commandLine.setNotes(
        QStringLiteral("With --tensorboard, each value is at its step and at the run's start (status.json's "
                       "\"started\") plus its\nwall seconds; a run's subfolder that already holds files is "
                       "refused and nothing is written.\n"
                       "Exit status: 0 written; 1 a run has no metrics.jsonl, or the CSV or the event files could "
                       "not be written; 2 bad command line, experiment file, folder or run name."));
    if (const auto exit = commandLine.parse(args)) {
        return *exit;
    }
    const QCommandLineParser &parser = commandLine.parser();
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1) {
        return usageError(QStringLiteral("export needs exactly one experiment file, runs root or run folder (%1)")
                              .arg(commandLine.seeHelp()));
    }
    if (parser.isSet(summaryOption) && parser.isSet(tensorBoardOption)) {
        return usageError(
            QStringLiteral("export takes --summary or --tensorboard, not both (%1)").arg(commandLine.seeHelp()));
    }
    if (parser.isSet(tensorBoardOption) && parser.value(tensorBoardOption).isEmpty()) {
        return usageError(QStringLiteral("--tensorboard needs a folder (%1)").arg(commandLine.seeHelp()));
    }
    int status = 0;
    const std::optional<ExportSource> source = ExportSource::open(positional.first(), &status);
    if (!source) {
        return status;
    }
    const RunStore &store = source->store;
    const QStringList &boardRuns = source->boardRuns;
    const QStringList &folders = source->folders;
    auto metricsFile = [&](const QString &name) { return store.runDir(name) + QStringLiteral("/metrics.jsonl"); };
    auto hasMetrics = [&](const QString &name) {
        const QFileInfo info(metricsFile(name));
        // A link is refused when read, saying so; TensorBoard's logs are read as metrics.
        return info.isSymLink() || info.exists() || TensorBoardRun::isRunFolder(store.runDir(name));
    };

    // Which runs: the named ones, or every run of the board and every other
    // run folder (of an experiment: runs taken off the board since).
    QStringList selected;
    if (parser.isSet(runsOption)) {
        for (const QString &value : parser.values(runsOption)) {
            for (const QString &part : value.split(QLatin1Char(','))) {
                const QString name = part.trimmed();
                if (name.isEmpty() || selected.contains(name)) {
                    continue;
                }
                if (!boardRuns.contains(name) && !folders.contains(name)) {
                    QStringList known = boardRuns;
                    for (const QString &folder : folders) {
                        if (!known.contains(folder)) {
                            known << folder;
                        }
                    }
                    return fail(QStringLiteral("%1: no run named \"%2\" (its runs: %3)")
                                    .arg(source->path, name, known.join(QStringLiteral(", "))),
                                2);
                }
                if (!hasMetrics(name)) {
                    return fail(
                        QStringLiteral("%1: no such file (run \"%2\" has not started)").arg(metricsFile(name), name),
                        1);
                }
                selected << name;
            }
        }
    } else {
        QStringList noted; // each run's note once, though it is on the board and has a folder
        for (const QString &name : boardRuns + folders) {
            if (selected.contains(name) || noted.contains(name)) {
                continue;
            }
            if (hasMetrics(name)) {
                selected << name;
            } else if (source->kind != ExportSource::Kind::RunFolder) { // its own failure says it
                noted << name;
                printError(QStringLiteral("note: run \"%1\" has no metrics yet (%2)").arg(name, metricsFile(name)));
            }
        }
        if (selected.isEmpty()) {
            return fail(
                source->kind == ExportSource::Kind::RunFolder
                    ? QStringLiteral("%1: the run has written no metrics yet").arg(source->path)
                    : QStringLiteral("%1: no run %2 has written metrics yet").arg(store.root(), source->where()),
                1);
        }
    }

    if (parser.isSet(tensorBoardOption)) {
        return writeTensorBoard(*source, selected, parser.value(tensorBoardOption));
    }
    QFile out;
    if (!out.open(stdout, QIODevice::WriteOnly)) {
        return fail(QStringLiteral("cannot write to stdout: ") + out.errorString(), 1);
    }
    if (parser.isSet(summaryOption)) {
        const std::optional<ModelCatalogue> catalogue = summaryCatalogue(store, selected);
        return writeSummary(source->experiment.value_or(Experiment()), store, selected,
                            catalogue ? &*catalogue : nullptr, out)
                   ? 0
                   : fail(QStringLiteral("cannot write the CSV: ") + out.errorString(), 1);
    }
    MetricsCsvWriter csv(&out);
    MetricStore metrics;
    RunId id = 0;
    for (const QString &name : std::as_const(selected)) {
        ++id;
        // Through the one reader, into a store as the app keeps curves: a
        // step re-reported after a resume replaces the older point.
        const RunStore::ReadResult read =
            store.readMetrics(name, 0, [&](const MetricRecord &record) { metrics.add(id, record); });
        if (!read.error.isEmpty() && source->kind == ExportSource::Kind::RunFolder) {
            return fail(read.error, 1); // the one run asked for cannot be read
        }
        if (!read.error.isEmpty()) {
            printWarning(read.error); // a FIFO or a link in its place: refused, not waited on
        }
        if (read.skipped + read.invalid > 0) {
            printWarning(QStringLiteral("%1: %2 line(s) skipped (not valid messages)")
                             .arg(metricsFile(name))
                             .arg(read.skipped + read.invalid));
        }
        csv.writeRun(name, metrics, id);
        metrics.removeRun(id);
    }
    if (!out.flush() || !csv.ok() || out.error() != QFileDevice::NoError) {
        return fail(QStringLiteral("cannot write the CSV: ") + out.errorString(), 1);
    }
    return 0;
}

} // namespace trainyard
