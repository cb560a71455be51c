#pragma once

// The trainable models. Each is a `FooImpl` module wrapped by TORCH_MODULE.
// Knowledge-graph models share KgModelImpl (scoring against every entity, for
// filtered ranking); image models share ClassifierImpl.

#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <memory>

namespace trainyard {

struct RunSpec;

// A link-prediction model over `entities` and `relations`. Scores: higher is
// more plausible; shape [B, entities].
class KgModelImpl : public torch::nn::Module
{
public:
    virtual torch::Tensor scoreTails(const torch::Tensor &heads, const torch::Tensor &relations) = 0;
    virtual torch::Tensor scoreHeads(const torch::Tensor &tails, const torch::Tensor &relations) = 0;
    // Evaluation may cache work shared by all queries (SACN's encoder).
    virtual void beginEvaluation() {}
    virtual void endEvaluation() {}
};

// Trained with the margin ranking loss over corrupted triples.
class TranslationalModelImpl : public KgModelImpl
{
public:
    // Distance of each triple; smaller is more plausible. Shape [B].
    virtual torch::Tensor distance(const torch::Tensor &heads, const torch::Tensor &relations,
                                   const torch::Tensor &tails) = 0;
    // Soft-constraint loss over the entities and relations of a step (0 if none).
    virtual torch::Tensor penalty(const torch::Tensor &entities, const torch::Tensor &relations);
    // Runs before every optimizer step with the entity rows it reads (TransE's
    // entity normalisation; an undefined tensor: every row).
    virtual void beforeStep(const torch::Tensor &rows) { (void)rows; }
    // The tables and what indexes their rows: "entity" rows are entities,
    // the others relations.
    virtual std::vector<std::pair<std::string, torch::Tensor>> tables() = 0;

    // Reciprocal relations (model.reciprocal): the model was made with 2R
    // relations, row r + R is r's inverse, and a head is predicted as the
    // tail of (t, r + R) instead of by inverting the translation.
    void useReciprocalRelations(std::int64_t relations) { m_inverseOffset = relations; }
    // The relation rows that queries on `relations` in both directions read.
    torch::Tensor relationRows(const torch::Tensor &relations) const;

protected:
    std::int64_t m_inverseOffset = 0; // R with reciprocal relations, else 0
};

// Trained one-to-all with BCE: relation ids 0..R-1 predict tails, R..2R-1 (the
// inverses) predict heads.
class OneToAllModelImpl : public KgModelImpl
{
public:
    explicit OneToAllModelImpl(std::int64_t relations)
        : m_relations(relations)
    {
    }
    // Logits over all entities, shape [B, entities].
    virtual torch::Tensor logits(const torch::Tensor &entities, const torch::Tensor &relations) = 0;
    torch::Tensor scoreTails(const torch::Tensor &heads, const torch::Tensor &relations) override;
    torch::Tensor scoreHeads(const torch::Tensor &tails, const torch::Tensor &relations) override;

protected:
    std::int64_t m_relations;
};

class TransEImpl : public TranslationalModelImpl
{
public:
    TransEImpl(std::int64_t entities, std::int64_t relations, std::int64_t dim, int norm, bool normalizeEntities);
    torch::Tensor distance(const torch::Tensor &h, const torch::Tensor &r, const torch::Tensor &t) override;
    torch::Tensor scoreTails(const torch::Tensor &heads, const torch::Tensor &relations) override;
    torch::Tensor scoreHeads(const torch::Tensor &tails, const torch::Tensor &relations) override;
    void beforeStep(const torch::Tensor &rows) override;
    std::vector<std::pair<std::string, torch::Tensor>> tables() override;

private:
    torch::nn::Embedding m_entity{nullptr};
    torch::nn::Embedding m_relation{nullptr};
    int m_norm;
    bool m_normalize;
};
TORCH_MODULE(TransE);

class TransHImpl : public TranslationalModelImpl
{
public:
    // norm 1: L1 distance; norm 2: squared L2 as in the paper, or plain L2
    // when not `squared`.
    TransHImpl(std::int64_t entities, std::int64_t relations, std::int64_t dim, int norm, bool squared,
               double constraintWeight, double epsilon);
    torch::Tensor distance(const torch::Tensor &h, const torch::Tensor &r, const torch::Tensor &t) override;
    torch::Tensor penalty(const torch::Tensor &entities, const torch::Tensor &relations) override;
    torch::Tensor scoreTails(const torch::Tensor &heads, const torch::Tensor &relations) override;
    torch::Tensor scoreHeads(const torch::Tensor &tails, const torch::Tensor &relations) override;
    std::vector<std::pair<std::string, torch::Tensor>> tables() override;

private:
    torch::Tensor normals(const torch::Tensor &relations);
    // L1 distances of x [B, d] to every entity projected on w [B, d], in chunks.
    torch::Tensor l1ToAll(const torch::Tensor &x, const torch::Tensor &w);
    // The scores of the L2 forms from negativeProjectedSquaredL2's.
    torch::Tensor fromSquared(const torch::Tensor &negativeSquared) const;

    torch::nn::Embedding m_entity{nullptr};
    torch::nn::Embedding m_translation{nullptr}; // d_r
    torch::nn::Embedding m_normal{nullptr};      // w_r, used unit-normalised
    int m_norm;
    bool m_squared;
    double m_constraintWeight;
    double m_epsilon;
};
TORCH_MODULE(TransH);

// Dropout with its CPU masks drawn in parallel (dropoutmask.h); on other
// devices and types, LibTorch's. Seeded from LibTorch's generator, so a run's
// train.seed still fixes it.
class ParallelDropoutImpl : public torch::nn::Module
{
public:
    explicit ParallelDropoutImpl(double p)
        : m_p(p)
    {
    }
    torch::Tensor forward(const torch::Tensor &x);

private:
    double m_p;
};
TORCH_MODULE(ParallelDropout);

// The Conv-TransE decoder of Shang et al. 2019, shared by ConvTransE and SACN.
struct ConvTransEOptions
{
    std::int64_t dim = 200;
    std::int64_t kernels = 100;
    std::int64_t kernelSize = 5;
    double inputDropout = 0.2;
    double featureDropout = 0.2;
    double hiddenDropout = 0.3;
};

class ConvDecoderImpl : public torch::nn::Module
{
public:
    explicit ConvDecoderImpl(const ConvTransEOptions &options);
    // subject, relation: [B, dim]; candidates: [N, dim] -> logits [B, N].
    torch::Tensor forward(const torch::Tensor &subject, const torch::Tensor &relation, const torch::Tensor &candidates);

private:
    torch::nn::BatchNorm1d m_bnInput{nullptr};
    torch::nn::Conv1d m_conv{nullptr};
    torch::nn::BatchNorm1d m_bnConv{nullptr};
    torch::nn::Linear m_fc{nullptr};
    torch::nn::BatchNorm1d m_bnHidden{nullptr};
    ParallelDropout m_inputDropout{nullptr};
    ParallelDropout m_featureDropout{nullptr};
    ParallelDropout m_hiddenDropout{nullptr};
};
TORCH_MODULE(ConvDecoder);

class ConvTransEImpl : public OneToAllModelImpl
{
public:
    ConvTransEImpl(std::int64_t entities, std::int64_t relations, const ConvTransEOptions &options);
    torch::Tensor logits(const torch::Tensor &entities, const torch::Tensor &relations) override;

private:
    torch::nn::Embedding m_entity{nullptr};
    torch::nn::Embedding m_relation{nullptr};
    ConvDecoder m_decoder{nullptr};
};
TORCH_MODULE(ConvTransE);

// SACN's training graph: every edge src -> dst with its type, as buffers on
// the model's device; on the CPU also the same edges grouped by target and by
// source (start, other end, type), which the GCN kernels read.
struct GcnGraph
{
    GcnGraph() = default;
    GcnGraph(torch::Tensor src, torch::Tensor dst, torch::Tensor type, std::int64_t nodes);

    torch::Tensor src, dst, type;
    std::array<torch::Tensor, 3> byTarget, bySource;
};

// One weighted-GCN layer: h_i' = sum over edges (j -> i, type t) alpha_t * W h_j,
// self-loops included as their own edge type, then batch norm and tanh.
class WeightedGcnLayerImpl : public torch::nn::Module
{
public:
    WeightedGcnLayerImpl(std::int64_t in, std::int64_t out, std::int64_t edgeTypes, double dropout);
    torch::Tensor forward(const torch::Tensor &x, const GcnGraph &graph);

private:
    torch::nn::Linear m_linear{nullptr};
    torch::nn::Embedding m_alpha{nullptr};
    torch::nn::BatchNorm1d m_bn{nullptr};
    ParallelDropout m_dropout{nullptr};
};
TORCH_MODULE(WeightedGcnLayer);

class SacnImpl : public OneToAllModelImpl
{
public:
    // `triples`: the training triples [n, 3] (long) on the model's device.
    SacnImpl(std::int64_t entities, std::int64_t relations, const torch::Tensor &triples,
             const ConvTransEOptions &options, std::int64_t initDim, std::int64_t layers, double gcnDropout);
    torch::Tensor logits(const torch::Tensor &entities, const torch::Tensor &relations) override;
    void beginEvaluation() override;
    void endEvaluation() override;

private:
    torch::Tensor encode();

    torch::nn::Embedding m_entity{nullptr};
    torch::nn::Embedding m_relation{nullptr};
    torch::nn::ModuleList m_layers;
    ConvDecoder m_decoder{nullptr};
    GcnGraph m_graph;
    torch::Tensor m_cached; // encoder output during evaluation
};
TORCH_MODULE(Sacn);

// An image classifier: [B, 1, H, W] floats -> logits [B, classes].
class ClassifierImpl : public torch::nn::Module
{
public:
    virtual torch::Tensor forward(const torch::Tensor &images) = 0;
    // Cross-entropy unless the model brings its own (a TorchScript `loss` method).
    virtual torch::Tensor loss(const torch::Tensor &logits, const torch::Tensor &targets)
    {
        return torch::cross_entropy_loss(logits, targets);
    }
};

class MnistCnnImpl : public ClassifierImpl
{
public:
    MnistCnnImpl(std::int64_t rows, std::int64_t cols, std::int64_t classes, std::int64_t hidden, double dropout1,
                 double dropout2);
    torch::Tensor forward(const torch::Tensor &images) override;

private:
    torch::nn::Conv2d m_conv1{nullptr};
    torch::nn::Conv2d m_conv2{nullptr};
    torch::nn::Dropout m_dropout1{nullptr};
    torch::nn::Dropout m_dropout2{nullptr};
    torch::nn::Linear m_fc1{nullptr};
    torch::nn::Linear m_fc2{nullptr};
};
TORCH_MODULE(MnistCnn);

class MlpImpl : public ClassifierImpl
{
public:
    MlpImpl(std::int64_t inputs, std::int64_t classes, std::int64_t hidden, std::int64_t layers, double dropout);
    torch::Tensor forward(const torch::Tensor &images) override;

private:
    torch::nn::Sequential m_net{nullptr};
};
TORCH_MODULE(Mlp);

// Builders from a validated spec.
std::shared_ptr<KgModelImpl> makeKgModel(const RunSpec &spec, std::int64_t entities, std::int64_t relations,
                                         const torch::Tensor &trainTriples);
std::shared_ptr<ClassifierImpl> makeClassifier(const RunSpec &spec, std::int64_t rows, std::int64_t cols,
                                               std::int64_t classes);

} // namespace trainyard
