#include "commands/exportcommand.h"

#include "commandline.h"
#include "experiment/experiment.h"
#include "experiment/runspecview.h"
#include "metrics/metricscsvwriter.h"
#include "metrics/metricstore.h"
#include "protocol/metricrecord.h"
#include "runstore/runstore.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>

#include <cstdio>

namespace trainyard {

namespace {

int fail(const QString &text, int status)
{
    printError(text);
    return status;
}

// The run names of an experiment file, repeats expanded, in board order.
QStringList runNamesOf(const Experiment &experiment)
{
    QStringList names;
    for (const ExperimentLane &lane : experiment.lanes) {
        for (const ExperimentRun &run : lane.runs) {
            for (int i = 0; i < run.repeat; ++i)
                names << RunSpecView(expandRepeat(run.spec, i, run.repeat)).name();
        }
    }
    return names;
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
        QStringLiteral("export"), {QStringLiteral("trainyard export [--runs NAME,...] EXPERIMENT.json > runs.csv")},
        QStringLiteral("Writes the metrics of an experiment's runs, read from their run folders, as CSV on stdout:\n"
                       "run,step,epoch,wall,metric,value (one line per value). It only reads files, so it works\n"
                       "while the experiment trains."));
    const QCommandLineOption runsOption(
        QStringLiteral("runs"), QStringLiteral("only these runs (repeat the option or separate names by commas)"),
        QStringLiteral("NAME,..."));
    commandLine.addOption(runsOption);
    commandLine.addPositionalArgument(QStringLiteral("EXPERIMENT.json"), QStringLiteral("the experiment file"),
                                      QStringLiteral("EXPERIMENT.json"));
    commandLine.setNotes(QStringLiteral("Exit status: 0 written; 1 a run has no metrics.jsonl or the CSV could not "
                                        "be written; 2 bad command line, experiment file or run name."));
    if (const auto exit = commandLine.parse(args))
        return *exit;
    const QCommandLineParser &parser = commandLine.parser();
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1)
        return usageError(QStringLiteral("export needs exactly one experiment file (%1)").arg(commandLine.seeHelp()));
    const QString file = positional.first();

    QStringList errors;
    const auto experiment = Experiment::load(file, &errors);
    if (!experiment) {
        for (const QString &e : std::as_const(errors))
            printError(e);
        return kExitBadUsage;
    }
    const RunStore store(RunStore::rootFor(*experiment, QFileInfo(file).absoluteFilePath()));
    const QStringList boardRuns = runNamesOf(*experiment);
    const QStringList folders = store.runNames();
    auto metricsFile = [&](const QString &name) { return store.runDir(name) + QStringLiteral("/metrics.jsonl"); };

    // Which runs: the named ones, or every run of the board and every other
    // run folder of its runs root (runs taken off the board since).
    QStringList selected;
    if (parser.isSet(runsOption)) {
        for (const QString &value : parser.values(runsOption)) {
            for (const QString &part : value.split(QLatin1Char(','))) {
                const QString name = part.trimmed();
                if (name.isEmpty() || selected.contains(name))
                    continue;
                if (!boardRuns.contains(name) && !folders.contains(name))
                    return fail(QStringLiteral("%1: no run named \"%2\" (its runs: %3)")
                                    .arg(file, name, boardRuns.join(QStringLiteral(", "))),
                                2);
                if (!QFileInfo::exists(metricsFile(name)))
                    return fail(
                        QStringLiteral("%1: no such file (run \"%2\" has not started)").arg(metricsFile(name), name),
                        1);
                selected << name;
            }
        }
    } else {
        for (const QString &name : boardRuns + folders) {
            if (selected.contains(name))
                continue;
            if (QFileInfo::exists(metricsFile(name)))
                selected << name;
            else if (boardRuns.contains(name))
                printError(QStringLiteral("note: run \"%1\" has no metrics yet (%2)").arg(name, metricsFile(name)));
        }
        if (selected.isEmpty())
            return fail(QStringLiteral("%1: no run of %2 has written metrics yet").arg(store.root(), file), 1);
    }

    QFile out;
    if (!out.open(stdout, QIODevice::WriteOnly))
        return fail(QStringLiteral("cannot write to stdout: ") + out.errorString(), 1);
    MetricsCsvWriter csv(&out);
    MetricStore metrics;
    RunId id = 0;
    for (const QString &name : std::as_const(selected)) {
        ++id;
        // Through the one reader, into a store as the app keeps curves: a
        // step re-reported after a resume replaces the older point.
        const RunStore::ReadResult read =
            store.readMetrics(name, 0, [&](const MetricRecord &record) { metrics.add(id, record); });
        if (!read.error.isEmpty())
            printWarning(read.error); // a FIFO or a link in its place: refused, not waited on
        if (read.skipped + read.invalid > 0)
            printWarning(QStringLiteral("%1: %2 line(s) skipped (not valid messages)")
                             .arg(metricsFile(name))
                             .arg(read.skipped + read.invalid));
        csv.writeRun(name, metrics, id);
        metrics.removeRun(id);
    }
    if (!out.flush() || !csv.ok() || out.error() != QFileDevice::NoError)
        return fail(QStringLiteral("cannot write the CSV: ") + out.errorString(), 1);
    return 0;
}

} // namespace trainyard
