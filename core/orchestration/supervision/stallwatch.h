#pragma once

#include "orchestration/records/runinfo.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>

#include <map>

namespace trainyard {

class RunRegistry;

// Whether each supervised run still speaks: its last sign of life, and
// "stalled" for one that was silent longer than the timeout while it should
// be training (Running again as soon as it speaks). Never while the run
// waits in a queue, nor while its only channel is refused (a metrics.jsonl
// that is a link or a FIFO: its silence proves nothing). A program run that
// does not use the trainyard module never speaks: once its process has
// run for a grace period without a word it is Running, with a note saying
// why it shows no metrics (gone as soon as it speaks). The Supervisor says
// what happens to each run; this only watches the clock.
class StallWatch : public QObject
{
    Q_OBJECT
public:
    explicit StallWatch(RunRegistry *runs, QObject *parent = nullptr);

    void setTimeout(int ms) { m_timeoutMs = ms; } // silence -> "stalled"
    // The note of a program run that runs without the module.
    static QString noModuleNote();

    // Watches `id` from now: a worker at once; a program run (`fromStart`
    // false) only once it reported, as one without the module never does.
    void watch(RunId id, bool fromStart);
    void forget(RunId id);
    // A line of the run: it is alive, and no longer stalled.
    void heard(RunId id);
    // The clock starts again without the run having spoken (its process
    // started, left its queue, resumed).
    void restart(RunId id);
    void setQueued(RunId id, bool queued);
    // What following its metrics.jsonl read (Ingestion::followed) while the
    // run is not queued: `records` lines, and why the file was refused, if
    // it was (shown as the run's message until it is a regular file again).
    void followed(RunId id, int records, const QString &problem);

Q_SIGNALS:
    // After each look at the clock (every 500 ms): what a pass would have
    // changed is changed by now.
    void checked();

private:
    struct Watch
    {
        QElapsedTimer lastSeen;
        bool watched = true;
        bool queued = false;
        bool program = false; // a program run (watched only once it spoke)
        bool started = false; // its process started (restart())
        bool noted = false;   // Running on its grace, with noModuleNote()
        QString fileProblem;
    };
    void check();
    void noteSilentPrograms();

    RunRegistry *m_runs;
    std::map<RunId, Watch> m_watches;
    int m_timeoutMs = 30000;
    const int m_programGraceMs = 3000; // a script's imports before trainyard.init()
    QTimer m_timer;
};

} // namespace trainyard
