#pragma once

#include <QByteArray>
#include <QHash>
#include <QString>

#include <QStringList>
#include <utility>

namespace trainyard {

// One job as Slurm's commands describe it, and the pure rules that read
// them: squeue's lines, `scontrol show job -o`, the job script. No process
// is started here (SlurmLauncher does that), so every rule is testable on
// canned text.
struct SlurmJob
{
    // Where a job is in its life, as the Launcher's events need it.
    enum class Phase {
        Pending, // waiting (PENDING, CONFIGURING, REQUEUED, ...)
        Running, // the worker executes (RUNNING, COMPLETING, SUSPENDED, ...)
        Ended,   // a final state (COMPLETED, FAILED, CANCELLED, TIMEOUT, ...)
    };

    QString id;
    QString state;  // JobState: "PENDING", "RUNNING", "COMPLETED", ...
    QString reason; // for a pending job: "Priority", "Resources", ...
    QString nodes;
    int exitCode = -1; // from scontrol's ExitCode=code:signal; -1 unknown
    int signal = 0;
    // Whose job it is and what it was submitted as (scontrol only): what a
    // job id read from a state file is checked against before it is adopted.
    QString name;           // JobName
    qint64 uid = -1;        // UserId=NAME(UID)'s UID; -1 unknown
    QString userName;       // ... its NAME
    QString workDir;        // WorkDir (may hold spaces)
    bool ambiguous = false; // JobId, JobName, UserId or WorkDir came more than once: not to be believed

    Phase phase() const { return phaseOf(state); }

    static Phase phaseOf(const QString &state);
    // squeue's output with kSqueueFormat, one job a line; unreadable lines
    // are skipped.
    static QHash<QString, SlurmJob> parseSqueue(const QByteArray &out);
    static constexpr const char *kSqueueFormat = "%i|%T|%r|%N";
    // `scontrol show job -o ID`'s one line of Key=Value fields (a value
    // runs to the next " Key=", so a WorkDir may hold spaces); an empty id
    // when it names no job.
    static SlurmJob parseScontrol(const QByteArray &out);
    // sbatch --parsable's "ID" or "ID;CLUSTER"; empty when it is neither.
    static QString parseSubmitted(const QByteArray &out);
    // Whether `id` is a job id as Trainyard submits them: digits only (no
    // array or het-job suffix), so that it can never read as an option
    // ("-uroot") of scancel or scontrol. Every id that reaches a Slurm
    // command passes this first.
    static bool isJobId(const QString &id);
    // `scontrol show job -o -- ID`'s arguments: the id after "--", never
    // read as an option. parseScontrol reads its answer.
    static QStringList showArguments(const QString &id);

    // `word` in single quotes for sh: nothing in it is interpreted.
    static QString shellQuote(const QString &word);
    // The batch script: it only execs `program` with `args` (each quoted),
    // so the batch shell's signals (--signal=B:...) reach the worker itself.
    // `exports` are set first (a program run's TRAINYARD_RUN_DIR, ...: over
    // ssh the job gets no environment from here); never a secret, since
    // Slurm keeps the script where administrators can read it.
    static QByteArray script(const QString &program, const QStringList &args,
                             const QList<std::pair<QString, QString>> &exports = {});
};

} // namespace trainyard
