#include "commands/probeslotscommand.h"

#include "commandline.h"
#include "commands/stopsignals.h"
#include "commands/workercatalogue.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/launch/workerprocess.h"
#include "orchestration/runspec/runspecview.h"
#include "orchestration/slots/slotadvice.h"
#include "orchestration/slots/slotprobe.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

namespace trainyard {

namespace {

QString joined(const QList<int> &levels)
{
    QStringList l;
    for (int k : levels) {
        l << QString::number(k);
    }
    return l.join(QLatin1Char(','));
}

} // namespace

int probeSlotsCommand(const QStringList &args)
{
    CommandLine commandLine(
        QStringLiteral("probe-slots"),
        {QStringLiteral("trainyard probe-slots --device DEV --spec RUN.json [--levels 1,2,4] [--steps N]")},
        QStringLiteral("Measures how many runs of RUN.json DEV should hold: trains 1, 2, 4 (--levels) copies of the\n"
                       "run spec side by side on DEV (cpu or cuda:N) for N steps each (--steps, default %1;\n"
                       "evaluation and checkpoints off) in a temporary folder, prints the total samples/s per\n"
                       "level, recommends a slot count and remembers it for the desktop app's lane headers.")
            .arg(SlotProbe::kDefaultSteps));
    const QCommandLineOption deviceOption(QStringLiteral("device"), QStringLiteral("cpu or cuda:N"),
                                          QStringLiteral("DEV"));
    const QCommandLineOption specOption(QStringLiteral("spec"), QStringLiteral("the run spec to measure"),
                                        QStringLiteral("RUN.json"));
    const QCommandLineOption levelsOption(
        QStringLiteral("levels"),
        QStringLiteral("copies side by side per level (default %1)").arg(joined(SlotProbe::defaultLevels())),
        QStringLiteral("1,2,4"));
    const QCommandLineOption stepsOption(QStringLiteral("steps"),
                                         QStringLiteral("steps each copy trains (at least 10)"), QStringLiteral("N"));
    for (const QCommandLineOption &option : {deviceOption, specOption, levelsOption, stepsOption}) {
        commandLine.addOption(option);
    }
    commandLine.setNotes(
        QStringLiteral("Exit status: 0 measured; 1 a copy failed or Ctrl-C; 2 bad arguments or spec."));
    if (const auto exit = commandLine.parse(args)) {
        return *exit;
    }
    const QCommandLineParser &options = commandLine.parser();

    const QStringList unexpected = options.positionalArguments();
    if (!unexpected.isEmpty()) {
        return usageError(
            QStringLiteral("probe-slots: unexpected argument %1 (%2)").arg(unexpected.first(), commandLine.seeHelp()));
    }
    const QString device = options.value(deviceOption);
    const QString specPath = options.value(specOption);
    QList<int> levels = SlotProbe::defaultLevels();
    if (options.isSet(levelsOption)) {
        levels.clear();
        const QStringList parts = options.value(levelsOption).split(QLatin1Char(','));
        for (const QString &part : parts) {
            bool ok = false;
            const int k = part.trimmed().toInt(&ok);
            if (!ok) {
                return usageError(QStringLiteral("--levels: \"%1\" is not an integer (expected e.g. 1,2,4)").arg(part));
            }
            levels.append(k);
        }
    }
    const auto steps = commandLine.intValue(stepsOption, 10, SlotProbe::kDefaultSteps);
    if (!steps) {
        return usageError(
            QStringLiteral("--steps: expected an integer ≥ 10, got \"%1\"").arg(options.value(stepsOption)));
    }
    if (device.isEmpty() || specPath.isEmpty()) {
        return usageError(
            QStringLiteral("probe-slots needs --device DEV and --spec RUN.json (%1)").arg(commandLine.seeHelp()));
    }

    QFile file(specPath);
    if (!file.open(QIODevice::ReadOnly)) {
        return usageError(QStringLiteral("%1: %2").arg(specPath, file.errorString()));
    }
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        return usageError(QStringLiteral("%1: not JSON at offset %2: %3")
                              .arg(specPath)
                              .arg(parseError.offset)
                              .arg(parseError.errorString()));
    }
    if (!doc.isObject()) {
        return usageError(QStringLiteral("%1: expected a run spec (a JSON object)").arg(specPath));
    }
    const QJsonObject spec = doc.object();

    // The worker's catalogue checks the spec before any copy starts; the
    // probe itself then checks structurally what it changes.
    if (const auto catalogue = workerCatalogue(WorkerProcess::findWorkerProgram())) {
        const QStringList problems = validateRunSpec(spec, QString(), true, &*catalogue);
        if (!problems.isEmpty()) {
            return usageError(QStringLiteral("probe-slots: %1: %2").arg(specPath, problems.join(QStringLiteral("; "))));
        }
    }

    SlotProbe probe;
    QString error;
    if (!probe.start(device, spec, levels, *steps, &error)) {
        return usageError(QStringLiteral("probe-slots: ") + error);
    }
    std::fprintf(stdout, "probing %s on %s: %s copies side by side, %d steps each\n",
                 qPrintable(RunSpecView(spec).modelType()), qPrintable(device), qPrintable(joined(levels)), *steps);
    std::fflush(stdout);

    QCoreApplication *app = QCoreApplication::instance();
    const auto stopSignals = handleStopSignals(app, /*hangUp=*/false, [&] { probe.cancel(); });
    if (!stopSignals) {
        return usageError(QStringLiteral("cannot create a pipe"));
    }

    int status = kExitIncomplete;
    int lastLevel = 0;
    QObject::connect(&probe, &SlotProbe::progress, app, [&](int level, int count, int percent) {
        if (level != lastLevel && percent < 100) {
            lastLevel = level;
            const int copies = levels.at(level - 1);
            std::fprintf(stdout, "level %d of %d: %d cop%s (%d%% of the probe done)\n", level, count, copies,
                         copies == 1 ? "y" : "ies", percent);
            std::fflush(stdout);
        }
    });
    QObject::connect(&probe, &SlotProbe::failed, app, [&](const QString &message) {
        printError(QStringLiteral("probe failed: ") + message);
        app->quit();
    });
    QObject::connect(&probe, &SlotProbe::cancelled, app, [&] {
        printError(QStringLiteral("probe cancelled, every copy stopped"));
        app->quit();
    });
    QObject::connect(&probe, &SlotProbe::finished, app, [&](const SlotProbeResult &result) {
        std::fprintf(stdout, "\n%8s %14s %10s\n", "copies", "samples/s", "vs 1 copy");
        for (const SlotProbeLevel &l : result.levels) {
            std::fprintf(stdout, "%8d %14.1f %9.2fx\n", l.copies, l.samplesPerSecond, l.ratio);
        }
        const QString where = result.deviceName == result.device
                                  ? result.device
                                  : QStringLiteral("%1 (%2)").arg(result.device, result.deviceName);
        std::fprintf(stdout, "recommended slots for %s on %s: %d\n", qPrintable(result.model), qPrintable(where),
                     result.recommended);
        SlotAdvice advice;
        QString storeError;
        if (advice.record(result, &storeError)) {
            std::fprintf(stdout, "remembered in %s\n", qPrintable(advice.path()));
        } else {
            printWarning(QStringLiteral("not remembered: ") + storeError);
        }
        std::fflush(stdout);
        status = kExitSuccess;
        app->quit();
    });
    app->exec();
    return status;
}

} // namespace trainyard
