#pragma once

#include "orchestration/records/runinfo.h"

#include <QObject>
#include <QString>
#include <QTimer>

#include <functional>

namespace trainyard {

class Launcher;

// One run's stop, an explicit state machine with its own timer, one stop
// timeout per step:
//   None --stop()--> Asked (the worker asked on its socket) --timeout-->
//   Terminated (Launcher::terminate: SIGTERM) --timeout--> Killed (Launcher::kill).
// A worker not connected skips Asked; a run pending in a batch queue goes
// straight to Terminated, which cancels it there (cancelsPending(): it ends
// Cancelled). kill() (killAll) is Killed at once. SupervisedRuns keeps one
// per supervised run and halt()s it when the run ends.
class StopEscalation : public QObject
{
    Q_OBJECT
public:
    enum class Step {
        None,
        Asked,
        Terminated,
        Killed
    };
    // `ask` sends the worker "stop" on its socket; false when it has none.
    StopEscalation(RunId id, Launcher *launcher, std::function<bool()> ask, QObject *parent = nullptr);

    void setTimeout(int ms) { m_timeoutMs = ms; } // per step
    Step step() const { return m_step; }
    bool cancelsPending() const { return m_cancelPending; }
    // Why it was killed ("killed on request", "did not stop within 30 s;
    // killed"); empty while it was not.
    QString killMessage() const { return m_killMessage; }
    // A further step is scheduled (its timer runs): false, none can come.
    bool nextStepDue() const { return m_timer.isActive(); }

    // Begins the stop (again: nothing new). stopping() comes before the
    // launcher is touched: a launcher may report the exit from inside
    // terminate(), and the run must show Stopping by then.
    void stop(bool pending, const QString &pendingReason = QString());
    // Killed now, with `message` as the reason (killAll).
    void kill(bool pending, const QString &message);
    void halt(); // the run ended: no further step

Q_SIGNALS:
    // The run is to show Stopping, with `message` when not empty.
    void stopping(trainyard::RunId id, const QString &message);

private:
    void escalate();

    RunId m_id;
    Launcher *m_launcher;
    std::function<bool()> m_ask;
    QTimer m_timer;
    int m_timeoutMs = 15000;
    Step m_step = Step::None;
    bool m_cancelPending = false;
    bool m_halted = false;
    QString m_killMessage;
};

} // namespace trainyard
