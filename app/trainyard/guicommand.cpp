#include "guicommand.h"

#include "commandline.h"

#ifdef TRAINYARD_BUILD_GUI
#include "ui/app/desktopapp.h"
#endif

#include <QLatin1String>
#include <QString>
#include <QStringList>

#include <cstdio>

namespace trainyard {

namespace {

// The one difference TRAINYARD_BUILD_GUI makes to `trainyard`: without it
// (Qt Core and Network only, e.g. a cluster's login node) the command line
// is parsed as usual, so --help lists the headless commands, but there is
// no window to open.
#ifdef TRAINYARD_BUILD_GUI
const char kWhatItOpens[] = "Opens the desktop app on an experiment file, or on the built-in demo.";

int openDesktopApp(int &argc, char **argv, const QString &file)
{
    return runDesktopApp(argc, argv, file);
}
#else
const char kWhatItOpens[] = "This build has no desktop app (built with -DTRAINYARD_BUILD_GUI=OFF).";

int openDesktopApp(int &, char **, const QString &)
{
    return usageError(QStringLiteral("this build has no desktop app (build with -DTRAINYARD_BUILD_GUI=ON for it); "
                                     "the headless commands work: see trainyard --help"));
}
#endif

} // namespace

int guiCommand(int &argc, char **argv, const std::function<void()> &commandsHelp)
{
    CommandLine commandLine(QString(),
                            {QStringLiteral("trainyard [FILE.json]"), QStringLiteral("trainyard COMMAND [options]"),
                             QStringLiteral("trainyard --version | --help")},
                            QLatin1String(kWhatItOpens)
                                + QStringLiteral("\nThe commands run headless (no display needed); each has --help:"));
    commandLine.addPositionalArgument(QStringLiteral("file"), QStringLiteral("the experiment to open"),
                                      QStringLiteral("FILE.json"));
    QStringList args;
    for (int i = 0; i < argc; ++i) {
        args << QString::fromLocal8Bit(argv[i]);
    }
    // Help and version before the commands' helps are printed.
    if (const auto exit = commandLine.parse(args)) {
        if (*exit == kExitSuccess && commandLine.parser().isSet(QStringLiteral("help")) && commandsHelp) {
            std::fflush(stdout);
            commandsHelp();
        }
        return *exit;
    }
    const QStringList files = commandLine.parser().positionalArguments();
    if (files.size() > 1) {
        return usageError(QStringLiteral("expected at most one experiment file (%1)").arg(commandLine.seeHelp()));
    }
    return openDesktopApp(argc, argv, files.value(0));
}

} // namespace trainyard
