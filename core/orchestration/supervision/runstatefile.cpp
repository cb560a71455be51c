#include "orchestration/supervision/runstatefile.h"

#include "orchestration/ingest/metricsserver.h"
#include "orchestration/logcategories.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runspec/runspecview.h"

#include <QFile>

namespace trainyard {

RunStateFile::RunStateFile(RunStore *store, MetricsServer *server, Launcher *launcher)
    : m_store(store)
    , m_server(server)
    , m_launcher(launcher)
{
}

void RunStateFile::write(const RunRegistry &runs, const QList<Live> &live) const
{
    if (m_store->root().isEmpty()) {
        return;
    }
    QHash<QString, RunStore::LiveWorker> workers;
    for (const Live &l : live) {
        const RunInfo *r = runs.find(l.id);
        if (!r || !isActive(r->state)) {
            continue;
        }
        const QJsonObject handle = m_launcher->handle(l.id);
        if (handle.isEmpty()) {
            continue; // not started yet
        }
        RunStore::LiveWorker w;
        w.pid = r->pid;
        w.token = m_server->token(l.id);
        w.device = r->device;
        // A pid of this machine's (a host's run keeps its own in its handle).
        w.startTicks = r->pid > 0 && r->device.isLocal() ? RunStore::processStartTicks(r->pid) : 0;
        w.started = r->started;
        w.launcher = handle;
        w.command = r->command;
        w.followFile = l.followFile;
        workers.insert(r->name, w);
    }
    if (workers.isEmpty() && !QFile::exists(m_store->root() + QStringLiteral("/.trainyard-state.json"))) {
        return;
    }
    m_store->writeState(workers, m_server->socketPath());
}

QHash<QString, RunStore::LiveWorker> RunStateFile::read(QString *refusal) const
{
    return m_store->readState(nullptr, refusal);
}

QJsonObject RunStateFile::handle(const RunStore::LiveWorker &live)
{
    if (!live.launcher.isEmpty()) {
        return live.launcher;
    }
    return QJsonObject{{QStringLiteral("kind"), QStringLiteral("local")},
                       {QStringLiteral("pid"), live.pid},
                       {QStringLiteral("start_ticks"), live.startTicks}};
}

LaunchSpec RunStateFile::expected(LaunchSpec spec, const RunStore::LiveWorker &live)
{
    spec.program = live.command.value(0, spec.programArgv.value(0));
    spec.token = live.token;
    return spec;
}

bool RunStateFile::followsFile(const RunStore::LiveWorker &live, const RunInfo &run)
{
    return live.followFile.value_or(!RunSpecView(run.spec).isProgram()
                                    && !live.command.contains(QStringLiteral("--connect")));
}

Launcher::AttachResult RunStateFile::attach(RunRegistry *runs, RunId id, const RunStore::LiveWorker &live,
                                            const LaunchSpec &spec, QString *why)
{
    const RunInfo *r = runs->find(id);
    const QJsonObject handle = RunStateFile::handle(live);
    // What the run is, from the run itself (its name, folder, program)
    // and the command and token it was started with.
    const Launcher::AttachResult result = m_launcher->attach(id, handle, expected(spec, live), why);
    if (result != Launcher::AttachResult::Attached) {
        qCInfo(lcSupervisor, "%s not reattached: %s", qUtf8Printable(r->name), qUtf8Printable(*why));
        return result;
    }
    // Still training from an earlier session: it reconnects with its token.
    runs->update(
        id,
        [&](RunInfo &run) {
            run.pid = live.pid;
            run.device = live.device;
            run.started = live.started;
            run.command = live.command;
            run.host = m_launcher->host(id);
            run.jobId = handle.value(QStringLiteral("job")).toString();
            run.reattached = true;
            run.state = RunState::Running;
        },
        RunRegistry::Notify::Quiet);
    m_server->registerRun(id, r->name, live.token);
    return result;
}

} // namespace trainyard
