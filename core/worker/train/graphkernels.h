#pragma once

// The weighted sum over a graph's edges that SACN's GCN layers compute, as
// CPU kernels over a compressed-row graph: one pass over each row's edges,
// parallel over rows, where the plain tensor form gathers a copy of every
// message ([edges, dim], 38 times the node table on FB15k-237) and scatters
// it back on one thread.

#include <cstdint>

namespace trainyard::graphkernels {

// A graph's edges grouped by one endpoint (a view of three arrays): row i's
// edges are [start[i], start[i+1]), each with its other endpoint and type.
struct CompressedGraph
{
    const std::int64_t *start;
    const std::int64_t *other;
    const std::int64_t *type;
    std::int64_t rows;
};

// out[i] = sum over edges j -> i of weight[type] * x[j]; x, out: [rows, d].
void aggregate(const CompressedGraph &byTarget, const float *weight, const float *x, std::int64_t d, float *out);

// The gradients of aggregate: gradX[j] = sum over edges j -> i of
// weight[type] * gradOut[i], and gradWeight[t] = sum over edges of type t of
// gradOut[i] . x[j] (written, not added). `bySource` groups the same edges by j.
void aggregateBackward(const CompressedGraph &bySource, const float *weight, const float *x, const float *gradOut,
                       std::int64_t d, std::int64_t types, float *gradX, float *gradWeight);

} // namespace trainyard::graphkernels
