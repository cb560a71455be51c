#pragma once

#include <QString>

namespace trainyard {

// The user's private folder for sockets (the metrics socket, the control
// socket, ssh's master connections): $XDG_RUNTIME_DIR when it is set (the
// login session's, 0700 and the user's), else TMPDIR/trainyard-UID
// (normally /tmp/trainyard-1000), made 0700 here. Qt's own fallback
// (QStandardPaths::RuntimeLocation) warns "XDG_RUNTIME_DIR not set" on
// every start; this one is silent and checks what it finds: the folder
// must be a real folder (a link is refused, never followed) owned by this
// user, and is made 0700 if group or others could enter it. Empty, with
// `error` naming the folder and why, when it is not so.
QString userRuntimeDir(QString *error = nullptr);

// Whether `dir` is a folder of this user's that only they can enter: not a
// link, owned by getuid(), no group or other permission. The check before
// a socket there is trusted (a client about to send a token to it).
bool isPrivateFolder(const QString &dir, QString *why = nullptr);

} // namespace trainyard
