#include "commands/statuscommand.h"

#include "commandline.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/ingest/metricsserver.h"
#include "orchestration/ingest/runtimedir.h"
#include "orchestration/records/runstatus.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/controlserver.h"
#include "orchestration/session/statusreport.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace trainyard {

namespace {

// A name or message from a file, made safe for a terminal: control and
// format characters (escape sequences, bidi overrides) written as \xNN or
// \uNNNN, never sent.
QString printable(const QString &text)
{
    QString out;
    out.reserve(text.size());
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        if (u < 0x20 || u == 0x7f || (u >= 0x80 && u < 0xa0)) {
            out += QStringLiteral("\\x%1").arg(int(u), 2, 16, QLatin1Char('0'));
        } else if (c.category() == QChar::Other_Format) {
            out += QStringLiteral("\\u%1").arg(int(u), 4, 16, QLatin1Char('0'));
        } else {
            out += c;
        }
    }
    return out;
}

// The control socket of the Trainyard that would hold the experiment: the
// one its state file names, else the one it would listen on. Empty (with
// `why` when it matters) when there is none to ask: no socket there, or a
// folder that is not this user's alone (whatever answers there could say
// anything). Creates nothing.
QString controlSocketOf(const RunStore &store, const QString &stateSocket, QString *why)
{
    QString metricsSocket = stateSocket;
    if (metricsSocket.isEmpty()) {
        const QString tmpFallback = QDir::tempPath() + QStringLiteral("/trainyard-") + QString::number(::getuid());
        if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR") && !QFileInfo::exists(tmpFallback)) {
            return {}; // its folder would be made by the one that listens
        }
        metricsSocket = MetricsServer::defaultSocketPath(store.root(), why);
    }
    if (metricsSocket.isEmpty()) {
        return {};
    }
    if (QDir::isRelativePath(metricsSocket)) {
        *why = QStringLiteral("the state file names a relative socket path");
        return {};
    }
    const QString control = ControlServer::socketPathFor(metricsSocket);
    if (!QFileInfo::exists(control)) {
        return {};
    }
    if (!isPrivateFolder(QFileInfo(control).absolutePath(), why)) {
        return {};
    }
    return control;
}

void printTable(const QList<RunStatusRow> &rows)
{
    const QStringList headers{QStringLiteral("NAME"),  QStringLiteral("STATE"), QStringLiteral("PROGRESS"),
                              QStringLiteral("LANE"),  QStringLiteral("GPUS"),  QStringLiteral("WHERE"),
                              QStringLiteral("REASON")};
    QList<QStringList> lines{headers};
    for (const RunStatusRow &row : rows) {
        QStringList cells;
        for (const QString &cell : {row.name, row.state, row.progress, row.lane, row.gpus, row.where, row.reason}) {
            cells << (cell.isEmpty() ? QStringLiteral("-") : printable(cell));
        }
        lines << cells;
    }
    QList<qsizetype> widths(headers.size(), 0);
    for (const QStringList &cells : std::as_const(lines)) {
        for (qsizetype i = 0; i < cells.size(); ++i) {
            widths[i] = std::max(widths[i], cells.at(i).size());
        }
    }
    for (const QStringList &cells : std::as_const(lines)) {
        QString text;
        for (qsizetype i = 0; i < cells.size(); ++i) {
            text += i + 1 < cells.size() ? cells.at(i).leftJustified(widths[i] + 2) : cells.at(i);
        }
        std::printf("%s\n", qPrintable(text));
    }
    std::fflush(stdout);
}

} // namespace

int statusCommand(const QStringList &args)
{
    // The command says itself what went wrong with a file.
    QLoggingCategory::setFilterRules(QStringLiteral("trainyard.runstore.warning=false"));
    CommandLine commandLine(
        QStringLiteral("status"), {QStringLiteral("trainyard status FILE.json [--json]")},
        QStringLiteral("Prints one line per run of an experiment: its state (as the runs table says it),\n"
                       "progress, lane, GPU(s), where it runs (an ssh lane's host, a batch job's id,\n"
                       "a local pid) and why it waits. When the desktop app or `trainyard run` holds\n"
                       "the experiment, it is asked; else each run's folder tells its last known\n"
                       "state. Starts, stops and writes nothing."));
    commandLine.addPositionalArgument(QStringLiteral("FILE.json"), QStringLiteral("the experiment file"),
                                      QStringLiteral("FILE.json"));
    const QCommandLineOption json(QStringLiteral("json"),
                                  QStringLiteral("print JSON: {experiment, live, runs: [one object per run]}"));
    commandLine.addOption(json);
    commandLine.setNotes(QStringLiteral("Exit status: 0 printed; 1 printed from the run folders because the "
                                        "Trainyard holding the experiment did not answer; 2 bad command line or "
                                        "experiment file."));
    if (const auto exit = commandLine.parse(args)) {
        return *exit;
    }
    const QStringList positional = commandLine.parser().positionalArguments();
    if (positional.size() != 1) {
        return usageError(QStringLiteral("status needs one experiment file (%1)").arg(commandLine.seeHelp()));
    }
    const QString file = positional.first();
    QStringList errors;
    const auto experiment = Experiment::load(file, &errors);
    if (!experiment) {
        for (const QString &e : std::as_const(errors)) {
            printError(e.startsWith(file) ? e : QStringLiteral("%1: %2").arg(file, e));
        }
        return kExitBadUsage;
    }
    const RunStore store(RunStore::rootFor(*experiment, QFileInfo(file).absoluteFilePath()));

    int status = kExitSuccess;
    QString stateSocket, refusal, why;
    store.readState(&stateSocket, &refusal); // only its socket: the tokens are not needed to ask
    const QString control = controlSocketOf(store, refusal.isEmpty() ? stateSocket : QString(), &why);
    QList<RunStatusRow> rows;
    bool live = false;
    if (!control.isEmpty()) {
        const ControlServer::Reply reply =
            ControlServer::ask(control, {QString(), QString(), QStringLiteral("status")});
        if (reply.ok) {
            live = true;
            for (const QJsonValue &run : reply.runs) {
                rows.append(RunStatusRow::fromJson(run.toObject()));
            }
        } else if (!reply.message.startsWith(control + QStringLiteral(": nothing listens"))) {
            // Something listens but did not say (a Trainyard too old to be
            // asked, or one busy past the timeout).
            printWarning(QStringLiteral("%1: the Trainyard holding it did not answer (%2); the runs' last known "
                                        "states follow, from their folders")
                             .arg(file, printable(reply.message)));
            status = kExitIncomplete;
        }
    } else if (!why.isEmpty()) {
        printWarning(QStringLiteral("%1: not asked: %2").arg(file, printable(why)));
    }
    if (!live) {
        rows = folderStatusReport(*experiment, store);
    }

    if (commandLine.parser().isSet(json)) {
        QJsonArray runs;
        for (const RunStatusRow &row : std::as_const(rows)) {
            runs.append(row.toJson());
        }
        const QJsonObject out{{QStringLiteral("experiment"), experiment->name},
                              {QStringLiteral("live"), live},
                              {QStringLiteral("runs"), runs}};
        std::fputs(QJsonDocument(out).toJson(QJsonDocument::Indented).constData(), stdout);
        std::fflush(stdout);
        return status;
    }
    printTable(rows);
    return status;
}

} // namespace trainyard
