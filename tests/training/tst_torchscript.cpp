// "Bring your own model": TorchScript modules built here in C++ (no Python),
// saved to a file and trained by the trainyard-worker binary (docs/models.md,
// "Bring your own model: torchscript").

#include "linearmodule.h"
#include "tests/helpers/minitest.h"
#include "tests/training/workerrun.h"

#include <torch/script.h>

#include <cmath>

using testing::ofType;
using testing::readLines;
using testing::runWorker;
using testing::saveLinearModule;

namespace {

constexpr int kClasses = 4;
constexpr int kSize = 8;

bool contains(const std::string &text, const std::string &part)
{
    if (text.find(part) == std::string::npos) {
        std::cerr << "  \"" << text << "\" lacks \"" << part << "\"\n";
        return false;
    }
    return true;
}

std::string spec(const std::string &modelPath)
{
    return R"({"name": "byom", "model": {"type": "torchscript", "path": ")" + modelPath + R"("},
  "data": {"kind": "synthetic-images", "samples": 800, "classes": 4, "size": 8},
  "train": {"epochs": 3, "batch_size": 32, "optimizer": "adam", "lr": 0.01, "seed": 3},
  "eval": {"every_epochs": 1, "split": "valid"}, "report": {"every_steps": 1}, "checkpoint": {"every_steps": 0}})";
}

// Runs the worker on `specText` written to DIR/spec.json; returns the exit status.
int run(const std::string &dir, const std::string &specText, std::string *err,
        const std::vector<std::string> &extra = {})
{
    testing::writeFile(dir + "/spec.json", specText);
    std::vector<std::string> args = {"--spec", dir + "/spec.json", "--run-dir", dir + "/run"};
    args.insert(args.end(), extra.begin(), extra.end());
    return runWorker(args, err, nullptr, 240);
}

} // namespace

TY_TEST(listsTorchscriptWithAPathParam)
{
    std::string out, err;
    TY_REQUIRE(runWorker({"--list-models"}, &err, &out) == 0);
    const auto doc = nlohmann::json::parse(out);
    bool found = false;
    for (const auto &m : doc["models"]) {
        if (m["type"] != "torchscript") {
            continue;
        }
        found = true;
        TY_CHECK_EQ(m["task"].get<std::string>(), std::string("image"));
        TY_REQUIRE(m["params"].size() == 1u);
        TY_CHECK_EQ(m["params"][0]["name"].get<std::string>(), std::string("path"));
        TY_CHECK_EQ(m["params"][0]["type"].get<std::string>(), std::string("path"));
    }
    TY_CHECK(found);
}

TY_TEST(trainsAModuleFromARelativePathAndResumes)
{
    const std::string dir = testing::tempDir("ts-train");
    saveLinearModule(dir + "/model.pt", kClasses, kSize);
    std::string err;
    // "model.pt" is relative to the spec file.
    TY_REQUIRE(run(dir, spec("model.pt"), &err) == 0);
    auto lines = readLines(dir + "/run/metrics.jsonl");
    const auto metrics = ofType(lines, "metric");
    TY_REQUIRE(metrics.size() >= 50u);
    const double first = metrics.front()["loss"].get<double>();
    TY_CHECK(std::abs(first - std::log(double(kClasses))) < 1e-3); // zero weights: uniform logits
    double late = 0.0;
    for (std::size_t i = metrics.size() - 10; i < metrics.size(); ++i) {
        late += metrics[i]["loss"].get<double>() / 10.0;
    }
    std::cerr << "  loss " << first << " -> " << late << "\n";
    TY_CHECK(late < 0.5 * first);
    const auto evals = ofType(lines, "eval");
    TY_REQUIRE(!evals.empty());
    const double accuracy = evals.back()["accuracy"].get<double>();
    std::cerr << "  valid accuracy " << accuracy << " (chance 0.25)\n";
    TY_CHECK(accuracy > 0.8);
    TY_REQUIRE(!ofType(lines, "checkpoint").empty());
    const std::int64_t lastStep = metrics.back()["step"].get<std::int64_t>();

    // --resume from the final checkpoint with more epochs continues the numbering.
    const std::string more = R"({"name": "byom", "model": {"type": "torchscript", "path": "model.pt"},
  "data": {"kind": "synthetic-images", "samples": 800, "classes": 4, "size": 8},
  "train": {"epochs": 4, "batch_size": 32, "optimizer": "adam", "lr": 0.01, "seed": 3},
  "eval": {"every_epochs": 1, "split": "valid"}, "report": {"every_steps": 1}, "checkpoint": {"every_steps": 0}})";
    TY_REQUIRE(run(dir, more, &err, {"--resume"}) == 0);
    lines = readLines(dir + "/run/metrics.jsonl");
    bool resumed = false;
    std::int64_t firstAfter = -1;
    for (const auto &l : lines) {
        if (l["type"] == "log" && l["text"] == "resumed from step " + std::to_string(lastStep)) {
            resumed = true;
        } else if (resumed && firstAfter < 0 && l["type"] == "metric") {
            firstAfter = l["step"].get<std::int64_t>();
        }
    }
    TY_CHECK(resumed);
    TY_CHECK_EQ(firstAfter, lastStep + 1);
    // The restored weights are the trained ones: the loss goes on from where it was.
    const auto after = ofType(lines, "metric");
    TY_CHECK(after.back()["step"].get<std::int64_t>() > lastStep);
    TY_CHECK(after.back()["loss"].get<double>() < 0.5 * first);
    TY_CHECK(ofType(lines, "eval").back()["accuracy"].get<double>() > 0.8);
}

TY_TEST(usesTheModulesOwnLossMethod)
{
    const std::string dir = testing::tempDir("ts-loss");
    saveLinearModule(dir + "/model.pt", kClasses, kSize, 3.0);
    std::string err;
    TY_REQUIRE(run(dir, spec(dir + "/model.pt"), &err) == 0);
    const auto metrics = ofType(readLines(dir + "/run/metrics.jsonl"), "metric");
    TY_REQUIRE(!metrics.empty());
    TY_CHECK(std::abs(metrics.front()["loss"].get<double>() - 3.0 * std::log(double(kClasses))) < 1e-3);
}

TY_TEST(badModulesExitTwoNamingTheFile)
{
    const std::string dir = testing::tempDir("ts-bad");
    std::string err;

    TY_CHECK_EQ(run(dir, spec("/nonexistent/model.pt"), &err), 2);
    TY_CHECK(contains(err, "model.path: /nonexistent/model.pt: cannot open the file"));

    testing::writeFile(dir + "/text.pt", "not a zip archive\n");
    TY_CHECK_EQ(run(dir, spec(dir + "/text.pt"), &err), 2);
    TY_CHECK(contains(err, dir + "/text.pt: not a TorchScript archive"));

    {
        torch::jit::Module m("NoForward");
        m.register_parameter("w", torch::zeros({2}).requires_grad_(true), false);
        m.define("def other(self, x):\n    return x * self.w\n");
        m.save(dir + "/noforward.pt");
    }
    TY_CHECK_EQ(run(dir, spec(dir + "/noforward.pt"), &err), 2);
    TY_CHECK(contains(err, dir + "/noforward.pt: the module has no forward method"));

    saveLinearModule(dir + "/three.pt", 3, kSize); // the data has 4 classes
    TY_CHECK_EQ(run(dir, spec(dir + "/three.pt"), &err), 2);
    TY_CHECK(contains(err, dir + "/three.pt: forward(x [2, 1, 8, 8]) returned [2, 3]"));
    TY_CHECK(contains(err, "expected float logits [2, 4]"));

    TY_CHECK_EQ(run(dir, R"({"model": {"type": "torchscript"}})", &err), 2);
    TY_CHECK(contains(err, "model.path: required for model \"torchscript\""));

    saveLinearModule(dir + "/ok.pt", kClasses, kSize);
    TY_CHECK_EQ(
        run(dir,
            R"({"model": {"type": "torchscript", "path": ")" + dir + R"(/ok.pt"}, "data": {"kind": "synthetic-kg"}})",
            &err),
        2);
    TY_CHECK(contains(err, "\"synthetic-kg\" holds kg data but model \"torchscript\" needs image data"));
}

TY_TEST_MAIN()
