#pragma once

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

namespace trainyard {

// Turns on bfloat16 autocast for one device type while it lives (train.amp
// "bf16"): the ops autocast covers (matmul, linear, convolutions) run in
// bf16, the rest in fp32. On exit it clears autocast's cache of cast weights
// (they change at every optimizer step) and restores the previous state, so
// the backward pass, the optimizer and evaluation run as without it. A guard
// constructed with `enabled` false does nothing.
class AutocastGuard
{
public:
    AutocastGuard(c10::DeviceType device, bool enabled);
    ~AutocastGuard();
    AutocastGuard(const AutocastGuard &) = delete;
    AutocastGuard &operator=(const AutocastGuard &) = delete;

    // The thread's autocast state for `device` (CPU or CUDA), whatever the
    // LibTorch version's API.
    static bool isEnabled(c10::DeviceType device);
    static c10::ScalarType dtype(c10::DeviceType device);
    static void set(c10::DeviceType device, bool enabled, c10::ScalarType dtype);

private:
    c10::DeviceType m_device;
    bool m_active;
    bool m_wasEnabled = false;
    c10::ScalarType m_oldDtype = c10::ScalarType::BFloat16;
};

} // namespace trainyard
