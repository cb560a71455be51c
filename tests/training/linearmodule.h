#pragma once

#include <string>

namespace testing {

// Saves a TorchScript module that follows the `torchscript` contract of
// docs/models.md, built in C++ so that no test needs Python: a linear softmax
// classifier of `size`×`size` images into `outputs` classes, its weights in a
// submodule (so checkpoints see a dotted name, "fc.weight"), zero-initialised
// so the first loss is exactly ln(outputs) — times `lossScale` when
// `lossScale` > 0, through the module's own `loss` method.
void saveLinearModule(const std::string &path, int outputs, int size, double lossScale = 0.0);

} // namespace testing
