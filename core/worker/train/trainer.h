#pragma once

#include "protocol/exitcode.h"

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace trainyard {

struct RunSpec;
class Reporter;
class Task;

// The loss became NaN or infinite; the worker exits with ExitCode::Diverged.
class Diverged : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// The training loop: epochs and max_steps, the optimizer, periodic metric
// lines (the loss is read from the device only at report steps), evaluation,
// checkpoints, and the orchestrator's stop / pause / checkpoint-now.
class Trainer
{
public:
    Trainer(const RunSpec &spec, Task &task, Reporter &reporter, std::string checkpointDir, torch::Device device);
    ~Trainer();

    // Trains to the end, to a stop request or to divergence; returns the
    // exit status. With `resume`, continues from the newest valid checkpoint.
    int run(bool resume);

    std::int64_t step() const { return m_step; }
    std::int64_t totalSteps() const { return m_totalSteps; }

private:
    struct Progress
    {
        std::int64_t step = 0;         // optimizer steps done
        std::int64_t epoch = 0;        // epochs completed
        std::int64_t batchInEpoch = 0; // batches of the current epoch done
    };

    bool loadNewestCheckpoint();
    void initFrom(const std::string &path); // train.init_from: the model's weights only
    void saveCheckpoint();
    void pruneCheckpoints();
    bool evaluate(const char *why); // false if a stop interrupted it
    void reportMetric();
    bool handleControls(); // false when a stop is requested
    bool budgetSpent();    // train.max_seconds is used up
    torch::Tensor permutation(std::int64_t epoch) const;
    std::int64_t currentEpoch() const; // 1-based epoch the last step belongs to

    const RunSpec &m_spec;
    Task &m_task;
    Reporter &m_reporter;
    std::string m_checkpointDir;
    torch::Device m_device;
    std::unique_ptr<torch::optim::Optimizer> m_optimizer;

    Progress m_progress;
    std::int64_t m_step = 0;
    std::int64_t m_totalSteps = 0;
    std::int64_t m_stepsPerEpoch = 0;
    std::int64_t m_lastCheckpointStep = -1;
    std::int64_t m_lastEvalStep = -1;
    std::int64_t m_lastReportStep = -1;

    torch::Tensor m_lossSum; // on the device, since the last report
    bool m_budgetLogged = false;
    std::int64_t m_lossCount = 0;
    std::int64_t m_samplesSinceReport = 0;
    double m_lastReportWall = 0.0;
    std::int64_t m_memoryBytes = -1;
    double m_memoryWall = 0.0;
};

} // namespace trainyard
