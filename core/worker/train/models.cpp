#include "worker/train/models.h"

#include "worker/base/badinput.h"
#include "worker/base/catalogue.h"
#include "worker/base/runspec.h"
#include "worker/train/dropoutmask.h"
#include "worker/train/fusedkg.h"
#include "worker/train/graphkernels.h"

#include <torch/script.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <vector>

namespace trainyard {

namespace F = torch::nn::functional;

torch::Tensor TranslationalModelImpl::penalty(const torch::Tensor &, const torch::Tensor &)
{
    return {};
}

torch::Tensor TranslationalModelImpl::relationRows(const torch::Tensor &relations) const
{
    return m_inverseOffset ? torch::cat({relations, relations + m_inverseOffset}) : relations;
}

torch::Tensor OneToAllModelImpl::scoreTails(const torch::Tensor &heads, const torch::Tensor &relations)
{
    return logits(heads, relations);
}

torch::Tensor OneToAllModelImpl::scoreHeads(const torch::Tensor &tails, const torch::Tensor &relations)
{
    return logits(tails, relations + m_relations);
}

// ---------------------------------------------------------------- TransE

TransEImpl::TransEImpl(std::int64_t entities, std::int64_t relations, std::int64_t dim, int norm,
                       bool normalizeEntities)
    : m_norm(norm)
    , m_normalize(normalizeEntities)
{
    m_entity = register_module("entity", torch::nn::Embedding(entities, dim));
    m_relation = register_module("relation", torch::nn::Embedding(relations, dim));
    // Bordes et al. 2013: uniform in +-6/sqrt(k), relations normalised once.
    const double bound = 6.0 / std::sqrt(static_cast<double>(dim));
    torch::NoGradGuard noGrad;
    m_entity->weight.uniform_(-bound, bound);
    m_relation->weight.uniform_(-bound, bound);
    m_relation->weight.div_(m_relation->weight.norm(2, 1, true).clamp_min(1e-12));
    m_entity->weight.div_(m_entity->weight.norm(2, 1, true).clamp_min(1e-12));
}

torch::Tensor TransEImpl::distance(const torch::Tensor &h, const torch::Tensor &r, const torch::Tensor &t)
{
    return (m_entity(h) + m_relation(r) - m_entity(t)).norm(m_norm, -1);
}

namespace {

// Ranking on the CPU without autograd (evaluation) takes the kernels of
// kgranking.cpp (the blocked L1 one, TransH's squared L2); training through
// these scores (1vsall) and other devices take LibTorch's ops.
bool useCpuKernel(const torch::Tensor &t)
{
    return t.is_cpu() && t.scalar_type() == torch::kFloat && !torch::GradMode::is_enabled();
}

bool useL1Kernel(const torch::Tensor &queries, int norm)
{
    return norm == 1 && useCpuKernel(queries);
}

// -L1 distances of `queries` [B, d] to every row of `table` [N, d]; with
// `normals` and `projections` (TransH), on each query's hyperplane.
torch::Tensor negativeL1ToAll(const torch::Tensor &queries, const torch::Tensor &table,
                              const torch::Tensor &normals = {}, const torch::Tensor &projections = {})
{
    const auto q = queries.contiguous(), t = table.contiguous();
    const auto w = normals.defined() ? normals.contiguous() : normals;
    const auto c = projections.defined() ? projections.contiguous() : projections;
    auto out = torch::empty({q.size(0), t.size(0)}, q.options());
    l1DistancesToAll(q.data_ptr<float>(), q.size(0), t.data_ptr<float>(), t.size(0), t.size(1),
                     w.defined() ? w.data_ptr<float>() : nullptr, c.defined() ? c.data_ptr<float>() : nullptr,
                     out.data_ptr<float>());
    return out.neg_();
}

// -(xx - 2 xt + 2 tw xw + tt - tw^2), TransH's squared-L2 scores of every
// entity: one pass over [B, N] on the CPU without autograd (evaluation),
// LibTorch's elementwise ops elsewhere.
torch::Tensor negativeProjectedSquaredL2(torch::Tensor xt, const torch::Tensor &tw, const torch::Tensor &xx,
                                         const torch::Tensor &xw, const torch::Tensor &tt)
{
    if (!useCpuKernel(xt)) {
        return -(xx - 2 * xt + 2 * tw * xw + tt - tw.pow(2));
    }
    xt = xt.contiguous();
    const auto c = tw.contiguous(), a = xx.contiguous(), b = xw.contiguous(), t = tt.contiguous();
    projectedSquaredL2Scores(xt.data_ptr<float>(), c.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(),
                             t.data_ptr<float>(), xt.size(0), xt.size(1));
    return xt;
}

} // namespace

torch::Tensor TransEImpl::scoreTails(const torch::Tensor &heads, const torch::Tensor &relations)
{
    const auto query = m_entity(heads) + m_relation(relations);
    if (useL1Kernel(query, m_norm)) {
        return negativeL1ToAll(query, m_entity->weight);
    }
    return -torch::cdist(query, m_entity->weight, m_norm);
}

torch::Tensor TransEImpl::scoreHeads(const torch::Tensor &tails, const torch::Tensor &relations)
{
    if (m_inverseOffset) {
        return scoreTails(tails, relations + m_inverseOffset);
    }
    const auto query = m_entity(tails) - m_relation(relations);
    if (useL1Kernel(query, m_norm)) {
        return negativeL1ToAll(query, m_entity->weight);
    }
    return -torch::cdist(query, m_entity->weight, m_norm);
}

void TransEImpl::beforeStep(const torch::Tensor &rows)
{
    if (!m_normalize) {
        return;
    }
    torch::NoGradGuard noGrad;
    auto &w = m_entity->weight;
    if (!rows.defined()) {
        w.div_(w.norm(2, 1, true).clamp_min(1e-12));
        return;
    }
    // Only the rows a step reads: the others have not changed since they
    // were last normalised, and a GPU is spared a pass over the table.
    const auto picked = w.index_select(0, rows);
    w.index_copy_(0, rows, picked / picked.norm(2, 1, true).clamp_min(1e-12));
}

std::vector<std::pair<std::string, torch::Tensor>> TransEImpl::tables()
{
    return {{"entity", m_entity->weight}, {"relation", m_relation->weight}};
}

// ---------------------------------------------------------------- TransH

TransHImpl::TransHImpl(std::int64_t entities, std::int64_t relations, std::int64_t dim, int norm, bool squared,
                       double constraintWeight, double epsilon)
    : m_norm(norm)
    , m_squared(squared)
    , m_constraintWeight(constraintWeight)
    , m_epsilon(epsilon)
{
    m_entity = register_module("entity", torch::nn::Embedding(entities, dim));
    m_translation = register_module("translation", torch::nn::Embedding(relations, dim));
    m_normal = register_module("normal", torch::nn::Embedding(relations, dim));
    const double bound = 6.0 / std::sqrt(static_cast<double>(dim));
    torch::NoGradGuard noGrad;
    m_entity->weight.uniform_(-bound, bound);
    m_translation->weight.uniform_(-bound, bound);
    m_normal->weight.uniform_(-bound, bound);
}

std::vector<std::pair<std::string, torch::Tensor>> TransHImpl::tables()
{
    return {{"entity", m_entity->weight}, {"relation", m_translation->weight}, {"normal", m_normal->weight}};
}

torch::Tensor TransHImpl::normals(const torch::Tensor &relations)
{
    return F::normalize(m_normal(relations), F::NormalizeFuncOptions().dim(-1));
}

torch::Tensor TransHImpl::distance(const torch::Tensor &h, const torch::Tensor &r, const torch::Tensor &t)
{
    const auto w = normals(r);
    const auto eh = m_entity(h);
    const auto et = m_entity(t);
    const auto hp = eh - (eh * w).sum(-1, true) * w;
    const auto tp = et - (et * w).sum(-1, true) * w;
    const auto diff = hp + m_translation(r) - tp;
    if (m_norm == 1) {
        return diff.abs().sum(-1);
    }
    return m_squared ? diff.pow(2).sum(-1) : diff.norm(2, -1);
}

torch::Tensor TransHImpl::l1ToAll(const torch::Tensor &x, const torch::Tensor &w)
{
    const auto &all = m_entity->weight;
    if (useL1Kernel(x, 1)) { // |x - (t - (w.t) w)| summed
        return negativeL1ToAll(x, all, w, torch::matmul(w, all.t())).neg_();
    }
    const std::int64_t n = all.size(0), d = all.size(1);
    // Bounded memory: at most ~2^26 floats of [rows, N, d] at a time.
    const std::int64_t rows = std::max<std::int64_t>(1, (std::int64_t(1) << 26) / std::max<std::int64_t>(1, n * d));
    std::vector<torch::Tensor> parts;
    for (std::int64_t begin = 0; begin < x.size(0); begin += rows) {
        const auto xs = x.slice(0, begin, begin + rows);
        const auto ws = w.slice(0, begin, begin + rows);
        const auto projected = all.unsqueeze(0) - torch::matmul(ws, all.t()).unsqueeze(2) * ws.unsqueeze(1);
        parts.push_back((xs.unsqueeze(1) - projected).abs().sum(-1));
    }
    return torch::cat(parts);
}

torch::Tensor TransHImpl::fromSquared(const torch::Tensor &negativeSquared) const
{
    if (m_squared) {
        return negativeSquared;
    }
    // The expanded form can dip below zero by rounding; the floor keeps
    // sqrt's gradient finite (1vsall trains through these scores).
    if (!torch::GradMode::is_enabled()) { // evaluation: in place over [B, N]
        return negativeSquared.neg_().clamp_min_(1e-12).sqrt_().neg_();
    }
    return negativeSquared.neg().clamp_min(1e-12).sqrt().neg();
}

torch::Tensor TransHImpl::penalty(const torch::Tensor &entities, const torch::Tensor &relations)
{
    if (m_constraintWeight == 0.0) {
        return {};
    }
    // Wang et al. 2014, eq. (soft constraints): entities inside the unit ball,
    // translations (nearly) on the hyperplane. Averaged over the step's
    // entities and relations so the weight does not depend on the batch size.
    const auto e = m_entity(entities);
    const auto scale = torch::relu(e.pow(2).sum(-1) - 1.0).mean();
    const auto w = normals(relations);
    const auto d = m_translation(relations);
    const auto orth =
        torch::relu((w * d).sum(-1).pow(2) / d.pow(2).sum(-1).clamp_min(1e-12) - m_epsilon * m_epsilon).mean();
    return m_constraintWeight * (scale + orth);
}

torch::Tensor TransHImpl::scoreTails(const torch::Tensor &heads, const torch::Tensor &relations)
{
    // ||x - t_perp||^2 for every entity t without materialising [B, N, d]:
    // = |x|^2 - 2 x.t + 2 (t.w)(x.w) + |t|^2 - (t.w)^2, with |w| = 1.
    const auto w = normals(relations);
    const auto eh = m_entity(heads);
    const auto x = eh - (eh * w).sum(-1, true) * w + m_translation(relations);
    if (m_norm == 1) {
        return -l1ToAll(x, w);
    }
    const auto &all = m_entity->weight;
    const auto xt = torch::matmul(x, all.t());
    const auto tw = torch::matmul(w, all.t());
    const auto xw = (x * w).sum(-1, true);
    const auto tt = all.pow(2).sum(-1).unsqueeze(0);
    const auto xx = x.pow(2).sum(-1, true);
    return fromSquared(negativeProjectedSquaredL2(xt, tw, xx, xw, tt));
}

torch::Tensor TransHImpl::scoreHeads(const torch::Tensor &tails, const torch::Tensor &relations)
{
    if (m_inverseOffset) {
        return scoreTails(tails, relations + m_inverseOffset);
    }
    // ||h_perp - y||^2 with y = t_perp - d
    // = |h|^2 - (h.w)^2 - 2 (h.y - (h.w)(w.y)) + |y|^2.
    const auto w = normals(relations);
    const auto et = m_entity(tails);
    const auto y = et - (et * w).sum(-1, true) * w - m_translation(relations);
    if (m_norm == 1) {
        return -l1ToAll(y, w);
    }
    const auto &all = m_entity->weight;
    const auto hy = torch::matmul(y, all.t());
    const auto hw = torch::matmul(w, all.t());
    const auto wy = (w * y).sum(-1, true);
    const auto hh = all.pow(2).sum(-1).unsqueeze(0);
    const auto yy = y.pow(2).sum(-1, true);
    // hh - hw^2 - 2 (hy - hw wy) + yy: the tails' form with y for x.
    return fromSquared(negativeProjectedSquaredL2(hy, hw, yy, wy, hh));
}

// ---------------------------------------------------------------- Conv-TransE

torch::Tensor ParallelDropoutImpl::forward(const torch::Tensor &x)
{
    if (!is_training() || m_p <= 0.0) {
        return x;
    }
    if (!x.is_cpu() || x.scalar_type() != torch::kFloat || m_p >= 1.0) {
        return F::dropout(x, F::DropoutFuncOptions().p(m_p).training(true));
    }
    auto mask = torch::empty_like(x, torch::MemoryFormat::Contiguous);
    const auto seed = torch::randint(std::numeric_limits<std::int64_t>::max(), {1}, torch::kLong).item<std::int64_t>();
    dropoutmask::fill(mask.data_ptr<float>(), mask.numel(), m_p, static_cast<std::uint64_t>(seed));
    return x * mask;
}

ConvDecoderImpl::ConvDecoderImpl(const ConvTransEOptions &o)
{
    m_bnInput = register_module("bn_input", torch::nn::BatchNorm1d(2));
    m_inputDropout = register_module("input_dropout", ParallelDropout(o.inputDropout));
    m_conv = register_module("conv",
                             torch::nn::Conv1d(torch::nn::Conv1dOptions(/*in_channels=*/2, /*out_channels=*/o.kernels,
                                                                        /*kernel_size=*/o.kernelSize)
                                                   .padding(o.kernelSize / 2)));
    m_bnConv = register_module("bn_conv", torch::nn::BatchNorm1d(o.kernels));
    m_featureDropout = register_module("feature_dropout", ParallelDropout(o.featureDropout));
    m_fc = register_module("fc", torch::nn::Linear(o.kernels * o.dim, o.dim));
    m_hiddenDropout = register_module("hidden_dropout", ParallelDropout(o.hiddenDropout));
    m_bnHidden = register_module("bn_hidden", torch::nn::BatchNorm1d(o.dim));
}

torch::Tensor ConvDecoderImpl::forward(const torch::Tensor &subject, const torch::Tensor &relation,
                                       const torch::Tensor &candidates)
{
    auto x = torch::stack({subject, relation}, 1); // [B, 2, dim]
    x = m_inputDropout(m_bnInput(x));
    x = torch::relu(m_bnConv(m_conv(x)));
    x = m_featureDropout(x).flatten(1);
    x = torch::relu(m_bnHidden(m_hiddenDropout(m_fc(x))));
    return torch::matmul(x, candidates.t());
}

ConvTransEImpl::ConvTransEImpl(std::int64_t entities, std::int64_t relations, const ConvTransEOptions &options)
    : OneToAllModelImpl(relations)
{
    m_entity = register_module("entity", torch::nn::Embedding(entities, options.dim));
    m_relation = register_module("relation", torch::nn::Embedding(2 * relations, options.dim));
    m_decoder = register_module("decoder", ConvDecoder(options));
    torch::NoGradGuard noGrad;
    torch::nn::init::xavier_normal_(m_entity->weight);
    torch::nn::init::xavier_normal_(m_relation->weight);
}

torch::Tensor ConvTransEImpl::logits(const torch::Tensor &entities, const torch::Tensor &relations)
{
    return m_decoder(m_entity(entities), m_relation(relations), m_entity->weight);
}

// ---------------------------------------------------------------- SACN

WeightedGcnLayerImpl::WeightedGcnLayerImpl(std::int64_t in, std::int64_t out, std::int64_t edgeTypes, double dropout)
{
    m_linear = register_module("linear", torch::nn::Linear(in, out));
    m_alpha = register_module("alpha", torch::nn::Embedding(edgeTypes, 1));
    m_bn = register_module("bn", torch::nn::BatchNorm1d(out));
    m_dropout = register_module("dropout", ParallelDropout(dropout));
    torch::NoGradGuard noGrad;
    m_alpha->weight.fill_(1.0);
}

namespace {

// sum over edges j -> i of weight[type] * x[j] with the CPU kernels of
// graphkernels.h; the arguments after `weight` are the graph's two groupings.
class WeightedAggregation : public torch::autograd::Function<WeightedAggregation>
{
public:
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &x,
                                 const torch::Tensor &weight, const torch::Tensor &targetStart,
                                 const torch::Tensor &targetOther, const torch::Tensor &targetType,
                                 const torch::Tensor &sourceStart, const torch::Tensor &sourceOther,
                                 const torch::Tensor &sourceType)
    {
        const auto input = x.contiguous();
        const auto w = weight.contiguous();
        auto out = torch::empty_like(input);
        graphkernels::aggregate(view(targetStart, targetOther, targetType), w.data_ptr<float>(),
                                input.data_ptr<float>(), input.size(1), out.data_ptr<float>());
        ctx->save_for_backward({input, w, sourceStart, sourceOther, sourceType});
        return out;
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                   torch::autograd::variable_list grads)
    {
        const auto saved = ctx->get_saved_variables();
        const auto &input = saved[0], &w = saved[1];
        const auto gradOut = grads[0].contiguous();
        auto gradX = torch::empty_like(input);
        auto gradWeight = torch::empty_like(w);
        graphkernels::aggregateBackward(view(saved[2], saved[3], saved[4]), w.data_ptr<float>(),
                                        input.data_ptr<float>(), gradOut.data_ptr<float>(), input.size(1), w.numel(),
                                        gradX.data_ptr<float>(), gradWeight.data_ptr<float>());
        return {gradX, gradWeight, {}, {}, {}, {}, {}, {}};
    }

private:
    static graphkernels::CompressedGraph view(const torch::Tensor &start, const torch::Tensor &other,
                                              const torch::Tensor &type)
    {
        return {start.data_ptr<std::int64_t>(), other.data_ptr<std::int64_t>(), type.data_ptr<std::int64_t>(),
                start.numel() - 1};
    }
};

// The edges grouped by `by` (start offsets per node, other ends, types), on the CPU.
std::array<torch::Tensor, 3> groupEdges(const torch::Tensor &by, const torch::Tensor &other, const torch::Tensor &type,
                                        std::int64_t nodes)
{
    const auto key = by.to(torch::kCPU);
    const auto order = std::get<1>(key.sort(/*stable=*/c10::optional<bool>(true), /*dim=*/0));
    auto start = torch::zeros({nodes + 1}, torch::kLong);
    start.slice(0, 1) = key.bincount({}, nodes).cumsum(0);
    return {start, other.to(torch::kCPU).index_select(0, order).contiguous(),
            type.to(torch::kCPU).index_select(0, order).contiguous()};
}

} // namespace

GcnGraph::GcnGraph(torch::Tensor src_, torch::Tensor dst_, torch::Tensor type_, std::int64_t nodes)
    : src(std::move(src_))
    , dst(std::move(dst_))
    , type(std::move(type_))
    , byTarget(groupEdges(dst, src, type, nodes))
    , bySource(groupEdges(src, dst, type, nodes))
{
}

torch::Tensor WeightedGcnLayerImpl::forward(const torch::Tensor &x, const GcnGraph &g)
{
    const auto support = m_linear(x);
    torch::Tensor aggregated;
    if (support.is_cpu() && support.scalar_type() == torch::kFloat && m_alpha->weight.scalar_type() == torch::kFloat) {
        aggregated = WeightedAggregation::apply(support, m_alpha->weight, g.byTarget[0], g.byTarget[1], g.byTarget[2],
                                                g.bySource[0], g.bySource[1], g.bySource[2]);
    } else {
        const auto messages = support.index_select(0, g.src) * m_alpha(g.type); // [E, out] * [E, 1]
        // messages' options, not support's: under autocast (train.amp) support
        // is bf16 while messages are promoted to fp32 by the fp32 alpha.
        aggregated = torch::zeros({support.size(0), support.size(1)}, messages.options()).index_add(0, g.dst, messages);
    }
    return m_dropout(torch::tanh(m_bn(aggregated)));
}

SacnImpl::SacnImpl(std::int64_t entities, std::int64_t relations, const torch::Tensor &triples,
                   const ConvTransEOptions &options, std::int64_t initDim, std::int64_t layers, double gcnDropout)
    : OneToAllModelImpl(relations)
{
    m_entity = register_module("entity", torch::nn::Embedding(entities, initDim));
    m_relation = register_module("relation", torch::nn::Embedding(2 * relations, options.dim));
    m_layers = register_module("gcn", torch::nn::ModuleList());
    const std::int64_t edgeTypes = 2 * relations + 1; // relations, inverses, self-loop
    for (std::int64_t i = 0; i < layers; ++i) {
        m_layers->push_back(WeightedGcnLayer(i == 0 ? initDim : options.dim, options.dim, edgeTypes, gcnDropout));
    }
    m_decoder = register_module("decoder", ConvDecoder(options));

    const auto device = triples.device();
    const auto heads = triples.select(1, 0), rels = triples.select(1, 1), tails = triples.select(1, 2);
    const auto self = torch::arange(entities, torch::TensorOptions().dtype(torch::kLong).device(device));
    m_graph = GcnGraph(torch::cat({heads, tails, self}), torch::cat({tails, heads, self}),
                       torch::cat({rels, rels + relations, torch::full_like(self, 2 * relations)}), entities);
    // Buffers share the tensors: moving the model moves the graph.
    register_buffer("graph_src", m_graph.src);
    register_buffer("graph_dst", m_graph.dst);
    register_buffer("graph_type", m_graph.type);

    torch::NoGradGuard noGrad;
    torch::nn::init::xavier_normal_(m_entity->weight);
    torch::nn::init::xavier_normal_(m_relation->weight);
}

torch::Tensor SacnImpl::encode()
{
    auto x = m_entity->weight;
    for (const auto &layer : *m_layers) {
        x = layer->as<WeightedGcnLayer>()->forward(x, m_graph);
    }
    return x;
}

torch::Tensor SacnImpl::logits(const torch::Tensor &entities, const torch::Tensor &relations)
{
    const auto all = m_cached.defined() ? m_cached : encode();
    return m_decoder(all.index_select(0, entities), m_relation(relations), all);
}

void SacnImpl::beginEvaluation()
{
    torch::NoGradGuard noGrad;
    m_cached = encode();
}

void SacnImpl::endEvaluation()
{
    m_cached = torch::Tensor();
}

// ---------------------------------------------------------------- classifiers

MnistCnnImpl::MnistCnnImpl(std::int64_t rows, std::int64_t cols, std::int64_t classes, std::int64_t hidden,
                           double dropout1, double dropout2)
{
    m_conv1 = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(/*in=*/1, /*out=*/32, /*kernel=*/3)));
    m_conv2 =
        register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(/*in=*/32, /*out=*/64, /*kernel=*/3)));
    m_dropout1 = register_module("dropout1", torch::nn::Dropout(dropout1));
    m_dropout2 = register_module("dropout2", torch::nn::Dropout(dropout2));
    const std::int64_t features = 64 * ((rows - 4) / 2) * ((cols - 4) / 2);
    m_fc1 = register_module("fc1", torch::nn::Linear(features, hidden));
    m_fc2 = register_module("fc2", torch::nn::Linear(hidden, classes));
}

torch::Tensor MnistCnnImpl::forward(const torch::Tensor &images)
{
    auto x = torch::relu(m_conv1(images));
    x = torch::relu(m_conv2(x));
    x = m_dropout1(torch::max_pool2d(x, 2)).flatten(1);
    x = m_dropout2(torch::relu(m_fc1(x)));
    return m_fc2(x);
}

MlpImpl::MlpImpl(std::int64_t inputs, std::int64_t classes, std::int64_t hidden, std::int64_t layers, double dropout)
{
    m_net = torch::nn::Sequential(torch::nn::Flatten());
    std::int64_t width = inputs;
    for (std::int64_t i = 0; i < layers; ++i) {
        m_net->push_back(torch::nn::Linear(width, hidden));
        m_net->push_back(torch::nn::ReLU());
        m_net->push_back(torch::nn::Dropout(dropout));
        width = hidden;
    }
    m_net->push_back(torch::nn::Linear(width, classes));
    register_module("net", m_net);
}

torch::Tensor MlpImpl::forward(const torch::Tensor &images)
{
    return m_net->forward(images);
}

// ---------------------------------------------------------------- TorchScript

namespace {

std::string shapeText(const torch::Tensor &t)
{
    std::string text = "[";
    for (std::int64_t i = 0; i < t.dim(); ++i) {
        text += (i ? ", " : "") + std::to_string(t.size(i));
    }
    return text + "]";
}

std::string firstLineOf(const std::string &text)
{
    return text.substr(0, text.find('\n'));
}

} // namespace

// A user's TorchScript module as a classifier (contract: docs/models.md). Its
// parameters and buffers are registered here under their names with '.' made
// '__', sharing storage, so the optimizer, checkpoints and .to() work unchanged.
class TorchScriptClassifierImpl : public ClassifierImpl
{
public:
    TorchScriptClassifierImpl(const std::string &path, std::int64_t rows, std::int64_t cols, std::int64_t classes)
    {
        const std::string where = "model.path: " + path + ": ";
        if (!std::ifstream(path, std::ios::binary)) {
            throw BadInput(where + "cannot open the file");
        }
        try {
            m_script = torch::jit::load(path, torch::kCPU);
        } catch (const c10::Error &e) {
            throw BadInput(where + "not a TorchScript archive (" + firstLineOf(e.what_without_backtrace()) + ")");
        } catch (const std::exception &e) {
            throw BadInput(where + "not a TorchScript archive (" + firstLineOf(e.what()) + ")");
        }
        if (!m_script.find_method("forward")) {
            throw BadInput(where + "the module has no forward method");
        }
        m_hasLoss = m_script.find_method("loss").has_value();
        for (const auto &p : m_script.named_parameters(true)) {
            register_parameter(flatName(p.name), p.value, p.value.requires_grad());
        }
        for (const auto &b : m_script.named_buffers(true)) {
            register_buffer(flatName(b.name), b.value);
        }
        bool anyTrainable = false;
        for (const auto &p : parameters()) {
            anyTrainable = anyTrainable || p.requires_grad();
        }
        if (!anyTrainable) {
            throw BadInput(where + "the module has no trainable parameters");
        }

        // One trial batch of two images: the output must be logits [2, classes].
        torch::NoGradGuard noGrad;
        m_script.eval();
        torch::Tensor out;
        const auto x = torch::zeros({2, 1, rows, cols});
        try {
            const auto value = m_script.forward({x});
            if (!value.isTensor()) {
                throw BadInput(where + "forward(x " + shapeText(x) + ") returned " + value.tagKind()
                               + ", expected a Tensor of logits [2, " + std::to_string(classes) + "]");
            }
            out = value.toTensor();
        } catch (const c10::Error &e) {
            throw BadInput(where + "forward(x " + shapeText(x)
                           + ") failed: " + firstLineOf(e.what_without_backtrace()));
        }
        if (out.dim() != 2 || out.size(0) != 2 || out.size(1) != classes || !out.is_floating_point()) {
            throw BadInput(where + "forward(x " + shapeText(x) + ") returned " + shapeText(out) + " "
                           + std::string(out.dtype().name()) + ", expected float logits [2, " + std::to_string(classes)
                           + "] (the data has " + std::to_string(classes) + " classes)");
        }
        m_script.train();
    }

    torch::Tensor forward(const torch::Tensor &images) override { return m_script.forward({images}).toTensor(); }

    torch::Tensor loss(const torch::Tensor &logits, const torch::Tensor &targets) override
    {
        if (!m_hasLoss) {
            return ClassifierImpl::loss(logits, targets);
        }
        return m_script.get_method("loss")({logits, targets}).toTensor();
    }

    void train(bool on = true) override
    {
        ClassifierImpl::train(on);
        m_script.train(on);
    }

private:
    static std::string flatName(std::string name)
    {
        for (std::size_t at = name.find('.'); at != std::string::npos; at = name.find('.', at + 2)) {
            name.replace(at, 1, "__");
        }
        return name;
    }

    torch::jit::Module m_script;
    bool m_hasLoss = false;
};

// ---------------------------------------------------------------- builders

namespace {

ConvTransEOptions convOptions(const RunSpec &spec)
{
    ConvTransEOptions o;
    o.dim = spec.intParam("dim");
    o.kernels = spec.intParam("kernels");
    o.kernelSize = spec.intParam("kernel_size");
    o.inputDropout = spec.floatParam("input_dropout");
    o.featureDropout = spec.floatParam("feature_dropout");
    o.hiddenDropout = spec.floatParam("hidden_dropout");
    return o;
}

} // namespace

std::shared_ptr<KgModelImpl> makeKgModel(const RunSpec &spec, std::int64_t entities, std::int64_t relations,
                                         const torch::Tensor &trainTriples)
{
    const std::string &type = spec.modelType();
    if (type == "transe" || type == "transh") {
        // Only 1vsall predicts heads as a query of its own; the other losses
        // corrupt the head of the triple itself (the worker logs that it is
        // ignored: a recipe may set it and the spec another loss).
        const bool reciprocal = spec.boolParam("reciprocal") && spec.stringParam("loss") == "1vsall";
        const std::int64_t rows = reciprocal ? 2 * relations : relations;
        std::shared_ptr<TranslationalModelImpl> model;
        if (type == "transe") {
            model = TransE(entities, rows, spec.intParam("dim"), static_cast<int>(spec.intParam("norm")),
                           spec.boolParam("normalize_entities"))
                        .ptr();
        } else {
            model = TransH(entities, rows, spec.intParam("dim"), static_cast<int>(spec.intParam("norm")),
                           spec.boolParam("squared"), spec.floatParam("constraint_weight"), spec.floatParam("epsilon"))
                        .ptr();
        }
        if (reciprocal) {
            model->useReciprocalRelations(relations);
        }
        return model;
    }
    if (type == "conv-transe") {
        return ConvTransE(entities, relations, convOptions(spec)).ptr();
    }
    if (type == "sacn") {
        return Sacn(entities, relations, trainTriples, convOptions(spec), spec.intParam("init_dim"),
                    spec.intParam("gcn_layers"), spec.floatParam("gcn_dropout"))
            .ptr();
    }
    throw BadInput("model.type: \"" + type + "\" is not a knowledge-graph model");
}

std::shared_ptr<ClassifierImpl> makeClassifier(const RunSpec &spec, std::int64_t rows, std::int64_t cols,
                                               std::int64_t classes)
{
    const std::string &type = spec.modelType();
    if (type == "mnist-cnn") {
        return MnistCnn(rows, cols, classes, spec.intParam("hidden"), spec.floatParam("dropout1"),
                        spec.floatParam("dropout2"))
            .ptr();
    }
    if (type == "mlp") {
        return Mlp(rows * cols, classes, spec.intParam("hidden"), spec.intParam("layers"), spec.floatParam("dropout"))
            .ptr();
    }
    if (type == "torchscript") {
        return std::make_shared<TorchScriptClassifierImpl>(spec.stringParam("path"), rows, cols, classes);
    }
    throw BadInput("model.type: \"" + type + "\" is not an image model");
}

} // namespace trainyard
