// Fuzz target: the experiment file parser, through Experiment::load (the
// path `trainyard run FILE` and the desktop app take). Any bytes give either
// an experiment whose every run name stays inside the runs root, or error
// messages each naming the file: never a crash or an exception.

#include "orchestration/devices/device.h"
#include "orchestration/experiment/experiment.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonObject>
#include <QTemporaryDir>

#include <cstdint>
#include <cstdlib>

namespace {

const QString &scratchFile()
{
    static QTemporaryDir *dir = new QTemporaryDir; // lives for the whole run
    static const QString path = dir->filePath(QStringLiteral("experiment.json"));
    return path;
}

void checkValid(const trainyard::Experiment &ex)
{
    int runs = 0;
    for (const auto &lane : ex.lanes) {
        if (!lane.device.isValid() || lane.slotCount < 1) {
            std::abort();
        }
        for (const auto &run : lane.runs) {
            if (run.repeat < 1) {
                std::abort();
            }
            for (int i = 0; i < run.repeat; ++i) {
                const QJsonObject spec = trainyard::expandRepeat(run.spec, i, run.repeat);
                // The run folder is ROOT/<name>: an unsafe name would leave ROOT.
                if (!trainyard::isSafeRunName(spec.value(QStringLiteral("name")).toString())) {
                    std::abort();
                }
                ++runs;
            }
        }
    }
    if (runs != ex.runCount()) {
        std::abort();
    }
    // Every key that makes something run is a command the user is asked
    // about, and no value reaches ssh or sbatch as an option.
    for (const auto &c : ex.clusters) {
        const bool runsSomething = !c.worker.isEmpty() || c.reach == QLatin1String("ssh") || !c.extraArgs.isEmpty();
        if (runsSomething && ex.commandLines().isEmpty()) {
            std::abort();
        }
        if (c.host.startsWith(QLatin1Char('-')) || c.user.startsWith(QLatin1Char('-'))) {
            std::abort();
        }
        if (c.reach == QLatin1String("ssh")
            && c.sshArguments().mid(c.sshArguments().size() - 2) != QStringList{QStringLiteral("--"), c.host}) {
            std::abort();
        }
        for (const QString &arg : c.extraArgs) {
            if (QStringLiteral("--wrap").startsWith(arg.section(QLatin1Char('='), 0, 0))) {
                std::abort();
            }
        }
    }
    // What the app saves must load again.
    QStringList errors;
    if (!trainyard::Experiment::fromJson(ex.toJson(), &errors)) {
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    static int argc = 1;
    static char name[] = "fuzz_experiment";
    static char *argv[] = {name, nullptr};
    new QCoreApplication(argc, argv);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    {
        QFile file(scratchFile());
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            std::abort();
        }
        file.write(reinterpret_cast<const char *>(data), static_cast<qint64>(size));
    }
    QStringList errors;
    const auto ex = trainyard::Experiment::load(scratchFile(), &errors);
    if (ex) {
        if (!errors.isEmpty()) {
            std::abort();
        }
        checkValid(*ex);
    } else {
        if (errors.isEmpty()) {
            std::abort(); // a refusal always says why
        }
        for (const QString &e : std::as_const(errors)) {
            if (!e.startsWith(scratchFile())) {
                std::abort();
            }
        }
    }
    return 0;
}
