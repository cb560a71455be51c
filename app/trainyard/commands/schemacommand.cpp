#include "commands/schemacommand.h"

#include "commandline.h"
#include "commands/workercatalogue.h"
#include "orchestration/experiment/experimentschema.h"
#include "orchestration/launch/workerprocess.h"

#include <QJsonDocument>
#include <QSaveFile>

#include <cstdio>

namespace trainyard {

int schemaCommand(const QStringList &args)
{
    CommandLine commandLine(
        QStringLiteral("schema"), {QStringLiteral("trainyard schema [-o FILE]")},
        QStringLiteral("Prints a JSON Schema (draft 2020-12) of the experiment file, for an editor's completion and\n"
                       "checking: every key, its type and what it means, with the worker's model types, data kinds\n"
                       "and their keys from its catalogue. trainyard check still checks more (unique names, the\n"
                       "devices and files a run names)."));
    const QCommandLineOption outputOption({QStringLiteral("o"), QStringLiteral("output")},
                                          QStringLiteral("write the schema to FILE instead of stdout"),
                                          QStringLiteral("FILE"));
    commandLine.addOption(outputOption);
    commandLine.setNotes(QStringLiteral(
        "Without a worker (TRAINYARD_WORKER, beside trainyard or on PATH) the model, data and section keys are\n"
        "left open. Exit status: 0 written; 1 FILE cannot be written; 2 a bad command line."));
    if (const auto exit = commandLine.parse(args)) {
        return *exit;
    }
    if (!commandLine.parser().positionalArguments().isEmpty()) {
        return usageError(QStringLiteral("schema takes no file (%1)").arg(commandLine.seeHelp()));
    }
    const QString worker = WorkerProcess::findWorkerProgram();
    if (worker.isEmpty()) {
        printWarning(QStringLiteral("trainyard-worker not found (set TRAINYARD_WORKER or install it beside "
                                    "trainyard): the schema leaves the model, data and section keys open"));
    }
    const std::optional<ModelCatalogue> catalogue = workerCatalogue(worker);
    const QByteArray bytes =
        QJsonDocument(experimentSchema(catalogue ? &*catalogue : nullptr)).toJson(QJsonDocument::Indented);
    if (!commandLine.parser().isSet(outputOption)) {
        std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
        std::fflush(stdout);
        return kExitSuccess;
    }
    const QString path = commandLine.parser().value(outputOption);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        printError(QStringLiteral("%1: cannot write: %2").arg(path, file.errorString()));
        return kExitIncomplete;
    }
    return kExitSuccess;
}

} // namespace trainyard
