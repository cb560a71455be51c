#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace trainyard::programrequires {

// A program run's `program.requires` as the file states it: a list of
// Python module names, allowed only where program.argv[0] is a Python
// interpreter. Checking that the modules are there runs the interpreter:
// ProgramRequirements (check/), above the file's model.

// Whether `program` (argv[0], a name or a path) is a Python interpreter by its
// file name: python, python3, python3.11, ...
bool isPythonInterpreter(const QString &program);
// The problems of a spec's program.requires (shape, names, interpreter);
// `programPath` prefixes them ("lanes[0].runs[1].program").
QStringList validate(const QJsonObject &program, const QString &programPath);

} // namespace trainyard::programrequires
