// trainyard: the desktop app (`trainyard [FILE.json]`), or one of the
// headless commands (`trainyard run ...`, `trainyard probe-slots ...`).
// This file only dispatches: each command has its own file and parses its
// own command line (QCommandLineParser, via CommandLine).

#include "commandline.h"
#include "commands/checkcommand.h"
#include "commands/exportcommand.h"
#include "commands/probeslotscommand.h"
#include "commands/runcommand.h"
#include "commands/runcontrolcommand.h"
#include "commands/schemacommand.h"
#include "commands/statuscommand.h"
#include "commands/trustcommand.h"
#include "guicommand.h"

#include <QCoreApplication>
#include <QLatin1String>
#include <QStringList>

#include <cstdio>
#include <cstring>

using namespace trainyard;

namespace {

// A headless command: `trainyard NAME ARGS...` runs `run({NAME, ARGS...})`
// under a QCoreApplication (no display) and exits with what it returns. Its
// `--help` is part of `trainyard --help`. Adding a command is one line here.
struct Command
{
    const char *name;
    int (*run)(const QStringList &args);
};

const Command kCommands[] = {
    {"run", runCommand},       {"probe-slots", probeSlotsCommand},
    {"export", exportCommand}, {"check", checkCommand},
    {"trust", trustCommand},   {"stop", stopCommand},
    {"pause", pauseCommand},   {"resume", resumeCommand},
    {"status", statusCommand}, {"schema", schemaCommand},
};

void setApplicationNames()
{
    // The same name as the desktop app, so both find the same run folders.
    QCoreApplication::setApplicationName(QStringLiteral("trainyard"));
    QCoreApplication::setApplicationVersion(QStringLiteral(TRAINYARD_VERSION));
}

// Every command's own --help, after the desktop app's.
void printCommandsHelp()
{
    int argc = 1;
    char program[] = "trainyard";
    char *argv[] = {program, nullptr};
    QCoreApplication app(argc, argv);
    setApplicationNames();
    for (const Command &command : kCommands) {
        std::fputs("\n", stdout);
        std::fflush(stdout);
        command.run({QLatin1String(command.name), QStringLiteral("--help")});
    }
}

} // namespace

int main(int argc, char **argv)
{
    if (argc > 1) {
        for (const Command &command : kCommands) {
            if (std::strcmp(argv[1], command.name) == 0) {
                QCoreApplication app(argc, argv);
                setApplicationNames();
                return command.run(QCoreApplication::arguments().mid(1));
            }
        }
    }
    return guiCommand(argc, argv, printCommandsHelp);
}
