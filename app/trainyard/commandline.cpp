#include "commandline.h"

#include <algorithm>
#include <cstdio>

namespace trainyard {

namespace {

// Descriptions start in one column per help text, after the longest name;
// a name longer than this pushes only its own text on.
constexpr int kMaxOptionColumn = 28;

QString optionSyntax(const QCommandLineOption &option)
{
    QStringList names;
    for (const QString &name : option.names()) {
        names << (name.size() == 1 ? QStringLiteral("-") : QStringLiteral("--")) + name;
    }
    QString text = names.join(QStringLiteral(", "));
    if (!option.valueName().isEmpty()) {
        text += QLatin1Char(' ') + option.valueName();
    }
    return text;
}

QString row(const QString &left, const QString &right, int column)
{
    const QString padded = QStringLiteral("  ") + left;
    if (padded.size() + 2 > column) {
        return padded + QStringLiteral("  ") + right + QLatin1Char('\n');
    }
    return padded.leftJustified(column) + right + QLatin1Char('\n');
}

} // namespace

void printError(const QString &text)
{
    std::fprintf(stderr, "trainyard: %s\n", qPrintable(text));
}

void printWarning(const QString &text)
{
    printError(QStringLiteral("warning: ") + text);
}

int usageError(const QString &text)
{
    printError(text);
    return kExitBadUsage;
}

CommandLine::CommandLine(const QString &command, const QStringList &usage, const QString &description)
    : m_command(command)
    , m_usage(usage)
    , m_description(description)
    , m_help({QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("show this help"))
    , m_version({QStringLiteral("v"), QStringLiteral("version")}, QStringLiteral("show the version"))
{
    m_parser.addOption(m_help);
    m_parser.addOption(m_version);
}

void CommandLine::addOption(const QCommandLineOption &option)
{
    m_options << option;
    m_parser.addOption(option);
}

void CommandLine::addPositionalArgument(const QString &name, const QString &description, const QString &syntax)
{
    m_positionals.append({syntax, description});
    m_parser.addPositionalArgument(name, description, syntax);
}

QString CommandLine::seeHelp() const
{
    return m_command.isEmpty() ? QStringLiteral("see trainyard --help")
                               : QStringLiteral("see trainyard %1 --help").arg(m_command);
}

std::optional<int> CommandLine::parse(const QStringList &args)
{
    if (!m_parser.parse(args)) {
        // QCommandLineParser says "Unknown option 'x'."; ours read "trainyard: run: unknown option 'x' (...)".
        QString text = m_parser.errorText();
        if (!text.isEmpty()) {
            text[0] = text.at(0).toLower();
        }
        if (text.endsWith(QLatin1Char('.'))) {
            text.chop(1);
        }
        const QString prefix = m_command.isEmpty() ? QString() : m_command + QStringLiteral(": ");
        return usageError(QStringLiteral("%1%2 (%3)").arg(prefix, text, seeHelp()));
    }
    if (m_parser.isSet(m_help)) {
        std::fputs(qPrintable(helpText()), stdout);
        std::fflush(stdout);
        return kExitSuccess;
    }
    if (m_parser.isSet(m_version)) {
        std::printf("trainyard %s\n", TRAINYARD_VERSION);
        return kExitSuccess;
    }
    return std::nullopt;
}

QString CommandLine::helpText() const
{
    const QList<QCommandLineOption> options = m_options + QList<QCommandLineOption>{m_help, m_version};
    qsizetype widest = 0;
    for (const QCommandLineOption &option : options) {
        widest = std::max(widest, optionSyntax(option).size());
    }
    for (const auto &positional : m_positionals) {
        widest = std::max(widest, positional.first.size());
    }
    const int column = int(std::min<qsizetype>(widest + 4, kMaxOptionColumn));

    QString text;
    for (int i = 0; i < m_usage.size(); ++i) {
        text += (i == 0 ? QStringLiteral("Usage: ") : QStringLiteral("       ")) + m_usage.at(i) + QLatin1Char('\n');
    }
    if (!m_description.isEmpty()) {
        text += QLatin1Char('\n') + m_description + QLatin1Char('\n');
    }
    if (!m_positionals.isEmpty()) {
        text += QStringLiteral("\nArguments:\n");
        for (const auto &[syntax, description] : m_positionals) {
            text += row(syntax, description, column);
        }
    }
    text += QStringLiteral("\nOptions:\n");
    for (const QCommandLineOption &option : options) {
        text += row(optionSyntax(option), option.description(), column);
    }
    if (!m_notes.isEmpty()) {
        text += QLatin1Char('\n') + m_notes + QLatin1Char('\n');
    }
    return text;
}

std::optional<int> CommandLine::intValue(const QCommandLineOption &option, int min, int fallback) const
{
    if (!m_parser.isSet(option)) {
        return fallback;
    }
    bool ok = false;
    const int v = m_parser.value(option).toInt(&ok);
    if (!ok || v < min) {
        return std::nullopt;
    }
    return v;
}

} // namespace trainyard
