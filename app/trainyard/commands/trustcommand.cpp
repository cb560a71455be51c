#include "commands/trustcommand.h"

#include "commandline.h"
#include "metrics/runfile.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/experiment/trustlist.h"

#include <QFile>
#include <QFileInfo>

#include <cstdio>

namespace trainyard {

namespace {

void print(const QString &text)
{
    std::fputs(qPrintable(text + QLatin1Char('\n')), stdout);
    std::fflush(stdout);
}

// What the file at an entry's path is now: that version, another, or gone.
QString entryState(const TrustList::Entry &entry)
{
    if (!QFileInfo::exists(entry.path)) {
        return QStringLiteral("missing");
    }
    QFile file;
    QString error;
    if (!openRegularFile(entry.path, &file, &error)) { // never blocks on a FIFO
        return QStringLiteral("unreadable: %1").arg(error);
    }
    const QByteArray bytes = file.read(16 * 1024 * 1024 + 1);
    if (Experiment::versionHash(entry.path, bytes) != entry.sha256) {
        return QStringLiteral("changed since: trainyard run asks again");
    }
    // The same bytes: the files it points at decide.
    const auto experiment = Experiment::load(entry.path, nullptr);
    QString why;
    if (experiment && !TrustList().isTrusted(*experiment, &why) && !why.isEmpty()) {
        return QStringLiteral("not trusted now: %1: trainyard run asks again").arg(why);
    }
    return QStringLiteral("this version");
}

int list(const TrustList &trust)
{
    QString error;
    const QList<TrustList::Entry> entries = trust.entries(&error);
    if (!error.isEmpty()) {
        printError(error);
        return kExitIncomplete;
    }
    if (entries.isEmpty()) {
        print(QStringLiteral("no experiment file is trusted (%1)").arg(TrustList::defaultPath()));
    }
    for (const TrustList::Entry &entry : entries) {
        print(QStringLiteral("%1  (trusted %2; %3)")
                  .arg(entry.path, entry.trustedAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")),
                       entryState(entry)));
    }
    return kExitSuccess;
}

int revoke(TrustList &trust, const QString &file)
{
    int removed = 0;
    QString error;
    if (!trust.revoke(file, &removed, &error)) {
        printError(error);
        return kExitIncomplete;
    }
    print(removed > 0
              ? QStringLiteral("%1 is no longer trusted: trainyard run asks for --trust again")
                    .arg(QFileInfo(file).absoluteFilePath())
              : QStringLiteral("%1 was not trusted: nothing to forget").arg(QFileInfo(file).absoluteFilePath()));
    return kExitSuccess;
}

} // namespace

int trustCommand(const QStringList &args)
{
    CommandLine commandLine(
        QStringLiteral("trust"),
        {QStringLiteral("trainyard trust FILE.json"), QStringLiteral("trainyard trust --list"),
         QStringLiteral("trainyard trust --revoke FILE.json")},
        QStringLiteral("Trusts this version of an experiment file to run the commands it names (program runs,\n"
                       "a cluster's worker, ssh and sbatch options), printing each: `trainyard run` and the\n"
                       "app then run it without asking. Editing or moving the file asks again, and so does\n"
                       "changing a file it points at that can run something (an ssh_config and what it\n"
                       "Includes, a local cluster's worker). Trust stops at the scripts the commands start."));
    const QCommandLineOption listOption(QStringLiteral("list"), QStringLiteral("print the trusted files"));
    const QCommandLineOption revokeOption(QStringLiteral("revoke"), QStringLiteral("forget the file named"));
    commandLine.addOption(listOption);
    commandLine.addOption(revokeOption);
    commandLine.addPositionalArgument(QStringLiteral("FILE.json"), QStringLiteral("the experiment file"),
                                      QStringLiteral("FILE.json"));
    commandLine.setNotes(QStringLiteral("Exit status: 0 done; 1 the trust list could not be read or written; 2 bad "
                                        "command line or experiment file."));
    if (const auto exit = commandLine.parse(args)) {
        return *exit;
    }
    const QCommandLineParser &parser = commandLine.parser();
    const QStringList files = parser.positionalArguments();
    TrustList trust;
    if (parser.isSet(listOption)) {
        if (!files.isEmpty() || parser.isSet(revokeOption)) {
            return usageError(QStringLiteral("--list takes no file (%1)").arg(commandLine.seeHelp()));
        }
        return list(trust);
    }
    if (files.size() != 1) {
        return usageError(QStringLiteral("trust needs exactly one experiment file (%1)").arg(commandLine.seeHelp()));
    }
    const QString file = files.first();
    if (parser.isSet(revokeOption)) {
        return revoke(trust, file);
    }

    QStringList errors;
    const auto experiment = Experiment::load(file, &errors);
    if (!experiment) {
        for (const QString &e : std::as_const(errors)) {
            printError(e);
        }
        printError(QStringLiteral("nothing was trusted"));
        return kExitBadUsage;
    }
    const QStringList commands = experiment->commandLines();
    if (commands.isEmpty()) {
        print(QStringLiteral("%1 runs no command of its own: nothing to trust (trainyard run needs no --trust)")
                  .arg(file));
        return kExitSuccess;
    }
    const bool already = trust.isTrusted(*experiment);
    QString error;
    if (!already && !trust.trust(*experiment, &error)) {
        printError(error);
        return kExitIncomplete;
    }
    print(QStringLiteral("%1 (this version) %2; it runs:\n  %3\n%4")
              .arg(file,
                   already ? QStringLiteral("was trusted already")
                           : QStringLiteral("is trusted from now on (editing or moving it, or changing a file it "
                                            "points at, asks again)"),
                   commands.join(QStringLiteral("\n  ")), TrustList::coverage(*experiment)));
    return kExitSuccess;
}

} // namespace trainyard
