#include "guicommand.h"

#include "app/desktopapp.h"
#include "commandline.h"

#include <QString>
#include <QStringList>

#include <cstdio>

namespace trainyard {

int guiCommand(int &argc, char **argv, const std::function<void()> &commandsHelp)
{
    CommandLine commandLine(QString(),
                            {QStringLiteral("trainyard [FILE.json]"), QStringLiteral("trainyard COMMAND [options]"),
                             QStringLiteral("trainyard --version | --help")},
                            QStringLiteral("Opens the desktop app on an experiment file, or on the built-in demo.\n"
                                           "The commands run headless (no display needed); each has --help:"));
    commandLine.addPositionalArgument(QStringLiteral("file"), QStringLiteral("the experiment to open"),
                                      QStringLiteral("FILE.json"));
    QStringList args;
    for (int i = 0; i < argc; ++i)
        args << QString::fromLocal8Bit(argv[i]);
    // Help and version before the commands' helps are printed.
    if (const auto exit = commandLine.parse(args)) {
        if (*exit == kExitSuccess && commandLine.parser().isSet(QStringLiteral("help")) && commandsHelp) {
            std::fflush(stdout);
            commandsHelp();
        }
        return *exit;
    }
    const QStringList files = commandLine.parser().positionalArguments();
    if (files.size() > 1)
        return usageError(QStringLiteral("expected at most one experiment file (%1)").arg(commandLine.seeHelp()));
    return runDesktopApp(argc, argv, files.value(0));
}

} // namespace trainyard
