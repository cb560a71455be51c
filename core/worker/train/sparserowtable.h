#pragma once

// One embedding table of the fused KG step as the optimizer sees it: the rows
// a step touched, one gradient buffer per thread over those rows alone, and
// the row-wise optimizer state, read and written only for those rows. The
// step (FusedKgTrainer) decides what the rows and gradients are; this keeps
// the bookkeeping and the update apart from the model's arithmetic.
//
// LibTorch-free like fusedkg.h. Defined in fusedkg.cpp: its update is one of
// the fused step's kernels (OpenMP flags, AVX2 clones), and the worker keeps
// its kernel units few.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace trainyard {

enum class RowOptimizer {
    Sgd,
    Adagrad,
    Adam
};

class SparseRowTable
{
public:
    SparseRowTable() = default; // a table the model does not have (TransE's normals)
    // `rows` rows of `dim` floats at `weights`, with zeroed optimizer state.
    SparseRowTable(float *weights, std::int64_t rows, std::int64_t dim, RowOptimizer optimizer, double lr,
                   double weightDecay);

    float *weights() const { return m_weights; }
    // Points at the table again (loading a checkpoint replaces its storage).
    void setWeights(float *weights) { m_weights = weights; }
    std::int64_t rows() const { return m_rows; }

    // A step: beginStep, touch every row it reads, orderTouched,
    // prepareGrads, the threads' sums into grad(), then update.
    void beginStep();
    void touch(std::int64_t row)
    {
        if (m_stamp[row] == m_mark) {
            return;
        }
        m_stamp[row] = m_mark;
        m_slot[row] = static_cast<std::int32_t>(m_touched.size());
        m_touched.push_back(row);
    }
    void orderTouched();
    void prepareGrads(int threads);
    const std::vector<std::int64_t> &touched() const { return m_touched; }
    // Thread `thread`'s gradient of a touched row.
    float *grad(int thread, std::int64_t row)
    {
        return m_grads[thread].data() + static_cast<std::size_t>(m_slot[row]) * m_dim;
    }
    // Sums the threads' gradients of each touched row, applies the optimizer
    // at the run's step `step` (0-based) and clears the buffers.
    void update(std::int64_t step, int threads);

    // Optimizer state, for checkpoints (empty where the optimizer has none).
    std::vector<float> &first() { return m_first; }
    std::vector<float> &second() { return m_second; }

private:
    void updateRows(std::int64_t begin, std::int64_t end, int threads, float adamScale);

    float *m_weights = nullptr;
    std::int64_t m_rows = 0;
    std::int64_t m_dim = 0;
    RowOptimizer m_optimizer = RowOptimizer::Sgd;
    double m_lr = 0.0;
    double m_weightDecay = 0.0;
    std::vector<float> m_first;              // Adam m, or the Adagrad row sums
    std::vector<float> m_second;             // Adam v
    std::vector<std::int64_t> m_stamp;       // the step's mark when a batch last touched the row
    std::vector<std::int32_t> m_slot;        // the row's place in this step's gradient buffers
    std::vector<std::int64_t> m_touched;     // rows of this step, by slot
    std::vector<std::vector<float>> m_grads; // per thread: [touched, dim]
    std::int64_t m_mark = 0;                 // the step's number since construction, from 1
};

} // namespace trainyard
