#pragma once

// The fused CPU training path of the translational models (TransE, TransH):
// negatives, forward pass, gradient and optimizer update of one batch written
// directly over the embedding tables, with no autograd graph and no per-step
// allocation. Parallel over the positives of a batch (at::parallel_for); each
// thread sums its gradients into its own buffer, so a step's gradient is the
// exact batch gradient (the same as the autograd path's), and optimizer state
// is read and written only for the rows the batch touched (SparseRowTable).
//
// LibTorch-free on purpose: the tables are raw float arrays owned by the
// model's parameters, so evaluation and checkpoints of the model are the
// autograd path's.

#include "worker/train/sparserowtable.h"

#include <cstdint>
#include <string>
#include <vector>

namespace trainyard {

enum class KgLoss {
    Margin,          // mean over pairs of max(0, margin + d(pos) - d(neg))
    SelfAdversarial, // Sun et al. 2019: -log s(g - d(pos)) - sum_j w_j log s(d(neg_j) - g), w = softmax(-a d(neg))
    Softmax,         // cross-entropy of the positive among itself and its negatives, scores -d
    OneVsAll,        // cross-entropy over every entity, both directions (autograd path only)
};

KgLoss kgLossFromName(const std::string &name);

// The negative `j` of the `i`-th positive of a step: a random entity and
// whether it replaces the head. Counter-based (no generator state): the
// fused and the CPU autograd path draw the same negatives, every thread count
// gives the same ones, and a resumed run continues the same sequence.
struct Negative
{
    std::int64_t entity;
    bool corruptHead;
};
// The random stream of step `step` of a run seeded with `seed`.
std::uint64_t negativeStream(std::uint64_t seed, std::int64_t step);
Negative sampleNegative(std::uint64_t stream, std::int64_t i, std::int64_t j, std::int64_t entities,
                        float headProbability);

// L1 distances of every query to every row of `table` [n, d] for ranking:
// out[b, e] = sum_j |q_bj - t_ej| or, with TransH's unit normals w [B, d]
// and the projections c [B, n] (c_be = w_b . t_e),
// sum_j |q_bj - t_ej + c_be w_bj| (the distance to t_e on b's hyperplane).
// Blocked for the cache and parallel over the queries.
void l1DistancesToAll(const float *queries, std::int64_t count, const float *table, std::int64_t n, std::int64_t d,
                      const float *normals, const float *projections, float *out);

// TransH's squared L2 ranking: from the products xt [B, n] (x_b . t_e) and
// tw [B, n] (w_b . t_e), |x_b|^2 xx [B], x_b . w_b xw [B] and |t_e|^2 tt [n],
// writes -(xx - 2 xt + 2 tw xw + tt - tw^2), the negated squared distance of
// x_b to t_e on b's hyperplane, over xt in one pass.
void projectedSquaredL2Scores(float *xt, const float *tw, const float *xx, const float *xw, const float *tt,
                              std::int64_t count, std::int64_t n);

struct FusedKgConfig
{
    bool transh = false;
    int norm = 1;        // 1: L1; 2: L2 (TransE) or, for TransH, as `squared` says
    bool squared = true; // TransH with norm 2: squared L2 (the paper's) or plain L2
    KgLoss loss = KgLoss::Margin;
    double margin = 1.0; // the margin, or gamma of the self-adversarial loss
    double temperature = 1.0;
    std::int64_t negatives = 1;
    bool normalizeEntities = false; // TransE: unit L2 rows before each step
    bool filterNegatives = false;   // leave out negatives that are training triples
    double constraintWeight = 0.0;  // TransH soft constraints
    double epsilon = 0.0;
    RowOptimizer optimizer = RowOptimizer::Adam;
    double lr = 0.001;
    double weightDecay = 0.0;
    std::uint64_t seed = 1;
};

// Views of the model's tables, row-major [rows, dim].
struct FusedKgTables
{
    float *entity = nullptr;
    float *relation = nullptr; // TransE: r; TransH: d_r
    float *normal = nullptr;   // TransH: w_r (used unit-normalised); TransE: null
    std::int64_t entities = 0;
    std::int64_t relations = 0;
    std::int64_t dim = 0;
};

class FusedKgTrainer
{
public:
    // `triples`: the training triples, flat (h, r, t); `headProbability`: per
    // relation, P(corrupt the head).
    FusedKgTrainer(const FusedKgConfig &config, const FusedKgTables &tables, const std::vector<std::int64_t> &triples,
                   std::vector<float> headProbability);

    // One optimizer step over the training triples `indices[0..count)`,
    // the trainer's step number `step` (0-based); returns the batch loss.
    double step(const std::int64_t *indices, std::int64_t count, std::int64_t step);

    // Points at the tables again (loading a checkpoint replaces their storage).
    void setTables(const FusedKgTables &tables);

    // TransE with normalize_entities rescales rows lazily (when a batch
    // touches them); evaluation calls this first so that it sees the table
    // the autograd path would have.
    void normalizeAllEntities();

    // Optimizer state, for checkpoints: named arrays (sizes fixed by the tables).
    struct StateArray
    {
        std::string name;
        std::vector<float> *values;
    };
    std::vector<StateArray> state();

private:
    struct Scratch
    {
        std::vector<float> distances, coefficients;
        std::vector<float> wx, wg; // TransH: w.(h - t) and transhDistance's wg of each pair
        std::vector<float> gradRelation, gradNormal, w;
        double loss = 0.0;
    };

    void positive(std::int64_t i, std::int64_t b, Scratch &scratch, int thread);
    void normalizeRows(const std::int64_t *rows, std::int64_t begin, std::int64_t end); // null rows: all

    FusedKgConfig m_config;
    std::int64_t m_dim;
    const std::vector<std::int64_t> &m_triples;
    std::vector<float> m_headProbability;
    SparseRowTable m_entity, m_relation, m_normal;
    std::vector<std::int64_t> m_heads, m_tails; // per pair of the step: [B, 1 + k]
    std::vector<std::int64_t> m_relations;      // per positive of the step
    std::vector<std::uint8_t> m_keep;           // per pair: 0 for a negative that is a training triple
    double m_keptNegatives = 0;                 // of the step
    std::vector<std::uint64_t> m_known;         // open-addressing set of training triples (filterNegatives)
    bool isKnown(std::int64_t h, std::int64_t r, std::int64_t t) const;
    std::vector<Scratch> m_scratch; // per thread
};

} // namespace trainyard
