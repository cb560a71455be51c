// The GPU test set: every model trains on cuda:0, a stopped GPU run resumes
// with the same step numbering, and a GPU that is not there is bad input.
// Where no CUDA GPU is usable (no GPU, no driver, a CPU-only LibTorch) every
// case is skipped with the worker's own explanation.

#include "tests/training/workerrun.h"

#include "tests/helpers/minitest.h"

#include <signal.h>

using namespace testing;

namespace {

// `train` adds keys to the train section (e.g. `, "amp": "bf16"`).
std::string specFor(const std::string &model, const std::string &data, int maxSteps, const std::string &train = "")
{
    return R"({"name": "gpu-)" + model + R"(", "model": {"type": ")" + model + R"("}, "data": )" + data
           + R"(, "train": {"epochs": 1000, "max_steps": )" + std::to_string(maxSteps)
           + R"(, "batch_size": 64, "seed": 3)" + train
           + R"(}, "eval": {"every_epochs": 0}, "checkpoint": {"every_steps": 20},)"
           + R"( "report": {"every_steps": 5}})";
}

const std::string kKg = R"({"kind": "synthetic-kg", "entities": 60, "relations": 4, "triples": 800})";
const std::string kImages = R"({"kind": "synthetic-images", "samples": 512, "classes": 4, "size": 28})";

// Skips the current case unless cuda:0 trains; the worker says why not.
void requireGpu()
{
    static int usable = -1;
    static std::string why;
    if (usable < 0) {
        const std::string dir = tempDir("gpu-probe");
        writeFile(dir + "/spec.json", specFor("transe", kKg, 2));
        std::string err;
        const int code =
            runWorker({"--spec", dir + "/spec.json", "--run-dir", dir + "/run", "--device", "cuda:0"}, &err);
        usable = code == 0 ? 1 : 0;
        why = code == 2 ? err : "the probe run on cuda:0 exited " + std::to_string(code) + ": " + err;
    }
    if (!usable) {
        TY_SKIP("no usable CUDA GPU: " + why);
    }
}

// Trains `model` for a few steps on cuda:0 and checks the run's record.
void trainsOnGpu(const std::string &model, const std::string &data, const std::string &train = "")
{
    requireGpu();
    const std::string dir = tempDir("gpu-" + model);
    writeFile(dir + "/spec.json", specFor(model, data, 30, train));
    std::string err;
    const int code =
        runWorker({"--spec", dir + "/spec.json", "--run-dir", dir + "/run", "--device", "cuda:0"}, &err, nullptr, 300);
    TY_CHECK_EQ(code, 0);
    if (code != 0) {
        std::cerr << err << '\n';
    }
    const auto lines = readLines(dir + "/run/metrics.jsonl");
    const auto metrics = ofType(lines, "metric");
    TY_REQUIRE(!metrics.empty());
    TY_CHECK_EQ(metrics.back()["step"].get<int>(), 30);
    for (const auto &m : metrics) {
        TY_CHECK(std::isfinite(m["loss"].get<double>()));
    }
    const auto done = ofType(lines, "done");
    TY_REQUIRE(done.size() == 1);
    TY_CHECK(done[0]["status"] == "finished");
}

} // namespace

TY_TEST(transeOnGpu)
{
    trainsOnGpu("transe", kKg);
}
TY_TEST(transhOnGpu)
{
    trainsOnGpu("transh", kKg);
}
TY_TEST(convTranseOnGpu)
{
    trainsOnGpu("conv-transe", kKg);
}
TY_TEST(sacnOnGpu)
{
    trainsOnGpu("sacn", kKg);
}
TY_TEST(cnnOnGpu)
{
    trainsOnGpu("mnist-cnn", kImages);
}
TY_TEST(mlpOnGpu)
{
    trainsOnGpu("mlp", kImages);
}
// train.amp bf16 (CUDA autocast) and train.channels_last.
const std::string kFast = R"(, "amp": "bf16", "channels_last": true)";
TY_TEST(cnnBf16ChannelsLastOnGpu)
{
    trainsOnGpu("mnist-cnn", kImages, kFast);
}
TY_TEST(sacnBf16OnGpu)
{
    trainsOnGpu("sacn", kKg, kFast);
}
TY_TEST(transeBf16OnGpu)
{
    trainsOnGpu("transe", kKg, kFast);
}

TY_TEST(stopAndResumeOnGpu)
{
    requireGpu();
    const std::string dir = tempDir("gpu-resume");
    writeFile(dir + "/spec.json", specFor("transe", kKg, 100000));
    WorkerProcess first({"--spec", dir + "/spec.json", "--run-dir", dir + "/run", "--device", "cuda:0"});
    // Wait until it has reported a few steps, then ask it to stop.
    for (int i = 0; i < 3000; ++i) {
        if (ofType(readLines(dir + "/run/metrics.jsonl"), "metric").size() >= 4) {
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(first.pid(), SIGTERM);
    TY_REQUIRE(first.wait(120) == 4);
    const auto before = ofType(readLines(dir + "/run/metrics.jsonl"), "metric");
    TY_REQUIRE(!before.empty());
    const int lastStep = before.back()["step"].get<int>();

    writeFile(dir + "/spec2.json", specFor("transe", kKg, lastStep + 40));
    std::string err;
    const int code =
        runWorker({"--spec", dir + "/spec2.json", "--run-dir", dir + "/run", "--device", "cuda:0", "--resume"}, &err);
    TY_CHECK_EQ(code, 0);
    const auto after = ofType(readLines(dir + "/run/metrics.jsonl"), "metric");
    TY_REQUIRE(after.size() > before.size());
    // The resumed part continues the numbering: no step goes backwards.
    TY_CHECK(after[before.size()]["step"].get<int>() > lastStep - 20);
    TY_CHECK_EQ(after.back()["step"].get<int>(), lastStep + 40);
}

TY_TEST(absentGpuIsBadInput)
{
    requireGpu();
    const std::string dir = tempDir("gpu-absent");
    writeFile(dir + "/spec.json", specFor("transe", kKg, 5));
    std::string err;
    const int code = runWorker({"--spec", dir + "/spec.json", "--run-dir", dir + "/run", "--device", "cuda:97"}, &err);
    TY_CHECK_EQ(code, 2);
    TY_CHECK(err.find("cuda:0") != std::string::npos); // names the GPUs that exist
}

TY_TEST_MAIN()
