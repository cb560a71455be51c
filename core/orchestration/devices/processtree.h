#pragma once

#include <QList>
#include <QObject>
#include <QString>
#include <QTimer>

namespace trainyard {

// The processes of one run on this machine, read from /proc: this user's
// processes whose process group or session is the run's top pid (every
// worker starts in its own session), or whose environment holds
// TRAINYARD_TOKEN=<the run's token> exactly (a child that called setsid, a
// rank spawned elsewhere); never the orchestrator itself, never a zombie
// (it holds nothing and is its parent's to reap).
//
// Read through a directory fd per process, no link followed: a process that
// ends between two reads is simply not listed. A process is signalled by a
// pidfd after its start time was checked again, so a pid reused since the
// listing is never signalled (killpg on a group whose leader may be gone is
// not used for the same reason).
class ProcessTree
{
public:
    struct Process
    {
        qint64 pid = 0;
        QString name; // its comm
        qint64 startTicks = 0;
    };

    ProcessTree() = default;
    // `topStartTicks` (0: unknown): once a process with the top pid but
    // another start time exists, the pid was reused and only the token
    // tells the run's processes.
    ProcessTree(qint64 topPid, qint64 topStartTicks, const QString &token);

    qint64 topPid() const { return m_topPid; }
    bool isNull() const { return m_topPid <= 0 && m_token.isEmpty(); }

    // Every process of the run now, the top one included while it lives.
    QList<Process> processes() const;
    // Whether `pid` is one of them (one process read, no scan).
    bool contains(qint64 pid) const;

    // `sig` to each of `processes` that is still the process listed;
    // returns how many were signalled.
    static int signal(const QList<Process> &processes, int sig);
    // SIGKILL to every process of the run until none is left or `boundMs`
    // passed, without an event loop (release, a destructor). True when none is left.
    bool killNow(int boundMs) const;
    // "pid 1234 (python3)", "pids 1234 (python3), 1240 (sleep)": at most a few named.
    static QString describe(const QList<Process> &processes);

private:
    qint64 m_topPid = 0;
    qint64 m_topStartTicks = 0;
    QByteArray m_tokenEntry; // "TRAINYARD_TOKEN=<token>"; empty: no token
    QString m_token;
};

// What is left of a run once its top process exited (a stop, a normal
// finish, a crash): SIGTERM to every process of its tree, SIGKILL to those
// left after kGraceMs, done() once none is left. waiting() says which pids
// it waits for whenever that changes.
class ProcessTreeEnd : public QObject
{
    Q_OBJECT
public:
    static constexpr int kGraceMs = 2000; // to exit on SIGTERM: a DataLoader worker, a rank
    static constexpr int kPollMs = 100;

    explicit ProcessTreeEnd(const ProcessTree &tree, QObject *parent = nullptr);
    // Signals what is left (SIGKILL at once when `kill`) and says so with
    // waiting(); false when nothing was left (done() never comes then).
    bool begin(bool kill = false);
    void killNow(); // no grace left: SIGKILL now (Launcher::kill)

Q_SIGNALS:
    void waiting(const QString &message); // "waits for pid 1234 (python3) of this run to exit"
    void done();

private:
    void poll();
    ProcessTree m_tree;
    QTimer m_poll;
    QTimer m_grace;
    bool m_killing = false;
    QString m_message;
};

} // namespace trainyard
