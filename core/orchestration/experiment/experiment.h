#pragma once

#include "orchestration/devices/device.h"
#include "orchestration/experiment/sshtarget.h"
#include "orchestration/experiment/sweepspec.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace trainyard {

class ModelCatalogue;

// One entry of a lane's queue as written in the experiment file: a run spec
// (its fixed keys: docs/models.md) and how many repeats of it to run.
struct ExperimentRun
{
    ExperimentRun() = default;
    ExperimentRun(QJsonObject spec_, int repeat_ = 1, bool invalid_ = false, QString path_ = {})
        : spec(std::move(spec_))
        , repeat(repeat_)
        , invalid(invalid_)
        , path(std::move(path_))
    {
    }

    QJsonObject spec; // without "repeat"; with "after" when it runs after other runs
    int repeat = 1;
    // Only in the `partial` of Experiment::fromJson: its spec has problems
    // (reported), kept so that `trainyard check` still looks at its data.
    bool invalid = false;
    QString path; // the JSON path it was read from ("lanes[0].runs[2]"); empty when made in memory
    // A run of rounds (experiment/rounds.h): their name, its round (from 1)
    // and whether it is the round's aggregate. Rounds are read expanded, one
    // entry per run, and written back as one (Experiment::rounds).
    QString rounds;
    int round = 0;
    bool aggregate = false;
};

// One lane as written in the experiment file.
struct ExperimentLane
{
    Device device = Device::cpu(); // "cpu", "cuda:N", "slurm:CLUSTER/PARTITION", "ssh:HOST/cuda:N"
    int slotCount = 1;             // a Slurm lane: its runs queued at once
    QString gres;                  // a Slurm lane's request per run; empty: "gpu:1"
    // What a GPU lane does with a GPU that others' processes use: "wait"
    // (the default, also when empty), "share" or "ignore" (BusyPolicy).
    QString busy;
    QString name; // what its header says (isLaneName); empty: its device
    QList<ExperimentRun> runs;
};

// A Slurm cluster the experiment's lanes may name ("slurm:NAME/PARTITION"):
// how it is reached, where runs and the worker live there, and sbatch's
// defaults. Only "local" reach (the Slurm commands on this machine, the runs
// root on a filesystem both see) is implemented; "ssh" is accepted and
// validated for the files to come, but nothing connects yet.
struct ExperimentCluster
{
    QString name;
    QString reach = QStringLiteral("local"); // "local" or "ssh"
    QString host;                            // ssh only
    QString user;                            // ssh only; empty: ssh's default
    int port = 22;                           // ssh only
    QString sshConfig;                       // ssh only: an ssh config file (ssh -F); empty: the user's
    QString runsRoot;                      // on the cluster's shared filesystem; empty: the experiment's (local reach)
    QString worker;                        // trainyard-worker there; empty: the one found here (local reach)
    QString partition, account, qos, time; // sbatch defaults; empty: the site's
    QStringList extraArgs;                 // more sbatch options, "--name=value" each
    int pollSeconds = 10;                  // one squeue for the experiment's jobs this often
    int warnSeconds = 300;                 // sbatch --signal=B:USR2@N before the time limit; 0: none

    // Reads and validates one entry of "clusters"; `path` ("clusters[0]")
    // prefixes each problem added to `errors`.
    static ExperimentCluster fromJson(const QJsonObject &o, const QString &path, QStringList &errors);
    QJsonObject toJson() const;

    // Where ssh goes (reach "ssh"), and ssh's arguments for it after its
    // own options: "[-p PORT] [-F SSH_CONFIG] [-l USER] -- HOST".
    SshTarget sshTarget() const;
    QStringList sshArguments() const;
    // What the keys of this cluster make run, for the trust list
    // (Experiment::commandLines): its `worker` (every worker job execs it),
    // ssh with `host`, `user`, `port` and `ssh_config` (reach "ssh": every
    // Slurm command; a config can run a ProxyCommand here), sbatch's
    // `extra_args`. Empty for a local cluster with none of them: the worker
    // found here, Trainyard's own sbatch options.
    QStringList commandLines() const;
};

// A machine the experiment's lanes may name ("ssh:NAME/cuda:N",
// "ssh:NAME/cpu"), reached over ssh (docs/remote.md): where ssh goes, the
// folder its run folders go to there, the worker (and the Python of program
// runs) there, how often it is asked about its runs and GPUs.
struct ExperimentHost
{
    QString name;
    SshTarget ssh;
    QString runsRoot; // absolute, on the host: this experiment's run folders there
    QString worker;   // trainyard-worker there (absolute)
    QString python;   // the Python of program runs there (absolute); empty: their argv as written
    int pollSeconds = 2;

    // Reads and validates one entry of "hosts"; `path` ("hosts[0]")
    // prefixes each problem added to `errors`.
    static ExperimentHost fromJson(const QJsonObject &o, const QString &path, QStringList &errors);
    QJsonObject toJson() const;
    // What its keys make run, for the trust list (Experiment::commandLines):
    // ssh with its destination and ssh_config (every command there; a
    // config can run a ProxyCommand here), the worker and the Python it
    // starts there.
    QStringList commandLines() const;
};

// An experiment file (docs/experiment-format.md): a name, an optional runs
// root and lanes. Loading validates everything the orchestrator relies on
// and reports each problem with its JSON path and what was expected, e.g.
// `lanes[1].slots: expected an integer ≥ 1, got -3`.
//
// Run specs are checked against the worker's catalogue when one is given:
// every key, type, range, choice, model type and data kind the worker reads
// (`lanes[0].runs[1].model.dimm: unknown key (expected one of type, dim, ...)`).
// Without one (no worker, or it cannot list its models) the checks are
// structural only: the top-level keys, run names, repeats, a model with a
// type, a data kind, objects where sections go, an integer seed. The worker
// checks the rest when a run starts and fails it with exit status 2 and a
// message naming the key. Callers that have a catalogue pass it; `trainyard
// run` warns when it has none.
class Experiment
{
public:
    QString name;
    QString runsRoot; // empty: QStandardPaths::AppDataLocation/<name>
    // The file's "$schema": for editors only, kept so that a save writes it back.
    QString schema;
    QList<ExperimentLane> lanes;
    QList<ExperimentCluster> clusters;
    QList<ExperimentHost> hosts;
    // The file's "sweeps" (docs/experiment-format.md#sweeps): their trials
    // are generated, so they are on no lane's queue here.
    QList<SweepSpec> sweeps;
    // The definitions of the rounds its lanes hold (rounds::read), by which
    // toJson() writes an unchanged set of their runs back as one entry.
    QList<QJsonObject> rounds;
    // The file's "on_end" (experiment/onend.h): run once the board has
    // nothing more to run; empty when none. A run's own is in its spec.
    QStringList onEnd;
    // Where load() read it and versionHash() of it: what the trust list
    // knows a version by. Empty for an experiment built in memory.
    QString sourcePath;
    QByteArray contentHash;
    // load() makes every local path absolute (experimentpaths::resolve);
    // these are the texts they were written as (absolute -> text), which
    // save() writes back where they still name the same files.
    QHash<QString, QString> pathTexts;
    // SHA-256 (hex) of a file's folder and bytes: the folder too, because a
    // relative cwd or program means another script in another folder, so a
    // trusted file copied elsewhere is asked about again.
    static QByteArray versionHash(const QString &path, const QByteArray &bytes);

    // Parses and validates. On failure returns nullopt and fills `errors`
    // (one message per problem, each starting with the JSON path).
    // `partial`, when given, gets whatever could be read even with problems:
    // the clusters, every lane (a bad device left "cpu"), every run that is
    // an object (with `invalid` set where its spec has problems), so that
    // one pass of `trainyard check` can look at the rest too.
    static std::optional<Experiment> fromJson(const QJsonValue &json, QStringList *errors,
                                              const ModelCatalogue *catalogue = nullptr, Experiment *partial = nullptr);
    // `errors` messages are prefixed with the file name.
    static std::optional<Experiment> load(const QString &path, QStringList *errors,
                                          const ModelCatalogue *catalogue = nullptr, Experiment *partial = nullptr);
    // The built-in demo (resource :/trainyard/demo.json), checked
    // structurally: it is part of the build, so a broken one is a bug.
    // $TRAINYARD_DEMO_MAX_STEPS, when set, caps every run's train.max_steps
    // (the demo trains for about a minute; the tests that train it need not).
    static Experiment demo();
    // The demo checked against `catalogue` (a worker older or newer than this
    // build may not train it).
    static std::optional<Experiment> loadDemo(QStringList *errors, const ModelCatalogue *catalogue);
    static QString demoPath(); // ":/trainyard/demo.json"

    QJsonObject toJson() const;
    // `sha256Hex`, when given, gets the hash of the bytes written.
    bool save(const QString &path, QString *error, QByteArray *sha256Hex = nullptr) const;

    // Every command the file makes run, as a shell would show it (quoted
    // where needed, control and bidi characters escaped), repeats once: what
    // the user is asked to trust. Each program run as "K=v (in CWD) ARGV",
    // each on_end as "(when NAME ends) ARGV" with its placeholders as
    // written, then each cluster's (ExperimentCluster::commandLines). Empty when the
    // file runs nothing of its own: worker runs here or on clusters with
    // the defaults.
    QStringList commandLines() const;

    // The runs root actually used (runsRoot, or the default location).
    QString effectiveRunsRoot() const;
    int runCount() const;         // repeats expanded
    QStringList runNames() const; // the lanes' runs, repeats expanded, in board order
    bool hasWorkerRuns() const;   // any run or sweep base that is not a program run: trainyard-worker is needed
    const ExperimentCluster *cluster(const QString &name) const; // null if none
    const ExperimentHost *host(const QString &name) const;       // null if none
};

// Checks one run spec, against `catalogue` when given, else structurally (see
// Experiment); `path` prefixes messages (e.g. "lanes[0].runs[2]"). Returns
// the problems, empty when valid. `allowRepeat` accepts the experiment-only
// keys "repeat" and "after" (checkAfterValue; the names are checked with
// the whole file, checkDependencies).
QStringList validateRunSpec(const QJsonObject &spec, const QString &path, bool allowRepeat,
                            const ModelCatalogue *catalogue = nullptr);

// Fills the defaults the orchestrator itself relies on: the name (the model
// type) and train.seed (1), from which repeats count. Every other default is
// the worker's (`--list-models`).
QJsonObject withDefaults(const QJsonObject &spec);

// The spec of repeat `index` (0-based) of `count`: name "<name>-<index+1>"
// and train.seed + index when count > 1; unchanged otherwise.
QJsonObject expandRepeat(const QJsonObject &spec, int index, int count);
// The run names an entry named `name` with `count` repeats becomes:
// "<name>-1" ... "<name>-<count>", or `name` alone.
QStringList repeatNames(const QString &name, int count);

// A program run of `python3 FILE` in FILE's folder (a .py file dropped on a lane).
QJsonObject pythonScriptRunSpec(const QString &file);

// True if `name` can be a run folder name: 1–100 characters of
// [A-Za-z0-9._+@-], not starting with '.', so it never leaves the runs root,
// and not ending in .attempt-N, the name of a kept attempt's folder.
bool isSafeRunName(const QString &name);

// True if `name` can be a lane's name (what its header says, unique among
// the lanes): 1–40 characters, no control character, no space at either end.
bool isLaneName(const QString &name);
// How messages describe a lane name (isLaneName).
QString laneNameRule();

} // namespace trainyard
