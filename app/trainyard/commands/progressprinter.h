#pragma once

#include "orchestration/records/runinfo.h"

#include <QHash>
#include <QObject>
#include <QString>
#include <QTimer>

namespace trainyard {

class Orchestrator;
class Session;

// What `trainyard run` shows of its runs: a block of one progress line per
// run (bar, state, step/total, steps per second, loss, ETA) redrawn in place
// on a terminal, or plain lines at events and every tenth of a run otherwise.
class ProgressPrinter : public QObject
{
public:
    ProgressPrinter(Session *session, bool terminal);

    // A line above the block (a warning, "stopping every run ...").
    void message(const QString &text);
    void redraw();
    // Draws the block a last time and leaves it on screen.
    void finish();

private:
    void clearBlock();
    static int terminalWidth();
    QString progressLine(const RunInfo &run) const;
    void plainProgress(RunId id);
    void onRunChanged(RunId id);

    Orchestrator *m_orchestrator;
    bool m_terminal;
    int m_drawn = 0;
    QTimer m_timer;
    QHash<RunId, RunState> m_lastState;
    QHash<RunId, QString> m_lastSaid; // a starting run's message (pending: why)
    QHash<RunId, int> m_lastTenth;
};

} // namespace trainyard
