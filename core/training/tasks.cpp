// The three training schemes: margin ranking with corrupted triples
// (TransE, TransH), one-to-all BCE over (entity, relation) keys (Conv-TransE,
// SACN), and cross-entropy classification (images).

#include "task.h"

#include "evaluator.h"
#include "imagedataset.h"
#include "kgdataset.h"
#include "models.h"
#include "runspec.h"

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
        const KgMetrics m = evaluateKg(kgModel(), m_data.split(split), m_known, m_data.relationCount(), batchSize,
                                       m_device, keepGoing);
        if (m.queries == 0 && !m_data.split(split).empty())
            return nullptr;
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

class MarginKgTask : public KgTaskBase
{
public:
    MarginKgTask(const RunSpec &spec, KgDataset data, torch::Device device)
        : KgTaskBase(std::move(data), device)
        , m_margin(spec.floatParam("margin"))
        , m_negatives(spec.intParam("negatives"))
        , m_filterNegatives(spec.boolParam("filter_negatives"))
    {
        auto model = makeKgModel(spec, m_data.entityCount(), m_data.relationCount(), m_train);
        m_model = std::dynamic_pointer_cast<TranslationalModelImpl>(model);
        m_model->to(device);
        m_headProbability = headProbabilities(spec.stringParam("sampling") == "bern").to(device);
        if (m_filterNegatives)
            m_trainKeys = std::get<0>(torch::_unique(tripleKeys(m_train.select(1, 0), m_train.select(1, 1), m_train.select(1, 2))));
    }

    torch::nn::Module &module() override { return *m_model; }
    std::int64_t examples() const override { return m_train.size(0); }
    void beforeStep() override { m_model->beforeStep(); }

    torch::Tensor loss(const torch::Tensor &indices) override
    {
        const auto pos = m_train.index_select(0, indices.to(m_device, /*non_blocking=*/true));
        const auto h = pos.select(1, 0), r = pos.select(1, 1), t = pos.select(1, 2);
        const auto hn = h.repeat({m_negatives}), rn = r.repeat({m_negatives}), tn = t.repeat({m_negatives});
        const std::int64_t count = hn.size(0);
        const auto options = kLongs.device(m_device);
        const auto random = torch::randint(m_data.entityCount(), {count}, options);
        const auto corruptHead = torch::rand({count}, torch::TensorOptions().device(m_device))
                                 < m_headProbability.index_select(0, rn);
        const auto negHeads = torch::where(corruptHead, random, hn);
        const auto negTails = torch::where(corruptHead, tn, random);
        const auto dPos = m_model->distance(h, r, t).repeat({m_negatives});
        const auto dNeg = m_model->distance(negHeads, rn, negTails);
        auto terms = torch::relu(m_margin + dPos - dNeg);
        torch::Tensor loss;
        if (m_filterNegatives) {
            // A "negative" that is a training triple teaches the opposite of
            // the data (frequent in dense graphs such as UMLS): leave it out.
            const auto keep = torch::logical_not(torch::isin(tripleKeys(negHeads, rn, negTails), m_trainKeys)).to(terms.dtype());
            loss = (terms * keep).sum() / keep.sum().clamp_min(1.0);
        } else {
            loss = terms.mean();
        }
        const auto penalty = m_model->penalty(torch::cat({h, t, negHeads, negTails}), r);
        if (penalty.defined())
            loss = loss + penalty;
        return loss;
    }

private:
    KgModelImpl &kgModel() override { return *m_model; }

    // P(corrupt the head) per relation: 0.5, or Wang et al.'s Bernoulli
    // tph / (tph + hpt), which corrupts the side with fewer answers less often
    // and so produces fewer false negatives.
    torch::Tensor headProbabilities(bool bernoulli) const
    {
        const std::int64_t R = m_data.relationCount();
        std::vector<float> p(static_cast<std::size_t>(R), 0.5f);
        if (bernoulli) {
            std::vector<std::unordered_map<std::int64_t, std::int64_t>> tailsOf(R), headsOf(R);
            for (std::size_t i = 0; i < m_data.train.size(); i += 3) {
                ++tailsOf[m_data.train[i + 1]][m_data.train[i]];
                ++headsOf[m_data.train[i + 1]][m_data.train[i + 2]];
            }
            for (std::int64_t r = 0; r < R; ++r) {
                if (tailsOf[r].empty())
                    continue;
                double triples = 0;
                for (const auto &kv : tailsOf[r])
                    triples += static_cast<double>(kv.second);
                const double tph = triples / static_cast<double>(tailsOf[r].size());
                const double hpt = triples / static_cast<double>(headsOf[r].size());
                p[r] = static_cast<float>(tph / (tph + hpt));
            }
        }
        return torch::tensor(p);
    }

    torch::Tensor tripleKeys(const torch::Tensor &h, const torch::Tensor &r, const torch::Tensor &t) const
    {
        return (h * m_data.relationCount() + r) * m_data.entityCount() + t;
    }

    std::shared_ptr<TranslationalModelImpl> m_model;
    double m_margin;
    std::int64_t m_negatives;
    bool m_filterNegatives;
    torch::Tensor m_trainKeys; // sorted (h * R + r) * N + t of the training triples
    torch::Tensor m_headProbability; // [R] on the device
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
        for (const auto &[e, r] : m_targets.keys())
            keys.insert(keys.end(), {e, r});
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

class ImageTask : public Task
{
public:
    ImageTask(const RunSpec &spec, ImageDataset data, torch::Device device)
        : m_data(std::move(data))
        , m_device(device)
    {
        m_model = makeClassifier(spec, m_data.train.rows, m_data.train.cols, m_data.classes);
        m_model->to(device);
        if (spec.usesChannelsLast()) {
            // What module.to(memory_format=torch.channels_last) does in Python:
            // the 4-D weights (the convolutions') change layout, values stay.
            torch::NoGradGuard noGrad;
            for (auto &p : m_model->parameters()) {
                if (p.dim() == 4)
                    p.set_data(p.data().contiguous(torch::MemoryFormat::ChannelsLast));
            }
            m_memoryFormat = torch::MemoryFormat::ChannelsLast;
        }
        // Normalisation statistics of the training pixels, as the MNIST example does.
        double sum = 0.0, sumSq = 0.0;
        for (const auto p : m_data.train.pixels) {
            const double v = p / 255.0;
            sum += v;
            sumSq += v * v;
        }
        const double count = static_cast<double>(m_data.train.pixels.size());
        m_mean = sum / count;
        m_std = std::sqrt(std::max(1e-12, sumSq / count - m_mean * m_mean));
        m_trainImages = images(m_data.train);
        m_trainLabels = labels(m_data.train);
    }

    torch::nn::Module &module() override { return *m_model; }
    std::int64_t examples() const override { return m_data.train.count; }

    torch::Tensor loss(const torch::Tensor &indices) override
    {
        const auto idx = indices.to(m_device, true);
        const auto x = normalizeImages(m_trainImages.index_select(0, idx), m_mean, m_std).contiguous(m_memoryFormat);
        return m_model->loss(m_model->forward(x), m_trainLabels.index_select(0, idx));
    }

    nlohmann::json evaluate(const std::string &split, std::int64_t batchSize,
                            const std::function<bool()> &keepGoing) override
    {
        const ImageSet &set = m_data.split(split);
        const double accuracy =
            evaluateAccuracy(*m_model, images(set), labels(set), m_mean, m_std, batchSize, keepGoing);
        if (accuracy < 0)
            return nullptr;
        return {{"accuracy", accuracy}};
    }

    std::string describe() const override
    {
        std::ostringstream os;
        os << m_data.train.count << "/" << m_data.valid.count << "/" << m_data.test.count << " train/valid/test images of "
           << m_data.train.rows << "x" << m_data.train.cols << ", " << m_data.classes << " classes";
        return os.str();
    }

private:
    torch::Tensor images(const ImageSet &set) const
    {
        return torch::from_blob(const_cast<std::uint8_t *>(set.pixels.data()), {set.count, 1, set.rows, set.cols},
                                torch::TensorOptions().dtype(torch::kByte))
            .clone()
            .to(m_device);
    }
    torch::Tensor labels(const ImageSet &set) const
    {
        return torch::from_blob(const_cast<std::int64_t *>(set.labels.data()), {set.count}, kLongs).clone().to(m_device);
    }

    ImageDataset m_data;
    torch::Device m_device;
    std::shared_ptr<ClassifierImpl> m_model;
    torch::MemoryFormat m_memoryFormat = torch::MemoryFormat::Contiguous; // of input batches
    double m_mean = 0.0;
    double m_std = 1.0;
    torch::Tensor m_trainImages; // bytes [n, 1, H, W] on the device
    torch::Tensor m_trainLabels;
};

} // namespace

std::unique_ptr<Task> makeKgTask(const RunSpec &spec, KgDataset data, torch::Device device)
{
    const std::string &type = spec.modelType();
    if (type == "transe" || type == "transh")
        return std::make_unique<MarginKgTask>(spec, std::move(data), device);
    return std::make_unique<OneToAllKgTask>(spec, std::move(data), device);
}

std::unique_ptr<Task> makeImageTask(const RunSpec &spec, ImageDataset data, torch::Device device)
{
    return std::make_unique<ImageTask>(spec, std::move(data), device);
}

} // namespace trainyard
