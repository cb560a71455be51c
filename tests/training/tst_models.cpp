// The models' one-to-all scores agree with their per-triple distances, and
// each builder produces the architecture its options describe.

#include "helpers/minitest.h"

#include "models.h"

#include <torch/torch.h>

using namespace trainyard;

namespace {

// scoreTails(h, r)[t] == -distance(h, r, t) and scoreHeads(t, r)[h] == -distance(h, r, t).
void checkConsistent(TranslationalModelImpl &model, std::int64_t entities, std::int64_t relations)
{
    torch::NoGradGuard noGrad;
    const auto h = torch::tensor({0L, 3L, 5L}), r = torch::tensor({0L, 1L, relations - 1}), t = torch::tensor({1L, 2L, 4L});
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
    TransH model(20, 3, 8, 2, 0.0625, 0.001);
    checkConsistent(*model, 20, 3);
    TransH l1(20, 3, 8, 1, 0.0625, 0.001);
    checkConsistent(*l1, 20, 3);
}

TY_TEST(transeNormalisesEntitiesBeforeStep)
{
    torch::manual_seed(4);
    TransE model(10, 2, 4, 1, true);
    {
        torch::NoGradGuard noGrad;
        for (auto &p : model->named_parameters()) {
            if (p.key() == "entity.weight")
                p.value().mul_(5.0);
        }
    }
    model->beforeStep();
    for (const auto &p : model->named_parameters()) {
        if (p.key() == "entity.weight")
            TY_CHECK(torch::allclose(p.value().norm(2, 1), torch::ones({10}), 1e-4, 1e-4));
    }
}

TY_TEST(transhPenaltyIsZeroInsideConstraints)
{
    torch::manual_seed(5);
    TransH model(10, 2, 4, 2, 1.0, 0.001);
    {
        torch::NoGradGuard noGrad;
        for (auto &p : model->named_parameters()) {
            if (p.key() == "entity.weight")
                p.value().mul_(0.01); // well inside the unit ball
            if (p.key() == "translation.weight")
                p.value().zero_().select(1, 0).fill_(1.0);
            if (p.key() == "normal.weight")
                p.value().zero_().select(1, 1).fill_(1.0); // orthogonal to the translation
        }
    }
    const auto penalty = model->penalty(torch::arange(10), torch::tensor({0L, 1L}));
    TY_CHECK(penalty.item<double>() < 1e-9);
    {
        torch::NoGradGuard noGrad;
        for (auto &p : model->named_parameters()) {
            if (p.key() == "normal.weight")
                p.value().zero_().select(1, 0).fill_(1.0); // parallel: violates orthogonality
        }
    }
    TY_CHECK(model->penalty(torch::arange(10), torch::tensor({0L, 1L})).item<double>() > 0.5);
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

TY_TEST_MAIN()
