#include "orchestration/session/session.h"

#include "metrics/metricscsvwriter.h"
#include "metrics/metricstore.h"
#include "orchestration/board/board.h"
#include "orchestration/devices/deviceinventory.h"
#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/dispatch/runactions.h"
#include "orchestration/experiment/trustlist.h"
#include "orchestration/ingest/ingestion.h"
#include "orchestration/ingest/metricsserver.h"
#include "orchestration/logcategories.h"
#include "orchestration/records/runregistry.h"
#include "orchestration/runstore/runstore.h"
#include "orchestration/session/onendcommands.h"
#include "orchestration/session/orchestrator.h"
#include "orchestration/session/statusreport.h"
#include "orchestration/supervision/supervisor.h"
#include "orchestration/sweep/sweeprunner.h"

#include <QDir>
#include <QFileInfo>
#include <QLockFile>

namespace trainyard {

Session::Session(QObject *parent)
    : QObject(parent)
    , m_store(new RunStore)
    , m_metrics(new MetricStore(this))
    , m_server(new MetricsServer(this))
    , m_control(new ControlServer(this))
    , m_devices(new DeviceInventory(this))
    , m_orchestrator(new Orchestrator(m_store, m_server, m_metrics, m_devices, this))
{
    // A worker line's path: the server decodes it, Ingestion takes it into
    // the record and the store (and tells the Supervisor the run is alive).
    m_server->setHandler([this](RunId run, const MetricRecord &record) {
        if (m_orchestrator) {
            m_orchestrator->ingestion()->handleRecord(run, record);
        }
    });
    m_control->setHandler([this](const ControlServer::Request &request) { return answerControl(request); });
    // Which GPU processes are the runs': this machine's runs (a host's pids
    // are other processes here), each by its top pid and token.
    m_devices->setRunRoots([this] {
        QList<RunProcessRoot> roots;
        for (RunId id : m_orchestrator ? m_orchestrator->supervisor()->supervisedIds() : QList<RunId>()) {
            const RunInfo *r = m_orchestrator->runs()->find(id);
            if (r && r->pid > 0 && !r->device.isRemote()) {
                roots.append({r->pid, m_server->token(id)});
            }
        }
        return roots;
    });
    m_devices->setPollInterval(1000);
    connect(m_orchestrator->supervisor(), &Supervisor::shutdownFinished, this, [this] {
        if (m_closing) {
            finishClose();
        }
    });
}

Session::~Session()
{
    // Kills what still runs (synchronously), before the store it uses.
    delete m_orchestrator;
    m_orchestrator = nullptr;
    if (m_open) {
        m_control->close();
        m_server->close();
        if (m_lock) {
            m_lock->unlock();
        }
    }
    delete m_store;
    delete m_lock;
}

bool Session::load(const QString &path, QStringList *errors)
{
    const auto ex = Experiment::load(path, errors);
    if (!ex) {
        return false;
    }
    if (const QString refusal = TrustList().refusal(*ex); !refusal.isEmpty()) {
        if (errors) {
            *errors = QStringList{refusal};
        }
        return false;
    }
    return open(*ex, QFileInfo(path).absoluteFilePath(), errors);
}

bool Session::loadDemo(QStringList *errors)
{
    return open(Experiment::demo(), QString(), errors);
}

bool Session::open(const Experiment &experiment, const QString &filePath, QStringList *errors)
{
    auto fail = [&](const QString &text) {
        if (errors) {
            *errors = QStringList{text};
        }
        return false;
    };
    if (m_open) {
        close(false);
    }
    if (m_open) {
        return fail(QStringLiteral("%1 still has runs stopping; open again when they have ended").arg(m_name));
    }

    Experiment ex = experiment;
    // A relative runs root is relative to the experiment file.
    if (!ex.runsRoot.isEmpty() && QDir::isRelativePath(ex.runsRoot) && !ex.runsRoot.startsWith(QLatin1Char('~'))
        && !filePath.isEmpty()) {
        ex.runsRoot = QFileInfo(filePath).absoluteDir().filePath(ex.runsRoot);
    }
    const QString root = ex.effectiveRunsRoot();
    if (!QDir().mkpath(root)) {
        return fail(root + QStringLiteral(": cannot create the runs folder"));
    }

    auto *lock = new QLockFile(root + QStringLiteral("/.trainyard.lock"));
    lock->setStaleLockTime(0);
    if (!lock->tryLock(200)) {
        qint64 pid = 0;
        QString host, app;
        lock->getLockInfo(&pid, &host, &app);
        delete lock;
        return fail(QStringLiteral("%1: already open in another Trainyard (pid %2)").arg(root).arg(pid));
    }
    m_store->setRoot(root);
    QString error;
    QStringList listenWarnings;
    if (!listen(root, &error, &listenWarnings)) {
        delete lock;
        return fail(error);
    }
    delete m_lock;
    m_lock = lock;
    m_filePath = filePath;
    m_name = ex.name;
    m_runsRoot = experiment.runsRoot;
    m_clusters = experiment.clusters; // not the board's: saved with the file as they came
    m_pathTexts = experiment.pathTexts;
    m_schema = experiment.schema;
    m_orchestrator->setExperiment(ex);
    // Opened, with what the user must hear about (a refused state file, lost
    // runs): the window's status bar and `trainyard run`'s stderr show them.
    const QStringList warnings = listenWarnings + m_orchestrator->loadHistory();
    if (errors) {
        errors->append(warnings);
    }
    m_open = true;
    Q_EMIT opened();
    return true;
}

bool Session::save(const QString &path, QString *error)
{
    if (!saveOwnExperiment(experiment(), path, error)) {
        return false;
    }
    m_filePath = QFileInfo(path).absoluteFilePath();
    return true;
}

void Session::close(bool leaveRunning)
{
    if (!m_open || (m_closing && !leaveRunning)) {
        return;
    }
    m_closing = true;
    m_orchestrator->shutdown(leaveRunning); // finishClose() on shutdownFinished, maybe at once
}

bool Session::listen(const QString &root, QString *error, QStringList *warnings)
{
    const QString socketPath = MetricsServer::defaultSocketPath(root, error);
    if (socketPath.isEmpty() || !m_server->listen(socketPath, error)) {
        return false;
    }
    // Without it the session runs as ever; only the command line cannot reach it.
    QString controlError;
    if (!m_control->listen(ControlServer::socketPathFor(socketPath), &controlError)) {
        warnings->append(controlError
                         + QStringLiteral(" (trainyard stop, pause and resume cannot reach this session)"));
    }
    return true;
}

ControlServer::Reply Session::answerControl(const ControlServer::Request &request)
{
    if (request.action == QLatin1String("status")) {
        // Read only: what the board holds now, no run's token needed.
        ControlServer::Reply reply{true, m_name, {}};
        for (const RunStatusRow &row : liveStatusReport(*m_orchestrator)) {
            reply.runs.append(row.toJson());
        }
        return reply;
    }
    // The run's token, which only the runs root's state file (0600) holds,
    // names this start of this run: a request for an earlier one, or from
    // one who could not read the file, acts on nothing.
    const RunId id = m_orchestrator->runs()->findByName(request.run);
    const QByteArray token = id != 0 ? m_server->token(id).toLatin1() : QByteArray();
    const QByteArray asked = request.token.toLatin1();
    unsigned char differ = token.isEmpty() || token.size() != asked.size() ? 1 : 0;
    for (qsizetype i = 0; differ == 0 && i < token.size(); ++i) {
        differ |= static_cast<unsigned char>(token.at(i) ^ asked.at(i));
    }
    if (differ != 0) {
        return {false, QStringLiteral("%1 is not live in %2 (it ended, or started again since the state file was read)")
                           .arg(request.run, m_name)};
    }
    QString error;
    bool ok = false;
    QString done;
    if (request.action == QLatin1String("stop")) {
        ok = m_orchestrator->runActions()->stopRun(id, &error);
        done = QStringLiteral("stopping %1: it checkpoints and exits (a stop timeout later SIGTERM, then SIGKILL)");
    } else if (request.action == QLatin1String("pause")) {
        ok = m_orchestrator->supervisor()->pause(id, &error);
        done = QStringLiteral("%1 paused (trainyard resume goes on)");
    } else {
        ok = m_orchestrator->supervisor()->resume(id, &error);
        done = QStringLiteral("%1 resumed");
    }
    qCInfo(lcExperiment).noquote() << "control:" << request.action << request.run
                                   << (ok ? QStringLiteral("done") : error);
    return {ok, ok ? done.arg(request.run) : error};
}

void Session::finishClose()
{
    m_closing = false;
    m_control->close();
    m_server->close();
    if (m_lock) {
        m_lock->unlock();
        delete m_lock;
        m_lock = nullptr;
    }
    m_open = false;
    Q_EMIT closed();
}

void Session::setName(const QString &name)
{
    if (name == m_name) {
        return;
    }
    m_name = name;
    Q_EMIT nameChanged(name);
}

bool Session::rename(const QString &name, QString *error)
{
    const auto fail = [error](const QString &text) {
        if (error) {
            *error = text;
        }
        return false;
    };
    if (!isSafeRunName(name)) {
        return fail(QStringLiteral("\"%1\": expected a name of 1–100 letters, digits or ._+@- not starting with '.' "
                                   "nor ending in .attempt-N")
                        .arg(name));
    }
    if (!m_open || name == m_name) {
        return m_open ? true : fail(QStringLiteral("no experiment is open"));
    }
    if (!m_runsRoot.isEmpty()) {
        setName(name); // the file chose the folder
        return true;
    }
    const QString oldRoot = m_store->root();
    if (m_orchestrator->dispatcher()->activeCount() > 0) {
        // Workers write into the folder: it stays, named in the file from now on.
        m_runsRoot = oldRoot;
        setName(name);
        return true;
    }
    Experiment renamed;
    renamed.name = name;
    const QString newRoot = renamed.effectiveRunsRoot();
    if (QFileInfo::exists(newRoot) && !QDir(newRoot).isEmpty()) {
        return fail(QStringLiteral("%1 already exists: choose another name").arg(newRoot));
    }
    // Let go of the folder (sockets, lock), move it, take it again.
    m_control->close();
    m_server->close();
    m_lock->unlock();
    QDir().rmdir(newRoot);
    const bool moved = QDir().rename(oldRoot, newRoot);
    const QString root = moved ? newRoot : oldRoot;
    delete m_lock;
    m_lock = new QLockFile(root + QStringLiteral("/.trainyard.lock"));
    m_lock->setStaleLockTime(0);
    QString listenError;
    const bool relocked = m_lock->tryLock(200);
    QStringList controlWarnings;
    const bool listening = listen(root, &listenError, &controlWarnings);
    if (!relocked || !listening || !controlWarnings.isEmpty()) {
        qCWarning(lcExperiment).noquote() << root << "could not be taken again after the rename:" << listenError
                                          << controlWarnings.join(QLatin1Char(' '));
    }
    if (!moved) {
        return fail(QStringLiteral("%1 could not be moved to %2").arg(oldRoot, newRoot));
    }
    m_store->setRoot(newRoot);
    m_orchestrator->board()->refreshRunDirs(oldRoot);
    setName(name);
    return true;
}

QString Session::runsRoot() const
{
    return m_store->root();
}

Experiment Session::experiment() const
{
    Experiment ex = m_orchestrator->board()->toExperiment(m_name, m_runsRoot);
    ex.clusters = m_clusters;
    ex.pathTexts = m_pathTexts;
    ex.schema = m_schema;
    ex.hosts = m_orchestrator->hosts();
    ex.sweeps = m_orchestrator->sweeps()->sweeps();
    ex.onEnd = m_orchestrator->onEnd()->experimentCommand();
    return ex;
}

bool Session::exportCsv(const QString &path, const QList<RunId> &runs, QString *error) const
{
    const QList<RunId> ids = runs.isEmpty() ? m_orchestrator->board()->runIds() : runs;
    return MetricsCsvWriter::writeFile(
        path,
        [&](MetricsCsvWriter &csv) {
            for (RunId id : ids) {
                const RunInfo info = m_orchestrator->runs()->value(id);
                if (info.id != 0) {
                    csv.writeRun(info.name, *m_metrics, id);
                }
            }
        },
        error);
}

} // namespace trainyard
