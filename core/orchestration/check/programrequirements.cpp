#include "orchestration/check/programrequirements.h"

#include "orchestration/experiment/programconfig.h"
#include "orchestration/launch/launcher.h"
#include "orchestration/launch/workerprocess.h"
#include "orchestration/process/processrunner.h"
#include "orchestration/runspec/runspecview.h"

#include <QJsonArray>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTemporaryDir>

namespace trainyard {

namespace {

// Prints a marker line (what answered), then the modules not found.
const char kCode[] = "import importlib.util, sys\n"
                     "missing = []\n"
                     "for name in sys.argv[1:]:\n"
                     "    try:\n"
                     "        found = importlib.util.find_spec(name) is not None\n"
                     "    except Exception:\n"
                     "        found = False\n"
                     "    if not found:\n"
                     "        missing.append(name)\n"
                     "print('trainyard-requires', sys.executable, sys.version.split()[0], sep='\\t')\n"
                     "print('\\t'.join(missing))\n";

} // namespace

ProgramRequirements::ProgramRequirements(QJsonObject spec, QString workerProgram)
    : m_spec(std::move(spec))
    , m_workerProgram(std::move(workerProgram))
{
    for (const QJsonValue &v : RunSpecView(m_spec).program().value(QStringLiteral("requires")).toArray()) {
        m_modules << v.toString();
    }
}

QString ProgramRequirements::key() const
{
    const RunSpecView view(m_spec);
    QStringList parts{programconfig::command(view).value(0), view.programCwd()};
    for (const auto &[name, value] : view.programEnv()) {
        parts << name + QLatin1Char('=') + value;
    }
    return (parts + m_modules).join(QChar(0));
}

QString ProgramRequirements::check(int timeoutSeconds, QString *note) const
{
    const RunSpecView view(m_spec);
    // As Supervisor::launchSpec builds it for a start: the same program,
    // cwd and environment (LaunchSpec::environment: the spec's env, the
    // module's folder on PYTHONPATH, the run's variables).
    LaunchSpec launch;
    launch.name = view.name();
    launch.programArgv = programconfig::command(view);
    launch.program = launch.programArgv.value(0);
    launch.programEnv = view.programEnv();
    launch.pythonPath = WorkerProcess::findPythonModule(m_workerProgram);
    QTemporaryDir runDir; // an empty folder: what a new run's folder holds
    launch.runDir = runDir.path();
    const QString cwd = view.programCwd().isEmpty() ? runDir.path() : view.programCwd();

    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const auto &[name, value] : launch.environment()) {
        env.insert(name, value);
    }
    const QString program = launch.program;
    const ProcessResult result = Process::runNow(
        {program, QStringList{QStringLiteral("-c"), QString::fromLatin1(kCode)} + m_modules, {}, env, cwd},
        timeoutSeconds * 1000);
    if (!result.started) {
        return QStringLiteral("program.argv[0]: %1 could not be started to check program.requires: %2")
            .arg(program, result.errorString);
    }
    if (result.timedOut) {
        return QStringLiteral("program.requires: %1 did not answer within %2 s").arg(program).arg(timeoutSeconds);
    }
    const QList<QByteArray> lines = result.out.split('\n');
    const QList<QByteArray> marker = lines.value(0).split('\t');
    if (!result.ok() || marker.size() != 3 || marker.at(0) != "trainyard-requires") {
        const QString err = QString::fromLocal8Bit(result.err).trimmed().section(QLatin1Char('\n'), -1);
        return QStringLiteral("program.requires: %1 did not answer as a Python interpreter%2")
            .arg(program, err.isEmpty() ? QString() : QStringLiteral(" (") + err + QLatin1Char(')'));
    }
    const QString interpreter =
        QStringLiteral("%1 (%2, Python %3)")
            .arg(program, QString::fromLocal8Bit(marker.at(1)), QString::fromLatin1(marker.at(2)));
    const QString missingLine = QString::fromUtf8(lines.value(1)).trimmed();
    const QStringList missing = missingLine.isEmpty() ? QStringList() : missingLine.split(QLatin1Char('\t'));
    if (note) {
        *note = QStringLiteral("program: %1 finds %2").arg(interpreter, m_modules.join(QStringLiteral(", ")));
    }
    if (missing.isEmpty()) {
        return {};
    }
    if (note) {
        note->clear();
    }
    return QStringLiteral("program.requires: %1 cannot import %2 (install %3 for that interpreter, or name another "
                          "one in program.argv[0])")
        .arg(interpreter, missing.join(QStringLiteral(", ")),
             missing.size() == 1 ? QStringLiteral("it") : QStringLiteral("them"));
}

} // namespace trainyard
