#pragma once

#include "orchestration/devices/deviceinventory.h"
#include "orchestration/launch/launcher.h"
#include "orchestration/remote/remotehostconfig.h"
#include "orchestration/remote/remoterun.h"
#include "orchestration/remote/remotescripts.h"

#include <QHash>
#include <QObject>
#include <QTimer>

namespace trainyard {

class SshMaster;

// The poll of one host for its RemoteLauncher (docs/remote.md): one command
// a tick for the whole host (its GPUs, every live and verified run's state
// and the new bytes of its files), the master checked first, opened again
// when it was lost and asked less often while it stays away. The answer
// goes into the runs' mirrors; a run whose end was read once its mirror has
// every byte is taken out of `runs` and reported ended. A fresh master gets
// the metrics forward again only after the files were read, so that a
// reconnecting worker's hello finds every line it wrote meanwhile.
class RemoteHostPoller : public QObject
{
    Q_OBJECT
public:
    // `config`, `master` and `runs` are the launcher's and outlive this.
    RemoteHostPoller(const RemoteHostConfig &config, SshMaster &master, QHash<RunId, RemoteRun> &runs,
                     QObject *parent = nullptr);

    // Polls from the event loop, soon (after a start, a signal, an answer
    // still behind).
    void pollSoon();

Q_SIGNALS:
    // The master is up, right before a poll: runs attached while the host
    // was away can be verified now.
    void reached();
    // As Launcher's signals of the same names.
    void devicesReported(const QString &host, const QList<trainyard::DeviceInfo> &devices, const QString &problem);
    void endedBecause(trainyard::RunId run, const QString &why);
    void exited(trainyard::RunId run, int exitCode, int signal);

private:
    void tick();
    void polled(const QList<RunId> &ids, const QList<quint64> &serials, bool fresh, const QByteArray &out);
    bool applyReport(RunId run, RemoteRun &r, const remotescripts::RunReport &report);
    void finish(RunId run, const remotescripts::RunReport &report);

    const RemoteHostConfig &m_config;
    SshMaster &m_master;
    QHash<RunId, RemoteRun> &m_runs;
    QTimer m_timer;
    bool m_polling = false;
    int m_downPolls = 0;
};

} // namespace trainyard
