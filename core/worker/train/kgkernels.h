#pragma once

// The per-row arithmetic of the fused KG path: distances, their gradients
// and the row-wise optimizer rules, shared by the trainer (fusedkg.cpp) and
// the ranking kernel (kgranking.cpp). Inline, so each kernel that uses them
// is compiled (and cloned for AVX2) as one function.

#include "worker/train/fusedkg.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

// The loops over the embedding dimension are the hot path. `omp simd` asks
// for vectorised reductions without -ffast-math (which would hide NaN), and
// each kernel is cloned for AVX2+FMA with a run-time dispatch, since
// distribution builds target baseline x86-64.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(TRAINYARD_FUZZ_BUILD)
#define TY_KERNEL __attribute__((target_clones("arch=haswell", "default")))
#define TY_INLINE inline __attribute__((always_inline))
#else
#define TY_KERNEL
#define TY_INLINE inline
#endif

namespace trainyard::kgkernels {

inline float sign(float v)
{
    return static_cast<float>((v > 0.0f) - (v < 0.0f));
}

TY_INLINE void normalizeRow(float *row, std::int64_t d)
{
    float sq = 0.0f;
#pragma omp simd reduction(+ : sq)
    for (std::int64_t j = 0; j < d; ++j)
        sq += row[j] * row[j];
    const float norm = std::max(std::sqrt(sq), 1e-12f);
#pragma omp simd
    for (std::int64_t j = 0; j < d; ++j)
        row[j] /= norm; // a division, as the autograd path's div_
}

// Distance of one triple. TransE: z = h + r - t. TransH: z = x - (w.x) w + d_r with x = h - t.
TY_INLINE float distance(const float *h, const float *r, const float *t, const float *w, std::int64_t d, int norm,
                         bool transh)
{
    float wx = 0.0f;
    if (transh) {
#pragma omp simd reduction(+ : wx)
        for (std::int64_t j = 0; j < d; ++j)
            wx += w[j] * (h[j] - t[j]);
    }
    float sum = 0.0f;
    if (norm == 1) {
        if (transh) {
#pragma omp simd reduction(+ : sum)
            for (std::int64_t j = 0; j < d; ++j)
                sum += std::fabs(h[j] - t[j] - wx * w[j] + r[j]);
        } else {
#pragma omp simd reduction(+ : sum)
            for (std::int64_t j = 0; j < d; ++j)
                sum += std::fabs(h[j] + r[j] - t[j]);
        }
        return sum;
    }
    if (transh) {
#pragma omp simd reduction(+ : sum)
        for (std::int64_t j = 0; j < d; ++j) {
            const float z = h[j] - t[j] - wx * w[j] + r[j];
            sum += z * z;
        }
        return sum; // squared L2, as TransH defines it
    }
#pragma omp simd reduction(+ : sum)
    for (std::int64_t j = 0; j < d; ++j) {
        const float z = h[j] + r[j] - t[j];
        sum += z * z;
    }
    return std::sqrt(sum);
}

// Adds c * d distance / d(inputs) of one triple to the gradients gh, gt, gr
// (and gw, the gradient of the unit normal, for TransH).
TY_INLINE void distanceGrad(const float *h, const float *r, const float *t, const float *w, float dist, float c,
                            std::int64_t d, int norm, bool transh, float *gh, float *gt, float *gr, float *gw)
{
    if (!transh) {
        if (norm == 1) {
#pragma omp simd
            for (std::int64_t j = 0; j < d; ++j) {
                const float g = c * sign(h[j] + r[j] - t[j]);
                gh[j] += g;
                gt[j] -= g;
                gr[j] += g;
            }
        } else {
            const float scale = dist > 0.0f ? c / dist : 0.0f;
#pragma omp simd
            for (std::int64_t j = 0; j < d; ++j) {
                const float g = scale * (h[j] + r[j] - t[j]);
                gh[j] += g;
                gt[j] -= g;
                gr[j] += g;
            }
        }
        return;
    }
    float wx = 0.0f;
#pragma omp simd reduction(+ : wx)
    for (std::int64_t j = 0; j < d; ++j)
        wx += w[j] * (h[j] - t[j]);
    // g = c * d dist / dz; then through z = x - (w.x) w + d_r.
    float wg = 0.0f;
    if (norm == 1) {
#pragma omp simd reduction(+ : wg)
        for (std::int64_t j = 0; j < d; ++j)
            wg += w[j] * c * sign(h[j] - t[j] - wx * w[j] + r[j]);
#pragma omp simd
        for (std::int64_t j = 0; j < d; ++j) {
            const float x = h[j] - t[j];
            const float g = c * sign(x - wx * w[j] + r[j]);
            const float ge = g - wg * w[j];
            gh[j] += ge;
            gt[j] -= ge;
            gr[j] += g;
            gw[j] += -wg * x - wx * g;
        }
    } else {
        const float c2 = 2.0f * c;
#pragma omp simd reduction(+ : wg)
        for (std::int64_t j = 0; j < d; ++j)
            wg += w[j] * c2 * (h[j] - t[j] - wx * w[j] + r[j]);
#pragma omp simd
        for (std::int64_t j = 0; j < d; ++j) {
            const float x = h[j] - t[j];
            const float g = c2 * (x - wx * w[j] + r[j]);
            const float ge = g - wg * w[j];
            gh[j] += ge;
            gt[j] -= ge;
            gr[j] += g;
            gw[j] += -wg * x - wx * g;
        }
    }
}

TY_INLINE float squaredNorm(const float *v, std::int64_t d)
{
    float sq = 0.0f;
#pragma omp simd reduction(+ : sq)
    for (std::int64_t j = 0; j < d; ++j)
        sq += v[j] * v[j];
    return sq;
}

TY_INLINE float dot(const float *a, const float *b, std::int64_t d)
{
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (std::int64_t j = 0; j < d; ++j)
        s += a[j] * b[j];
    return s;
}

TY_INLINE void axpy(float a, const float *x, float *y, std::int64_t d)
{
#pragma omp simd
    for (std::int64_t j = 0; j < d; ++j)
        y[j] += a * x[j];
}

// One row of the optimizer step; g is the row's gradient (weight decay not yet added).
TY_INLINE void updateRow(RowOptimizer optimizer, float *w, float *g, float *m, float *v, float *rowSum, std::int64_t d,
                         float lr, float weightDecay, float adamScale)
{
    if (weightDecay != 0.0f) {
#pragma omp simd
        for (std::int64_t j = 0; j < d; ++j)
            g[j] += weightDecay * w[j];
    }
    switch (optimizer) {
    case RowOptimizer::Sgd:
#pragma omp simd
        for (std::int64_t j = 0; j < d; ++j)
            w[j] -= lr * g[j];
        break;
    case RowOptimizer::Adagrad: {
        float sq = 0.0f;
#pragma omp simd reduction(+ : sq)
        for (std::int64_t j = 0; j < d; ++j)
            sq += g[j] * g[j];
        *rowSum += sq / static_cast<float>(d);
        const float scale = lr / (std::sqrt(*rowSum) + 1e-10f);
#pragma omp simd
        for (std::int64_t j = 0; j < d; ++j)
            w[j] -= scale * g[j];
        break;
    }
    case RowOptimizer::Adam:
#pragma omp simd
        for (std::int64_t j = 0; j < d; ++j) {
            m[j] = 0.9f * m[j] + 0.1f * g[j];
            v[j] = 0.999f * v[j] + 0.001f * g[j] * g[j];
            w[j] -= adamScale * m[j] / (std::sqrt(v[j]) + 1e-8f);
        }
        break;
    }
}

} // namespace trainyard::kgkernels
