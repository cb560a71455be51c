#include "worker/train/evaluator.h"

#include "worker/base/kgdataset.h"
#include "worker/train/models.h"

#include <algorithm>
#include <limits>

namespace trainyard {

torch::Tensor filteredRanks(torch::Tensor scores, const torch::Tensor &answers, const torch::Tensor &filterRows,
                            const torch::Tensor &filterCols)
{
    scores = scores.to(torch::kFloat);
    const auto target = scores.gather(1, answers.unsqueeze(1)); // [B, 1]
    if (filterRows.numel() > 0) {
        scores.index_put_({filterRows, filterCols}, -std::numeric_limits<float>::infinity());
    }
    const auto greater = (scores > target).sum(1).to(torch::kFloat);
    const auto equal = (scores == target).sum(1).to(torch::kFloat) - 1.0; // the answer itself
    return 1.0 + greater + 0.5 * equal;
}

namespace {

// (row, column) of every known answer of the batch other than the one asked.
void filterCells(const std::vector<std::int64_t> &triples, std::int64_t begin, std::int64_t end, const KgIndex &known,
                 std::int64_t relationCount, bool tails, std::vector<std::int64_t> &rows,
                 std::vector<std::int64_t> &cols)
{
    rows.clear();
    cols.clear();
    for (std::int64_t i = begin; i < end; ++i) {
        const std::int64_t h = triples[3 * i], r = triples[3 * i + 1], t = triples[3 * i + 2];
        const auto &list = tails ? known.targets(h, r) : known.targets(t, r + relationCount);
        const std::int64_t answer = tails ? t : h;
        for (const auto e : list) {
            if (e != answer) {
                rows.push_back(i - begin);
                cols.push_back(e);
            }
        }
    }
}

} // namespace

KgMetrics evaluateKg(KgModelImpl &model, const std::vector<std::int64_t> &triples, const KgIndex &known,
                     std::int64_t relationCount, std::int64_t batchSize, torch::Device device,
                     const std::function<bool()> &keepGoing)
{
    KgMetrics metrics;
    const std::int64_t n = static_cast<std::int64_t>(triples.size()) / 3;
    if (n == 0) {
        return metrics;
    }
    torch::NoGradGuard noGrad;
    const bool wasTraining = model.is_training();
    model.eval();
    model.beginEvaluation();
    const auto longs = torch::TensorOptions().dtype(torch::kLong);
    const auto all = torch::from_blob(const_cast<std::int64_t *>(triples.data()), {n, 3}, longs).to(device);
    // [mrr, hits1, hits3, hits10] summed on the device.
    auto sums = torch::zeros({4}, torch::TensorOptions().dtype(torch::kDouble).device(device));
    std::vector<std::int64_t> rows, cols;
    bool aborted = false;
    for (std::int64_t begin = 0; begin < n; begin += batchSize) {
        if (keepGoing && !keepGoing()) {
            aborted = true;
            break;
        }
        const std::int64_t end = std::min(n, begin + batchSize);
        const auto batch = all.slice(0, begin, end);
        const auto h = batch.select(1, 0), r = batch.select(1, 1), t = batch.select(1, 2);
        for (const bool tails : {true, false}) {
            const auto scores = tails ? model.scoreTails(h, r) : model.scoreHeads(t, r);
            filterCells(triples, begin, end, known, relationCount, tails, rows, cols);
            const auto fr = torch::tensor(rows, longs).to(device);
            const auto fc = torch::tensor(cols, longs).to(device);
            const auto ranks = filteredRanks(scores, tails ? t : h, fr, fc).to(torch::kDouble);
            sums += torch::stack({ranks.reciprocal().sum(), (ranks <= 1).sum().to(torch::kDouble),
                                  (ranks <= 3).sum().to(torch::kDouble), (ranks <= 10).sum().to(torch::kDouble)});
        }
    }
    model.endEvaluation();
    model.train(wasTraining);
    if (aborted) {
        return metrics;
    }
    const auto host = sums.cpu();
    const double queries = 2.0 * static_cast<double>(n);
    const auto *v = host.data_ptr<double>();
    metrics.mrr = v[0] / queries;
    metrics.hits1 = v[1] / queries;
    metrics.hits3 = v[2] / queries;
    metrics.hits10 = v[3] / queries;
    metrics.queries = 2 * n;
    return metrics;
}

torch::Tensor normalizeImages(const torch::Tensor &bytes, double mean, double std)
{
    return (bytes.to(torch::kFloat) / 255.0 - mean) / std;
}

double evaluateAccuracy(ClassifierImpl &model, const torch::Tensor &images, const torch::Tensor &labels, double mean,
                        double std, std::int64_t batchSize, const std::function<bool()> &keepGoing)
{
    const std::int64_t n = images.size(0);
    if (n == 0) {
        return 0.0;
    }
    torch::NoGradGuard noGrad;
    const bool wasTraining = model.is_training();
    model.eval();
    auto correct = torch::zeros({}, torch::TensorOptions().dtype(torch::kLong).device(images.device()));
    bool aborted = false;
    for (std::int64_t begin = 0; begin < n; begin += batchSize) {
        if (keepGoing && !keepGoing()) {
            aborted = true;
            break;
        }
        const std::int64_t end = std::min(n, begin + batchSize);
        const auto logits = model.forward(normalizeImages(images.slice(0, begin, end), mean, std));
        correct += (logits.argmax(1) == labels.slice(0, begin, end)).sum();
    }
    model.train(wasTraining);
    if (aborted) {
        return -1.0;
    }
    return static_cast<double>(correct.item<std::int64_t>()) / static_cast<double>(n);
}

} // namespace trainyard
