#pragma once

#include "orchestration/devices/processtree.h"
#include "orchestration/launch/launcher.h"

#include <QHash>

namespace trainyard {

class WorkerProcess;

// Workers as local processes: one WorkerProcess (a QProcess from an argument
// list, never a shell; CUDA_VISIBLE_DEVICES for its GPU; output appended to
// worker.log; its own session) per run. Handle: {"kind":"local","pid":N,
// "start_ticks":T}; attach() checks that pid N still has start time T
// (/proc/N/stat), so a reused pid is never mistaken for the worker, and
// watches it by polling: it is not our child, its exit status is not ours
// to read (exited(-1, 0); the worker's "done" line tells how it ended).
//
// A run is its whole process tree (ProcessTree: its session, its group, its
// token): terminate() signals the top process only; once that one exits,
// however it exits, a ProcessTreeEnd ends the rest (SIGTERM, SIGKILL after a
// grace), lingering() says which pids it waits for, and exited() comes once
// none is left. kill() and release() SIGKILL the whole tree.
class LocalLauncher : public Launcher
{
    Q_OBJECT
public:
    explicit LocalLauncher(QObject *parent = nullptr);
    ~LocalLauncher() override; // releases (kills and reaps) what it still holds

    QString kind() const override { return QStringLiteral("local"); }
    void start(RunId run, const LaunchSpec &spec) override;
    void terminate(RunId run) override;
    void kill(RunId run) override;
    AttachResult attach(RunId run, const QJsonObject &handle, const LaunchSpec &expected,
                        QString *why = nullptr) override;
    QJsonObject handle(RunId run) const override;
    void detach(RunId run) override;
    void release(RunId run) override;

private:
    struct Worker
    {
        WorkerProcess *process = nullptr;
        qint64 startTicks = 0;
        QString token;                 // its tree's processes carry it
        ProcessTreeEnd *end = nullptr; // the top exited: the rest is being ended
        bool killed = false;           // kill(): no grace for the rest
        ProcessTree tree() const;
    };
    Worker take(RunId run);
    void watch(RunId run, WorkerProcess *process);
    void topExited(RunId run, WorkerProcess *process, int exitCode, int signal);
    QHash<RunId, Worker> m_workers;
};

} // namespace trainyard
