#pragma once

#include "orchestration/launch/launcher.h"
#include "orchestration/remote/remotehostconfig.h"

#include <QJsonObject>
#include <QString>

namespace trainyard {

class SshMaster;
struct RemoteRun;

// Whether the process a saved handle names on a host is still the run's
// (RemoteLauncher::attach): blocking and bounded, as an attach must be. The
// host is asked through its master (remotescripts::verify: start time,
// owner, the run's token in its environment, worker and --run-dir) and,
// for a run that is ours or has ended, its files are read into the mirror
// first (so an ended run's done line is here to judge it by). A host that
// cannot be reached leaves the run unverified: watched, never signalled.
class RemoteAttachCheck
{
public:
    RemoteAttachCheck(const RemoteHostConfig &config, SshMaster &master);

    // `spec` prepared (the host's folders); `run` gets what the handle
    // says and, Attached, whether it was verified.
    Launcher::AttachResult check(const QJsonObject &handle, const LaunchSpec &spec, RemoteRun *run, QString *why) const;
    // The mirror brought up to the host's files (at most 64 reads).
    bool sync(RemoteRun &run, int timeoutMs) const;

private:
    const RemoteHostConfig &m_config;
    SshMaster &m_master;
};

} // namespace trainyard
