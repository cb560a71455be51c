#include "commands/runcontrolcommand.h"

#include "commandline.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/ingest/metricsserver.h"
#include "orchestration/ingest/runtimedir.h"
#include "orchestration/records/runinfo.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/controlserver.h"

#include <QDir>
#include <QFileInfo>
#include <QLoggingCategory>

#include <algorithm>
#include <cstdio>

namespace trainyard {

namespace {

// Why `name` has no live run to act on, from its folder (status.json) or
// the experiment; the exit status in `status`.
QString notLive(const Experiment &experiment, const RunStore &store, const QString &file, const QString &name,
                int *status)
{
    *status = kExitIncomplete;
    RunInfo info;
    if (store.readStatus(name, &info)) {
        return QStringLiteral("%1: run \"%2\" is not running (its status.json says %3)")
            .arg(file, name, runStateName(info.state));
    }
    const QStringList names = experiment.runNames();
    if (names.contains(name) || store.runNames().contains(name)) {
        return QStringLiteral("%1: run \"%2\" is not running (it has not started, or its Trainyard has not "
                              "written it to the state file yet)")
            .arg(file, name);
    }
    *status = kExitBadUsage;
    return QStringLiteral("%1: no run named \"%2\" (its runs: %3)").arg(file, name, names.join(QStringLiteral(", ")));
}

int controlCommand(const QString &action, const QStringList &args)
{
    // The command says itself what went wrong with a file.
    QLoggingCategory::setFilterRules(QStringLiteral("trainyard.runstore.warning=false"));
    const QString verb = action == QLatin1String("stop")    ? QStringLiteral("Stops")
                         : action == QLatin1String("pause") ? QStringLiteral("Pauses")
                                                            : QStringLiteral("Resumes");
    const QString what = action == QLatin1String("stop")
                             ? QStringLiteral("Stop would (the run checkpoints and exits 4)")
                         : action == QLatin1String("pause") ? QStringLiteral("Pause would")
                                                            : QStringLiteral("Resume would (a paused run)");
    CommandLine commandLine(
        action, {QStringLiteral("trainyard %1 FILE.json RUN...").arg(action)},
        QStringLiteral("%1 runs of an experiment that the desktop app or `trainyard run` holds, by asking\n"
                       "it to, as its own %2. Each run is found in the runs root's\n"
                       "state file; the request carries the run's token from there.")
            .arg(verb, what));
    commandLine.addPositionalArgument(QStringLiteral("FILE.json"), QStringLiteral("the experiment file"),
                                      QStringLiteral("FILE.json"));
    commandLine.addPositionalArgument(QStringLiteral("RUN"), QStringLiteral("a run's name, as on the board"),
                                      QStringLiteral("RUN..."));
    commandLine.setNotes(QStringLiteral("Exit status: 0 done; 1 a run is not live, nothing holds the experiment, or "
                                        "it refused; 2 bad command line, experiment file or run name."));
    if (const auto exit = commandLine.parse(args)) {
        return *exit;
    }
    const QStringList positional = commandLine.parser().positionalArguments();
    if (positional.size() < 2) {
        return usageError(
            QStringLiteral("%1 needs an experiment file and a run's name (%2)").arg(action, commandLine.seeHelp()));
    }
    const QString file = positional.first();
    QStringList errors;
    const auto experiment = Experiment::load(file, &errors);
    if (!experiment) {
        for (const QString &e : std::as_const(errors)) {
            printError(e);
        }
        return kExitBadUsage;
    }
    const RunStore store(RunStore::rootFor(*experiment, QFileInfo(file).absoluteFilePath()));
    QString stateSocket, refusal;
    const QHash<QString, RunStore::LiveWorker> live = store.readState(&stateSocket, &refusal);
    if (!refusal.isEmpty()) {
        printError(QStringLiteral("%1: nothing was asked: %2").arg(file, refusal));
        return kExitIncomplete;
    }

    int status = kExitSuccess;
    QString controlSocket;
    for (const QString &name : positional.mid(1)) {
        int runStatus = kExitSuccess;
        if (!live.contains(name)) {
            printError(notLive(*experiment, store, file, name, &runStatus));
            status = std::max(status, runStatus);
            continue;
        }
        if (controlSocket.isEmpty()) {
            // The socket its holder wrote in the state file, else the one it
            // would listen on; asked only in a folder that is this user's
            // alone (a token is about to be sent there).
            QString why;
            const QString metricsSocket =
                !stateSocket.isEmpty() ? stateSocket : MetricsServer::defaultSocketPath(store.root(), &why);
            if (!metricsSocket.isEmpty() && QDir::isRelativePath(metricsSocket)) {
                why = QStringLiteral("the state file names a relative socket path");
            }
            if (metricsSocket.isEmpty() || QDir::isRelativePath(metricsSocket)
                || !isPrivateFolder(QFileInfo(metricsSocket).absolutePath(), &why)) {
                printError(QStringLiteral("%1: nothing was asked: %2").arg(file, why));
                return kExitIncomplete;
            }
            controlSocket = ControlServer::socketPathFor(metricsSocket);
        }
        const ControlServer::Reply reply = ControlServer::ask(controlSocket, {name, live.value(name).token, action});
        if (reply.ok) {
            std::printf("%s\n", qPrintable(reply.message));
            std::fflush(stdout);
            continue;
        }
        status = std::max(status, kExitIncomplete);
        if (reply.message.startsWith(controlSocket)) {
            printError(QStringLiteral("%1: no Trainyard holds this experiment now (%2); run \"%3\" trains on "
                                      "without one: `trainyard run %1` or opening it in the app reattaches to it")
                           .arg(file, reply.message, name));
        } else {
            printError(QStringLiteral("%1: %2").arg(file, reply.message));
        }
    }
    return status;
}

} // namespace

int stopCommand(const QStringList &args)
{
    return controlCommand(QStringLiteral("stop"), args);
}

int pauseCommand(const QStringList &args)
{
    return controlCommand(QStringLiteral("pause"), args);
}

int resumeCommand(const QStringList &args)
{
    return controlCommand(QStringLiteral("resume"), args);
}

} // namespace trainyard
