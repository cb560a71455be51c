#include "orchestration/experiment/keytables.h"

// Each table lists its keys in the order the checks' messages name them
// (tests compare those messages). "rule" holds only what the check also
// enforces; the rest of a value's checks (a device's grammar, a name being
// unique) stay in the code that reads it and in its messages.
namespace trainyard::keytables {

namespace {

// A run or sweep name: a folder name, never ".." nor a kept attempt's.
constexpr const char *kRunName =
    R"({"pattern": "^[A-Za-z0-9_+@-][A-Za-z0-9._+@-]{0,99}$", "not": {"pattern": "\\.attempt-[0-9]+$"}})";
constexpr const char *kMachineName = R"({"pattern": "^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$"})";
constexpr const char *kAbsolute = R"({"pattern": "^/"})";
constexpr const char *kAfter = R"({"items": {"type": "string"}})";
// on_end: an argv list (experiment/onend.h); its placeholders are checked by the code.
constexpr const char *kOnEnd = R"({"minItems": 1, "items": {"type": "string"}})";

} // namespace

QStringList Table::names(bool entry) const
{
    QStringList out;
    for (const Key &k : keys) {
        if (!(k.flags & kUnlisted) && (entry || !(k.flags & kEntryOnly))) {
            out << QLatin1String(k.name);
        }
    }
    return out;
}

QStringList Table::accepted(bool entry) const
{
    QStringList out;
    for (const Key &k : keys) {
        if (entry || !(k.flags & kEntryOnly)) {
            out << QLatin1String(k.name);
        }
    }
    return out;
}

const Table &experiment()
{
    static const Table t{
        "experiment",
        "A Trainyard experiment file: lanes of runs, the clusters and hosts they use, sweeps.",
        {
            {"name", "string", "The experiment's name (1-100 of A-Z a-z 0-9 . _ + @ -, not starting with '.').", "",
             kRunName, kRequired},
            {"runs_root", "string|null", "Folder holding one folder per run; relative to this file, ~/ is home."},
            {"clusters", "array", "Slurm clusters the lanes may name (\"slurm:NAME/PARTITION\").", "cluster"},
            {"hosts", "array", "Machines reached over ssh the lanes may name (\"ssh:NAME/cuda:N\").", "host"},
            {"lanes", "array", "The lanes, left to right: a device and a queue of runs each.", "lane", "", kRequired},
            {"sweeps", "array", "Searches over a base run's keys, their trials placed on the lanes.", "sweep"},
            {"on_end", "array",
             "A command run once the board has nothing more to run: program and arguments, {experiment} "
             "{finished} {failed} {total} {folder} replaced.",
             "", kOnEnd},
            {"$schema", "string", "The JSON Schema editors check this file with (Trainyard does not read it).", "", "",
             kUnlisted},
        }};
    return t;
}

const Table &cluster()
{
    static const Table t{
        "cluster",
        "A Slurm cluster the lanes may name.",
        {
            {"name", "string", "Its name, what \"slurm:NAME/...\" names (1-100 of A-Z a-z 0-9 . _ -).", "",
             kMachineName, kRequired},
            {"reach", "string", "\"local\": Slurm's commands run here; \"ssh\": through ssh to host.", "",
             R"({"enum": ["local", "ssh"]})"},
            {"host", "string", "ssh only: the host name, address or ssh config alias."},
            {"user", "string", "ssh only: the user name to log in as."},
            {"port", "integer", "ssh only: the ssh port.", "", R"({"minimum": 1, "maximum": 65535})"},
            {"runs_root", "string", "The runs folder on the cluster (required with reach \"ssh\").", "", kAbsolute},
            {"worker", "string", "trainyard-worker on the cluster, an absolute path.", "", kAbsolute},
            {"sbatch", "object", "sbatch's defaults for the cluster's jobs.", "sbatch"},
            {"poll_seconds", "integer", "One squeue for the cluster's jobs this often.", "",
             R"({"minimum": 1, "maximum": 3600})"},
            {"ssh_config", "string", "ssh only: an ssh config file for ssh -F."},
        }};
    return t;
}

const Table &sbatch()
{
    static const Table t{
        "sbatch",
        "sbatch options of a cluster's jobs.",
        {
            {"partition", "string", "--partition; a lane's /PARTITION wins."},
            {"account", "string", "--account."},
            {"qos", "string", "--qos."},
            {"time", "string", "--time: \"30\" (minutes), \"4:00:00\", \"2-00:00:00\", \"UNLIMITED\"."},
            {"warn_seconds", "integer", "The worker checkpoints this long before the time limit; 0: no warning.", "",
             R"({"minimum": 0, "maximum": 86400})"},
            {"extra_args", "array", "More sbatch options, one \"--name=value\" each.", "",
             R"({"items": {"type": "string", "pattern": "^--."}})"},
        }};
    return t;
}

const Table &host()
{
    static const Table t{
        "host",
        "A machine reached over ssh that the lanes may name.",
        {
            {"name", "string", "Its name, what \"ssh:NAME/...\" names (1-100 of A-Z a-z 0-9 . _ -).", "", kMachineName,
             kRequired},
            {"host", "string", "The host name, address or ssh config alias.", "", "", kRequired},
            {"user", "string", "The user name to log in as."},
            {"port", "integer", "The ssh port.", "", R"({"minimum": 1, "maximum": 65535})"},
            {"ssh_config", "string", "An ssh config file for ssh -F."},
            {"runs_root", "string", "This experiment's run folders on the host, an absolute path.", "", kAbsolute,
             kRequired},
            {"worker", "string", "trainyard-worker on the host, an absolute path.", "", kAbsolute, kRequired},
            {"python", "string", "The Python of program runs on the host, an absolute path.", "", kAbsolute},
            {"poll_seconds", "integer", "One command asks the host about its runs and GPUs this often.", "",
             R"({"minimum": 1, "maximum": 3600})"},
        }};
    return t;
}

const Table &lane()
{
    static const Table t{
        "lane",
        "A lane: a device and the queue of runs that train on it.",
        {
            {"name", "string", "What the lane's header says (1-40 characters).", "",
             R"({"minLength": 1, "maxLength": 40})"},
            {"device", "string",
             "\"cpu\", \"cuda:N\", a pool \"cuda:*\", \"cuda:0-3\", \"slurm:CLUSTER/PARTITION\", \"ssh:HOST/cuda:N\".",
             "", "", kRequired},
            {"slots", "integer", "Runs of this lane training at once.", "", R"({"minimum": 1})"},
            {"gres", "string", "Slurm lanes only: what each run asks for (sbatch --gres), such as \"gpu:a100:2\".", "",
             R"({"pattern": "^[A-Za-z][A-Za-z0-9_]*(:[A-Za-z0-9_.-]+)?(:[0-9]+)?$"})"},
            {"busy", "string", "GPU lanes only: what to do with a GPU others' processes use.", "",
             R"({"enum": ["wait", "share", "ignore"]})"},
            {"runs", "array", "The queue, in order: run specs and rounds.", "run_entry"},
        }};
    return t;
}

const Table &modelRun()
{
    static const Table t{
        "model_run",
        "A run of one of the worker's models.",
        {
            {"name", "string", "The run's name and folder name, unique in the experiment (default: model.type).", "",
             kRunName},
            {"model", "object", "type, one of the worker's models, and that model's hyperparameters.", "model", "",
             kRequired},
            {"data", "object", "kind, one of the worker's data kinds, and that kind's keys.", "data"},
            {"train", "object", "The worker's training keys.", "train"},
            {"eval", "object", "The worker's evaluation keys.", "eval"},
            {"checkpoint", "object", "The worker's checkpoint keys.", "checkpoint"},
            {"report", "object", "The worker's reporting keys.", "report"},
            {"resources", "object", "What it needs of a GPU lane.", "resources"},
            {"repeat", "integer", "Run this spec N times (names NAME-1, NAME-2, ...; seeds counted up).", "",
             R"({"minimum": 1, "maximum": 1000})", kEntryOnly},
            {"after", "string|array", "The runs it runs after: a name or a list of names.", "", kAfter, kEntryOnly},
            {"on_end", "array",
             "A command run when this run ends: program and arguments, {name} {state} {folder} "
             "{experiment} replaced.",
             "", kOnEnd, kEntryOnly},
        }};
    return t;
}

const Table &programRun()
{
    static const Table t{
        "program_run",
        "A run of a program of yours (a command; the file must be trusted).",
        {
            {"name", "string", "The run's name and folder name, unique in the experiment.", "", kRunName},
            {"program", "object", "What runs: argv, cwd, env, requires.", "program", "", kRequired},
            {"train", "object", "seed, which repeats count up from.", "program_train"},
            {"config", "object", "Parameters: names and numbers, strings or booleans; {name} in argv.", "",
             R"({"propertyNames": {"pattern": "^[A-Za-z0-9_]{1,64}$"},
                 "additionalProperties": {"type": ["number", "string", "boolean"]}})"},
            {"resources", "object", "What it needs of a GPU lane.", "resources"},
            {"repeat", "integer", "Run this spec N times (names NAME-1, NAME-2, ...; seeds counted up).", "",
             R"({"minimum": 1, "maximum": 1000})", kEntryOnly},
            {"after", "string|array", "The runs it runs after: a name or a list of names.", "", kAfter, kEntryOnly},
            {"on_end", "array",
             "A command run when this run ends: program and arguments, {name} {state} {folder} "
             "{experiment} replaced.",
             "", kOnEnd, kEntryOnly},
        }};
    return t;
}

const Table &program()
{
    static const Table t{
        "program",
        "The command a program run starts.",
        {
            {"argv", "array", "The program and its arguments, never through a shell.", "",
             R"({"items": {"type": "string"}, "minItems": 1})", kRequired},
            {"cwd", "string", "The folder it runs in; relative to this file.", "", R"({"minLength": 1})"},
            {"env", "object", "Environment variables added to its environment.", "",
             R"({"propertyNames": {"pattern": "^[A-Za-z_][A-Za-z0-9_]{0,127}$"},
                 "additionalProperties": {"type": "string"}})"},
            {"requires", "array", "Python modules its interpreter must find (\"torch\").", "",
             R"({"items": {"type": "string"}})"},
        }};
    return t;
}

const Table &programTrain()
{
    static const Table t{
        "program_train",
        "A program run's training keys.",
        {
            {"seed", "integer", "Its seed (TRAINYARD_SEED); repeats count up from it.", "", R"({"minimum": 0})"},
        }};
    return t;
}

const Table &resources()
{
    static const Table t{
        "resources",
        "What a run needs of a GPU lane.",
        {
            {"gpus", "integer", "GPUs it needs, all of one machine.", "", R"({"minimum": 1, "maximum": 64})"},
            {"gpu_memory", "integer|string", "Its peak on each GPU: bytes or a size such as \"30GiB\"."},
            {"on_oom", "string", "What a CUDA out-of-memory does: fail, or retry with more memory.", "",
             R"({"enum": ["fail", "retry"]})"},
        }};
    return t;
}

const Table &roundsEntry()
{
    static const Table t{
        "rounds_entry",
        "Rounds of clients and an aggregate (federated learning), one entry of a queue.",
        {
            {"rounds", "object", "The rounds: name, count, clients, aggregate.", "rounds", "", kRequired},
        }};
    return t;
}

const Table &rounds()
{
    static const Table t{
        "rounds",
        "Rounds of clients and an aggregate.",
        {
            {"name", "string", "Their name; runs are named NAME-rK-MEMBER.", "", kRunName, kRequired},
            {"count", "integer", "How many rounds.", "", R"({"minimum": 1, "maximum": 1000})", kRequired},
            {"clients", "array", "Each round's clients (run specs without repeat or after).", "member",
             R"({"minItems": 1, "maxItems": 1000})", kRequired},
            {"aggregate", "object", "Each round's aggregate (a run spec without repeat or after).", "member", "",
             kRequired},
            {"after", "string|array", "What round 1's clients run after.", "", kAfter},
        }};
    return t;
}

const Table &sweep()
{
    static const Table t{
        "sweep",
        "A search over a base run's keys.",
        {
            {"name", "string", "The sweep's name; its trials are NAME-1, NAME-2, ...", "", kRunName, kRequired},
            {"base", "object", "What every trial trains: a run spec without name and repeat.", "sweep_base", "",
             kRequired},
            {"space", "object", "The searched keys (\"train.lr\") and how each varies.", "",
             R"({"additionalProperties": {"$ref": "#/$defs/sweep_parameter"}, "minProperties": 1})", kRequired},
            {"method", "string", "\"grid\": every combination; \"random\": trials draws.", "",
             R"({"enum": ["grid", "random"]})"},
            {"trials", "integer", "random: how many trials (required); grid: the first N (0: all).", "",
             R"({"minimum": 0, "maximum": 10000})"},
            {"seed", "integer", "random: the sampler's seed.", "", R"({"minimum": 0})"},
            {"max_grid", "integer", "A larger grid is refused.", "", R"({"minimum": 1, "maximum": 10000})"},
            {"lanes", "array", "The lanes (0 = the first) its trials may use; default every lane.", "",
             R"({"items": {"type": "integer", "minimum": 0}, "minItems": 1})"},
            {"objective", "object", "What the search ranks by.", "objective", "", kRequired},
            {"early_stopping", "object", "Stops or pauses trials that do worse (ASHA or the median rule).",
             "early_stopping"},
        }};
    return t;
}

const Table &sweepParameter()
{
    static const Table t{"sweep_parameter",
                         "How one key of a sweep varies: values, range, uniform, log_uniform or fixed.",
                         {
                             {"values", "array", "Those values, in that order.", "", R"({"minItems": 1})"},
                             {"range", "array", "[low, high]: low, low + step, ... up to high.", "",
                              R"({"items": {"type": "number"}, "minItems": 2, "maxItems": 2})"},
                             {"step", "number", "range only: the step (default 1).", "", R"({"exclusiveMinimum": 0})"},
                             {"uniform", "array", "random only: [low, high], uniform.", "",
                              R"({"items": {"type": "number"}, "minItems": 2, "maxItems": 2})"},
                             {"log_uniform", "array", "random only: [low, high], uniform in log space, 0 < low.", "",
                              R"({"items": {"type": "number"}, "minItems": 2, "maxItems": 2})"},
                             {"int", "boolean", "range, uniform, log_uniform: integers only."},
                             {"fixed", "", "Always this value."},
                         }};
    return t;
}

const Table &objective()
{
    static const Table t{
        "objective",
        "What a sweep ranks its trials by.",
        {
            {"metric", "string", "\"<split>/<metric>\" as eval lines name it, such as \"valid/mrr\".", "",
             R"({"pattern": "^[A-Za-z0-9_-]{1,64}/[A-Za-z0-9_@.+-]{1,64}$"})", kRequired},
            {"mode", "string", "Whether larger or smaller is better.", "", R"({"enum": ["max", "min"]})", kRequired},
        }};
    return t;
}

const Table &earlyStopping()
{
    static const Table t{
        "early_stopping",
        "Stopping trials that do worse than others.",
        {
            {"rule", "string", "\"asha\" (successive halving) or \"median\".", "", R"({"enum": ["asha", "median"]})",
             kRequired},
            {"resource", "string", "What min and max count.", "", R"({"enum": ["epoch", "step"]})"},
            {"min", "number", "The first rung, or the grace period (default 1).", "", R"({"exclusiveMinimum": 0})"},
            {"max", "number", "The last rung: what the trials train up to.", "", R"({"exclusiveMinimum": 0})",
             kRequired},
            {"eta", "number", "asha only: the reduction factor (default 3).", "", R"({"exclusiveMinimum": 1})"},
        }};
    return t;
}

const std::vector<const Table *> &all()
{
    static const std::vector<const Table *> tables{
        &experiment(), &cluster(),        &sbatch(),       &host(),          &lane(),        &modelRun(),
        &programRun(), &program(),        &programTrain(), &resources(),     &roundsEntry(), &rounds(),
        &sweep(),      &sweepParameter(), &objective(),    &earlyStopping(),
    };
    return tables;
}

} // namespace trainyard::keytables
