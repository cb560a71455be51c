#include "commands/checkcommand.h"

#include "commandline.h"
#include "commands/workercatalogue.h"
#include "orchestration/check/experimentcheck.h"
#include "orchestration/devices/deviceinventory.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/trustlist.h"
#include "orchestration/launch/workerprocess.h"
#include "orchestration/records/runinfo.h"
#include "orchestration/runstore/runstore.h"

#include <cstdio>

namespace trainyard {

namespace {

// One line of the summary per sweep: how many trials it would run, and how.
QString sweepSummary(const SweepSpec &sweep)
{
    const int trials = sweep.trialCount();
    QString text;
    if (sweep.method == QLatin1String("random")) {
        text = QStringLiteral("%1 random trial%2 (seed %3)")
                   .arg(trials)
                   .arg(trials == 1 ? QString() : QStringLiteral("s"))
                   .arg(sweep.seed);
    } else {
        QStringList factors;
        for (const SweepParameter &p : sweep.space) {
            factors << QStringLiteral("%1 %2").arg(p.gridValues().size()).arg(p.key);
        }
        text = QStringLiteral("%1 trial%2 of a grid of %3")
                   .arg(trials)
                   .arg(trials == 1 ? QString() : QStringLiteral("s"))
                   .arg(factors.join(QStringLiteral(" × ")));
    }
    QStringList lanes;
    for (int lane : sweep.lanes) {
        lanes << QString::number(lane);
    }
    text += lanes.isEmpty() ? QStringLiteral(" on every lane")
                            : QStringLiteral(" on lanes ") + lanes.join(QStringLiteral(", "));
    text += QStringLiteral(", %1 %2").arg(sweep.maximize ? QStringLiteral("maximizing") : QStringLiteral("minimizing"),
                                          sweep.objective);
    const SweepStopping &stop = sweep.stopping;
    if (stop.rule == SweepStopping::Rule::Asha) {
        text += QStringLiteral(", ASHA over %1s %2 to %3 (eta %4)")
                    .arg(stop.resource)
                    .arg(stop.min)
                    .arg(stop.max)
                    .arg(stop.eta);
    } else if (stop.rule == SweepStopping::Rule::Median) {
        text += QStringLiteral(", the median rule over %1s %2 to %3").arg(stop.resource).arg(stop.min).arg(stop.max);
    }
    return text;
}

} // namespace

int checkCommand(const QStringList &args)
{
    CommandLine commandLine(
        QStringLiteral("check"), {QStringLiteral("trainyard check [--cpu-fallback] FILE.json")},
        QStringLiteral("Checks an experiment file without starting anything: keys, types, ranges and model types\n"
                       "against the worker's catalogue, unique run names, every run's data (folders and files\n"
                       "exist, their first lines parse), the GPUs the lanes name and, for Slurm lanes, their\n"
                       "cluster (the partition, sbatch --test-only with the job's options, the worker there).\n"
                       "Every problem is reported in one pass, each with its JSON path."));
    const QCommandLineOption cpuFallbackOption(QStringLiteral("cpu-fallback"),
                                               QStringLiteral("lanes naming a missing GPU would run on the CPU"));
    commandLine.addOption(cpuFallbackOption);
    commandLine.addPositionalArgument(QStringLiteral("FILE.json"), QStringLiteral("the experiment file"),
                                      QStringLiteral("FILE.json"));
    commandLine.setNotes(QStringLiteral("Exit status: 0 no problem found; 2 problems (each on its own line) or a bad "
                                        "command line."));
    if (const auto exit = commandLine.parse(args)) {
        return *exit;
    }
    const QStringList files = commandLine.parser().positionalArguments();
    if (files.size() != 1) {
        return usageError(QStringLiteral("check needs exactly one experiment file (%1)").arg(commandLine.seeHelp()));
    }
    const QString file = files.first();

    const QString worker = WorkerProcess::findWorkerProgram();
    const std::optional<ModelCatalogue> catalogue = workerCatalogue(worker);
    QStringList problems;
    // Every problem in one pass: what could be read of a file with problems
    // (`partial`) is checked as well (data, devices, clusters).
    Experiment partial;
    const auto experiment = Experiment::load(file, &problems, catalogue ? &*catalogue : nullptr, &partial);
    const Experiment &checked = experiment ? *experiment : partial;
    QString untrustedWhy; // a file it points at that changed since it was trusted
    const bool trusted = TrustList().isTrusted(checked, &untrustedWhy);
    {
        DeviceInventory devices;
        devices.refresh();
        ExperimentCheck check(worker, &devices);
        check.setCpuFallback(commandLine.parser().isSet(cpuFallbackOption));
        check.setCatalogue(catalogue ? &*catalogue : nullptr);
        check.setTrusted(trusted);
        QStringList notes;
        for (const QString &p : check.problems(checked, &notes)) {
            problems << QStringLiteral("%1: %2").arg(file, p);
        }
        for (const QString &note : std::as_const(notes)) {
            std::fprintf(stdout, "%s: %s\n", qPrintable(file), qPrintable(note));
        }
    }
    // Not a problem of the file: what `trainyard run` will ask for, told
    // whatever else is found.
    const auto listCommands = [&] {
        // Also of a file with problems: what could be read of it.
        const QStringList commands = checked.commandLines();
        if (commands.isEmpty()) {
            return;
        }
        const QString state =
            trusted ? QStringLiteral("this version of the file is trusted")
            : untrustedWhy.isEmpty()
                ? QStringLiteral("not trusted: trainyard run needs --trust")
                : QStringLiteral("not trusted now: %1; trainyard run needs --trust").arg(untrustedWhy);
        std::fprintf(stdout, "it runs %lld command%s (%s):\n  %s\n", static_cast<long long>(commands.size()),
                     commands.size() == 1 ? "" : "s", qPrintable(state),
                     qPrintable(commands.join(QStringLiteral("\n  "))));
    };
    for (const QString &p : std::as_const(problems)) {
        printError(p);
    }
    if (!problems.isEmpty()) {
        listCommands();
        std::fprintf(stderr, "%lld problem%s found; nothing was started\n", static_cast<long long>(problems.size()),
                     problems.size() == 1 ? "" : "s");
        return kExitBadUsage;
    }
    int runs = 0;
    for (const ExperimentLane &lane : experiment->lanes) {
        for (const ExperimentRun &run : lane.runs) {
            runs += run.repeat;
        }
    }
    std::fprintf(stdout, "%s: no problem found (%d runs in %lld lanes)\n", qPrintable(file), runs,
                 static_cast<long long>(experiment->lanes.size()));
    // Not a problem either: a folder another spec trained is not this run's
    // result, and `trainyard run` starts the run as a new attempt.
    const RunStore store(RunStore::rootFor(*experiment, file));
    for (const ExperimentLane &lane : experiment->lanes) {
        for (const ExperimentRun &run : lane.runs) {
            for (int i = 0; i < run.repeat; ++i) {
                const QJsonObject spec = expandRepeat(run.spec, i, run.repeat);
                const QString name = spec.value(QStringLiteral("name")).toString();
                if (const QString other = store.attempts().otherSpec(name, spec); !other.isEmpty()) {
                    std::fprintf(stdout, "%s: %s: %s\n", qPrintable(file), qPrintable(name),
                                 qPrintable(newAttemptMessage(other, store.nextAttemptName(name))));
                }
            }
        }
    }
    for (const SweepSpec &sweep : experiment->sweeps) {
        std::fprintf(stdout, "  sweep %s: %s\n", qPrintable(sweep.name), qPrintable(sweepSummary(sweep)));
    }
    listCommands();
    return kExitSuccess;
}

} // namespace trainyard
