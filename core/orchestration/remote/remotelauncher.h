#pragma once

#include "orchestration/launch/launcher.h"
#include "orchestration/remote/remoteattachcheck.h"
#include "orchestration/remote/remotehostconfig.h"
#include "orchestration/remote/remotehostpoller.h"
#include "orchestration/remote/remoterun.h"

#include <QHash>

namespace trainyard {

class SshMaster;

// Workers on one host reached over ssh (docs/remote.md), one launcher per
// host as one SlurmLauncher per cluster. Every command goes through the
// host's master connection (SshMaster) as `sh -c SCRIPT sh ARGS...`
// (remotescripts: fixed scripts, values as quoted arguments or on standard
// input, never read as options):
//   start      the run folder made there (an earlier one holding anything
//              kept as NAME.attempt-N), spec.json sent, the worker started
//              detached (setsid, outlives the connection and the app) under
//              a sh that records its exit status; its pid and /proc start
//              time come back: started(pid).
//   metrics    live through the master's Unix-socket forward (the worker's
//              --connect is the host's end): the same protocol, token and
//              controls as a local run. Each poll (RemoteHostPoller: one
//              command for the host: nvidia-smi, every run's state and the
//              new bytes of its metrics.jsonl and worker.log) keeps the
//              local mirror (RemoteMirror) up to date; the host's
//              metrics.jsonl is the record of truth. A master that was
//              lost is opened again; the runs' files are brought up to date
//              before the forward goes on it again, so a reconnecting
//              worker's hello reads them.
//   terminate  `kill -s TERM` there, kill `kill -s KILL`, each only after
//              the process proved to be the run's (remotescripts::verify:
//              start time, owner, token in its environment, worker and
//              --run-dir).
//   exited     the recorded status (128+N: signal N), after the mirror has
//              every byte; a host whose disk is full says so (endedBecause).
//   handle     {"kind":"remote","host":NAME,"pid":P,"start_ticks":T,
//              "wrapper":W,"run_dir":DIR}
//   attach     verified as above (blocking, bounded), the mirror brought up
//              to date; a host that cannot be reached: watched unverified
//              (never signalled) until it can be.
class RemoteLauncher : public Launcher
{
    Q_OBJECT
public:
    explicit RemoteLauncher(RemoteHostConfig config, QObject *parent = nullptr);
    ~RemoteLauncher() override; // releases (kills, verified) what it still holds

    QString kind() const override { return QStringLiteral("remote"); }
    // The host's folders, worker, socket and device for the run; its
    // folder here becomes the mirror (LaunchSpec::mirrorDir).
    void prepare(LaunchSpec &spec) const override;
    void start(RunId run, const LaunchSpec &spec) override;
    void terminate(RunId run) override;
    void kill(RunId run) override;
    AttachResult attach(RunId run, const QJsonObject &handle, const LaunchSpec &expected,
                        QString *why = nullptr) override;
    QJsonObject handle(RunId run) const override;
    void detach(RunId run) override;
    void release(RunId run) override;
    QString host(RunId run) const override;
    QString unavailable(const Device &device) const override;

    const RemoteHostConfig &config() const { return m_config; }
    // Every ssh this launcher ran (commands, master checks and opens).
    int commandCount() const;
    // The master connection's process (0: none known): its cost is the app's.
    qint64 masterPid() const;
    // Polls now (tests, and after something changed).
    void pollSoon();

private:
    using Run = RemoteRun;
    void startStep(RunId run, quint64 serial, int step);
    void launched(RunId run, quint64 serial, const QByteArray &out);
    void startFailed(RunId run, quint64 serial, const QString &message);
    void signal(RunId run, const QString &name);
    void verifyUnverified();

    RemoteHostConfig m_config;
    SshMaster *m_master;
    RemoteAttachCheck m_attachCheck; // with m_config and *m_master
    QHash<RunId, Run> m_runs;
    RemoteHostPoller m_poller; // with m_config, *m_master and m_runs
    quint64 m_serial = 0;
};

} // namespace trainyard
