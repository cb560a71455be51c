#pragma once

// The per-row arithmetic of the fused KG path: distances, their gradients
// and the row-wise optimizer rules, shared by the trainer (fusedkg.cpp) and
// the ranking kernel (kgranking.cpp). Inline, so each kernel that uses them
// is compiled (and cloned for AVX2) as one function.

#include "worker/train/fusedkg.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

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

// Denormal floats flushed to zero while a kernel runs on this thread. The
// self-adversarial weights of far negatives are ~1e-40 (and Adam's moments
// of rarely touched rows decay there); x86 computes with such values tens
// of times slower, which made TransH's L1 step twice TransE's. The thread's
// own mode comes back at the end of the scope (LibTorch shares the threads).
class FlushDenormals
{
public:
    FlushDenormals();
    ~FlushDenormals();
    FlushDenormals(const FlushDenormals &) = delete;
    FlushDenormals &operator=(const FlushDenormals &) = delete;

private:
#if defined(__SSE2__)
    unsigned int m_saved = _mm_getcsr();
#endif
};

#if defined(__SSE2__)
inline FlushDenormals::FlushDenormals()
{
    _mm_setcsr(m_saved | 0x8040); // FTZ (bit 15) and DAZ (bit 6)
}

inline FlushDenormals::~FlushDenormals()
{
    _mm_setcsr(m_saved);
}
#else
inline FlushDenormals::FlushDenormals() = default;
inline FlushDenormals::~FlushDenormals() = default;
#endif

// Asks for a row's cache lines before it is used. A step's negatives are
// random rows of tables larger than the caches (WN18RR's entities and their
// gradient buffers), and a row is only 200 floats: without this each pair
// waits on memory.
TY_INLINE void prefetchRow(const float *row, std::int64_t d)
{
    const char *bytes = reinterpret_cast<const char *>(row);
    for (std::int64_t offset = 0; offset < d * static_cast<std::int64_t>(sizeof(float)); offset += 64) {
        __builtin_prefetch(bytes + offset, 0);
    }
}

TY_INLINE void prefetchRowForWriting(float *row, std::int64_t d)
{
    const char *bytes = reinterpret_cast<const char *>(row);
    for (std::int64_t offset = 0; offset < d * static_cast<std::int64_t>(sizeof(float)); offset += 64) {
        __builtin_prefetch(bytes + offset, 1);
    }
}

inline float sign(float v)
{
    return static_cast<float>((v > 0.0f) - (v < 0.0f));
}

TY_INLINE void normalizeRow(float *row, std::int64_t d)
{
    float sq = 0.0f;
#pragma omp simd reduction(+ : sq)
    for (std::int64_t j = 0; j < d; ++j) {
        sq += row[j] * row[j];
    }
    const float norm = std::max(std::sqrt(sq), 1e-12f);
#pragma omp simd
    for (std::int64_t j = 0; j < d; ++j) {
        row[j] /= norm; // a division, as the autograd path's div_
    }
}

// TransE's distance of one triple: |h + r - t| under L1 or L2.
TY_INLINE float distance(const float *h, const float *r, const float *t, std::int64_t d, int norm)
{
    float sum = 0.0f;
    if (norm == 1) {
#pragma omp simd reduction(+ : sum)
        for (std::int64_t j = 0; j < d; ++j) {
            sum += std::fabs(h[j] + r[j] - t[j]);
        }
        return sum;
    }
#pragma omp simd reduction(+ : sum)
    for (std::int64_t j = 0; j < d; ++j) {
        const float z = h[j] + r[j] - t[j];
        sum += z * z;
    }
    return std::sqrt(sum);
}

// Adds c * d distance / d(h, r, t) of one TransE triple to gh, gt, gr.
TY_INLINE void distanceGrad(const float *h, const float *r, const float *t, float dist, float c, std::int64_t d,
                            int norm, float *gh, float *gt, float *gr)
{
    if (norm == 1) {
#pragma omp simd
        for (std::int64_t j = 0; j < d; ++j) {
            const float g = c * sign(h[j] + r[j] - t[j]);
            gh[j] += g;
            gt[j] -= g;
            gr[j] += g;
        }
        return;
    }
    const float scale = dist > 0.0f ? c / dist : 0.0f;
#pragma omp simd
    for (std::int64_t j = 0; j < d; ++j) {
        const float g = scale * (h[j] + r[j] - t[j]);
        gh[j] += g;
        gt[j] -= g;
        gr[j] += g;
    }
}

// TransH's distance of one triple, z = x - wx w + d_r with x = h - t and
// wx = w.x given (the caller has w.h and w.t). L1, or with norm 2 squared L2
// as TransH defines it (`squared`) or plain L2. Also returns in *wg the sum
// over j of w_j d distance / d z_j, which the gradient needs: one pass over
// the row here saves two there.
TY_INLINE float transhDistance(const float *h, const float *r, const float *t, const float *w, float wx, std::int64_t d,
                               int norm, bool squared, float *wg)
{
    float sum = 0.0f, g = 0.0f;
    if (norm == 1) {
#pragma omp simd reduction(+ : sum, g)
        for (std::int64_t j = 0; j < d; ++j) {
            const float z = h[j] - t[j] - wx * w[j] + r[j];
            sum += std::fabs(z);
            g += w[j] * sign(z);
        }
        *wg = g;
        return sum;
    }
#pragma omp simd reduction(+ : sum, g)
    for (std::int64_t j = 0; j < d; ++j) {
        const float z = h[j] - t[j] - wx * w[j] + r[j];
        sum += z * z;
        g += w[j] * z;
    }
    if (squared) {
        *wg = 2.0f * g;
        return sum;
    }
    const float dist = std::sqrt(sum);
    *wg = dist > 0.0f ? g / dist : 0.0f;
    return dist;
}

// Adds c * d distance / d(inputs) of one TransH triple to gh, gt, gr and gw
// (the gradient of the unit normal), from transhDistance's result dist, wx
// and wg.
TY_INLINE void transhDistanceGrad(const float *h, const float *r, const float *t, const float *w, float dist, float wx,
                                  float wg, float c, std::int64_t d, int norm, bool squared, float *gh, float *gt,
                                  float *gr, float *gw)
{
    // g = c * d dist / dz; then through z = x - (w.x) w + d_r.
    const float cw = c * wg;
    if (norm == 1) {
#pragma omp simd
        for (std::int64_t j = 0; j < d; ++j) {
            const float x = h[j] - t[j];
            const float g = c * sign(x - wx * w[j] + r[j]);
            const float ge = g - cw * w[j];
            gh[j] += ge;
            gt[j] -= ge;
            gr[j] += g;
            gw[j] += -cw * x - wx * g;
        }
        return;
    }
    // d dist / dz: 2 z squared, z / dist plain.
    const float scale = squared ? 2.0f * c : (dist > 0.0f ? c / dist : 0.0f);
#pragma omp simd
    for (std::int64_t j = 0; j < d; ++j) {
        const float x = h[j] - t[j];
        const float g = scale * (x - wx * w[j] + r[j]);
        const float ge = g - cw * w[j];
        gh[j] += ge;
        gt[j] -= ge;
        gr[j] += g;
        gw[j] += -cw * x - wx * g;
    }
}

TY_INLINE float squaredNorm(const float *v, std::int64_t d)
{
    float sq = 0.0f;
#pragma omp simd reduction(+ : sq)
    for (std::int64_t j = 0; j < d; ++j) {
        sq += v[j] * v[j];
    }
    return sq;
}

TY_INLINE float dot(const float *a, const float *b, std::int64_t d)
{
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (std::int64_t j = 0; j < d; ++j) {
        s += a[j] * b[j];
    }
    return s;
}

TY_INLINE void axpy(float a, const float *x, float *y, std::int64_t d)
{
#pragma omp simd
    for (std::int64_t j = 0; j < d; ++j) {
        y[j] += a * x[j];
    }
}

// One row of the optimizer step; g is the row's gradient (weight decay not yet added).
TY_INLINE void updateRow(RowOptimizer optimizer, float *w, float *g, float *m, float *v, float *rowSum, std::int64_t d,
                         float lr, float weightDecay, float adamScale)
{
    if (weightDecay != 0.0f) {
#pragma omp simd
        for (std::int64_t j = 0; j < d; ++j) {
            g[j] += weightDecay * w[j];
        }
    }
    switch (optimizer) {
    case RowOptimizer::Sgd:
#pragma omp simd
        for (std::int64_t j = 0; j < d; ++j) {
            w[j] -= lr * g[j];
        }
        break;
    case RowOptimizer::Adagrad: {
        float sq = 0.0f;
#pragma omp simd reduction(+ : sq)
        for (std::int64_t j = 0; j < d; ++j) {
            sq += g[j] * g[j];
        }
        *rowSum += sq / static_cast<float>(d);
        const float scale = lr / (std::sqrt(*rowSum) + 1e-10f);
#pragma omp simd
        for (std::int64_t j = 0; j < d; ++j) {
            w[j] -= scale * g[j];
        }
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
