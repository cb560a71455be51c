#pragma once

#include <string>
#include <vector>

namespace trainyard {

// The worker's command line (a fixed interface: README, "One run from a shell").
struct WorkerOptions
{
    enum class Action {
        Train,
        Help,
        Version,
        ListModels,
        Check // --check --spec FILE: the spec and a quick look at its data; nothing trains
    };

    Action action = Action::Train;
    std::string spec;
    std::string runDir;
    std::string connect; // empty: no orchestrator
    std::string token;
    std::string device = "cpu";
    int threads = 0; // 0: the default (1)
    bool resume = false;
    bool cpuFallback = false;           // --cpu-fallback: a GPU this machine cannot use means the CPU
    std::vector<std::string> arguments; // argv as given, to start the worker again

    // Where the orchestrator puts the token when --token is absent.
    static constexpr const char *kTokenVariable = "TRAINYARD_TOKEN";

    // Throws BadInput naming the offending argument. Takes the token from
    // kTokenVariable when there is no --token, and removes that variable
    // from the environment either way.
    static WorkerOptions parse(int argc, const char *const *argv);
    static std::string usage();
};

} // namespace trainyard
