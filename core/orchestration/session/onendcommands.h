#pragma once

#include "orchestration/records/runinfo.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

namespace trainyard {

class Dispatcher;
class Process;
class RunRegistry;
class RunStore;
struct ProcessResult;

// Runs the experiment file's on_end commands (experiment/onend.h) as runs
// end, wherever they ran (this machine, a host, a cluster) and whether this
// Trainyard started them or reattached to them: it follows the dispatcher's
// runEnded, which every end goes through. A run's own runs when it
// finished, failed, diverged, was stopped or was lost (a cancelled run
// never ran); the file's once the board has nothing more to run
// (Dispatcher::idle) after a run ended. Each runs on this machine, in the
// run's folder (the runs root for the file's), with a deadline; what it
// prints is appended to on_end.log there. A failing or hanging command
// never holds up a run or the board: problem() says so.
class OnEndCommands : public QObject
{
    Q_OBJECT
public:
    static constexpr int kDefaultTimeoutMs = 60000;

    OnEndCommands(Dispatcher *dispatcher, const RunRegistry *runs, const RunStore *store, QObject *parent = nullptr);
    ~OnEndCommands() override;

    // The experiment's name and its file's on_end (empty: none).
    void setExperiment(const QString &name, const QStringList &onEnd);
    QStringList experimentCommand() const { return m_onEnd; }
    // How long a command may run before it is killed (tests shorten it).
    void setTimeoutMs(int ms) { m_timeoutMs = ms; }
    int runningCount() const { return int(m_running.size()); }
    // Lets the commands still running end, each by its deadline, with the
    // event loop running: `trainyard run` before it exits.
    void finish();

Q_SIGNALS:
    // A command that could not start, failed or ran out of time, in words.
    void problem(const QString &message);
    // A command ended (`ok`: exit 0), its log written: for tests and waiters.
    void ended(const QString &what, bool ok);

private:
    void onRunEnded(RunId id, RunState state);
    void onIdle();
    void start(const QString &what, const QStringList &argv, const QString &folder);
    // `header`: the log's first line, written with the output at the end.
    void done(Process *process, const QString &what, const QString &header, const QString &folder,
              const ProcessResult &result);

    const RunRegistry *m_runs;
    const RunStore *m_store;
    QString m_name;
    QStringList m_onEnd;
    int m_timeoutMs = kDefaultTimeoutMs;
    bool m_endedSinceIdle = false;
    QList<Process *> m_running;
};

} // namespace trainyard
