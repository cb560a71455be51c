#include "worker/train/dropoutmask.h"

#include <ATen/Parallel.h>

namespace trainyard::dropoutmask {

namespace {

// SplitMix64's output function (Steele, Lea and Flood 2014): a bijective
// mix whose outputs for consecutive inputs pass BigCrush.
inline std::uint64_t mix(std::uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

} // namespace

void fill(float *mask, std::int64_t n, double p, std::uint64_t seed)
{
    // Two 32-bit draws per 64-bit output; an element is kept when its draw is
    // at or above p * 2^32.
    const auto threshold = static_cast<std::uint64_t>(p * 4294967296.0);
    const float keep = static_cast<float>(1.0 / (1.0 - p));
    const std::uint64_t base = mix(seed);
    const std::int64_t pairs = (n + 1) / 2;
    at::parallel_for(0, pairs, 4096, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
            const std::uint64_t r = mix(base + static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ULL);
            mask[2 * i] = (r & 0xffffffffULL) >= threshold ? keep : 0.0f;
            if (2 * i + 1 < n) {
                mask[2 * i + 1] = (r >> 32) >= threshold ? keep : 0.0f;
            }
        }
    });
}

} // namespace trainyard::dropoutmask
