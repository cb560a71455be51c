#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

namespace trainyard::remotescripts {

// The commands Trainyard runs on a host (docs/remote.md#what-is-sent). Each
// is `sh -c SCRIPT sh ARG...`: the script is fixed text of this file, every
// value of the experiment or the run travels as a positional argument (one
// word each, quoted for the remote shell by the runner) or on standard
// input (the token, the environment): no value is ever read as shell text
// or as an option (every path after "--").

// A host's command: the program ("sh") and its arguments.
struct Command
{
    QString program;
    QStringList arguments;
};

// Makes `dir` (under `root`) ready for a start and writes spec.json from
// standard input. A fresh start (`resume` false) keeps a folder that holds
// anything as DIR.attempt-N first (never written over). Prints
// "kept PATH" for such a folder, then "prepared".
Command prepare(const QString &root, const QString &dir, bool resume);
// Writes standard input to DIR/NAME (through a temporary file).
Command writeFile(const QString &dir, const QString &name);
// Starts `argv` in `cwd`, detached from the connection (setsid, standard
// input from /dev/null, output appended to DIR/worker.log) under a small
// sh that waits for it and writes its exit status to DIR/.trainyard-exit.
// Standard input: the run's environment (environmentText). Prints
// "started PID START_TICKS WRAPPER_PID", or fails with the reason.
Command launch(const QString &dir, const QString &cwd, const QStringList &argv);
// `export NAME='value'` lines for launch's standard input.
QByteArray environmentText(const QList<std::pair<QString, QString>> &env);

// What the process PID must prove before anything is done to it (as
// LocalLauncher's attach checks a local one): the same start time, the
// user's own, the run's token in its environment (on standard input, never
// on a command line), and the run's worker with --run-dir DIR (`program`
// empty: a program run, TRAINYARD_RUN_DIR=DIR). With `signal` ("TERM",
// "KILL") it is sent only then. Prints "ours", "signalled", "gone WHY" or
// "notours WHY".
Command verify(qint64 pid, qint64 ticks, const QString &dir, const QString &program, const QString &signal);

// One run as the poll asks about it.
struct PollRun
{
    QString dir;
    qint64 pid = 0;
    qint64 ticks = 0;
    qint64 wrapper = 0;
    qint64 metricsOffset = 0; // bytes of metrics.jsonl already mirrored
    qint64 logOffset = 0;     // the same of worker.log
    bool listCheckpoints = false;
};
// One command for a whole host each poll: nvidia-smi (`gpus`), and for
// each run whether it lives, how it ended, the new bytes of its
// metrics.jsonl and worker.log (at most `maxBytes` each), its checkpoints
// and the free space of its folder when it ended.
Command poll(bool gpus, qint64 maxBytes, const QList<PollRun> &runs);
// Before the metrics forward goes on a new master: ROOT/.trainyard made
// (0700), a socket file an earlier connection left at `socket` removed
// (ssh would refuse to listen there), and whether ROOT is writable.
// Prints "ready", or fails saying why.
Command readySocket(const QString &root, const QString &socket);

// What the host said of one run.
struct RunReport
{
    enum class State {
        Alive,  // the same process, still running
        Ending, // the process is gone, its waiting sh not yet
        Exited, // ended; `status` is its wait status (128+N: signal N)
        Gone,   // neither runs, and no status was written
    };
    State state = State::Gone;
    int status = -1;
    qint64 metricsSize = -1; // -1: none; -2: refused there (a link, a FIFO: not read)
    QByteArray metrics;      // from the run's metricsOffset
    qint64 logSize = -1;
    QByteArray log;
    bool checkpointsListed = false;
    QStringList checkpoints; // "NAME SIZE MTIME"
    qint64 freeKiB = -1;     // when it ended: its folder's free space (df), -1 unknown
};
struct PollReport
{
    bool complete = false; // every section arrived (else nothing is trusted)
    bool gpusAsked = false;
    int gpuStatus = -1; // nvidia-smi's exit status
    QByteArray gpuRows, appRows;
    QByteArray psRows;     // "PID SID PGID USER" of the GPU processes ps knows
    QList<RunReport> runs; // in the order asked
};
PollReport parsePoll(const QByteArray &out, int runCount);

// `trainyard check`'s questions to a host: whether `worker` is an
// executable file that runs (`--version`), whether ROOT can be made and
// written, the GPUs nvidia-smi lists. Prints "worker ok VERSION" or
// "worker missing" or "worker fails OUTPUT", "root ok" or "root
// notwritable", a "gpu ROW" line per GPU (the poll's fields) and "gpus
// listed", or "gpus none" without nvidia-smi.
Command hostCheck(const QString &root, const QString &worker);
// The worker's own check of a run spec there (`--check --spec`; the spec
// on standard input, written to ROOT/.trainyard/check-PID.json and removed
// after): its data folders and files as it would load them. Fails with the
// worker's words.
Command dataCheck(const QString &root, const QString &worker);

// The fields of nvidia-smi's --query-gpu the poll asks for, in order.
QStringList gpuQueryFields();

} // namespace trainyard::remotescripts
