#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace trainyard {

class KgIndex;
class KgModelImpl;
class ClassifierImpl;

// Filtered link-prediction quality over head and tail prediction.
struct KgMetrics
{
    double mrr = 0.0;
    double hits1 = 0.0;
    double hits3 = 0.0;
    double hits10 = 0.0;
    std::int64_t queries = 0; // 2 per triple
};

// Ranks of the true entity per row of `scores` [B, N] (higher is better)
// after removing the other known answers: `filterRows`/`filterCols` index the
// cells to drop. Ties count half: rank = 1 + #greater + #equal_others / 2.
// Returns a float tensor [B] on the scores' device.
torch::Tensor filteredRanks(torch::Tensor scores, const torch::Tensor &answers, const torch::Tensor &filterRows,
                            const torch::Tensor &filterCols);

// Scores every triple of `triples` (flat h, r, t) as a tail query (h, r, ?)
// and a head query (?, r, t) against all entities, filtering the answers
// `known` holds (all splits; heads under relation + relationCount). Batched;
// all arithmetic stays on `device` and the totals are read once at the end.
// `keepGoing` runs between batches; when it returns false the evaluation
// stops early and the result has queries == 0.
KgMetrics evaluateKg(KgModelImpl &model, const std::vector<std::int64_t> &triples, const KgIndex &known,
                     std::int64_t relationCount, std::int64_t batchSize, torch::Device device,
                     const std::function<bool()> &keepGoing);

// Fraction of `images` ([n, 1, H, W] bytes on the device, normalised as
// (x / 255 - mean) / std) whose arg-max logit equals the label. Negative if
// `keepGoing` stopped it.
double evaluateAccuracy(ClassifierImpl &model, const torch::Tensor &images, const torch::Tensor &labels, double mean,
                        double std, std::int64_t batchSize, const std::function<bool()> &keepGoing);

// Bytes to model input, shared by training and evaluation.
torch::Tensor normalizeImages(const torch::Tensor &bytes, double mean, double std);

} // namespace trainyard
