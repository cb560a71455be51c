#pragma once

// Dropout masks drawn by a counter-based generator, in parallel: LibTorch's
// CPU bernoulli_ draws one number at a time from one generator, and on SACN's
// node tables (40,943 x 200 on WN18RR, four times per step) it took longer
// than the graph convolution itself.

#include <cstdint>

namespace trainyard::dropoutmask {

// mask[i] = 0 with probability p, else 1 / (1 - p); the same `seed` gives
// the same mask whatever the number of threads.
void fill(float *mask, std::int64_t n, double p, std::uint64_t seed);

} // namespace trainyard::dropoutmask
