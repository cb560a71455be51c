#pragma once

#include "orchestration/launch/launcher.h"

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

class QTimer;

namespace trainyard {

// One trainyard-worker process: started from an argument list (never a
// shell), CUDA_VISIBLE_DEVICES set for its GPU, stdout and stderr appended
// to the run's worker.log. Emits started(), finished(exitCode, signal) and
// failed(message) when it could not start. A process found running after a
// restart (not our child) is "attached" by pid and watched by polling.
// LocalLauncher drives one per run; nothing else starts workers.
class WorkerProcess : public QObject
{
    Q_OBJECT
public:
    // What to start (program, spec, run folder, socket, token, device, ...).
    using Launch = LaunchSpec;

    explicit WorkerProcess(QObject *parent = nullptr);
    ~WorkerProcess() override;

    // The worker's program: env TRAINYARD_WORKER, else trainyard-worker
    // beside this application, else on PATH; empty if none is found.
    static QString findWorkerProgram();
    // The folder holding the trainyard Python module when `workerProgram`
    // runs from a build tree (BUILD/bin/../python); empty when installed
    // (the package puts the module where python3 finds it).
    static QString findPythonModule(const QString &workerProgram);
    void start(const Launch &launch);
    // Watches an already running process (after an orchestrator restart).
    void attach(qint64 pid);

    qint64 pid() const { return m_pid; }
    bool isRunning() const;
    void terminate(); // SIGTERM: the worker checkpoints and exits 4
    void kill();      // SIGKILL

    // Leaves the process running when this object goes away (the user
    // closed the app with "leave runs running").
    void detach();

Q_SIGNALS:
    void started();
    // exitCode -1 when killed by `signal`.
    void finished(int exitCode, int signal);
    void failed(const QString &message);

private:
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void pollAttached();
    QProcess *m_process = nullptr;
    qint64 m_pid = 0;
    bool m_attached = false;
    QTimer *m_poll = nullptr;
};

} // namespace trainyard
