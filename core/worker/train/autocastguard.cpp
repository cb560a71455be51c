#include "worker/train/autocastguard.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

#include <stdexcept>
#include <string>

#ifndef TORCH_VERSION_MAJOR
#error "torch/version.h did not define TORCH_VERSION_MAJOR: cannot choose the autocast API"
#endif

// LibTorch 2.4 replaced the per-device functions (set_enabled for CUDA,
// set_cpu_enabled, set_autocast_gpu_dtype, ...) by ones taking the device type.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define TRAINYARD_AUTOCAST_BY_DEVICE_TYPE 1
#else
#define TRAINYARD_AUTOCAST_BY_DEVICE_TYPE 0
#endif

namespace trainyard {

namespace {

void checkDevice(c10::DeviceType device)
{
    if (device != c10::DeviceType::CPU && device != c10::DeviceType::CUDA) {
        throw std::invalid_argument("train.amp: autocast supports cpu and cuda devices, not "
                                    + c10::DeviceTypeName(device, /*lower_case=*/true));
    }
}

} // namespace

bool AutocastGuard::isEnabled(c10::DeviceType device)
{
    checkDevice(device);
#if TRAINYARD_AUTOCAST_BY_DEVICE_TYPE
    return at::autocast::is_autocast_enabled(device);
#else
    return device == c10::DeviceType::CUDA ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
#endif
}

c10::ScalarType AutocastGuard::dtype(c10::DeviceType device)
{
    checkDevice(device);
#if TRAINYARD_AUTOCAST_BY_DEVICE_TYPE
    return at::autocast::get_autocast_dtype(device);
#else
    return device == c10::DeviceType::CUDA ? at::autocast::get_autocast_gpu_dtype()
                                           : at::autocast::get_autocast_cpu_dtype();
#endif
}

void AutocastGuard::set(c10::DeviceType device, bool enabled, c10::ScalarType dtype)
{
    checkDevice(device);
#if TRAINYARD_AUTOCAST_BY_DEVICE_TYPE
    at::autocast::set_autocast_dtype(device, dtype);
    at::autocast::set_autocast_enabled(device, enabled);
#else
    if (device == c10::DeviceType::CUDA) {
        at::autocast::set_autocast_gpu_dtype(dtype);
        at::autocast::set_enabled(enabled);
    } else {
        at::autocast::set_autocast_cpu_dtype(dtype);
        at::autocast::set_cpu_enabled(enabled);
    }
#endif
}

AutocastGuard::AutocastGuard(c10::DeviceType device, bool enabled)
    : m_device(device)
    , m_active(enabled)
{
    if (!m_active) {
        return;
    }
    m_wasEnabled = isEnabled(device);
    m_oldDtype = dtype(device);
    set(device, true, c10::ScalarType::BFloat16);
    at::autocast::increment_nesting();
}

AutocastGuard::~AutocastGuard()
{
    if (!m_active) {
        return;
    }
    // As torch.autocast's __exit__: the outermost exit drops the cached bf16
    // copies of the weights, which the optimizer step is about to change.
    if (at::autocast::decrement_nesting() == 0) {
        at::autocast::clear_cache();
    }
    set(m_device, m_wasEnabled, m_oldDtype);
}

} // namespace trainyard
