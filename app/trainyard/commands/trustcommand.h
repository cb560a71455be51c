#pragma once

#include <QStringList>

namespace trainyard {

// `trainyard trust FILE.json`: trusts this version of an experiment file
// (TrustList) after printing every command line it runs, as the app's
// question shows them, without asking: the command line is the user's
// answer. `trainyard trust --list` prints the list; `--revoke FILE.json`
// forgets a file. `args` is the command line from the command's name on; a
// QCoreApplication must exist. Returns 0 done; 1 the list could not be
// read or written; 2 bad command line or experiment file.
int trustCommand(const QStringList &args);

} // namespace trainyard
