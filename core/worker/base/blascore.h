#pragma once

// Debian 12's OpenBLAS (0.3.21) does not know CPUs newer than itself and on
// one falls back to its Prescott (SSE3) kernels: on this project's 2-core
// Xeon (model 207) a [128 x 20,000] x [20,000 x 200] GEMM ran at 18 GFLOPS
// with them and at 62 with its SkylakeX kernels, and every autograd model
// was 2-3 times slower for it (docs/results.md). OpenBLAS takes its kernels
// from OPENBLAS_CORETYPE when it is loaded, so the worker sets that and
// starts itself again (core/worker/train/worker.cpp).

#include <string>

namespace trainyard {

struct CpuVectorUnits
{
    bool avx512 = false;  // AVX-512 F, CD, BW, DQ and VL, usable by the OS
    bool avx2Fma = false; // AVX2 and FMA, usable by the OS

    static CpuVectorUnits ofThisCpu();
};

// The OPENBLAS_CORETYPE to run with when OpenBLAS chose `chosen` on a CPU
// with `units`: SkylakeX or Haswell in place of a generic pre-AVX core,
// else empty (OpenBLAS's own choice stands).
std::string betterBlasCore(const std::string &chosen, CpuVectorUnits units);

// The core this process's OpenBLAS chose (openblas_get_corename), or empty
// when the BLAS loaded is not OpenBLAS.
std::string loadedBlasCore();

} // namespace trainyard
