#include "orchestration/experiment/shelltext.h"

#include <QRegularExpression>

#include <algorithm>

namespace trainyard {

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
                if (c == QLatin1Char('\\') || c == QLatin1Char('\'')) {
                    quoted += QStringLiteral("\\") + c;
                } else if (isDeceptive(c)) {
                    quoted += c.unicode() < 0x100 ? QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'))
                                                  : QStringLiteral("\\u%1").arg(c.unicode(), 4, 16, QLatin1Char('0'));
                } else {
                    quoted += c;
                }
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

} // namespace trainyard
