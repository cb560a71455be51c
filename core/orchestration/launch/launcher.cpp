#include "launch/launcher.h"

#include <QRegularExpression>
#include <QSysInfo>

#include <algorithm>

namespace trainyard {

QStringList LaunchSpec::arguments() const
{
    if (isProgram())
        return programArgv.mid(1);
    QStringList args{QStringLiteral("--spec"), specPath, QStringLiteral("--run-dir"), runDir};
    if (!connect.isEmpty())
        args << QStringLiteral("--connect") << connect;
    // CUDA_VISIBLE_DEVICES leaves the worker exactly one GPU: its cuda:0.
    const bool gpu = device.startsWith(QStringLiteral("cuda:"));
    args << QStringLiteral("--device") << (gpu ? QStringLiteral("cuda:0") : QStringLiteral("cpu"));
    if (threads > 0)
        args << QStringLiteral("--threads") << QString::number(threads);
    if (resume)
        args << QStringLiteral("--resume");
    if (cpuFallback)
        args << QStringLiteral("--cpu-fallback");
    return args;
}

QStringList LaunchSpec::commandLine() const
{
    return QStringList{program} + arguments();
}

QList<std::pair<QString, QString>> LaunchSpec::environment() const
{
    QList<std::pair<QString, QString>> env;
    // The token goes in the environment, not on the command line, where
    // every local user could read it (ps, /proc/PID/cmdline).
    if (!token.isEmpty())
        env.append({QStringLiteral("TRAINYARD_TOKEN"), token});
    if (threads > 0)
        env.append({QStringLiteral("OMP_NUM_THREADS"), QString::number(threads)});
    if (!isProgram())
        return env;
    // The spec's own first: Trainyard's names are refused in a spec
    // (validateRunSpec), and would be overwritten here anyway.
    env.append(programEnv);
    if (!pythonPath.isEmpty()) {
        // `import trainyard` from a build tree; a spec's own PYTHONPATH, or
        // else the inherited one, comes after it.
        QString rest = qEnvironmentVariable("PYTHONPATH");
        for (const auto &[key, value] : programEnv)
            rest = key == QLatin1String("PYTHONPATH") ? value : rest;
        env.append({QStringLiteral("PYTHONPATH"), rest.isEmpty() ? pythonPath : pythonPath + QLatin1Char(':') + rest});
    }
    env.append({QStringLiteral("TRAINYARD_RUN_DIR"), runDir});
    env.append({QStringLiteral("TRAINYARD_RUN_NAME"), name});
    env.append({QStringLiteral("TRAINYARD_CONNECT"), connect});
    env.append({QStringLiteral("TRAINYARD_RESUME"), resume ? QStringLiteral("1") : QStringLiteral("0")});
    env.append({QStringLiteral("TRAINYARD_DEVICE"),
                device.startsWith(QStringLiteral("cuda:")) ? QStringLiteral("cuda:0") : QStringLiteral("cpu")});
    if (seed >= 0)
        env.append({QStringLiteral("TRAINYARD_SEED"), QString::number(seed)});
    return env;
}

const QStringList &LaunchSpec::runVariableNames()
{
    static const QStringList names{QStringLiteral("TRAINYARD_TOKEN"),    QStringLiteral("TRAINYARD_RUN_DIR"),
                                   QStringLiteral("TRAINYARD_RUN_NAME"), QStringLiteral("TRAINYARD_CONNECT"),
                                   QStringLiteral("TRAINYARD_RESUME"),   QStringLiteral("TRAINYARD_DEVICE"),
                                   QStringLiteral("TRAINYARD_SEED")};
    return names;
}

namespace {

// A character that could make a shown command read as another one: a
// control character (ANSI escapes, newlines) or a bidi override.
bool isDeceptive(QChar c)
{
    const char16_t u = c.unicode();
    return u < 0x20 || u == 0x7f || (u >= 0x80 && u < 0xa0) || (u >= 0x202a && u <= 0x202e)
           || (u >= 0x2066 && u <= 0x2069) || u == 0x200e || u == 0x200f;
}

} // namespace

QString shellText(const QStringList &words)
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_./:=@%+,-]+$"));
    QStringList out;
    for (const QString &word : words) {
        if (plain.match(word).hasMatch()) {
            out << word;
        } else if (std::any_of(word.begin(), word.end(), isDeceptive)) {
            // $'...' shows every such character as an escape, as bash reads it.
            QString quoted = QStringLiteral("$'");
            for (const QChar c : word) {
                if (c == QLatin1Char('\\') || c == QLatin1Char('\''))
                    quoted += QStringLiteral("\\") + c;
                else if (isDeceptive(c))
                    quoted += c.unicode() < 0x100 ? QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'))
                                                  : QStringLiteral("\\u%1").arg(c.unicode(), 4, 16, QLatin1Char('0'));
                else
                    quoted += c;
            }
            out << quoted + QLatin1Char('\'');
        } else {
            QString quoted = word;
            quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
            out << QLatin1Char('\'') + quoted + QLatin1Char('\'');
        }
    }
    return out.join(QLatin1Char(' '));
}

QString Launcher::host(RunId) const
{
    return QSysInfo::machineHostName();
}

} // namespace trainyard
