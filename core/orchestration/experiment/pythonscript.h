#pragma once

#include <QString>
#include <QStringList>

namespace trainyard {

// The script file of a program run whose program is a Python interpreter,
// read as the interpreter reads its command line, so that an editor can say
// "train.py: no such file" before the run is queued rather than after it
// failed. Any other command is none of its business: nothing is guessed.
namespace pythonscript {

// The script `command` (program first, then its arguments) runs when its
// program is a Python interpreter by file name (python, python3,
// python3.12, pypy3, a path to one): its first argument that is not one of
// the interpreter's options (-u, -O, -W arg, -X opt, --check-hash-based-pycs
// mode, flags run together as -uB, "--" ends them). Empty when it runs no
// script file: another program, -c, -m, "-" (stdin), --help, --version, an
// option it does not know, or no argument.
QString of(const QStringList &command);

// Why `command` would fail in `cwd` (empty: the run's own folder, made new
// for the run): its Python script is not a file there. Empty when it is, or
// when the command runs no script file.
QString missing(const QStringList &command, const QString &cwd);

} // namespace pythonscript

} // namespace trainyard
