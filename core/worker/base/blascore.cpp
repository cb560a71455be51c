#include "worker/base/blascore.h"

#include <algorithm>
#include <array>
#include <string_view>

#include <dlfcn.h>

namespace trainyard {

CpuVectorUnits CpuVectorUnits::ofThisCpu()
{
    CpuVectorUnits units;
#if defined(__x86_64__) && defined(__GNUC__)
    // libgcc's checks include the OS's support of the registers (XCR0).
    __builtin_cpu_init();
    units.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd")
                   && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")
                   && __builtin_cpu_supports("avx512vl");
    units.avx2Fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    return units;
}

std::string betterBlasCore(const std::string &chosen, CpuVectorUnits units)
{
    // OpenBLAS's names of x86 cores without AVX: what it falls back to.
    static constexpr std::array<std::string_view, 10> kGeneric = {
        "Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom", "Katmai", "Coppermine", "Northwood", "Banias"};
    if (std::find(kGeneric.begin(), kGeneric.end(), chosen) == kGeneric.end()) {
        return {};
    }
    if (units.avx512) {
        return "SkylakeX";
    }
    if (units.avx2Fma) {
        return "Haswell";
    }
    return {};
}

std::string loadedBlasCore()
{
    using CoreName = char *(*)();
    auto *coreName = reinterpret_cast<CoreName>(::dlsym(RTLD_DEFAULT, "openblas_get_corename"));
    const char *name = coreName ? coreName() : nullptr;
    return name ? std::string(name) : std::string();
}

} // namespace trainyard
