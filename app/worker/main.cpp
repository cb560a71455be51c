// trainyard-worker: trains one model headless; see --help and docs/protocol.md.

#include "protocol/protocol.h"
#include "worker/base/badinput.h"
#include "worker/base/catalogue.h"
#include "worker/base/reporter.h"
#include "worker/base/runcheck.h"
#include "worker/base/workeroptions.h"
#include "worker/train/worker.h"

#include <iostream>

int main(int argc, char **argv)
{
    using trainyard::WorkerOptions;
    WorkerOptions options;
    try {
        options = WorkerOptions::parse(argc, argv);
    } catch (const trainyard::BadInput &e) {
        std::cerr << "trainyard-worker: " << e.what() << std::endl;
        return 2;
    }
    switch (options.action) {
    case WorkerOptions::Action::Help:
        std::cout << WorkerOptions::usage();
        return 0;
    case WorkerOptions::Action::Version:
        std::cout << "trainyard-worker " TRAINYARD_VERSION " (protocol " << trainyard::protocol::kVersion << ", "
                  << trainyard::torchBuild() << ")\n";
        return 0;
    case WorkerOptions::Action::ListModels: {
        // The orchestrator reads "libtorch" to tell a cuda: lane that this
        // worker cannot use its GPU before any run starts there.
        nlohmann::json list = trainyard::Catalogue::instance().toJson();
        const std::string cuda = trainyard::torchCudaVersion();
        list["libtorch"] = {{"version", trainyard::torchVersion()},
                            {"cuda", cuda.empty() ? nlohmann::json() : nlohmann::json(cuda)}};
        std::cout << list.dump(2) << '\n';
        return 0;
    }
    case WorkerOptions::Action::Check:
        return trainyard::checkRun(options.spec);
    case WorkerOptions::Action::Train:
        break;
    }
    trainyard::Reporter::installSignalHandlers();
    return trainyard::runWorker(options);
}
