#pragma once

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QString>
#include <QStringList>

#include <optional>

namespace trainyard {

// Exit statuses of `trainyard` and its commands (docs/experiment-format.md).
constexpr int kExitSuccess = 0;
constexpr int kExitIncomplete = 1; // a run did not finish, a probe failed or was cancelled
constexpr int kExitBadUsage = 2;   // bad command line, experiment file or run spec

// "trainyard: TEXT" on stderr.
void printError(const QString &text);
// "trainyard: warning: TEXT" on stderr.
void printWarning(const QString &text);
// printError(text), then kExitBadUsage.
int usageError(const QString &text);

// The command line of one `trainyard` command: a QCommandLineParser with
// the options every command has (-h/--help, -v/--version), the command's
// own options and positional arguments, and a help text laid out alike for
// every command (usage lines, description, options, closing notes).
class CommandLine
{
public:
    // `command` is empty for the desktop app (`trainyard [FILE.json]`).
    CommandLine(const QString &command, const QStringList &usage, const QString &description);

    void addOption(const QCommandLineOption &option);
    void addPositionalArgument(const QString &name, const QString &description, const QString &syntax);
    // Text after the options (exit statuses, what the command writes).
    void setNotes(const QString &notes) { m_notes = notes; }

    // Parses `args`, whose first element is the command's name (or the
    // program's, for the desktop app) and is skipped. Returns nullopt when
    // the command should run; otherwise the exit status, after printing the
    // help or the version (0) or a usage error naming the option (2).
    std::optional<int> parse(const QStringList &args);

    const QCommandLineParser &parser() const { return m_parser; }
    QString helpText() const;
    // "see trainyard run --help".
    QString seeHelp() const;

    // The value of `option` as an integer ≥ `min`: nullopt when it is not
    // one; `fallback` when the option is not given.
    std::optional<int> intValue(const QCommandLineOption &option, int min, int fallback) const;

private:
    QString m_command;
    QStringList m_usage;
    QString m_description;
    QString m_notes;
    QList<QCommandLineOption> m_options;
    QList<std::pair<QString, QString>> m_positionals; // syntax, description
    QCommandLineParser m_parser;
    QCommandLineOption m_help;
    QCommandLineOption m_version;
};

} // namespace trainyard
