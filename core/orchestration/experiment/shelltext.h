#pragma once

#include <QString>
#include <QStringList>

namespace trainyard {

// How `words` read as one shell command: each word as it is when it holds
// nothing a shell would interpret, else in single quotes; a control or
// bidi character is shown as an escape ($'...'). What the trust list, the
// dry run and the run details show of a command.
QString shellText(const QStringList &words);

} // namespace trainyard
