#pragma once

#include "launch/launcher.h"
#include "remote/remotemirror.h"
#include "remote/remotescripts.h"

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
    QString refused; // the file the host refused to read, told once

    // What the poll asks about it.
    remotescripts::PollRun pollRun(bool listCheckpoints) const;
    // The check of remotescripts::verify on it, `signal` sent only if it
    // holds ("": none), and its standard input (the token).
    remotescripts::Command verifyCommand(const QString &signal) const;
    QByteArray verifyInput() const { return spec.token.toUtf8() + '\n'; }
    // The report's bytes into the mirror (problems to `warning`); true
    // while the mirror is still behind the host's files.
    bool mirrorReport(const QString &host, const remotescripts::RunReport &report, QString *warning);
};

} // namespace trainyard
