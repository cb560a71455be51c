#include "worker/train/graphkernels.h"
#include "worker/train/kgkernels.h"

#include <ATen/Parallel.h>

#include <algorithm>

namespace trainyard::graphkernels {

namespace {

// Rows per task: a row of FB15k-237 has ~40 edges of 200 floats.
constexpr std::int64_t kGrain = 64;

TY_KERNEL void aggregateRows(const CompressedGraph &g, const float *weight, const float *x, std::int64_t d, float *out,
                             std::int64_t begin, std::int64_t end)
{
    for (std::int64_t i = begin; i < end; ++i) {
        float *o = out + i * d;
        std::fill(o, o + d, 0.0f);
        for (std::int64_t e = g.start[i]; e < g.start[i + 1]; ++e) {
            const float w = weight[g.type[e]];
            const float *xj = x + g.other[e] * d;
#pragma omp simd
            for (std::int64_t k = 0; k < d; ++k) {
                o[k] += w * xj[k];
            }
        }
    }
}

TY_KERNEL void backwardRows(const CompressedGraph &g, const float *weight, const float *x, const float *gradOut,
                            std::int64_t d, float *gradX, double *gradWeight, std::int64_t begin, std::int64_t end)
{
    for (std::int64_t j = begin; j < end; ++j) {
        float *gx = gradX + j * d;
        const float *xj = x + j * d;
        std::fill(gx, gx + d, 0.0f);
        for (std::int64_t e = g.start[j]; e < g.start[j + 1]; ++e) {
            const float w = weight[g.type[e]];
            const float *go = gradOut + g.other[e] * d;
            float dot = 0.0f;
#pragma omp simd reduction(+ : dot)
            for (std::int64_t k = 0; k < d; ++k) {
                gx[k] += w * go[k];
                dot += go[k] * xj[k];
            }
            gradWeight[g.type[e]] += dot;
        }
    }
}

} // namespace

void aggregate(const CompressedGraph &byTarget, const float *weight, const float *x, std::int64_t d, float *out)
{
    at::parallel_for(0, byTarget.rows, kGrain, [&](std::int64_t begin, std::int64_t end) {
        const kgkernels::FlushDenormals flush;
        aggregateRows(byTarget, weight, x, d, out, begin, end);
    });
}

void aggregateBackward(const CompressedGraph &bySource, const float *weight, const float *x, const float *gradOut,
                       std::int64_t d, std::int64_t types, float *gradX, float *gradWeight)
{
    // One row of partial sums per thread, in double: a type's sum runs over
    // up to every edge of the graph.
    const int threads = at::get_num_threads();
    std::vector<double> partial(static_cast<std::size_t>(threads * types), 0.0);
    at::parallel_for(0, bySource.rows, kGrain, [&](std::int64_t begin, std::int64_t end) {
        const kgkernels::FlushDenormals flush;
        backwardRows(bySource, weight, x, gradOut, d, gradX, partial.data() + at::get_thread_num() * types, begin, end);
    });
    for (std::int64_t t = 0; t < types; ++t) {
        double sum = 0.0;
        for (int k = 0; k < threads; ++k) {
            sum += partial[static_cast<std::size_t>(k * types + t)];
        }
        gradWeight[t] = static_cast<float>(sum);
    }
}

} // namespace trainyard::graphkernels
