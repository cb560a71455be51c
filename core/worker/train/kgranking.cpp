#include "worker/train/fusedkg.h"
#include "worker/train/kgkernels.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>

namespace trainyard {

namespace {

using namespace kgkernels;

// Rows [eBegin, eEnd) of `table` against queries [qBegin, qEnd).
TY_KERNEL void l1Block(const float *queries, std::int64_t qBegin, std::int64_t qEnd, const float *table, std::int64_t n,
                       std::int64_t eBegin, std::int64_t eEnd, std::int64_t d, const float *normals,
                       const float *projections, float *out)
{
    for (std::int64_t b = qBegin; b < qEnd; ++b) {
        const float *q = queries + b * d;
        float *row = out + b * n;
        if (!normals) {
            for (std::int64_t e = eBegin; e < eEnd; ++e) {
                const float *t = table + e * d;
                float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
                for (std::int64_t j = 0; j < d; ++j) {
                    sum += std::fabs(q[j] - t[j]);
                }
                row[e] = sum;
            }
        } else {
            const float *w = normals + b * d;
            const float *c = projections + b * n;
            for (std::int64_t e = eBegin; e < eEnd; ++e) {
                const float *t = table + e * d;
                const float ce = c[e];
                float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
                for (std::int64_t j = 0; j < d; ++j) {
                    sum += std::fabs(q[j] - t[j] + ce * w[j]);
                }
                row[e] = sum;
            }
        }
    }
}

} // namespace

void l1DistancesToAll(const float *queries, std::int64_t count, const float *table, std::int64_t n, std::int64_t d,
                      const float *normals, const float *projections, float *out)
{
    // A block of queries meets a block of rows that stays in the L2 cache
    // (~256 KiB), so the table is streamed count / 16 times, not count times.
    const std::int64_t queryBlock = 16;
    const std::int64_t rowBlock = std::max<std::int64_t>(64, (256 * 1024 / 4) / std::max<std::int64_t>(1, d));
    const std::int64_t blocks = (count + queryBlock - 1) / queryBlock;
    at::parallel_for(0, blocks, 1, [&](std::int64_t begin, std::int64_t end) {
        const FlushDenormals flush;
        for (std::int64_t qb = begin; qb < end; ++qb) {
            const std::int64_t q0 = qb * queryBlock, q1 = std::min(count, q0 + queryBlock);
            for (std::int64_t e0 = 0; e0 < n; e0 += rowBlock) {
                l1Block(queries, q0, q1, table, n, e0, std::min(n, e0 + rowBlock), d, normals, projections, out);
            }
        }
    });
}

TY_KERNEL void projectedSquaredL2Rows(float *xt, const float *tw, const float *xx, const float *xw, const float *tt,
                                      std::int64_t begin, std::int64_t end, std::int64_t n)
{
    for (std::int64_t b = begin; b < end; ++b) {
        float *row = xt + b * n;
        const float *c = tw + b * n;
        const float xxb = xx[b], xwb = 2.0f * xw[b];
#pragma omp simd
        for (std::int64_t e = 0; e < n; ++e) {
            row[e] = -(xxb - 2.0f * row[e] + c[e] * (xwb - c[e]) + tt[e]);
        }
    }
}

void projectedSquaredL2Scores(float *xt, const float *tw, const float *xx, const float *xw, const float *tt,
                              std::int64_t count, std::int64_t n)
{
    at::parallel_for(0, count, 1, [&](std::int64_t begin, std::int64_t end) {
        const FlushDenormals flush;
        projectedSquaredL2Rows(xt, tw, xx, xw, tt, begin, end, n);
    });
}

} // namespace trainyard
