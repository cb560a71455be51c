// The knowledge-graph training schemes: margin ranking with corrupted triples
// (TransE, TransH; autograd or the fused CPU path) and one-to-all BCE over
// (entity, relation) keys (Conv-TransE, SACN). Images: imagetask.cpp.

#include "worker/train/task.h"

#include "worker/base/badinput.h"
#include "worker/base/kgdataset.h"
#include "worker/base/runspec.h"
#include "worker/train/autocastguard.h"
#include "worker/train/evaluator.h"
#include "worker/train/fusedkg.h"
#include "worker/train/models.h"
#include "worker/train/tensorrowoptimizer.h"

#include <limits>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace trainyard {

namespace {

const auto kLongs = torch::TensorOptions().dtype(torch::kLong);

torch::Tensor triplesTensor(const std::vector<std::int64_t> &flat, torch::Device device)
{
    const auto n = static_cast<std::int64_t>(flat.size()) / 3;
    return torch::from_blob(const_cast<std::int64_t *>(flat.data()), {n, 3}, kLongs).clone().to(device);
}

nlohmann::json kgFields(const KgMetrics &m)
{
    return {{"mrr", m.mrr}, {"hits@1", m.hits1}, {"hits@3", m.hits3}, {"hits@10", m.hits10}};
}

// Shared by both KG schemes: the data, the filter index, the evaluation.
class KgTaskBase : public Task
{
public:
    KgTaskBase(KgDataset data, torch::Device device)
        : m_data(std::move(data))
        , m_device(device)
    {
        m_known.add(m_data.train, m_data.relationCount());
        m_known.add(m_data.valid, m_data.relationCount());
        m_known.add(m_data.test, m_data.relationCount());
        m_known.finish();
        m_train = triplesTensor(m_data.train, device);
    }

    nlohmann::json evaluate(const std::string &split, std::int64_t batchSize,
                            const std::function<bool()> &keepGoing) override
    {
        const KgMetrics m =
            evaluateKg(kgModel(), m_data.split(split), m_known, m_data.relationCount(), batchSize, m_device, keepGoing);
        if (m.queries == 0 && !m_data.split(split).empty()) {
            return nullptr;
        }
        return kgFields(m);
    }

    std::string describe() const override
    {
        std::ostringstream os;
        os << m_data.entityCount() << " entities, " << m_data.relationCount() << " relations, "
           << m_data.train.size() / 3 << "/" << m_data.valid.size() / 3 << "/" << m_data.test.size() / 3
           << " train/valid/test triples";
        return os.str();
    }

protected:
    virtual KgModelImpl &kgModel() = 0;

    KgDataset m_data;
    torch::Device m_device;
    KgIndex m_known;
    torch::Tensor m_train; // [n, 3] on the device
};

// P(corrupt the head) per relation: 0.5, or Wang et al.'s Bernoulli
// tph / (tph + hpt), which corrupts the side with fewer answers less often
// and so produces fewer false negatives.
std::vector<float> headProbabilities(const KgDataset &data, bool bernoulli)
{
    const std::int64_t R = data.relationCount();
    std::vector<float> p(static_cast<std::size_t>(R), 0.5f);
    if (!bernoulli) {
        return p;
    }
    std::vector<std::unordered_map<std::int64_t, std::int64_t>> tailsOf(R), headsOf(R);
    for (std::size_t i = 0; i < data.train.size(); i += 3) {
        ++tailsOf[data.train[i + 1]][data.train[i]];
        ++headsOf[data.train[i + 1]][data.train[i + 2]];
    }
    for (std::int64_t r = 0; r < R; ++r) {
        if (tailsOf[r].empty()) {
            continue;
        }
        double triples = 0;
        for (const auto &kv : tailsOf[r]) {
            triples += static_cast<double>(kv.second);
        }
        const double tph = triples / static_cast<double>(tailsOf[r].size());
        const double hpt = triples / static_cast<double>(headsOf[r].size());
        p[r] = static_cast<float>(tph / (tph + hpt));
    }
    return p;
}

// Why the fused path cannot train `spec` on `device`, or "" if it can.
std::string fusedUnsupported(const RunSpec &spec, torch::Device device)
{
    if (spec.modelType() != "transe" && spec.modelType() != "transh") {
        return "model " + spec.modelType() + " has no fused path";
    }
    if (!device.is_cpu()) {
        return "the fused path runs on the CPU; " + device.str() + " trains with autograd";
    }
    if (spec.amp != "off") {
        return "train.amp " + spec.amp + " needs autograd";
    }
    if (spec.stringParam("loss") == "1vsall") {
        return "model.loss 1vsall needs autograd";
    }
    return {};
}

class MarginKgTask : public KgTaskBase
{
public:
    MarginKgTask(const RunSpec &spec, KgDataset data, torch::Device device)
        : KgTaskBase(std::move(data), device)
        , m_margin(spec.floatParam("margin"))
        , m_temperature(spec.floatParam("temperature"))
        , m_negatives(spec.intParam("negatives"))
        , m_filterNegatives(spec.boolParam("filter_negatives"))
        , m_loss(kgLossFromName(spec.stringParam("loss")))
        , m_seed(spec.seed)
        , m_amp(spec.amp == "bf16")
    {
        auto model = makeKgModel(spec, m_data.entityCount(), m_data.relationCount(), m_train);
        m_model = std::dynamic_pointer_cast<TranslationalModelImpl>(model);
        m_model->to(device);
        m_headProbabilityHost = headProbabilities(m_data, spec.stringParam("sampling") == "bern");
        m_headProbability = torch::tensor(m_headProbabilityHost).to(device);
        if (m_filterNegatives) {
            m_trainKeys = std::get<0>(
                torch::_unique(tripleKeys(m_train.select(1, 0), m_train.select(1, 1), m_train.select(1, 2))));
        }
        m_optimizer = std::make_unique<TensorRowOptimizer>(spec, m_model->tables());
    }

    torch::nn::Module &module() override { return *m_model; }
    std::int64_t examples() const override { return m_train.size(0); }
    void beforeStep(std::int64_t step) override { m_step = step; }

    bool updatesItself() const override { return true; }

    torch::Tensor loss(const torch::Tensor &indices) override { return lossOf(makeBatch(indices)); }

    torch::Tensor step(const torch::Tensor &indices, std::int64_t step) override
    {
        m_step = step;
        const Batch batch = makeBatch(indices);
        m_model->beforeStep(batch.entityRows);
        m_optimizer->zeroGrad();
        torch::Tensor loss;
        {
            // train.amp: the forward pass and the loss under autocast; the
            // loss leaves it as fp32 (a no-op without amp).
            AutocastGuard autocast(m_device.type(), m_amp);
            loss = lossOf(batch).to(torch::kFloat);
        }
        loss.backward();
        const auto relationRows = m_model->relationRows(batch.r);
        std::vector<torch::Tensor> rows{batch.entityRows, relationRows};
        if (rows.size() < m_model->tables().size()) {
            rows.push_back(relationRows); // TransH's normals
        }
        m_optimizer->step(rows, step);
        return loss.detach();
    }

    nlohmann::json evaluate(const std::string &split, std::int64_t batchSize,
                            const std::function<bool()> &keepGoing) override
    {
        m_model->beforeStep({}); // rows updated by the last step, as the fused path does
        return KgTaskBase::evaluate(split, batchSize, keepGoing);
    }

    void saveOptimizer(torch::serialize::OutputArchive &archive) override { m_optimizer->save(archive); }
    bool loadOptimizer(torch::serialize::InputArchive &archive) override { return m_optimizer->load(archive); }

private:
    struct Batch
    {
        torch::Tensor h, r, t;                // [B] on the device
        torch::Tensor negHeads, rn, negTails; // [k * B], negative j of positive i at j * B + i
        torch::Tensor entityRows;             // every entity row the loss reads (undefined: all)
    };

    Batch makeBatch(const torch::Tensor &indices)
    {
        Batch b;
        const auto pos = m_train.index_select(0, indices.to(m_device, /*non_blocking=*/true));
        b.h = pos.select(1, 0);
        b.r = pos.select(1, 1);
        b.t = pos.select(1, 2);
        if (m_loss == KgLoss::OneVsAll) {
            return b; // every entity is scored
        }
        const std::int64_t B = b.h.size(0), k = m_negatives;
        const auto hn = b.h.repeat({k}), tn = b.t.repeat({k});
        b.rn = b.r.repeat({k});
        const auto [random, corruptHead] = sampleNegatives(indices, B);
        b.negHeads = torch::where(corruptHead, random, hn);
        b.negTails = torch::where(corruptHead, tn, random);
        b.entityRows = torch::cat({b.h, b.t, random});
        return b;
    }

    torch::Tensor lossOf(const Batch &b)
    {
        const auto &h = b.h, &r = b.r, &t = b.t;
        if (m_loss == KgLoss::OneVsAll) {
            // Every entity is a negative: cross-entropy of the true tail and
            // of the true head (small graphs: [B, N] scores).
            auto loss = 0.5
                        * (torch::cross_entropy_loss(m_model->scoreTails(h, r), t)
                           + torch::cross_entropy_loss(m_model->scoreHeads(t, r), h));
            const auto penalty = m_model->penalty(torch::cat({h, t}), m_model->relationRows(r));
            return penalty.defined() ? loss + penalty : loss;
        }
        const std::int64_t B = h.size(0), k = m_negatives;
        const auto dPos = m_model->distance(h, r, t);
        auto dNeg = m_model->distance(b.negHeads, b.rn, b.negTails);
        torch::Tensor keep; // 1 for a negative that is not a training triple
        if (m_filterNegatives) {
            // A "negative" that is a training triple teaches the opposite of
            // the data (frequent in dense graphs such as UMLS): leave it out.
            keep = torch::logical_not(torch::isin(tripleKeys(b.negHeads, b.rn, b.negTails), m_trainKeys));
            if (m_loss != KgLoss::Margin) { // an infinite distance: weight 0, no gradient
                dNeg = torch::where(keep, dNeg, torch::full_like(dNeg, std::numeric_limits<float>::infinity()));
            }
        }
        torch::Tensor loss;
        switch (m_loss) {
        case KgLoss::Margin: {
            auto terms = torch::relu(m_margin + dPos.repeat({k}) - dNeg);
            if (m_filterNegatives) {
                const auto kept = keep.to(terms.dtype());
                loss = (terms * kept).sum() / kept.sum().clamp_min(1.0);
            } else {
                loss = terms.mean();
            }
            break;
        }
        case KgLoss::SelfAdversarial: {
            // Sun et al. 2019, eq. 5, with score gamma - d; the weights are constants.
            const auto neg = dNeg.view({k, B}).t(); // [B, k]
            const auto weights = torch::softmax(-m_temperature * neg.detach(), 1);
            const auto posLoss = -torch::log_sigmoid(m_margin - dPos).mean();
            const auto negLoss = -(weights * torch::log_sigmoid(neg - m_margin)).sum(1).mean();
            loss = 0.5 * (posLoss + negLoss);
            break;
        }
        case KgLoss::Softmax:
        case KgLoss::OneVsAll: {
            const auto scores = torch::cat({-dPos.unsqueeze(1), -dNeg.view({k, B}).t()}, 1); // [B, 1 + k]
            loss = torch::cross_entropy_loss(scores, torch::zeros({B}, kLongs.device(m_device)));
            break;
        }
        }
        const auto penalty = m_model->penalty(torch::cat({h, t, b.negHeads, b.negTails}), r);
        if (penalty.defined()) {
            loss = loss + penalty;
        }
        return loss;
    }

    KgModelImpl &kgModel() override { return *m_model; }

    // The replacement entities [k * B] and whether each replaces the head. On
    // the CPU the fused path's counter-based draw (the two paths then train
    // alike); on a GPU the device's generator, with no host round trip.
    std::pair<torch::Tensor, torch::Tensor> sampleNegatives(const torch::Tensor &indices, std::int64_t B)
    {
        const std::int64_t count = B * m_negatives;
        if (m_device.is_cpu()) {
            auto random = torch::empty({count}, kLongs);
            auto corrupt = torch::empty({count}, torch::TensorOptions().dtype(torch::kBool));
            auto *e = random.data_ptr<std::int64_t>();
            auto *c = corrupt.data_ptr<bool>();
            const auto *idx = indices.data_ptr<std::int64_t>();
            const std::uint64_t stream = negativeStream(m_seed, m_step);
            for (std::int64_t i = 0; i < B; ++i) {
                const float p = m_headProbabilityHost[m_data.train[3 * idx[i] + 1]];
                for (std::int64_t j = 0; j < m_negatives; ++j) {
                    const Negative n = sampleNegative(stream, i, j, m_data.entityCount(), p);
                    e[j * B + i] = n.entity;
                    c[j * B + i] = n.corruptHead;
                }
            }
            return {random, corrupt};
        }
        const auto options = kLongs.device(m_device);
        const auto rn = m_train.index_select(0, indices.to(m_device, true)).select(1, 1).repeat({m_negatives});
        auto random = torch::randint(m_data.entityCount(), {count}, options);
        auto corrupt =
            torch::rand({count}, torch::TensorOptions().device(m_device)) < m_headProbability.index_select(0, rn);
        return {random, corrupt};
    }

    torch::Tensor tripleKeys(const torch::Tensor &h, const torch::Tensor &r, const torch::Tensor &t) const
    {
        return (h * m_data.relationCount() + r) * m_data.entityCount() + t;
    }

    std::shared_ptr<TranslationalModelImpl> m_model;
    double m_margin;
    double m_temperature;
    std::int64_t m_negatives;
    bool m_filterNegatives;
    KgLoss m_loss;
    std::uint64_t m_seed;
    bool m_amp;
    std::int64_t m_step = 0;
    torch::Tensor m_trainKeys; // sorted (h * R + r) * N + t of the training triples
    std::vector<float> m_headProbabilityHost;
    torch::Tensor m_headProbability; // [R] on the device
    std::unique_ptr<TensorRowOptimizer> m_optimizer;
};

// TransE and TransH on the CPU without autograd: FusedKgTrainer updates the
// model's tables in place; evaluation and the model's checkpoint are the
// autograd path's.
class FusedKgTask : public KgTaskBase
{
public:
    FusedKgTask(const RunSpec &spec, KgDataset data, torch::Device device)
        : KgTaskBase(std::move(data), device)
    {
        auto model = makeKgModel(spec, m_data.entityCount(), m_data.relationCount(), m_train);
        m_model = std::dynamic_pointer_cast<TranslationalModelImpl>(model);
        const bool transh = spec.modelType() == "transh";
        FusedKgConfig config;
        config.transh = transh;
        config.norm = static_cast<int>(spec.intParam("norm"));
        config.loss = kgLossFromName(spec.stringParam("loss"));
        config.margin = spec.floatParam("margin");
        config.temperature = spec.floatParam("temperature");
        config.negatives = spec.intParam("negatives");
        config.normalizeEntities = !transh && spec.boolParam("normalize_entities");
        config.filterNegatives = spec.boolParam("filter_negatives");
        if (transh) {
            config.squared = spec.boolParam("squared");
            config.constraintWeight = spec.floatParam("constraint_weight");
            config.epsilon = spec.floatParam("epsilon");
        }
        config.optimizer = spec.optimizer == "sgd"       ? RowOptimizer::Sgd
                           : spec.optimizer == "adagrad" ? RowOptimizer::Adagrad
                                                         : RowOptimizer::Adam;
        config.lr = spec.lr;
        config.weightDecay = spec.weightDecay;
        config.seed = spec.seed;
        auto table = [this](const char *name) {
            auto *p = m_model->named_parameters().find(name);
            if (!p || !p->is_contiguous() || p->scalar_type() != torch::kFloat) {
                throw std::logic_error(std::string("fused path: no float table ") + name);
            }
            return *p;
        };
        m_entity = table("entity.weight");
        m_relation = table(transh ? "translation.weight" : "relation.weight");
        if (transh) {
            m_normal = table("normal.weight");
        }
        const FusedKgTables tables = currentTables();
        m_fused = std::make_unique<FusedKgTrainer>(config, tables, m_data.train,
                                                   headProbabilities(m_data, spec.stringParam("sampling") == "bern"));
    }

    torch::nn::Module &module() override { return *m_model; }
    std::int64_t examples() const override { return m_train.size(0); }
    bool updatesItself() const override { return true; }
    std::string engine() const override { return "fused"; }

    torch::Tensor loss(const torch::Tensor &) override { throw std::logic_error("FusedKgTask trains with step()"); }

    torch::Tensor step(const torch::Tensor &indices, std::int64_t step) override
    {
        m_fused->setTables(currentTables());
        const auto idx = indices.contiguous();
        return torch::scalar_tensor(m_fused->step(idx.data_ptr<std::int64_t>(), idx.size(0), step), torch::kDouble);
    }

    nlohmann::json evaluate(const std::string &split, std::int64_t batchSize,
                            const std::function<bool()> &keepGoing) override
    {
        m_fused->setTables(currentTables());
        m_fused->normalizeAllEntities();
        return KgTaskBase::evaluate(split, batchSize, keepGoing);
    }

    void saveOptimizer(torch::serialize::OutputArchive &archive) override
    {
        for (const auto &a : m_fused->state()) {
            const auto n = static_cast<std::int64_t>(a.values->size());
            archive.write(a.name, torch::from_blob(a.values->data(), {n}, torch::kFloat).clone());
        }
    }

    bool loadOptimizer(torch::serialize::InputArchive &archive) override
    {
        for (const auto &a : m_fused->state()) {
            torch::Tensor t;
            if (!archive.try_read(a.name, t)) {
                return false;
            }
            t = t.to(torch::kCPU, torch::kFloat).contiguous();
            if (t.numel() != static_cast<std::int64_t>(a.values->size())) {
                throw std::runtime_error("optimizer state " + a.name + " has " + std::to_string(t.numel())
                                         + " values, expected " + std::to_string(a.values->size()));
            }
            std::copy(t.data_ptr<float>(), t.data_ptr<float>() + t.numel(), a.values->begin());
        }
        return true;
    }

private:
    KgModelImpl &kgModel() override { return *m_model; }

    // Loading a checkpoint gives the parameters new storage: their data
    // pointers are taken afresh before each use.
    FusedKgTables currentTables()
    {
        FusedKgTables tables;
        tables.entity = m_entity.data_ptr<float>();
        tables.relation = m_relation.data_ptr<float>();
        tables.normal = m_normal.defined() ? m_normal.data_ptr<float>() : nullptr;
        tables.entities = m_entity.size(0);
        tables.relations = m_relation.size(0);
        tables.dim = m_entity.size(1);
        return tables;
    }

    std::shared_ptr<TranslationalModelImpl> m_model;
    torch::Tensor m_entity, m_relation, m_normal; // the model's parameters
    std::unique_ptr<FusedKgTrainer> m_fused;
};

class OneToAllKgTask : public KgTaskBase
{
public:
    OneToAllKgTask(const RunSpec &spec, KgDataset data, torch::Device device)
        : KgTaskBase(std::move(data), device)
        , m_smoothing(spec.floatParam("label_smoothing"))
    {
        auto model = makeKgModel(spec, m_data.entityCount(), m_data.relationCount(), m_train);
        m_model = std::dynamic_pointer_cast<OneToAllModelImpl>(model);
        m_model->to(device);
        m_targets.add(m_data.train, m_data.relationCount());
        m_targets.finish();
        std::vector<std::int64_t> keys;
        for (const auto &[e, r] : m_targets.keys()) {
            keys.insert(keys.end(), {e, r});
        }
        m_keyList = keys;
        m_keys = torch::from_blob(m_keyList.data(), {static_cast<std::int64_t>(keys.size() / 2), 2}, kLongs)
                     .clone()
                     .to(device);
    }

    torch::nn::Module &module() override { return *m_model; }
    std::int64_t examples() const override { return m_keys.size(0); }

    torch::Tensor loss(const torch::Tensor &indices) override
    {
        const std::int64_t b = indices.size(0);
        const auto *idx = indices.data_ptr<std::int64_t>();
        m_rows.clear();
        m_cols.clear();
        for (std::int64_t i = 0; i < b; ++i) {
            const std::int64_t k = idx[i];
            for (const auto e : m_targets.targets(m_keyList[2 * k], m_keyList[2 * k + 1])) {
                m_rows.push_back(i);
                m_cols.push_back(e);
            }
        }
        const auto options = kLongs.device(m_device);
        const auto batch = m_keys.index_select(0, indices.to(m_device, true));
        // fp32 even under autocast (train.amp): the smoothed targets 1/N need it.
        const auto logits = m_model->logits(batch.select(1, 0), batch.select(1, 1)).to(torch::kFloat);
        auto target = torch::zeros_like(logits);
        target.index_put_({torch::tensor(m_rows, kLongs).to(options), torch::tensor(m_cols, kLongs).to(options)}, 1.0);
        // ConvE/SACN label smoothing: (1 - eps) * y + 1 / N.
        const double n = static_cast<double>(logits.size(1));
        target = (1.0 - m_smoothing) * target + 1.0 / n;
        return torch::binary_cross_entropy_with_logits(logits, target);
    }

private:
    KgModelImpl &kgModel() override { return *m_model; }

    std::shared_ptr<OneToAllModelImpl> m_model;
    double m_smoothing;
    KgIndex m_targets; // train only: the positives of each key
    std::vector<std::int64_t> m_keyList;
    torch::Tensor m_keys; // [K, 2] on the device
    std::vector<std::int64_t> m_rows, m_cols;
};

} // namespace

torch::Tensor Task::step(const torch::Tensor &, std::int64_t)
{
    throw std::logic_error("this task trains through the trainer's optimizer");
}
void Task::saveOptimizer(torch::serialize::OutputArchive &) {}
bool Task::loadOptimizer(torch::serialize::InputArchive &)
{
    return false;
}

std::unique_ptr<Task> makeKgTask(const RunSpec &spec, KgDataset data, torch::Device device)
{
    const std::string &type = spec.modelType();
    if (type == "transe" || type == "transh") {
        const std::string why = fusedUnsupported(spec, device);
        if (spec.engine == "fused" && !why.empty()) {
            throw BadInput("train.engine fused: " + why);
        }
        if (spec.engine != "autograd" && why.empty()) {
            return std::make_unique<FusedKgTask>(spec, std::move(data), device);
        }
        return std::make_unique<MarginKgTask>(spec, std::move(data), device);
    }
    return std::make_unique<OneToAllKgTask>(spec, std::move(data), device);
}

} // namespace trainyard
