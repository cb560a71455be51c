#pragma once

#include "orchestration/launch/launcher.h"
#include "orchestration/remote/remotehostconfig.h"
#include "orchestration/remote/remoterun.h"

#include <QHash>
#include <QObject>
#include <QTimer>

#include <functional>

namespace trainyard {

class SshMaster;

// The run folders of a cluster reached over ssh whose files are not
// mounted here (docs/cluster.md#without-a-shared-filesystem): each made
// there before its job is submitted (spec.json and config.json sent over
// the connection, an earlier folder holding anything kept as an attempt),
// its metrics.jsonl and worker.log mirrored into the run's folder here by
// one command for all of them each poll (remotescripts::poll), with the
// list of its checkpoints. The runs' metrics are read from the mirror as a
// batch job's are from a shared filesystem (Ingestion::follow).
class RemoteRunFolders : public QObject
{
    Q_OBJECT
public:
    explicit RemoteRunFolders(RemoteHostConfig config, QObject *parent = nullptr);
    ~RemoteRunFolders() override;

    // `spec` is this cluster's folder for the run (its runDir there, its
    // mirrorDir here): not under the runs root this machine sees.
    bool isMirrored(const LaunchSpec &spec) const { return !spec.mirrorDir.isEmpty(); }
    // The host's folders for a run whose folder here is spec.runDir.
    void prepare(LaunchSpec &spec) const;
    // Makes the folder there; `done(error)` from the event loop, error empty when made.
    void make(const LaunchSpec &spec, QObject *context, std::function<void(const QString &error)> done);
    // Mirrors `run` from now on; `syncFirst`: brought up to date first,
    // blocking (an attach, which reads the mirror next).
    void follow(RunId run, const LaunchSpec &spec, bool syncFirst = false);
    // Every byte mirrored, then `done` (the job ended: its end is read from
    // the mirror); the run is forgotten.
    void finish(RunId run, std::function<void()> done);
    void forget(RunId run) { m_runs.remove(run); }
    int commandCount() const;

private:
    void poll();

    RemoteHostConfig m_config;
    SshMaster *m_master;
    QHash<RunId, RemoteRun> m_runs;
    QHash<RunId, std::function<void()>> m_finishing;
    QTimer m_timer;
    bool m_polling = false;
};

} // namespace trainyard
