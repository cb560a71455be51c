// The fused CPU path of TransE/TransH (FusedKgTrainer, through the tasks
// that use it) against the autograd path: the same loss and the same SGD
// update on tiny data, determinism with one thread, checkpoints that keep
// the optimizer state and the step numbering, and divergence.

#include "inprocessrun.h"
#include "tests/helpers/minitest.h"

#include "worker/base/kgdataset.h"
#include "worker/base/runspec.h"
#include "worker/base/workeroptions.h"
#include "worker/train/task.h"
#include "worker/train/worker.h"

#include <torch/torch.h>

#include <cmath>
#include <iterator>
#include <map>

using namespace trainyard;
using testing::ofType;

namespace {

struct Graph
{
    std::int64_t entities = 30, relations = 3, triples = 400;
};

std::string specText(const std::string &model, const std::string &train, const Graph &graph = {})
{
    return R"({"name": "fused", "model": )" + model + R"(, "data": {"kind": "synthetic-kg", "entities": )"
           + std::to_string(graph.entities) + R"(, "relations": )" + std::to_string(graph.relations)
           + R"(, "triples": )" + std::to_string(graph.triples) + R"(}, "train": )" + train
           + R"(, "eval": {"every_epochs": 0}, "checkpoint": {"every_steps": 0}, "report": {"every_steps": 1}})";
}

std::unique_ptr<Task> makeTask(const RunSpec &spec, const Graph &graph = {})
{
    torch::manual_seed(spec.seed); // the same initial tables for both engines
    return makeKgTask(spec, KgDataset::synthetic(graph.entities, graph.relations, graph.triples, spec.seed),
                      torch::Device(torch::kCPU));
}

std::map<std::string, torch::Tensor> parameters(Task &task)
{
    std::map<std::string, torch::Tensor> out;
    for (const auto &p : task.module().named_parameters()) {
        out[p.key()] = p.value().detach().clone();
    }
    return out;
}

double maxDifference(const std::map<std::string, torch::Tensor> &a, const std::map<std::string, torch::Tensor> &b)
{
    double worst = 0.0;
    for (const auto &[name, t] : a) {
        worst = std::max(worst, (t - b.at(name)).abs().max().item<double>());
    }
    return worst;
}

// Steps of `model` (a JSON object) with both engines from the same start,
// with `optimizer`: the losses and the weights after each step must agree.
void checkStepsMatch(const std::string &model, const std::string &optimizer = "sgd", int steps = 1,
                     const Graph &graph = {})
{
    torch::set_num_threads(1);
    const std::string train = R"({"optimizer": ")" + optimizer + R"(", "lr": 0.1, "batch_size": 16, "engine": ")";
    const RunSpec autogradSpec = RunSpec::parse(specText(model, train + "autograd\"}", graph));
    const RunSpec fusedSpec = RunSpec::parse(specText(model, train + "fused\"}", graph));
    auto reference = makeTask(autogradSpec, graph);
    auto fused = makeTask(fusedSpec, graph);
    TY_REQUIRE(reference->engine() == "autograd" && fused->engine() == "fused");
    TY_REQUIRE(maxDifference(parameters(*reference), parameters(*fused)) == 0.0);

    double lossDiff = 0.0, weightDiff = 0.0, lastLoss = 0.0;
    for (int s = 0; s < steps; ++s) {
        const auto indices = torch::arange(3 + 16 * s, 19 + 16 * s, torch::kLong); // 16 positives
        reference->beforeStep(7 + s);
        const double loss = reference->step(indices, 7 + s).item<double>();
        fused->beforeStep(7 + s);
        lastLoss = fused->step(indices, 7 + s).item<double>();
        lossDiff = std::max(lossDiff, std::abs(loss - lastLoss));
        weightDiff = std::max(weightDiff, maxDifference(parameters(*reference), parameters(*fused)));
    }
    std::cout << "  " << optimizer << " x" << steps << " " << model << ": loss " << lastLoss << ", |loss diff| "
              << lossDiff << ", max |weight diff| " << weightDiff << "\n";
    TY_CHECK(lossDiff < 1e-5);
    TY_CHECK(weightDiff < 1e-5);
    TY_CHECK(lastLoss > 0.0); // the steps did something to compare
}

// The autograd path's loss, backward and a plain SGD step by hand (no row
// optimizer), against the fused step: the gradient itself agrees.
void checkGradientMatches(const std::string &model)
{
    torch::set_num_threads(1);
    const std::string train = R"({"optimizer": "sgd", "lr": 0.1, "batch_size": 16, "engine": ")";
    auto reference = makeTask(RunSpec::parse(specText(model, train + "autograd\"}")));
    auto fused = makeTask(RunSpec::parse(specText(model, train + "fused\"}")));
    const auto indices = torch::arange(3, 19, torch::kLong);
    reference->beforeStep(7);
    const auto loss = reference->loss(indices);
    loss.backward();
    {
        torch::NoGradGuard noGrad;
        for (auto &p : reference->module().parameters()) {
            if (p.grad().defined()) {
                p.sub_(0.1 * p.grad());
            }
        }
    }
    fused->beforeStep(7);
    const double fusedLoss = fused->step(indices, 7).item<double>();
    TY_CHECK(std::abs(loss.item<double>() - fusedLoss) < 1e-5);
    TY_CHECK(maxDifference(parameters(*reference), parameters(*fused)) < 1e-5);
}

using testing::InProcessRun;
using testing::trainInProcess;

// The embedding tables of a run's newest checkpoint, by submodule name.
std::map<std::string, torch::Tensor> checkpointWeights(const InProcessRun &run)
{
    std::map<std::string, torch::Tensor> weights;
    const auto checkpoints = ofType(run.lines, "checkpoint");
    if (checkpoints.empty()) {
        return weights;
    }
    torch::serialize::InputArchive archive;
    archive.load_from(checkpoints.back()["path"].get<std::string>());
    torch::serialize::InputArchive model;
    archive.read("model", model);
    for (const auto &key : model.keys()) {
        torch::serialize::InputArchive module;
        torch::Tensor t;
        if (model.try_read(key, module) && module.try_read("weight", t)) {
            weights[key] = t;
        }
    }
    return weights;
}

} // namespace

const char *kModels[] = {
    R"({"type": "transe", "dim": 12, "norm": 1, "negatives": 5, "margin": 2, )",
    R"({"type": "transe", "dim": 12, "norm": 2, "negatives": 5, "margin": 2, "normalize_entities": false,
        "sampling": "unif", )",
    R"({"type": "transh", "dim": 12, "norm": 1, "negatives": 4, "margin": 2, "constraint_weight": 0.5, )",
    R"({"type": "transh", "dim": 12, "norm": 2, "negatives": 4, "margin": 2, "constraint_weight": 0.5,
        "epsilon": 0.0001, )",
    R"({"type": "transh", "dim": 12, "norm": 2, "squared": false, "negatives": 4, "margin": 2,
        "constraint_weight": 0.5, )",
    // 30 entities, 320 training triples: many negatives are training triples.
    R"({"type": "transe", "dim": 12, "norm": 2, "negatives": 6, "margin": 2, "filter_negatives": true, )",
    R"({"type": "transh", "dim": 12, "norm": 1, "negatives": 6, "margin": 2, "filter_negatives": true, )",
};

TY_TEST(oneSgdStepEqualsAutogradForEveryLossAndModel)
{
    for (const char *loss : {"margin", "self_adversarial", "softmax"}) {
        for (const char *model : kModels) {
            const std::string spec = std::string(model) + R"("loss": ")" + loss + "\"}";
            checkStepsMatch(spec);
            checkGradientMatches(spec);
        }
    }
}

TY_TEST(adamAndAdagradStepsEqualTheAutogradRowOptimizers)
{
    // Not the first model (L1 over renormalised rows): Adam's first step
    // moves every coordinate by exactly +-lr, so later differences h + r - t
    // cancel to 0 or to one ulp depending on the order of float operations,
    // the L1 gradient sign(0) = 0 or +-1 follows, and Adam scales that up to
    // a full step. SGD over the same model agrees (the test above).
    for (const char *optimizer : {"adam", "adagrad"}) {
        for (std::size_t i = 1; i < std::size(kModels); ++i) {
            checkStepsMatch(std::string(kModels[i]) + R"("loss": "softmax"})", optimizer, 3);
        }
    }
}

TY_TEST(stepsThatTouchFewRowsOfALargeTableMatchToo)
{
    // 16 positives with 5 negatives touch about 100 of 2,000 entity rows, so
    // the fused step sorts its rows instead of scanning the whole table for
    // them (SparseRowTable::orderTouched); Adam's per-row state must still
    // follow each row.
    const Graph large{2000, 40, 3000};
    checkStepsMatch(std::string(kModels[1]) + R"("loss": "self_adversarial"})", "adam", 3, large);
    checkStepsMatch(std::string(kModels[3]) + R"("loss": "softmax"})", "adam", 3, large);
    checkStepsMatch(std::string(kModels[0]) + R"("loss": "margin"})", "sgd", 3, large);
}

TY_TEST(autoPicksFusedOnTheCpuAndAutogradWhereItMust)
{
    const std::string train = R"({"batch_size": 16})";
    const auto engine = [](const std::string &model, const std::string &train) {
        return makeTask(RunSpec::parse(specText(model, train)))->engine();
    };
    TY_CHECK_EQ(engine(R"({"type": "transe"})", train), std::string("fused"));
    TY_CHECK_EQ(engine(R"({"type": "transh"})", train), std::string("fused"));
    TY_CHECK_EQ(engine(R"({"type": "transe", "loss": "1vsall"})", train), std::string("autograd"));
    TY_CHECK_EQ(engine(R"({"type": "transe", "filter_negatives": true})", train), std::string("fused"));
    TY_CHECK_EQ(engine(R"({"type": "transe"})", R"({"amp": "bf16"})"), std::string("autograd"));
    bool refused = false;
    try {
        makeTask(RunSpec::parse(specText(R"({"type": "transe", "loss": "1vsall"})", R"({"engine": "fused"})")));
    } catch (const std::exception &e) {
        refused =
            std::string(e.what()).find("train.engine fused: model.loss 1vsall needs autograd") != std::string::npos;
    }
    TY_CHECK(refused);
}

TY_TEST(oneThreadIsDeterministicAndTwoThreadsAgree)
{
    const std::string model =
        R"({"type": "transh", "dim": 16, "negatives": 8, "loss": "self_adversarial", "margin": 3})";
    const RunSpec spec = RunSpec::parse(specText(model, R"({"batch_size": 64, "lr": 0.01})"));
    auto train = [&spec](int threads) {
        torch::set_num_threads(threads);
        auto task = makeTask(spec);
        double lossSum = 0.0;
        for (std::int64_t step = 0; step < 30; ++step) {
            const auto indices = torch::arange((step * 64) % 256, (step * 64) % 256 + 64, torch::kLong);
            task->beforeStep(step);
            lossSum += task->step(indices, step).item<double>();
        }
        torch::set_num_threads(1);
        return std::make_pair(lossSum, parameters(*task));
    };
    const auto a = train(1), b = train(1), c = train(2);
    TY_CHECK_EQ(a.first, b.first);
    TY_CHECK_EQ(maxDifference(a.second, b.second), 0.0);
    // Two threads sum the same gradients in another order.
    TY_CHECK(std::abs(a.first - c.first) < 1e-4 * std::abs(a.first));
    TY_CHECK(maxDifference(a.second, c.second) < 1e-4);
}

TY_TEST(checkpointAndResumeKeepTheOptimizerStateAndSteps)
{
    const std::string dir = testing::tempDir("fusedresume");
    // Adam: a resumed run that lost its moments would take other steps.
    const std::string model = R"({"type": "transe", "dim": 10, "negatives": 4})";
    const auto spec = [&](int steps) {
        return specText(model,
                        R"({"epochs": 100, "batch_size": 32, "lr": 0.01, "max_steps": )" + std::to_string(steps) + "}");
    };
    const InProcessRun straight = trainInProcess(dir, spec(40), dir + "/straight", false);
    TY_REQUIRE(straight.code == 0);
    const InProcessRun first = trainInProcess(dir, spec(20), dir + "/split", false);
    TY_REQUIRE(first.code == 0);
    const InProcessRun second = trainInProcess(dir, spec(40), dir + "/split", true);
    TY_REQUIRE(second.code == 0);

    // Step numbering continues: 1..20, then 21..40.
    const auto metrics = ofType(second.lines, "metric");
    TY_REQUIRE(metrics.size() == 40);
    for (std::size_t i = 0; i < metrics.size(); ++i) {
        TY_CHECK_EQ(metrics[i]["step"].get<std::int64_t>(), static_cast<std::int64_t>(i + 1));
    }
    // The same losses and weights as the uninterrupted run.
    const auto reference = ofType(straight.lines, "metric");
    for (std::size_t i = 20; i < 40; ++i) {
        TY_CHECK(std::abs(metrics[i]["loss"].get<double>() - reference[i]["loss"].get<double>()) < 1e-6);
    }
    const auto straightWeights = checkpointWeights(straight), secondWeights = checkpointWeights(second);
    TY_REQUIRE(!straightWeights.empty() && straightWeights.size() == secondWeights.size());
    TY_CHECK(maxDifference(straightWeights, secondWeights) < 1e-6);
}

TY_TEST(aDivergingFusedRunExitsThree)
{
    const std::string dir = testing::tempDir("fusednan");
    const InProcessRun run = trainInProcess(
        dir,
        // Squared L2 grows its own gradient: SGD at this rate overflows.
        specText(R"({"type": "transh", "norm": 2})",
                 R"({"epochs": 20, "batch_size": 32, "optimizer": "sgd", "lr": 1000, "engine": "fused"})"),
        dir + "/run", false);
    TY_CHECK_EQ(run.code, 3);
    TY_REQUIRE(!ofType(run.lines, "done").empty());
    TY_CHECK_EQ(ofType(run.lines, "done").back()["status"].get<std::string>(), std::string("diverged"));
}

TY_TEST(maxSecondsEndsWithTheFinalEvaluationAndCheckpoint)
{
    const std::string dir = testing::tempDir("fusedbudget");
    const std::string text = R"({"name": "budget", "model": {"type": "transe", "dim": 8},
        "data": {"kind": "synthetic-kg", "entities": 30, "relations": 3, "triples": 400},
        "train": {"epochs": 1000000, "batch_size": 8, "max_seconds": 1.5},
        "eval": {"every_epochs": 1000000}, "checkpoint": {"every_steps": 0}, "report": {"every_steps": 100}})";
    const InProcessRun run = trainInProcess(dir, text, dir + "/run", false);
    TY_CHECK_EQ(run.code, 0);
    const auto metrics = ofType(run.lines, "metric");
    TY_REQUIRE(!metrics.empty());
    // The last loss line may precede the budget's end by a few steps (the
    // report falling on the step the budget was spent): the final
    // evaluation, run once the budget is spent, carries the time.
    TY_CHECK(metrics.back()["wall"].get<double>() < 30.0);
    TY_REQUIRE(ofType(run.lines, "eval").size() == 1u);
    TY_CHECK(ofType(run.lines, "eval").back()["wall"].get<double>() >= 1.5);
    TY_REQUIRE(!ofType(run.lines, "checkpoint").empty());
    TY_CHECK_EQ(ofType(run.lines, "checkpoint").back()["step"].get<std::int64_t>(),
                metrics.back()["step"].get<std::int64_t>());
    TY_CHECK_EQ(ofType(run.lines, "done").back()["status"].get<std::string>(), std::string("finished"));
}

TY_TEST_MAIN()
