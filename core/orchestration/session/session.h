#pragma once

#include "orchestration/dispatch/dispatcher.h"
#include "orchestration/experiment/experiment.h"
#include "orchestration/records/runinfo.h"
#include "orchestration/session/controlserver.h"

#include <QObject>
#include <QString>
#include <QStringList>

class QLockFile;

namespace trainyard {

class DeviceInventory;
class MetricStore;
class MetricsServer;
class RunStore;
class Orchestrator;

// One open experiment and everything that serves it: the board and its
// runs (Orchestrator), the metrics socket (MetricsServer), the curves
// (MetricStore), the run folders (RunStore) and the devices
// (DeviceInventory). The desktop app and `trainyard run` both drive a
// Session; neither touches workers or files directly.
//
// Typical use:
//   Session session;
//   if (!session.load(path, &errors)) ...;   // or loadDemo()
//   session.orchestrator()->laneDevices()->setCpuFallback(true);
//   session.orchestrator()->dispatcher()->startAll();
//   connect(session.orchestrator()->dispatcher(), &Dispatcher::idle, ...);
class Session : public QObject
{
    Q_OBJECT
public:
    explicit Session(QObject *parent = nullptr);
    // Kills every worker still running, synchronously, unless close(true)
    // let them go (close(false) is the graceful way: let it finish first).
    ~Session() override;

    // Opens an experiment: validates it, locks its runs root (one
    // orchestrator per experiment), listens on its socket, loads past runs
    // with their curves and reattaches to workers still running. An open
    // session is closed first; refused while its runs are still stopping.
    // load() refuses a file whose commands are not trusted (TrustList);
    // open() takes an experiment its caller has cleared. Opened, `errors`
    // gets what the user must still be told (a refused state file, runs
    // found lost): warnings, not failures.
    bool load(const QString &path, QStringList *errors);
    bool loadDemo(QStringList *errors);
    bool open(const Experiment &experiment, const QString &filePath, QStringList *errors);
    // Writes the current board (with edits) as an experiment file.
    bool save(const QString &path, QString *error);

    // Ends the session: stops every worker gracefully, or leaves them
    // running (they reconnect to the next session on the same experiment).
    // Asynchronous: closed() when done, at once when nothing runs or with
    // `leaveRunning`, else when the last stopping worker has ended (stop,
    // SIGTERM, SIGKILL after the stop timeouts). Until then the socket and
    // the runs root's lock stay. No nested event
    // loop: the caller's loop must run for it to finish (the desktop app
    // keeps itself open with a QEventLoopLocker meanwhile).
    void close(bool leaveRunning = false);
    bool isOpen() const { return m_open; }

    QString filePath() const { return m_filePath; } // empty for the demo / new
    QString name() const { return m_name; }
    void setName(const QString &name);
    // Renames the experiment. Where the file names no runs root, the runs
    // folder is named after the experiment and moves with it, unless runs
    // are active: then it stays and the board names it as its runs root.
    bool rename(const QString &name, QString *error);
    QString runsRoot() const;
    Experiment experiment() const; // the board as it is now

    Orchestrator *orchestrator() const { return m_orchestrator; }
    MetricStore *metrics() const { return m_metrics; }
    DeviceInventory *devices() const { return m_devices; }
    MetricsServer *server() const { return m_server; }
    RunStore *store() const { return m_store; }

    // Requests from `trainyard stop|pause|resume` (ControlServer), on the
    // socket beside the metrics socket while the session is open.
    ControlServer *control() const { return m_control; }

    // The runs' curves as CSV (MetricsCsvWriter: run,step,epoch,wall,metric,value), of `runs` (all when empty).
    bool exportCsv(const QString &path, const QList<RunId> &runs, QString *error) const;

Q_SIGNALS:
    void opened();
    void closed();
    void nameChanged(const QString &name);

private:
    void finishClose();
    // Listens on `root`'s metrics socket and the control socket beside it.
    bool listen(const QString &root, QString *error, QStringList *warnings);
    // A control request: acted on when its token is the live run's own.
    ControlServer::Reply answerControl(const ControlServer::Request &request);

    RunStore *m_store;
    MetricStore *m_metrics;
    MetricsServer *m_server;
    ControlServer *m_control;
    DeviceInventory *m_devices;
    Orchestrator *m_orchestrator;
    QLockFile *m_lock = nullptr;
    QString m_filePath;
    QString m_name;
    QString m_runsRoot;
    QList<ExperimentCluster> m_clusters;
    QHash<QString, QString> m_pathTexts; // Experiment::pathTexts of the file opened
    QString m_schema;                    // its "$schema", written back on save
    bool m_open = false;
    bool m_closing = false;
};

} // namespace trainyard
