#pragma once

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace trainyard {

struct RunSpec;
class KgDataset;
struct ImageDataset;

// What the trainer trains: a model, its data on the device and its loss.
// The trainer owns the loop, the optimizer and the checkpoints; a Task knows
// how one batch becomes a loss and how a split is evaluated.
class Task
{
public:
    virtual ~Task() = default;

    virtual torch::nn::Module &module() = 0;
    // Training examples per epoch (triples, (entity, relation) keys, images).
    virtual std::int64_t examples() const = 0;
    // The loss of the examples `indices` (a CPU long tensor), on the device;
    // never read back here.
    virtual torch::Tensor loss(const torch::Tensor &indices) = 0;
    // Runs before each step's forward pass; `step` is the 0-based number of
    // the step about to run.
    virtual void beforeStep(std::int64_t step) { (void)step; }

    // A task that computes its loss and updates its own parameters in one
    // call: the fused CPU path, and TransE/TransH's sparse row updates.
    // The trainer then calls step() instead of loss(), backward() and an
    // optimizer, and keeps the task's optimizer state in checkpoints.
    virtual bool updatesItself() const { return false; }
    // Trains on the examples `indices` (a CPU long tensor) as step number
    // `step`; returns the batch loss as a 0-dim tensor on the device (read
    // back only when the trainer reports).
    virtual torch::Tensor step(const torch::Tensor &indices, std::int64_t step);
    virtual void saveOptimizer(torch::serialize::OutputArchive &archive);
    // False when the archive holds no state of this task's kind.
    virtual bool loadOptimizer(torch::serialize::InputArchive &archive);
    // How the task trains, kept in checkpoints: "fused" or "autograd".
    virtual std::string engine() const { return "autograd"; }
    // The fields of an eval line ({"mrr", "hits@1", ...} or {"accuracy"}),
    // or null when `keepGoing` stopped it early.
    virtual nlohmann::json evaluate(const std::string &split, std::int64_t batchSize,
                                    const std::function<bool()> &keepGoing) = 0;
    // One line describing the data, for the log.
    virtual std::string describe() const = 0;
};

std::unique_ptr<Task> makeKgTask(const RunSpec &spec, KgDataset data, torch::Device device);
std::unique_ptr<Task> makeImageTask(const RunSpec &spec, ImageDataset data, torch::Device device);

} // namespace trainyard
