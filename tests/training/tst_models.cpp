// The models' one-to-all scores agree with their per-triple distances, and
// each builder produces the architecture its options describe. Also the
// training options train.amp and train.channels_last, trained in-process so
// that the thread's autocast state after a run can be checked.

#include "inprocessrun.h"
#include "tests/helpers/minitest.h"

#include "worker/base/imagedataset.h"
#include "worker/base/runspec.h"
#include "worker/base/workeroptions.h"
#include "worker/train/autocastguard.h"
#include "worker/train/models.h"
#include "worker/train/task.h"
#include "worker/train/worker.h"

#include <torch/torch.h>

#include <cmath>

using namespace trainyard;

namespace {

// scoreTails(h, r)[t] == -distance(h, r, t) and scoreHeads(t, r)[h] == -distance(h, r, t).
void checkConsistent(TranslationalModelImpl &model, std::int64_t entities, std::int64_t relations)
{
    torch::NoGradGuard noGrad;
    const auto h = torch::tensor({0L, 3L, 5L}), r = torch::tensor({0L, 1L, relations - 1}),
               t = torch::tensor({1L, 2L, 4L});
    const auto tails = model.scoreTails(h, r);
    const auto heads = model.scoreHeads(t, r);
    TY_CHECK_EQ(tails.size(1), entities);
    for (std::int64_t i = 0; i < 3; ++i) {
        const auto all = torch::arange(entities);
        const auto dTails = model.distance(h[i].expand({entities}), r[i].expand({entities}), all);
        const auto dHeads = model.distance(all, r[i].expand({entities}), t[i].expand({entities}));
        TY_CHECK(torch::allclose(tails[i], -dTails, 1e-3, 1e-3));
        TY_CHECK(torch::allclose(heads[i], -dHeads, 1e-3, 1e-3));
    }
}

using testing::InProcessRun;
using testing::trainInProcess;

// The metric lines' losses are finite and the last is below `factor` x the first.
void checkLossFalls(const std::vector<nlohmann::json> &lines, double factor)
{
    const auto metrics = testing::ofType(lines, "metric");
    TY_REQUIRE(metrics.size() >= 3);
    for (const auto &m : metrics) {
        TY_CHECK(std::isfinite(m["loss"].get<double>()));
    }
    const double first = metrics.front()["loss"], last = metrics.back()["loss"];
    std::cout << "  loss " << first << " -> " << last << " over " << metrics.back()["step"] << " steps\n";
    TY_CHECK(last < factor * first);
}

bool hasLog(const std::vector<nlohmann::json> &lines, const std::string &part)
{
    for (const auto &l : testing::ofType(lines, "log")) {
        if (l["text"].get<std::string>().find(part) != std::string::npos) {
            return true;
        }
    }
    return false;
}

} // namespace

TY_TEST(transeL1ScoresMatchDistance)
{
    torch::manual_seed(1);
    TransE model(20, 3, 8, 1, true);
    checkConsistent(*model, 20, 3);
}

TY_TEST(transeL2ScoresMatchDistance)
{
    torch::manual_seed(2);
    TransE model(20, 3, 8, 2, true);
    checkConsistent(*model, 20, 3);
}

TY_TEST(transhScoresMatchDistance)
{
    torch::manual_seed(3);
    TransH model(20, 3, 8, 2, true, 0.0625, 0.001);
    checkConsistent(*model, 20, 3);
    TransH l1(20, 3, 8, 1, true, 0.0625, 0.001);
    checkConsistent(*l1, 20, 3);
    // Plain L2 (squared false): the square root of the squared form.
    torch::manual_seed(3);
    TransH plain(20, 3, 8, 2, false, 0.0625, 0.001);
    checkConsistent(*plain, 20, 3);
    torch::NoGradGuard noGrad;
    const auto h = torch::tensor({0L, 3L}), r = torch::tensor({0L, 2L}), t = torch::tensor({1L, 2L});
    TY_CHECK(torch::allclose(plain->distance(h, r, t).pow(2), model->distance(h, r, t), 1e-4, 1e-4));
}

TY_TEST(transeNormalisesEntitiesBeforeStep)
{
    torch::manual_seed(4);
    TransE model(10, 2, 4, 1, true);
    {
        torch::NoGradGuard noGrad;
        for (auto &p : model->named_parameters()) {
            if (p.key() == "entity.weight") {
                p.value().mul_(5.0);
            }
        }
    }
    model->beforeStep({});
    for (const auto &p : model->named_parameters()) {
        if (p.key() == "entity.weight") {
            TY_CHECK(torch::allclose(p.value().norm(2, 1), torch::ones({10}), 1e-4, 1e-4));
        }
    }
}

TY_TEST(transhPenaltyIsZeroInsideConstraints)
{
    torch::manual_seed(5);
    TransH model(10, 2, 4, 2, true, 1.0, 0.001);
    {
        torch::NoGradGuard noGrad;
        for (auto &p : model->named_parameters()) {
            if (p.key() == "entity.weight") {
                p.value().mul_(0.01); // well inside the unit ball
            }
            if (p.key() == "translation.weight") {
                p.value().zero_().select(1, 0).fill_(1.0);
            }
            if (p.key() == "normal.weight") {
                p.value().zero_().select(1, 1).fill_(1.0); // orthogonal to the translation
            }
        }
    }
    const auto penalty = model->penalty(torch::arange(10), torch::tensor({0L, 1L}));
    TY_CHECK(penalty.item<double>() < 1e-9);
    {
        torch::NoGradGuard noGrad;
        for (auto &p : model->named_parameters()) {
            if (p.key() == "normal.weight") {
                p.value().zero_().select(1, 0).fill_(1.0); // parallel: violates orthogonality
            }
        }
    }
    TY_CHECK(model->penalty(torch::arange(10), torch::tensor({0L, 1L})).item<double>() > 0.5);
}

// model.reciprocal: 2R relation rows, heads predicted as tails of the
// inverse; only with the 1vsall loss, ignored with the others.
TY_TEST(reciprocalRelationsPredictHeadsAsInverseTails)
{
    torch::manual_seed(10);
    const auto triples = torch::tensor({0L, 0L, 1L, 1L, 1L, 2L}).view({2, 3});
    for (const std::string type : {"transe", "transh"}) {
        const auto spec =
            RunSpec::parse(R"({"model": {"type": ")" + type + R"(", "dim": 8, "loss": "1vsall", "reciprocal": true},
            "data": {"kind": "synthetic-kg"}})");
        auto model = std::dynamic_pointer_cast<TranslationalModelImpl>(makeKgModel(spec, 12, 3, triples));
        TY_REQUIRE(model != nullptr);
        TY_CHECK_EQ(model->tables()[1].second.size(0), 6);
        torch::NoGradGuard noGrad;
        const auto t = torch::tensor({0L, 5L}), r = torch::tensor({0L, 2L});
        TY_CHECK(torch::allclose(model->scoreHeads(t, r), model->scoreTails(t, r + 3)));
        TY_CHECK(torch::equal(model->relationRows(r), torch::tensor({0L, 2L, 3L, 5L})));

        const auto plain = RunSpec::parse(R"({"model": {"type": ")" + type + R"(", "dim": 8},
            "data": {"kind": "synthetic-kg"}})");
        auto without = std::dynamic_pointer_cast<TranslationalModelImpl>(makeKgModel(plain, 12, 3, triples));
        TY_CHECK_EQ(without->tables()[1].second.size(0), 3);
        TY_CHECK(torch::equal(without->relationRows(r), r));

        // Ignored with another loss (a recipe may set it, the spec another loss).
        const auto margin =
            RunSpec::parse(R"({"model": {"type": ")" + type + R"(", "loss": "margin", "reciprocal": true},
            "data": {"kind": "synthetic-kg"}})");
        auto ignored = std::dynamic_pointer_cast<TranslationalModelImpl>(makeKgModel(margin, 12, 3, triples));
        TY_CHECK_EQ(ignored->tables()[1].second.size(0), 3);
    }
}

TY_TEST(oneToAllModelsScoreEveryEntity)
{
    torch::manual_seed(6);
    ConvTransEOptions o;
    o.dim = 16;
    o.kernels = 4;
    o.kernelSize = 3;
    ConvTransE conv(12, 3, o);
    conv->eval();
    const auto e = torch::tensor({0L, 5L}), r = torch::tensor({0L, 2L});
    TY_CHECK(conv->scoreTails(e, r).sizes() == torch::IntArrayRef({2, 12}));
    // Head prediction uses the inverse relation r + R.
    TY_CHECK(torch::allclose(conv->scoreHeads(e, r), conv->logits(e, r + 3)));

    const auto triples = torch::tensor({0L, 0L, 1L, 1L, 1L, 2L, 2L, 2L, 3L}).view({3, 3});
    Sacn sacn(12, 3, triples, o, 8, 2, 0.0);
    sacn->eval();
    const auto before = sacn->scoreTails(e, r);
    TY_CHECK(before.sizes() == torch::IntArrayRef({2, 12}));
    sacn->beginEvaluation(); // cached encoder output gives the same scores
    TY_CHECK(torch::allclose(sacn->scoreTails(e, r), before, 1e-5, 1e-5));
    sacn->endEvaluation();
}

// The GCN layer's CPU kernels (float) against its tensor form (taken for
// any other type), forward and backward, on a random multigraph.
TY_TEST(gcnKernelsMatchTheTensorForm)
{
    torch::manual_seed(8);
    const std::int64_t nodes = 300, edges = 2500, types = 7;
    auto src = torch::randint(nodes, {edges}, torch::kLong), dst = torch::randint(nodes, {edges}, torch::kLong);
    dst.slice(0, 0, 40).fill_(5); // one node with many in-edges, some nodes with none
    const GcnGraph graph(src, dst, torch::randint(types, {edges}, torch::kLong), nodes);
    WeightedGcnLayer layer(24, 16, types, 0.0);
    {
        torch::NoGradGuard noGrad;
        for (auto &p : layer->named_parameters()) {
            if (p.key() == "alpha.weight") {
                p.value().uniform_(-2.0, 2.0);
            }
        }
    }
    const auto x = torch::randn({nodes, 24});
    const auto direction = torch::randn({nodes, 16});
    const auto run = [&](torch::ScalarType type) {
        layer->to(type);
        layer->zero_grad();
        const auto input = x.to(type).detach().clone().requires_grad_(true);
        const auto out = layer->forward(input, graph);
        (out * direction.to(type)).sum().backward();
        std::vector<torch::Tensor> results = {out.to(torch::kDouble), input.grad().to(torch::kDouble)};
        for (const auto &p : layer->parameters()) {
            results.push_back(p.grad().to(torch::kDouble));
        }
        return results;
    };
    const auto kernel = run(torch::kFloat);
    const auto tensor = run(torch::kDouble);
    TY_CHECK_EQ(kernel.size(), tensor.size());
    for (std::size_t i = 0; i < kernel.size(); ++i) {
        TY_CHECK(torch::allclose(kernel[i], tensor[i], 1e-3, 1e-3));
    }
}

// The parallel dropout drops a fraction p, scales the rest by 1 / (1 - p),
// follows LibTorch's seed and passes through in evaluation.
TY_TEST(parallelDropoutDropsAFractionPAndFollowsTheSeed)
{
    ParallelDropout dropout(0.3);
    const auto x = torch::ones({1000, 101});
    torch::manual_seed(9);
    const auto a = dropout(x);
    const double dropped = (a == 0).to(torch::kDouble).mean().item<double>();
    TY_CHECK(std::abs(dropped - 0.3) < 0.01);
    TY_CHECK(torch::allclose(a.masked_select(a != 0), torch::full({1}, 1.0 / 0.7)));
    // Neighbouring elements are independent: as many pairs both dropped as chance says.
    const auto pairs = (a.view({-1, 2}) == 0).all(1).to(torch::kDouble).mean().item<double>();
    TY_CHECK(std::abs(pairs - 0.09) < 0.01);
    torch::manual_seed(9);
    TY_CHECK(torch::equal(dropout(x), a));
    TY_CHECK(!torch::equal(dropout(x), a));
    dropout->eval();
    TY_CHECK(torch::equal(dropout(x), x));
}

TY_TEST(classifiersMapImagesToClassLogits)
{
    torch::manual_seed(7);
    MnistCnn cnn(28, 28, 10, 32, 0.25, 0.5);
    TY_CHECK(cnn->forward(torch::zeros({3, 1, 28, 28})).sizes() == torch::IntArrayRef({3, 10}));
    MnistCnn small(8, 10, 4, 16, 0.0, 0.0);
    TY_CHECK(small->forward(torch::zeros({2, 1, 8, 10})).sizes() == torch::IntArrayRef({2, 4}));
    Mlp mlp(64, 5, 16, 2, 0.1);
    TY_CHECK(mlp->forward(torch::zeros({4, 1, 8, 8})).sizes() == torch::IntArrayRef({4, 5}));
    Mlp linear(64, 5, 16, 0, 0.0);
    TY_CHECK(linear->forward(torch::zeros({4, 1, 8, 8})).sizes() == torch::IntArrayRef({4, 5}));
}

TY_TEST(autocastGuardEnablesBf16AndRestoresTheState)
{
    const auto cpu = c10::DeviceType::CPU;
    const auto a = torch::ones({4, 4}), b = torch::ones({4, 4});
    TY_CHECK(!AutocastGuard::isEnabled(cpu));
    {
        AutocastGuard off(cpu, false);
        TY_CHECK(!AutocastGuard::isEnabled(cpu));
        TY_CHECK(torch::matmul(a, b).scalar_type() == torch::kFloat);
    }
    {
        AutocastGuard on(cpu, true);
        TY_CHECK(AutocastGuard::isEnabled(cpu));
        TY_CHECK(AutocastGuard::dtype(cpu) == torch::kBFloat16);
        TY_CHECK(torch::matmul(a, b).scalar_type() == torch::kBFloat16);
    }
    TY_CHECK(!AutocastGuard::isEnabled(cpu));
    TY_CHECK(torch::matmul(a, b).scalar_type() == torch::kFloat);
    // A state the guard found (enabled) is what it leaves. (LibTorch 1.13's
    // CPU autocast accepts no dtype but bf16, so only the flag is varied.)
    AutocastGuard::set(cpu, true, torch::kBFloat16);
    {
        AutocastGuard on(cpu, true);
        TY_CHECK(AutocastGuard::isEnabled(cpu));
    }
    TY_CHECK(AutocastGuard::isEnabled(cpu));
    TY_CHECK(AutocastGuard::dtype(cpu) == torch::kBFloat16);
    AutocastGuard::set(cpu, false, torch::kBFloat16);
    TY_CHECK(!AutocastGuard::isEnabled(cpu));
}

TY_TEST(channelsLastConvertsTheCnnWeightsOnly)
{
    const auto parsed = [](const char *train) {
        return RunSpec::parse(
            std::string(R"({"model": {"type": "mnist-cnn"}, "data": {"kind": "synthetic-images"}, "train": )") + train
            + "}");
    };
    const RunSpec on = parsed(R"({"channels_last": true})"), off = parsed("{}");
    for (const RunSpec *spec : {&on, &off}) {
        auto task = makeImageTask(*spec, ImageDataset::synthetic(100, 3, 8, 1), torch::kCPU);
        int convWeights = 0;
        for (const auto &p : task->module().parameters()) {
            if (p.dim() != 4) {
                continue;
            }
            ++convWeights;
            // conv1's weight [32, 1, 3, 3] has one input channel: both layouts
            // are the same, so only conv2's tells them apart.
            if (p.size(1) > 1) {
                TY_CHECK_EQ(p.is_contiguous(torch::MemoryFormat::ChannelsLast), spec->channelsLast);
            } else {
                TY_CHECK(p.is_contiguous(torch::MemoryFormat::ChannelsLast));
            }
        }
        TY_CHECK_EQ(convWeights, 2);
        const auto loss = task->loss(torch::arange(8));
        TY_CHECK(std::isfinite(loss.item<double>()));
    }
}

TY_TEST(cnnTrainsWithBf16AutocastAndChannelsLastAndResumes)
{
    const std::string dir = testing::tempDir("amp-cnn");
    const auto spec = [](int maxSteps) {
        return R"({"name": "amp-cnn", "model": {"type": "mnist-cnn", "hidden": 32},
          "data": {"kind": "synthetic-images", "samples": 600, "classes": 5, "size": 12},
          "train": {"epochs": 10, "max_steps": )"
               + std::to_string(maxSteps) + R"(, "batch_size": 16, "lr": 0.002,
                    "amp": "bf16", "channels_last": true},
          "eval": {"every_epochs": 1000, "split": "test"}, "checkpoint": {"every_steps": 0}, "report": {"every_steps": 6}})";
    };
    const InProcessRun first = trainInProcess(dir, spec(36), dir + "/run");
    TY_CHECK_EQ(first.code, 0);
    checkLossFalls(first.lines, 0.7);
    TY_CHECK(hasLog(first.lines, "train.amp bf16"));
    const auto evals = testing::ofType(first.lines, "eval");
    TY_REQUIRE(evals.size() == 1);
    std::cout << "  test accuracy " << evals[0]["accuracy"] << " (chance 0.2)\n";
    TY_CHECK(evals[0]["accuracy"].get<double>() > 0.5);
    // The run left the thread's autocast state as it found it.
    TY_CHECK(!AutocastGuard::isEnabled(c10::DeviceType::CPU));
    TY_CHECK(AutocastGuard::dtype(c10::DeviceType::CPU) == torch::kBFloat16);

    const InProcessRun resumed = trainInProcess(dir, spec(48), dir + "/run", /*resume=*/true);
    TY_CHECK_EQ(resumed.code, 0);
    TY_CHECK(hasLog(resumed.lines, "resumed from step 36"));
    const auto metrics = testing::ofType(resumed.lines, "metric");
    TY_REQUIRE(!metrics.empty());
    TY_CHECK_EQ(metrics.back()["step"].get<int>(), 48);
    TY_CHECK(std::isfinite(metrics.back()["loss"].get<double>()));
    TY_CHECK(!AutocastGuard::isEnabled(c10::DeviceType::CPU));
}

TY_TEST(transeTrainsWithBf16Autocast)
{
    const std::string dir = testing::tempDir("amp-transe");
    const InProcessRun run =
        trainInProcess(dir, R"({"name": "amp-transe", "model": {"type": "transe", "dim": 16, "loss": "margin"},
      "data": {"kind": "synthetic-kg", "entities": 60, "relations": 4, "triples": 2000},
      "train": {"epochs": 100, "max_steps": 60, "batch_size": 64, "lr": 0.02, "amp": "bf16", "channels_last": true},
      "eval": {"every_epochs": 0}, "checkpoint": {"every_steps": 0}, "report": {"every_steps": 5}})",
                       dir + "/run");
    TY_CHECK_EQ(run.code, 0);
    checkLossFalls(run.lines, 0.8);
    TY_CHECK(hasLog(run.lines, "train.channels_last is ignored: model transe"));
    // The recipe auto chose small-dense, whose reciprocal relations need 1vsall.
    TY_CHECK(hasLog(run.lines, "model.reciprocal is ignored: it needs model.loss \"1vsall\", the run's is \"margin\""));
    TY_CHECK(!AutocastGuard::isEnabled(c10::DeviceType::CPU));
}

TY_TEST_MAIN()
