#pragma once

// Header-only: used by the autograd KG task alone (tasks.cpp), and kept out of
// it so that file stays about one thing.

#include "worker/base/runspec.h"
#include "worker/train/fusedkg.h"

#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

namespace trainyard {

// The fused path's row-wise optimizers in tensor ops, for any device: after
// backward, only the rows a step touched are read and written (the batch's
// entity and relation ids, duplicates included: every copy of a row gets the
// same new value), with no pass over the whole table and no host sync.
class TensorRowOptimizer
{
public:
    TensorRowOptimizer(const RunSpec &spec, std::vector<std::pair<std::string, torch::Tensor>> tables)
        : m_kind(spec.optimizer == "sgd"       ? RowOptimizer::Sgd
                 : spec.optimizer == "adagrad" ? RowOptimizer::Adagrad
                                               : RowOptimizer::Adam)
        , m_lr(spec.lr)
        , m_weightDecay(spec.weightDecay)
    {
        for (auto &[name, weights] : tables) {
            Table t{name, weights, {}, {}};
            if (m_kind == RowOptimizer::Adam) {
                t.first = torch::zeros_like(weights);
                t.second = torch::zeros_like(weights);
            } else if (m_kind == RowOptimizer::Adagrad) {
                t.first = torch::zeros({weights.size(0)}, weights.options());
            }
            m_tables.push_back(std::move(t));
        }
    }

    void zeroGrad()
    {
        for (auto &t : m_tables) {
            t.weights.mutable_grad().reset();
        }
    }

    // `rows[i]`: the rows of table i this step touched (undefined: all).
    void step(const std::vector<torch::Tensor> &rows, std::int64_t step)
    {
        torch::NoGradGuard noGrad;
        const double t = static_cast<double>(step + 1);
        const double adamScale = m_lr * std::sqrt(1.0 - std::pow(0.999, t)) / (1.0 - std::pow(0.9, t));
        for (std::size_t i = 0; i < m_tables.size(); ++i) {
            Table &table = m_tables[i];
            const auto &grad = table.weights.grad();
            if (!grad.defined()) {
                continue;
            }
            const auto idx = rows[i].defined()
                                 ? rows[i]
                                 : torch::arange(table.weights.size(0),
                                                 torch::TensorOptions().dtype(torch::kLong).device(grad.device()));
            auto g = grad.index_select(0, idx);
            auto w = table.weights.index_select(0, idx);
            if (m_weightDecay != 0.0) {
                g = g + m_weightDecay * w;
            }
            switch (m_kind) {
            case RowOptimizer::Sgd:
                w = w - m_lr * g;
                break;
            case RowOptimizer::Adagrad: {
                const auto sums = table.first.index_select(0, idx) + g.pow(2).mean(1);
                table.first.index_copy_(0, idx, sums);
                w = w - m_lr * g / (sums.sqrt() + 1e-10).unsqueeze(1);
                break;
            }
            case RowOptimizer::Adam: {
                const auto m = 0.9 * table.first.index_select(0, idx) + 0.1 * g;
                const auto v = 0.999 * table.second.index_select(0, idx) + 0.001 * g * g;
                table.first.index_copy_(0, idx, m);
                table.second.index_copy_(0, idx, v);
                w = w - adamScale * m / (v.sqrt() + 1e-8);
                break;
            }
            }
            table.weights.index_copy_(0, idx, w);
        }
    }

    void save(torch::serialize::OutputArchive &archive) const
    {
        for (const auto &t : m_tables) {
            if (t.first.defined()) {
                archive.write(t.name + ".first", t.first);
            }
            if (t.second.defined()) {
                archive.write(t.name + ".second", t.second);
            }
        }
    }

    bool load(torch::serialize::InputArchive &archive)
    {
        for (auto &t : m_tables) {
            for (torch::Tensor *state : {&t.first, &t.second}) {
                if (!state->defined()) {
                    continue;
                }
                torch::Tensor loaded;
                const std::string key = t.name + (state == &t.first ? ".first" : ".second");
                if (!archive.try_read(key, loaded)) {
                    return false;
                }
                if (loaded.sizes() != state->sizes()) {
                    throw std::runtime_error("optimizer state " + key + " has the wrong shape");
                }
                state->copy_(loaded);
            }
        }
        return true;
    }

private:
    struct Table
    {
        std::string name;
        torch::Tensor weights;
        torch::Tensor first, second; // Adam m and v, or the Adagrad row sums
    };
    RowOptimizer m_kind;
    double m_lr, m_weightDecay;
    std::vector<Table> m_tables;
};

// TransE and TransH trained with LibTorch's autograd and sparse row updates:
// the GPU path, and the CPU reference of the fused path (which draws the
// same negatives on the CPU and applies the same update rule).

} // namespace trainyard
