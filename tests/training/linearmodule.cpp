#include "linearmodule.h"

#include <torch/script.h>

namespace testing {

void saveLinearModule(const std::string &path, int outputs, int size, double lossScale)
{
    torch::jit::Module fc("Fc");
    fc.register_parameter("weight", torch::zeros({outputs, size * size}).requires_grad_(true), false);
    torch::jit::Module m("Net");
    m.register_module("fc", fc);
    m.register_parameter("bias", torch::zeros({outputs}).requires_grad_(true), false);
    m.define(R"(
def forward(self, x):
    return torch.matmul(x.flatten(1), self.fc.weight.t()) + self.bias
)");
    if (lossScale > 0.0) {
        m.define(R"(
def loss(self, logits, target):
    return -)" + std::to_string(lossScale)
                 + R"( * torch.log_softmax(logits, 1).gather(1, target.unsqueeze(1)).mean()
)");
    }
    m.save(path);
}

} // namespace testing
