#include "orchestration/experiment/pythonscript.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

namespace trainyard {

namespace pythonscript {

namespace {

bool isInterpreter(const QString &program)
{
    static const QRegularExpression name(QStringLiteral("^(python|pypy)([0-9]+(\\.[0-9]+)?)?$"));
    return name.match(QFileInfo(program).fileName()).hasMatch();
}

} // namespace

QString of(const QStringList &command)
{
    if (command.isEmpty() || !isInterpreter(command.first())) {
        return {};
    }
    for (qsizetype i = 1; i < command.size(); ++i) {
        const QString &arg = command.at(i);
        if (arg == QLatin1String("--")) {
            return command.value(i + 1); // the options end here
        }
        if (arg == QLatin1String("-")) {
            return {}; // the program comes from stdin
        }
        if (arg == QLatin1String("--check-hash-based-pycs")) {
            ++i; // and its mode
            continue;
        }
        if (arg.startsWith(QLatin1String("--"))) {
            return {}; // --help, --version, or one it does not know: no guess
        }
        if (!arg.startsWith(QLatin1Char('-'))) {
            return arg;
        }
        // Short flags, run together ("-uB"); -W and -X take the rest or the next argument.
        for (qsizetype j = 1; j < arg.size(); ++j) {
            const QChar c = arg.at(j);
            if (c == QLatin1Char('c') || c == QLatin1Char('m')) {
                return {}; // a command or a module, not a file
            }
            if (c == QLatin1Char('h') || c == QLatin1Char('V') || c == QLatin1Char('?')) {
                return {}; // help or version: runs nothing
            }
            if (c == QLatin1Char('W') || c == QLatin1Char('X')) {
                if (j == arg.size() - 1) {
                    ++i; // "-W ignore"
                }
                break; // "-Wignore"
            }
            if (!QStringLiteral("bBdEiIOPqRsStuvx").contains(c)) {
                return {}; // not an option of CPython's: no guess
            }
        }
    }
    return {};
}

QString missing(const QStringList &command, const QString &cwd)
{
    const QString script = of(command);
    if (script.isEmpty()) {
        return {};
    }
    if (QDir::isAbsolutePath(script)) {
        return QFileInfo(script).isFile() ? QString() : QStringLiteral("%1: no such file").arg(script);
    }
    if (cwd.isEmpty()) {
        return QStringLiteral("%1: no such file in the run's own folder, where a program without a folder runs (it "
                              "is made new for the run); set the folder to the one that holds %1")
            .arg(script);
    }
    return QFileInfo(QDir(cwd), script).isFile() ? QString()
                                                 : QStringLiteral("%1: no such file in %2").arg(script, cwd);
}

} // namespace pythonscript

} // namespace trainyard
