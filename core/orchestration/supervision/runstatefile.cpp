#include "supervision/runstatefile.h"

#include "experiment/runspecview.h"
#include "ingest/metricsserver.h"
#include "records/runregistry.h"

#include <QFile>

namespace trainyard {

RunStateFile::RunStateFile(RunStore *store, const MetricsServer *server, const Launcher *launcher)
    : m_store(store)
    , m_server(server)
    , m_launcher(launcher)
{
}

void RunStateFile::write(const RunRegistry &runs, const QList<Live> &live) const
{
    if (m_store->root().isEmpty())
        return;
    QHash<QString, RunStore::LiveWorker> workers;
    for (const Live &l : live) {
        const RunInfo *r = runs.find(l.id);
        if (!r || !isActive(r->state))
            continue;
        const QJsonObject handle = m_launcher->handle(l.id);
        if (handle.isEmpty())
            continue; // not started yet
        RunStore::LiveWorker w;
        w.pid = r->pid;
        w.token = m_server->token(l.id);
        w.device = r->device;
        w.startTicks = r->pid > 0 ? RunStore::processStartTicks(r->pid) : 0;
        w.started = r->started;
        w.launcher = handle;
        w.command = r->command;
        w.followFile = l.followFile;
        workers.insert(r->name, w);
    }
    if (workers.isEmpty() && !QFile::exists(m_store->root() + QStringLiteral("/.trainyard-state.json")))
        return;
    m_store->writeState(workers, m_server->socketPath());
}

QHash<QString, RunStore::LiveWorker> RunStateFile::read(QString *refusal) const
{
    return m_store->readState(nullptr, refusal);
}

QJsonObject RunStateFile::handle(const RunStore::LiveWorker &live)
{
    if (!live.launcher.isEmpty())
        return live.launcher;
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

} // namespace trainyard
