#include "worker/train/fusedkg.h"

#include "worker/base/badinput.h"
#include "worker/train/kgkernels.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace trainyard {

namespace {

std::uint64_t mix(std::uint64_t x)
{
    // splitmix64's finaliser
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

double softplus(double x)
{
    return x > 30.0 ? x : std::log1p(std::exp(x));
}

double sigmoid(double x)
{
    return 1.0 / (1.0 + std::exp(-x));
}

// How many pairs ahead of its use a row is asked for: enough to cover a
// memory access at a few dozen nanoseconds a pair.
constexpr std::int64_t kPrefetchAhead = 4;

// The entity a pair does not share with its positive (pair 0), the one
// whose row is likely far from the cache.
std::int64_t corrupted(const std::int64_t *heads, const std::int64_t *tails, std::int64_t p)
{
    return heads[p] != heads[0] ? heads[p] : tails[p];
}

} // namespace

KgLoss kgLossFromName(const std::string &name)
{
    if (name == "margin") {
        return KgLoss::Margin;
    }
    if (name == "self_adversarial") {
        return KgLoss::SelfAdversarial;
    }
    if (name == "softmax") {
        return KgLoss::Softmax;
    }
    if (name == "1vsall") {
        return KgLoss::OneVsAll;
    }
    throw BadInput("model.loss: unknown loss \"" + name + "\"");
}

std::uint64_t negativeStream(std::uint64_t seed, std::int64_t step)
{
    return mix(mix(seed) ^ mix(static_cast<std::uint64_t>(step) + 0x5851F42D4C957F2Dull));
}

Negative sampleNegative(std::uint64_t stream, std::int64_t i, std::int64_t j, std::int64_t entities,
                        float headProbability)
{
    // j < 2048 (the catalogue allows 1024 negatives)
    const std::uint64_t r = mix(stream ^ ((static_cast<std::uint64_t>(i) << 11) | static_cast<std::uint64_t>(j)));
    const auto entity = static_cast<std::int64_t>(((r >> 32) * static_cast<std::uint64_t>(entities)) >> 32);
    const float u = static_cast<float>(r & 0xFFFFFFu) * (1.0f / 16777216.0f);
    return {entity, u < headProbability};
}

FusedKgTrainer::FusedKgTrainer(const FusedKgConfig &config, const FusedKgTables &tables,
                               const std::vector<std::int64_t> &triples, std::vector<float> headProbability)
    : m_config(config)
    , m_dim(tables.dim)
    , m_triples(triples)
    , m_headProbability(std::move(headProbability))
    , m_entity(tables.entity, tables.entities, tables.dim, config.optimizer, config.lr, config.weightDecay)
    , m_relation(tables.relation, tables.relations, tables.dim, config.optimizer, config.lr, config.weightDecay)
    , m_normal(config.transh ? SparseRowTable(tables.normal, tables.relations, tables.dim, config.optimizer, config.lr,
                                              config.weightDecay)
                             : SparseRowTable())
{
    if (m_config.filterNegatives) {
        std::size_t size = 16;
        while (size < triples.size()) { // 3 slots a triple: load below 1/2
            size <<= 1;
        }
        m_known.assign(size, 0);
        for (std::size_t i = 0; i + 2 < triples.size(); i += 3) {
            const std::uint64_t key =
                ((static_cast<std::uint64_t>(triples[i]) * static_cast<std::uint64_t>(tables.relations)
                  + static_cast<std::uint64_t>(triples[i + 1]))
                     * static_cast<std::uint64_t>(tables.entities)
                 + static_cast<std::uint64_t>(triples[i + 2]))
                + 1;
            std::size_t slot = mix(key) & (size - 1);
            while (m_known[slot] != 0 && m_known[slot] != key) {
                slot = (slot + 1) & (size - 1);
            }
            m_known[slot] = key;
        }
    }
}

bool FusedKgTrainer::isKnown(std::int64_t h, std::int64_t r, std::int64_t t) const
{
    const std::uint64_t key =
        ((static_cast<std::uint64_t>(h) * static_cast<std::uint64_t>(m_relation.rows()) + static_cast<std::uint64_t>(r))
             * static_cast<std::uint64_t>(m_entity.rows())
         + static_cast<std::uint64_t>(t))
        + 1;
    const std::size_t mask = m_known.size() - 1;
    for (std::size_t slot = mix(key) & mask; m_known[slot] != 0; slot = (slot + 1) & mask) {
        if (m_known[slot] == key) {
            return true;
        }
    }
    return false;
}

void FusedKgTrainer::setTables(const FusedKgTables &tables)
{
    m_entity.setWeights(tables.entity);
    m_relation.setWeights(tables.relation);
    m_normal.setWeights(tables.normal);
}

std::vector<FusedKgTrainer::StateArray> FusedKgTrainer::state()
{
    std::vector<StateArray> out;
    auto add = [&out](const char *name, SparseRowTable &table) {
        if (!table.first().empty()) {
            out.push_back({std::string(name) + ".first", &table.first()});
        }
        if (!table.second().empty()) {
            out.push_back({std::string(name) + ".second", &table.second()});
        }
    };
    add("entity", m_entity);
    add("relation", m_relation);
    if (m_config.transh) {
        add("normal", m_normal);
    }
    return out;
}

using namespace kgkernels;

void FusedKgTrainer::normalizeAllEntities()
{
    if (!m_config.normalizeEntities) {
        return;
    }
    at::parallel_for(0, m_entity.rows(), 256,
                     [this](std::int64_t begin, std::int64_t end) { normalizeRows(nullptr, begin, end); });
}

double FusedKgTrainer::step(const std::int64_t *indices, std::int64_t count, std::int64_t step)
{
    const std::int64_t k = m_config.negatives, pairs = 1 + k;
    m_heads.resize(static_cast<std::size_t>(count * pairs));
    m_tails.resize(m_heads.size());
    m_relations.resize(static_cast<std::size_t>(count));
    m_keep.assign(m_heads.size(), 1);
    m_keptNegatives = 0;
    for (SparseRowTable *table : {&m_entity, &m_relation, &m_normal}) {
        table->beginStep();
    }

    // Negatives, and the rows of the step (one gradient slot each); serial,
    // a few nanoseconds a pair.
    const std::uint64_t stream = negativeStream(m_config.seed, step);
    const std::int64_t entities = m_entity.rows();
    for (std::int64_t i = 0; i < count; ++i) {
        const std::int64_t *triple = m_triples.data() + 3 * indices[i];
        const std::int64_t h = triple[0], r = triple[1], t = triple[2];
        m_relations[i] = r;
        std::int64_t *heads = m_heads.data() + i * pairs, *tails = m_tails.data() + i * pairs;
        heads[0] = h;
        tails[0] = t;
        m_entity.touch(h);
        m_entity.touch(t);
        m_relation.touch(r);
        if (m_config.transh) {
            m_normal.touch(r);
        }
        const float p = m_headProbability[r];
        for (std::int64_t j = 0; j < k; ++j) {
            const Negative n = sampleNegative(stream, i, j, entities, p);
            heads[1 + j] = n.corruptHead ? n.entity : h;
            tails[1 + j] = n.corruptHead ? t : n.entity;
            m_entity.touch(n.entity);
            if (m_config.filterNegatives && isKnown(heads[1 + j], r, tails[1 + j])) {
                m_keep[i * pairs + 1 + j] = 0;
            } else {
                m_keptNegatives += 1;
            }
        }
    }

    // Slots in ascending row order, so that the update sweeps each table and
    // its optimizer state front to back: on WN18RR a step touches about
    // 30,000 of the 40,943 entity rows, and in the order they were drawn the
    // update was a quarter of the step (docs/results.md).
    for (SparseRowTable *table : {&m_entity, &m_relation, &m_normal}) {
        table->orderTouched();
    }

    if (m_config.normalizeEntities) {
        // What the autograd path does to the whole table before each step,
        // done to the rows this step reads: the others are unchanged since
        // they were last normalised (normalizeAllEntities before evaluation).
        const auto &rows = m_entity.touched();
        at::parallel_for(0, static_cast<std::int64_t>(rows.size()), 256,
                         [&](std::int64_t begin, std::int64_t end) { normalizeRows(rows.data(), begin, end); });
    }

    const int threads = std::max(1, at::get_num_threads());
    m_entity.prepareGrads(threads);
    m_relation.prepareGrads(threads);
    if (m_config.transh) {
        m_normal.prepareGrads(threads);
    }
    if (static_cast<int>(m_scratch.size()) < threads) {
        m_scratch.resize(static_cast<std::size_t>(threads));
    }
    for (auto &s : m_scratch) {
        s.loss = 0.0;
    }

    const std::int64_t grain = std::max<std::int64_t>(1, 8192 / std::max<std::int64_t>(1, pairs * m_dim));
    at::parallel_for(0, count, grain, [&](std::int64_t begin, std::int64_t end) {
        const FlushDenormals flush;
        const int thread = at::get_thread_num();
        Scratch &scratch = m_scratch[thread];
        for (std::int64_t i = begin; i < end; ++i) {
            positive(i, count, scratch, thread);
        }
    });

    double loss = 0.0;
    for (int t = 0; t < threads; ++t) {
        loss += m_scratch[t].loss;
    }

    m_entity.update(step, threads);
    m_relation.update(step, threads);
    if (m_config.transh) {
        m_normal.update(step, threads);
    }
    return loss;
}

TY_KERNEL void FusedKgTrainer::positive(std::int64_t i, std::int64_t batch, Scratch &s, int thread)
{
    const std::int64_t d = m_dim, k = m_config.negatives, pairs = 1 + k;
    const bool transh = m_config.transh;
    const int norm = m_config.norm;
    const std::int64_t *heads = m_heads.data() + i * pairs, *tails = m_tails.data() + i * pairs;
    const std::uint8_t *keep = m_keep.data() + i * pairs;
    const std::int64_t r = m_relations[i];
    const float *E = m_entity.weights();
    const float *rv = m_relation.weights() + r * d;
    s.distances.resize(static_cast<std::size_t>(pairs));
    s.coefficients.resize(static_cast<std::size_t>(pairs));
    s.gradRelation.assign(static_cast<std::size_t>(d), 0.0f);
    float *w = nullptr;
    float normalLength = 0.0f;
    if (transh) {
        s.w.resize(static_cast<std::size_t>(d));
        s.gradNormal.assign(static_cast<std::size_t>(d), 0.0f);
        const float *u = m_normal.weights() + r * d;
        normalLength = std::sqrt(squaredNorm(u, d));
        const float inv = 1.0f / std::max(normalLength, 1e-12f);
        for (std::int64_t j = 0; j < d; ++j) {
            s.w[j] = u[j] * inv;
        }
        w = s.w.data();
    }

    if (transh) {
        // A negative shares the positive's head or tail: w.h and w.t of those once.
        s.wx.resize(static_cast<std::size_t>(pairs));
        s.wg.resize(static_cast<std::size_t>(pairs));
        const float wh = dot(w, E + heads[0] * d, d), wt = dot(w, E + tails[0] * d, d);
        for (std::int64_t p = 0; p < pairs; ++p) {
            if (p + kPrefetchAhead < pairs) {
                prefetchRow(E + corrupted(heads, tails, p + kPrefetchAhead) * d, d);
            }
            const float a = heads[p] == heads[0] ? wh : dot(w, E + heads[p] * d, d);
            const float b = tails[p] == tails[0] ? wt : dot(w, E + tails[p] * d, d);
            s.wx[p] = a - b;
            s.distances[p] =
                transhDistance(E + heads[p] * d, rv, E + tails[p] * d, w, s.wx[p], d, norm, m_config.squared, &s.wg[p]);
        }
    } else {
        for (std::int64_t p = 0; p < pairs; ++p) {
            if (p + kPrefetchAhead < pairs) {
                prefetchRow(E + corrupted(heads, tails, p + kPrefetchAhead) * d, d);
            }
            s.distances[p] = distance(E + heads[p] * d, rv, E + tails[p] * d, d, norm);
        }
    }

    // The loss of this positive and d loss / d distance of each pair.
    const double B = static_cast<double>(batch);
    const double dp = s.distances[0];
    double loss = 0.0, cPos = 0.0;
    switch (m_config.loss) {
    case KgLoss::Margin: {
        // The mean over the step's kept pairs, as the autograd path takes it.
        const double scale = 1.0 / std::max(1.0, m_keptNegatives);
        for (std::int64_t p = 1; p < pairs; ++p) {
            const double a = m_config.margin + dp - s.distances[p];
            const bool active = a > 0.0 && keep[p];
            loss += active ? a * scale : 0.0;
            cPos += active ? scale : 0.0;
            s.coefficients[p] = active ? static_cast<float>(-scale) : 0.0f;
        }
        break;
    }
    case KgLoss::SelfAdversarial: {
        const double gamma = m_config.margin, alpha = m_config.temperature, half = 0.5 / B;
        double top = -INFINITY;
        for (std::int64_t p = 1; p < pairs; ++p) {
            top = keep[p] ? std::max(top, -alpha * s.distances[p]) : top;
        }
        double total = 0.0;
        for (std::int64_t p = 1; p < pairs; ++p) {
            total += keep[p] ? std::exp(-alpha * s.distances[p] - top) : 0.0;
        }
        loss = half * softplus(dp - gamma);
        cPos = half * sigmoid(dp - gamma);
        for (std::int64_t p = 1; p < pairs; ++p) {
            s.coefficients[p] = 0.0f;
            if (!keep[p]) {
                continue;
            }
            const double dn = s.distances[p];
            const double weight = std::exp(-alpha * dn - top) / total; // a constant, as in the paper
            loss += half * weight * softplus(gamma - dn);
            s.coefficients[p] = static_cast<float>(-half * weight * sigmoid(gamma - dn));
        }
        break;
    }
    case KgLoss::Softmax:
    case KgLoss::OneVsAll: { // OneVsAll never reaches the fused path
        double top = -dp;
        for (std::int64_t p = 1; p < pairs; ++p) {
            top = keep[p] ? std::max(top, -static_cast<double>(s.distances[p])) : top;
        }
        double total = 0.0;
        for (std::int64_t p = 0; p < pairs; ++p) {
            total += keep[p] ? std::exp(-s.distances[p] - top) : 0.0;
        }
        const double lse = top + std::log(total);
        loss = (lse + dp) / B;
        cPos = (1.0 - std::exp(-dp - lse)) / B;
        for (std::int64_t p = 1; p < pairs; ++p) {
            s.coefficients[p] = keep[p] ? static_cast<float>(-std::exp(-s.distances[p] - lse) / B) : 0.0f;
        }
        break;
    }
    }
    s.coefficients[0] = static_cast<float>(cPos);

    float *gr = s.gradRelation.data();
    float *gw = transh ? s.gradNormal.data() : nullptr;
    for (std::int64_t p = 0; p < pairs; ++p) {
        if (p + kPrefetchAhead < pairs && s.coefficients[p + kPrefetchAhead] != 0.0f) {
            prefetchRowForWriting(m_entity.grad(thread, corrupted(heads, tails, p + kPrefetchAhead)), d);
        }
        const float c = s.coefficients[p];
        if (c == 0.0f) {
            continue;
        }
        if (transh) {
            transhDistanceGrad(E + heads[p] * d, rv, E + tails[p] * d, w, s.distances[p], s.wx[p], s.wg[p], c, d, norm,
                               m_config.squared, m_entity.grad(thread, heads[p]), m_entity.grad(thread, tails[p]), gr,
                               gw);
        } else {
            distanceGrad(E + heads[p] * d, rv, E + tails[p] * d, s.distances[p], c, d, norm,
                         m_entity.grad(thread, heads[p]), m_entity.grad(thread, tails[p]), gr);
        }
    }

    if (transh && m_config.constraintWeight != 0.0) {
        // Wang et al.'s soft constraints, averaged as the autograd path does:
        // over the step's 2B(1 + k) entity entries and its B relations.
        const double C = m_config.constraintWeight;
        const double entityScale = C / (B * 2.0 * static_cast<double>(pairs));
        for (std::int64_t p = 0; p < pairs; ++p) {
            for (const std::int64_t e : {heads[p], tails[p]}) {
                const float *row = E + e * d;
                const double sq = squaredNorm(row, d);
                if (sq > 1.0) {
                    loss += entityScale * (sq - 1.0);
                    axpy(static_cast<float>(2.0 * entityScale), row, m_entity.grad(thread, e), d);
                }
            }
        }
        const double a = dot(w, rv, d);
        const double rawQ = squaredNorm(rv, d);
        const double q = std::max(rawQ, 1e-12);
        const double f = a * a / q;
        const double eps2 = m_config.epsilon * m_config.epsilon;
        if (f > eps2) {
            const double cf = C / B;
            loss += cf * (f - eps2);
            axpy(static_cast<float>(cf * 2.0 * a / q), w, gr, d);
            if (rawQ > 1e-12) {
                axpy(static_cast<float>(-cf * 2.0 * a * a / (q * q)), rv, gr, d);
            }
            axpy(static_cast<float>(cf * 2.0 * a / q), rv, gw, d);
        }
    }

    axpy(1.0f, gr, m_relation.grad(thread, r), d);
    if (transh) {
        // Through w = u / max(|u|, 1e-12).
        float *gu = m_normal.grad(thread, r);
        if (normalLength > 1e-12f) {
            const float along = dot(gw, w, d);
            const float inv = 1.0f / normalLength;
            for (std::int64_t j = 0; j < d; ++j) {
                gu[j] += (gw[j] - along * w[j]) * inv;
            }
        } else {
            axpy(1e12f, gw, gu, d);
        }
    }
    s.loss += loss;
}

TY_KERNEL void FusedKgTrainer::normalizeRows(const std::int64_t *rows, std::int64_t begin, std::int64_t end)
{
    for (std::int64_t s = begin; s < end; ++s) {
        normalizeRow(m_entity.weights() + (rows ? rows[s] : s) * m_dim, m_dim);
    }
}

// SparseRowTable (sparserowtable.h) lives in this unit with the step's other kernels.

SparseRowTable::SparseRowTable(float *weights, std::int64_t rows, std::int64_t dim, RowOptimizer optimizer, double lr,
                               double weightDecay)
    : m_weights(weights)
    , m_rows(rows)
    , m_dim(dim)
    , m_optimizer(optimizer)
    , m_lr(lr)
    , m_weightDecay(weightDecay)
{
    const auto cells = static_cast<std::size_t>(rows * dim);
    if (optimizer == RowOptimizer::Adam) {
        m_first.assign(cells, 0.0f);
        m_second.assign(cells, 0.0f);
    } else if (optimizer == RowOptimizer::Adagrad) {
        m_first.assign(static_cast<std::size_t>(rows), 0.0f);
    }
    m_stamp.assign(static_cast<std::size_t>(rows), 0);
    m_slot.assign(static_cast<std::size_t>(rows), 0);
}

void SparseRowTable::beginStep()
{
    ++m_mark;
    m_touched.clear();
}

void SparseRowTable::orderTouched()
{
    std::vector<std::int64_t> &rows = m_touched;
    if (rows.size() * 16 >= static_cast<std::size_t>(m_rows)) {
        // Many rows: one pass over the marks is cheaper than a sort.
        rows.clear();
        for (std::int64_t row = 0; row < m_rows; ++row) {
            if (m_stamp[row] == m_mark) {
                rows.push_back(row);
            }
        }
    } else {
        std::sort(rows.begin(), rows.end());
    }
    for (std::size_t s = 0; s < rows.size(); ++s) {
        m_slot[rows[s]] = static_cast<std::int32_t>(s);
    }
}

void SparseRowTable::prepareGrads(int threads)
{
    // The buffers are all zero between steps (update() clears what it read).
    if (static_cast<int>(m_grads.size()) < threads) {
        m_grads.resize(static_cast<std::size_t>(threads));
    }
    const std::size_t cells = m_touched.size() * static_cast<std::size_t>(m_dim);
    for (int t = 0; t < threads; ++t) {
        if (m_grads[t].size() < cells) {
            m_grads[t].resize(cells, 0.0f);
        }
    }
}

void SparseRowTable::update(std::int64_t step, int threads)
{
    // Adam's bias correction with the run's step count, as SparseAdam does.
    const double t = static_cast<double>(step + 1);
    const float adamScale = static_cast<float>(m_lr * std::sqrt(1.0 - std::pow(0.999, t)) / (1.0 - std::pow(0.9, t)));
    at::parallel_for(0, static_cast<std::int64_t>(m_touched.size()), 64, [&](std::int64_t begin, std::int64_t end) {
        const FlushDenormals flush;
        updateRows(begin, end, threads, adamScale);
    });
}

TY_KERNEL void SparseRowTable::updateRows(std::int64_t begin, std::int64_t end, int threads, float adamScale)
{
    const float lr = static_cast<float>(m_lr);
    const float decay = static_cast<float>(m_weightDecay);
    const std::int64_t d = m_dim;
    float *m = m_first.empty() ? nullptr : m_first.data();
    float *v = m_second.empty() ? nullptr : m_second.data();
    for (std::int64_t s = begin; s < end; ++s) {
        const std::int64_t row = m_touched[s];
        float *g = m_grads[0].data() + s * d;
        for (int th = 1; th < threads; ++th) {
            float *other = m_grads[th].data() + s * d;
            axpy(1.0f, other, g, d);
            std::memset(other, 0, static_cast<std::size_t>(d) * sizeof(float));
        }
        updateRow(m_optimizer, m_weights + row * d, g, m && v ? m + row * d : nullptr, v ? v + row * d : nullptr,
                  m && !v ? m + row : nullptr, d, lr, decay, adamScale);
        std::memset(g, 0, static_cast<std::size_t>(d) * sizeof(float));
    }
}

} // namespace trainyard
