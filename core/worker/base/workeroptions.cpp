#include "worker/base/workeroptions.h"

#include "worker/base/badinput.h"

#include <cstdlib>
#include <cstring>

namespace trainyard {

std::string WorkerOptions::usage()
{
    return "Usage:\n"
           "  trainyard-worker --spec RUN.json --run-dir DIR [--connect unix:PATH | tcp:HOST:PORT]\n"
           "                   [--token TOKEN] [--device cpu | cuda:N] [--threads N] [--resume] [--cpu-fallback]\n"
           "  trainyard-worker --check --spec RUN.json\n"
           "  trainyard-worker --list-models | --version | --help\n"
           "\n"
           "Trains one model as the run spec says, appending every message to DIR/metrics.jsonl\n"
           "and, with --connect, streaming it to the orchestrator (first line: hello with TOKEN).\n"
           "\n"
           "  --spec FILE       the run spec (JSON; keys and defaults: --list-models, docs/models.md)\n"
           "  --run-dir DIR     where metrics.jsonl and checkpoints/ go (created if missing)\n"
           "  --connect ADDR    the orchestrator's socket: unix:PATH or tcp:HOST:PORT\n"
           "  --token TOKEN     proves this worker to the orchestrator; sent only on the socket.\n"
           "                    Without it the worker takes TRAINYARD_TOKEN from its environment\n"
           "                    (and removes it there), which other local users cannot read\n"
           "  --device DEV      cpu (default) or cuda:N\n"
           "  --threads N       CPU threads of LibTorch's operators (default 1)\n"
           "  --resume          continue from the newest valid checkpoint in DIR/checkpoints\n"
           "  --cpu-fallback    train on the CPU when the --device GPU cannot be used here (a warning\n"
           "                    in the log), instead of failing with exit status 2\n"
           "  --check           check the spec and take a quick look at its data (files exist, first\n"
           "                    lines parse); trains nothing, writes nothing; exit 0 or 2\n"
           "  --list-models     print every model, data kind and spec key with defaults and ranges (JSON)\n"
           "  --version         print the version\n"
           "\n"
           "Exit status: 0 finished, 1 runtime failure, 2 bad input, 3 diverged (loss NaN/inf),\n"
           "4 stopped on request after a checkpoint, 5 checkpointed on SIGUSR2 to be resubmitted\n"
           "(a batch job's time limit is near). SIGTERM and SIGINT mean stop.\n";
}

WorkerOptions WorkerOptions::parse(int argc, const char *const *argv)
{
    WorkerOptions o;
    o.arguments.assign(argv, argv + argc);
    bool sawSpec = false, sawRunDir = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        std::string name = arg, value;
        bool inlineValue = false;
        if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
            name = arg.substr(0, eq);
            value = arg.substr(eq + 1);
            inlineValue = true;
        }
        auto takeValue = [&]() {
            if (inlineValue) {
                return value;
            }
            if (i + 1 >= argc) {
                throw BadInput(name + ": missing value\n" + usage());
            }
            return std::string(argv[++i]);
        };
        if (name == "--help" || name == "-h") {
            o.action = Action::Help;
        } else if (name == "--version") {
            o.action = Action::Version;
        } else if (name == "--list-models") {
            o.action = Action::ListModels;
        } else if (name == "--check") {
            o.action = Action::Check;
        } else if (name == "--spec") {
            o.spec = takeValue();
            sawSpec = true;
        } else if (name == "--run-dir") {
            o.runDir = takeValue();
            sawRunDir = true;
        } else if (name == "--connect") {
            o.connect = takeValue();
        } else if (name == "--token") {
            o.token = takeValue();
        } else if (name == "--device") {
            o.device = takeValue();
        } else if (name == "--threads") {
            const std::string v = takeValue();
            if (v.empty() || v.size() > 4 || v.find_first_not_of("0123456789") != std::string::npos || std::stoi(v) < 1
                || std::stoi(v) > 1024) {
                throw BadInput("--threads: expected an integer in [1, 1024], got \"" + v + "\"");
            }
            o.threads = std::stoi(v);
        } else if (name == "--resume") {
            o.resume = true;
        } else if (name == "--cpu-fallback") {
            o.cpuFallback = true;
        } else {
            throw BadInput("unknown argument \"" + arg + "\" (see --help)");
        }
    }
    if (o.action == Action::Train && o.token.empty()) {
        // The orchestrator passes the token in the environment: unlike the
        // command line (ps, /proc/PID/cmdline) it is readable by our user only.
        if (const char *fromEnv = std::getenv(kTokenVariable); fromEnv && *fromEnv) {
            o.token = fromEnv;
        }
    }
    ::unsetenv(kTokenVariable); // not inherited by anything we start
    if (o.action == Action::Check && (!sawSpec || o.spec.empty())) {
        throw BadInput("--check needs --spec FILE (see --help)");
    }
    if (o.action == Action::Train) {
        if (!sawSpec || o.spec.empty()) {
            throw BadInput("--spec FILE is required (see --help)");
        }
        if (!sawRunDir || o.runDir.empty()) {
            throw BadInput("--run-dir DIR is required (see --help)");
        }
    }
    return o;
}

} // namespace trainyard
