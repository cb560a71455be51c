// Filtered ranking and accuracy on hand-made cases.

#include "tests/helpers/minitest.h"

#include "worker/base/kgdataset.h"
#include "worker/train/evaluator.h"
#include "worker/train/models.h"

#include <torch/torch.h>

using namespace trainyard;

namespace {

// Scores fixed by hand: tail scores of (h, r, ?) are row h of `tails`,
// head scores of (?, r, t) are row t of `heads` (relation ignored).
class FixedModel : public KgModelImpl
{
public:
    FixedModel(torch::Tensor tails, torch::Tensor heads)
        : m_tails(std::move(tails))
        , m_heads(std::move(heads))
    {
    }
    torch::Tensor scoreTails(const torch::Tensor &h, const torch::Tensor &) override
    {
        return m_tails.index_select(0, h).clone();
    }
    torch::Tensor scoreHeads(const torch::Tensor &t, const torch::Tensor &) override
    {
        return m_heads.index_select(0, t).clone();
    }

private:
    torch::Tensor m_tails, m_heads;
};

bool near(double a, double b)
{
    if (std::abs(a - b) > 1e-6) {
        std::cerr << "  " << a << " != " << b << '\n';
        return false;
    }
    return true;
}

} // namespace

TY_TEST(ranksCountHigherScoresAndHalfTies)
{
    const auto scores = torch::tensor({0.1f, 0.9f, 0.5f, 0.5f, 0.2f}).view({1, 5});
    const auto none = torch::empty({0}, torch::kLong);
    // Answer 2 (0.5): one higher (0.9), one tie (0.5) -> 1 + 1 + 0.5.
    TY_CHECK(near(filteredRanks(scores.clone(), torch::tensor({2L}), none, none)[0].item<double>(), 2.5));
    // Filtering entity 1 and the tie 3 leaves it first.
    TY_CHECK(
        near(filteredRanks(scores.clone(), torch::tensor({2L}), torch::tensor({0L, 0L}), torch::tensor({1L, 3L}))[0]
                 .item<double>(),
             1.0));
    TY_CHECK(near(filteredRanks(scores.clone(), torch::tensor({0L}), none, none)[0].item<double>(), 5.0));
}

TY_TEST(filteredMrrAndHitsOverBothDirections)
{
    // 4 entities, 1 relation. Known triples: (0,0,1) train, (0,0,2) valid, (3,0,1) test.
    KgIndex known;
    known.add({0, 0, 1, 0, 0, 2, 3, 0, 1}, 1);
    known.finish();
    // Tail scores of head 0: entity 2 > 3 > 1 > 0. Head scores of tail 1: 0 > 3 > 2 > 1.
    auto tails = torch::zeros({4, 4});
    tails[0] = torch::tensor({0.0f, 1.0f, 3.0f, 2.0f});
    auto heads = torch::zeros({4, 4});
    heads[1] = torch::tensor({3.0f, 0.0f, 1.0f, 2.0f});
    FixedModel model(tails, heads);
    // Evaluate (0, 0, 1):
    //  tail query (0,0,?) answer 1: higher are 2 (filtered, a known tail) and 3 -> rank 2.
    //  head query (?,0,1) answer 0: higher: none -> rank 1.
    const auto m = evaluateKg(model, {0, 0, 1}, known, 1, 2, torch::kCPU, nullptr);
    TY_CHECK_EQ(m.queries, 2);
    TY_CHECK(near(m.mrr, (0.5 + 1.0) / 2));
    TY_CHECK(near(m.hits1, 0.5));
    TY_CHECK(near(m.hits3, 1.0));
    // Evaluate (3, 0, 1): head query answer 3 scores 2; 0 (3.0) is a known head of tail 1 -> filtered -> rank 1.
    // Tail query (3,0,?) uses row 3 (all zero): answer 1 ties with 3 others -> 1 + 1.5 = 2.5.
    const auto m2 = evaluateKg(model, {3, 0, 1}, known, 1, 1, torch::kCPU, nullptr);
    TY_CHECK(near(m2.mrr, (1.0 + 1.0 / 2.5) / 2));
    TY_CHECK(near(m2.hits1, 0.5));
    TY_CHECK(near(m2.hits3, 1.0));
    // Stopping early yields no result.
    const auto stopped = evaluateKg(model, {0, 0, 1}, known, 1, 1, torch::kCPU, [] { return false; });
    TY_CHECK_EQ(stopped.queries, 0);
}

TY_TEST(accuracyCountsArgmaxMatches)
{
    torch::manual_seed(1);
    Mlp mlp(4, 2, 4, 0, 0.0);
    const auto images = torch::randint(0, 255, {10, 1, 2, 2}).to(torch::kByte);
    const auto logits = mlp->forward(normalizeImages(images, 0.5, 0.25));
    auto labels = logits.argmax(1);
    TY_CHECK(near(evaluateAccuracy(*mlp, images, labels, 0.5, 0.25, 3, nullptr), 1.0));
    labels.slice(0, 0, 4).fill_(0);
    const double expected = (logits.argmax(1) == labels).sum().item<double>() / 10.0;
    TY_CHECK(near(evaluateAccuracy(*mlp, images, labels, 0.5, 0.25, 4, nullptr), expected));
}

TY_TEST_MAIN()
