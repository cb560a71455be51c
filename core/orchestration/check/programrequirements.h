#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace trainyard {

// A program run's `program.requires`: the Python modules its script
// imports (docs/experiment-format.md, "Program runs"), checked by `trainyard
// check` with the very interpreter the run would start. `requires` is only
// allowed where program.argv[0] is a Python interpreter by its file name
// (python, python3, python3.N: experiment/programrequires.h, where the
// file's `requires` is read), so what runs is known rather than guessed. The check starts argv[0] as the run would (the same
// name resolved the same way, its cwd or an empty folder standing in for
// the new run folder, its env and the trainyard module on PYTHONPATH) with
// `-c CODE MODULE...` (the names come after the code: Python never reads
// them as options), and CODE asks importlib.util.find_spec for each: the
// module is found where `import` would look, without running it.
class ProgramRequirements
{
public:
    // `spec` is one run's (a repeat's or a sweep trial's); `workerProgram`
    // places the trainyard module (WorkerProcess::findPythonModule).
    ProgramRequirements(QJsonObject spec, QString workerProgram);

    bool isEmpty() const { return m_modules.isEmpty(); }
    QStringList modules() const { return m_modules; }
    // What identifies one check: the interpreter, its cwd, env and the modules.
    QString key() const;

    // Runs the check (blocking, at most `timeoutSeconds`). Empty when every
    // module is found; otherwise the problem, starting "program.requires:"
    // or "program.argv[0]:". `note` gets which interpreter answered.
    QString check(int timeoutSeconds, QString *note) const;

private:
    QJsonObject m_spec;
    QString m_workerProgram;
    QStringList m_modules;
};

} // namespace trainyard
