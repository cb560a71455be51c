#pragma once

// Training a spec inside the test process, as trainyard-worker would (for
// tests that link the LibTorch part and inspect state afterwards).

#include "tests/training/workerrun.h"

#include "worker/base/workeroptions.h"
#include "worker/train/worker.h"

#include <string>
#include <vector>

namespace testing {

struct InProcessRun
{
    int code = -1;
    std::vector<nlohmann::json> lines;
};

// Trains `specText` (written to DIR/spec.json) in run folder `runDir`.
inline InProcessRun trainInProcess(const std::string &dir, const std::string &specText, const std::string &runDir,
                                   bool resume = false)
{
    writeFile(dir + "/spec.json", specText);
    trainyard::WorkerOptions options;
    options.spec = dir + "/spec.json";
    options.runDir = runDir;
    options.resume = resume;
    InProcessRun run;
    run.code = trainyard::runWorker(options);
    run.lines = readLines(runDir + "/metrics.jsonl");
    return run;
}

} // namespace testing
