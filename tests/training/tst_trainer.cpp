// Training through the worker binary: every model learns on small synthetic
// data (loss falls, the metric beats chance by a wide margin), max_steps ends
// training inside an epoch, checkpoints rotate, a diverging loss exits 3, and
// train.init_from starts a run from another run's weights.

#include "tests/helpers/minitest.h"
#include "tests/training/workerrun.h"

#include <dirent.h>

using testing::ofType;
using testing::readLines;
using testing::runWorker;

namespace {

struct Outcome
{
    int code = -1;
    std::vector<nlohmann::json> lines;
    std::string runDir;
    std::string err;
};

Outcome train(const std::string &tag, const std::string &spec)
{
    Outcome o;
    const std::string dir = testing::tempDir(tag);
    testing::writeFile(dir + "/spec.json", spec);
    o.runDir = dir + "/run";
    o.code = runWorker({"--spec", dir + "/spec.json", "--run-dir", o.runDir}, &o.err, nullptr, 200);
    o.lines = readLines(o.runDir + "/metrics.jsonl");
    return o;
}

// Synthetic KG with 60 entities in 6 groups: a random ranking scores a filtered
// MRR near 0.1 (about 50 candidates per query).
// `lossFactor`: how far the loss must fall. TransE's default sampled softmax
// over 256 negatives starts at log(257) and, on 60 entities where many sampled
// negatives are true answers, cannot fall far; its MRR is what shows learning.
void checkKgLearns(const std::string &model, int epochs, double lossFactor = 0.7)
{
    const Outcome o = train(model, R"({"model": {"type": ")" + model + R"("},
      "data": {"kind": "synthetic-kg", "entities": 60, "relations": 4, "triples": 5000},
      "train": {"epochs": )" + std::to_string(epochs)
                                       + R"(}, "eval": {"every_epochs": 1000, "split": "test"},
      "report": {"every_steps": 5}})");
    TY_CHECK_EQ(o.code, 0);
    const auto metrics = ofType(o.lines, "metric");
    const auto evals = ofType(o.lines, "eval");
    TY_REQUIRE(metrics.size() >= 2 && evals.size() == 1);
    const double first = metrics.front()["loss"], last = metrics.back()["loss"];
    std::cout << "  " << model << ": loss " << first << " -> " << last << ", test MRR " << evals[0]["mrr"] << '\n';
    TY_CHECK(last < lossFactor * first);
    TY_CHECK(evals[0]["mrr"].get<double>() > 0.4);
    TY_CHECK(evals[0].contains("hits@1") && evals[0].contains("hits@3") && evals[0].contains("hits@10"));
}

void checkImagesLearn(const std::string &model)
{
    const Outcome o = train(model, R"({"model": {"type": ")" + model + R"("},
      "data": {"kind": "synthetic-images", "samples": 600, "classes": 5, "size": 12},
      "train": {"epochs": 3, "batch_size": 32}, "eval": {"every_epochs": 3, "split": "test"},
      "report": {"every_steps": 5}})");
    TY_CHECK_EQ(o.code, 0);
    const auto metrics = ofType(o.lines, "metric");
    const auto evals = ofType(o.lines, "eval");
    TY_REQUIRE(metrics.size() >= 2 && evals.size() == 1);
    const double first = metrics.front()["loss"], last = metrics.back()["loss"];
    std::cout << "  " << model << ": loss " << first << " -> " << last << ", test accuracy " << evals[0]["accuracy"]
              << '\n';
    TY_CHECK(last < 0.5 * first);
    TY_CHECK(evals[0]["accuracy"].get<double>() > 0.8); // chance: 0.2
}

int countCheckpoints(const std::string &dir)
{
    int n = 0;
    if (DIR *d = ::opendir(dir.c_str())) {
        while (const dirent *e = ::readdir(d)) {
            n += std::string(e->d_name).rfind("step-", 0) == 0;
        }
        ::closedir(d);
    }
    return n;
}

} // namespace

TY_TEST(transeLearns)
{
    checkKgLearns("transe", 40, 0.9);
}
TY_TEST(transhLearns)
{
    checkKgLearns("transh", 40);
}
TY_TEST(convTranseLearns)
{
    checkKgLearns("conv-transe", 25);
}
TY_TEST(sacnLearns)
{
    checkKgLearns("sacn", 25);
}
TY_TEST(mnistCnnLearns)
{
    checkImagesLearn("mnist-cnn");
}
TY_TEST(mlpLearns)
{
    checkImagesLearn("mlp");
}

TY_TEST(maxStepsEndsInsideAnEpochAndCheckpointsRotate)
{
    const Outcome o = train("maxsteps", R"({"model": {"type": "transe", "dim": 8},
      "data": {"kind": "synthetic-kg", "entities": 40, "relations": 2, "triples": 2000},
      "train": {"epochs": 50, "max_steps": 23, "batch_size": 16}, "eval": {"every_epochs": 0},
      "checkpoint": {"every_steps": 5, "keep": 2}, "report": {"every_steps": 10}})");
    TY_CHECK_EQ(o.code, 0);
    const auto metrics = ofType(o.lines, "metric");
    TY_REQUIRE(metrics.size() == 3); // steps 10, 20 and the final 23
    TY_CHECK_EQ(metrics.back()["step"].get<int>(), 23);
    TY_CHECK_EQ(metrics.back()["total_steps"].get<int>(), 23);
    TY_CHECK(ofType(o.lines, "eval").empty());             // evaluation is off
    TY_CHECK_EQ(ofType(o.lines, "checkpoint").size(), 5u); // 5, 10, 15, 20, 23
    TY_CHECK_EQ(countCheckpoints(o.runDir + "/checkpoints"), 2);
}

TY_TEST(divergingLossExitsThreeNamingTheStep)
{
    const Outcome o = train("nan", R"({"model": {"type": "mlp"},
      "data": {"kind": "synthetic-images", "samples": 500},
      "train": {"epochs": 5, "optimizer": "sgd", "lr": 1000}, "report": {"every_steps": 1}})");
    TY_CHECK_EQ(o.code, 3);
    TY_CHECK(o.err.find("diverged: loss is") != std::string::npos);
    TY_CHECK(o.err.find("at step ") != std::string::npos);
    TY_REQUIRE(!ofType(o.lines, "done").empty());
    TY_CHECK_EQ(ofType(o.lines, "done").back()["status"].get<std::string>(), std::string("diverged"));
}

// train.init_from: a run that starts from a trained run's checkpoint is as
// good as it after one step at a tiny learning rate, where the same run
// without it is near chance; another model section is refused (exit 2).
TY_TEST(initFromStartsFromAnotherRunsWeights)
{
    const std::string data = R"("data": {"kind": "synthetic-images", "samples": 600, "classes": 5, "size": 12})";
    const Outcome trained = train("initfrom-a", R"({"model": {"type": "mlp"}, )" + data + R"(,
      "train": {"epochs": 3, "batch_size": 32}, "eval": {"every_epochs": 3, "split": "test"}})");
    TY_REQUIRE(trained.code == 0);
    const auto checkpoints = ofType(trained.lines, "checkpoint");
    TY_REQUIRE(!checkpoints.empty());
    const std::string path = checkpoints.back()["path"].get<std::string>();
    const double before = ofType(trained.lines, "eval").back()["accuracy"].get<double>();
    TY_REQUIRE(before > 0.8);

    const auto oneStep = [&](const std::string &tag, const std::string &initFrom, const std::string &model) {
        // "": none, as the run editor writes an empty field.
        const std::string from = R"(, "init_from": ")" + initFrom + R"(")";
        return train(tag, R"({"model": )" + model + ", " + data + R"(,
          "train": {"epochs": 3, "max_steps": 1, "batch_size": 32, "lr": 1e-9)"
                              + from + R"(},
          "eval": {"every_epochs": 3, "split": "test"}})");
    };
    const Outcome from = oneStep("initfrom-b", path, R"({"type": "mlp"})");
    TY_CHECK_EQ(from.code, 0);
    const auto fromEvals = ofType(from.lines, "eval");
    TY_REQUIRE(fromEvals.size() == 1);
    std::cout << "  trained: test accuracy " << before << "; one step from its checkpoint: " << fromEvals[0]["accuracy"]
              << '\n';
    TY_CHECK(std::abs(fromEvals[0]["accuracy"].get<double>() - before) < 0.02);
    bool said = false;
    for (const auto &line : ofType(from.lines, "log")) {
        said = said || line["text"].get<std::string>().find("model initialised from " + path) != std::string::npos;
    }
    TY_CHECK(said);
    TY_CHECK_EQ(ofType(from.lines, "metric").front()["step"].get<int>(), 1); // its own steps, from the start

    const Outcome fresh = oneStep("initfrom-c", "", R"({"type": "mlp"})");
    TY_CHECK_EQ(fresh.code, 0);
    const auto freshEvals = ofType(fresh.lines, "eval");
    TY_REQUIRE(freshEvals.size() == 1);
    TY_CHECK(freshEvals[0]["accuracy"].get<double>() < 0.5); // chance: 0.2

    const Outcome other = oneStep("initfrom-d", path, R"({"type": "mlp", "hidden": 17})");
    TY_CHECK_EQ(other.code, 2);
    TY_CHECK(other.err.find("train.init_from: " + path + ": written for another model spec") != std::string::npos);
    const Outcome missing = oneStep("initfrom-e", "/nonexistent/step-1.pt", R"({"type": "mlp"})");
    TY_CHECK_EQ(missing.code, 2);
    TY_CHECK(missing.err.find("no such checkpoint file") != std::string::npos);
}

TY_TEST_MAIN()
