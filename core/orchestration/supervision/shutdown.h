#pragma once

#include <QObject>
#include <QTimer>

namespace trainyard {

class RunRegistry;
class Supervisor;

// The Supervisor's shutdown, asynchronous. begin(false) stops every run
// (Supervisor::stop: the whole escalation) and returns; finished() comes
// when every run has ended, and runs still going 3 s after the whole
// escalation are killed ("killed at shutdown"). begin(true) lets every run
// train on (the launcher detaches; the state file keeps their handles) and
// finishes at once. From begin() on, no run starts.
class Shutdown : public QObject
{
    Q_OBJECT
public:
    Shutdown(Supervisor *supervisor, const RunRegistry *runs, QObject *parent = nullptr);

    void begin(bool leaveRunning);
    bool isShuttingDown() const { return m_shuttingDown; }
    void runEnded(); // finished() once every run has, while waiting
    void cancel();   // every run was killed at once (Supervisor::killNow): nothing to wait for
    void reset();    // a new board: runs may start again

Q_SIGNALS:
    void finished();

private:
    void onDeadline();

    Supervisor *m_supervisor;
    const RunRegistry *m_runs;
    bool m_shuttingDown = false; // no new starts
    bool m_closing = false;      // begin(false) waits for runs to end
    QTimer m_deadline;
};

} // namespace trainyard
