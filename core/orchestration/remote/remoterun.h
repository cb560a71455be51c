#pragma once

#include "orchestration/launch/launcher.h"
#include "orchestration/remote/remotemirror.h"
#include "orchestration/remote/remotescripts.h"

#include <QString>

namespace trainyard {

// One run on a host as its RemoteLauncher holds it: what was started
// (the spec, prepared: the host's folders), the process there (pid and
// start time, the waiting sh), this machine's mirror of its files.
struct RemoteRun
{
    LaunchSpec spec;
    quint64 serial = 0;   // which start a late answer belongs to
    bool live = false;    // started: pid and start time known
    bool verified = true; // attached while the host was away: not yet proved the run's
    bool verifying = false;
    qint64 pid = 0;
    qint64 ticks = 0;
    qint64 wrapper = 0;
    RemoteMirror mirror;
    QString signalAsked; // TERM or KILL asked before it was started
    int endingPolls = 0;
    int tornPolls = 0; // polls in a row that read a file short
    int warned = 0;    // the files (1 << RemoteMirror::File) said to be links

    // What the poll asks about it.
    remotescripts::PollRun pollRun(bool listCheckpoints) const;
    // The check of remotescripts::verify on it, `signal` sent only if it
    // holds ("": none), and its standard input (the token).
    remotescripts::Command verifyCommand(const QString &signal) const;
    QByteArray verifyInput() const { return spec.token.toUtf8() + '\n'; }
    // The waiting sh verify's "ours W" proved replaces the one a saved
    // handle claimed (none proved: 0); false when the claim was not it.
    bool takeProvedWrapper(const QString &answer);
    // The report's bytes into the mirror (problems to `warning`); true
    // while the mirror is still behind the host's files. A file read short
    // (torn: it shrank meanwhile) keeps what was read and is asked again;
    // one that is a link there is never read.
    bool mirrorReport(const QString &host, const remotescripts::RunReport &report, QString *warning);
};

} // namespace trainyard
