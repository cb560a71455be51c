#pragma once

#include "orchestration/launch/launcher.h"
#include "orchestration/records/runinfo.h"
#include "orchestration/runstore/runstore.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace trainyard {

class MetricsServer;
class RunRegistry;

// The state file of live runs (RunStore::writeState: the runs root's
// .trainyard-state.json) across the orchestrator's lifetimes: each live
// run's pid, token, device, command line and its launcher's handle, so a
// new session can reattach it through the launcher; and reading it back,
// with what a reattachment checks (Supervisor::reattach).
class RunStateFile
{
public:
    RunStateFile(RunStore *store, MetricsServer *server, Launcher *launcher);

    struct Live
    {
        RunId id = 0;
        bool followFile = false; // no socket: its metrics.jsonl is its channel
    };
    // Writes the active runs among `live` that the launcher holds a handle
    // for (not yet started ones are left out). No file is made for none.
    void write(const RunRegistry &runs, const QList<Live> &live) const;
    // The live workers by run name; `refusal` says why the file was not
    // believed (then empty).
    QHash<QString, RunStore::LiveWorker> read(QString *refusal) const;

    // Its launcher's handle; a file from before the launcher seam: a local process.
    static QJsonObject handle(const RunStore::LiveWorker &live);
    // What the process or job the file names must prove to be: `spec` as
    // start() would hand it over (a batch launcher submits it again on a
    // requeue), with the program and token it was started with.
    static LaunchSpec expected(LaunchSpec spec, const RunStore::LiveWorker &live);
    // Whether its metrics.jsonl is its channel again (started without a
    // socket, a batch job). A file from before follow_file: the worker's
    // command line says (a program run's never has --connect).
    static bool followsFile(const RunStore::LiveWorker &live, const RunInfo &run);
    // Reattaches run `id` of `runs` to what the file names (`live`),
    // checked against `spec` (what start() would hand over now): through
    // the launcher, then its record (pid, device, times, command, host,
    // job; quietly) and its token on the socket. Anything but Attached:
    // `why` says what was found there, and nothing changed.
    Launcher::AttachResult attach(RunRegistry *runs, RunId id, const RunStore::LiveWorker &live, const LaunchSpec &spec,
                                  QString *why);

private:
    RunStore *m_store;
    MetricsServer *m_server;
    Launcher *m_launcher;
};

} // namespace trainyard
