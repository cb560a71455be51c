#include "worker/train/trainer.h"

#include "protocol/protocol.h"
#include "worker/base/badinput.h"
#include "worker/base/reporter.h"
#include "worker/base/runspec.h"
#include "worker/train/autocastguard.h"
#include "worker/train/task.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace trainyard {

namespace {

std::string checkpointName(std::int64_t step)
{
    char name[64];
    std::snprintf(name, sizeof name, "step-%012lld.pt", static_cast<long long>(step));
    return name;
}

// Steps of the checkpoints in `dir`, newest first.
std::vector<std::int64_t> listCheckpoints(const std::string &dir)
{
    std::vector<std::int64_t> steps;
    DIR *d = ::opendir(dir.c_str());
    if (!d) {
        return steps;
    }
    while (const dirent *entry = ::readdir(d)) {
        long long step = 0;
        char tail[8] = {0};
        if (std::sscanf(entry->d_name, "step-%12lld.%3s", &step, tail) == 2 && std::strcmp(tail, "pt") == 0
            && std::strlen(entry->d_name) == 20) {
            steps.push_back(step);
        }
    }
    ::closedir(d);
    std::sort(steps.rbegin(), steps.rend());
    return steps;
}

// Writes `bytes` to a new file at `path` and syncs it; on any failure the
// partial file is removed and the error (e.g. "No space left on device")
// thrown.
void writeFileOrThrow(const std::string &path, const std::string &bytes)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        throw std::runtime_error(path + ": cannot create (" + std::strerror(errno) + ")");
    }
    std::size_t done = 0;
    int error = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            error = n < 0 ? errno : ENOSPC;
            break;
        }
        done += static_cast<std::size_t>(n);
    }
    if (error == 0 && ::fsync(fd) != 0) {
        error = errno;
    }
    if (::close(fd) != 0 && error == 0) {
        error = errno;
    }
    if (error != 0) {
        ::unlink(path.c_str());
        throw std::runtime_error(path + ": cannot write the checkpoint (" + std::strerror(error) + ")");
    }
}

void fsyncPath(const std::string &path, int flags)
{
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
    if (fd < 0) {
        throw std::runtime_error(path + ": cannot open to sync (" + std::strerror(errno) + ")");
    }
    const int rc = ::fsync(fd);
    const int error = errno;
    ::close(fd);
    if (rc != 0) {
        throw std::runtime_error(path + ": fsync failed (" + std::strerror(error) + ")");
    }
}

std::unique_ptr<torch::optim::Optimizer> makeOptimizer(const RunSpec &spec, std::vector<torch::Tensor> params)
{
    if (spec.optimizer == "sgd") {
        return std::make_unique<torch::optim::SGD>(params,
                                                   torch::optim::SGDOptions(spec.lr).weight_decay(spec.weightDecay));
    }
    if (spec.optimizer == "adagrad") {
        return std::make_unique<torch::optim::Adagrad>(
            params, torch::optim::AdagradOptions(spec.lr).weight_decay(spec.weightDecay));
    }
    return std::make_unique<torch::optim::Adam>(params,
                                                torch::optim::AdamOptions(spec.lr).weight_decay(spec.weightDecay));
}

// Resident memory of the process, the memory figure available on every device.
std::int64_t residentBytes()
{
    std::ifstream statm("/proc/self/statm");
    long long pages = 0, resident = 0;
    if (!(statm >> pages >> resident)) {
        return -1;
    }
    return static_cast<std::int64_t>(resident) * ::sysconf(_SC_PAGESIZE);
}

std::string formatLoss(double loss)
{
    std::ostringstream os;
    os << loss;
    return os.str();
}

} // namespace

Trainer::Trainer(const RunSpec &spec, Task &task, Reporter &reporter, std::string checkpointDir, torch::Device device)
    : m_spec(spec)
    , m_task(task)
    , m_reporter(reporter)
    , m_checkpointDir(std::move(checkpointDir))
    , m_device(device)
{
    if (!task.updatesItself()) {
        m_optimizer = makeOptimizer(spec, task.module().parameters());
    }
    const std::int64_t examples = task.examples();
    if (examples == 0) {
        throw BadInput("data: no training examples");
    }
    m_stepsPerEpoch = (examples + spec.batchSize - 1) / spec.batchSize;
    m_totalSteps = m_stepsPerEpoch * spec.epochs;
    if (spec.maxSteps) {
        m_totalSteps = std::min(m_totalSteps, *spec.maxSteps);
    }
}

Trainer::~Trainer() = default;

torch::Tensor Trainer::permutation(std::int64_t epoch) const
{
    // Its own generator per epoch, so a resumed run replays the same order.
    auto generator = at::detail::createCPUGenerator(m_spec.seed * 1000003ull + static_cast<std::uint64_t>(epoch));
    return torch::randperm(m_task.examples(), generator, torch::TensorOptions().dtype(torch::kLong));
}

void Trainer::saveCheckpoint()
{
    if (m_lastCheckpointStep == m_step) {
        return;
    }
    if (::mkdir(m_checkpointDir.c_str(), 0755) != 0 && errno != EEXIST) {
        throw std::runtime_error(m_checkpointDir + ": cannot create (" + std::strerror(errno) + ")");
    }
    torch::serialize::OutputArchive archive;
    torch::serialize::OutputArchive model;
    m_task.module().save(model);
    archive.write("model", model);
    torch::serialize::OutputArchive optimizer;
    if (m_optimizer) {
        m_optimizer->save(optimizer);
    } else {
        m_task.saveOptimizer(optimizer);
    }
    archive.write("optimizer", optimizer);
    archive.write("engine", c10::IValue(m_task.engine()));
    archive.write("step", c10::IValue(m_progress.step));
    archive.write("epoch", c10::IValue(m_progress.epoch));
    archive.write("batch_in_epoch", c10::IValue(m_progress.batchInEpoch));
    archive.write("wall", c10::IValue(m_reporter.wall()));
    archive.write("model_spec", c10::IValue(m_spec.modelKey()));
    {
        auto generator = at::globalContext().defaultGenerator(torch::kCPU);
        std::lock_guard<std::mutex> lock(generator.mutex());
        archive.write("rng_cpu", generator.get_state());
    }
    if (m_device.is_cuda()) {
        auto generator = at::globalContext().defaultGenerator(m_device);
        std::lock_guard<std::mutex> lock(generator.mutex());
        archive.write("rng_device", generator.get_state());
    }
    const std::string name = checkpointName(m_step);
    const std::string finalPath = m_checkpointDir + "/" + name;
    const std::string tempPath = m_checkpointDir + "/.tmp-" + name;
    // Serialised in memory first: LibTorch's file writer finishes the zip in
    // its destructor, so a full disk (ENOSPC, EFBIG) there calls
    // std::terminate. Our own writes report it as an error instead, and the
    // previous checkpoint stays the newest valid one.
    std::ostringstream bytes;
    archive.save_to(bytes);
    writeFileOrThrow(tempPath, bytes.str());
    if (::rename(tempPath.c_str(), finalPath.c_str()) != 0) {
        throw std::runtime_error(finalPath + ": rename failed (" + std::strerror(errno) + ")");
    }
    fsyncPath(m_checkpointDir, O_RDONLY | O_DIRECTORY);
    m_lastCheckpointStep = m_step;
    m_reporter.emit(protocol::checkpoint(m_step, finalPath, m_reporter.wall()));
    pruneCheckpoints();
}

void Trainer::pruneCheckpoints()
{
    const auto steps = listCheckpoints(m_checkpointDir);
    for (std::size_t i = static_cast<std::size_t>(m_spec.checkpointKeep); i < steps.size(); ++i) {
        ::unlink((m_checkpointDir + "/" + checkpointName(steps[i])).c_str());
    }
}

bool Trainer::loadNewestCheckpoint()
{
    for (const auto step : listCheckpoints(m_checkpointDir)) {
        const std::string path = m_checkpointDir + "/" + checkpointName(step);
        try {
            torch::serialize::InputArchive archive;
            archive.load_from(path, m_device);
            c10::IValue value;
            archive.read("model_spec", value);
            if (value.toStringRef() != m_spec.modelKey()) {
                throw BadInput(path + ": written for another model spec (" + value.toStringRef()
                               + "); --resume needs the same model section");
            }
            torch::serialize::InputArchive model;
            archive.read("model", model);
            m_task.module().load(model);
            // The optimizer state of one engine means nothing to the other
            // (a CPU checkpoint of the fused path resumed on a GPU): the
            // model carries over, the optimizer starts afresh.
            std::string engine = "autograd";
            if (archive.try_read("engine", value)) {
                engine = value.toStringRef();
            }
            torch::serialize::InputArchive optimizer;
            archive.read("optimizer", optimizer);
            if (engine != m_task.engine()) {
                m_reporter.log("warning", path + ": optimizer state of the " + engine + " engine not loaded; the "
                                              + m_task.engine() + " engine's optimizer starts afresh");
            } else if (m_optimizer) {
                m_optimizer->load(optimizer);
            } else if (!m_task.loadOptimizer(optimizer)) {
                m_reporter.log("warning", path
                                              + ": no optimizer state of this engine's kind (an older "
                                                "checkpoint?); the optimizer starts afresh");
            }
            archive.read("step", value);
            m_progress.step = value.toInt();
            archive.read("epoch", value);
            m_progress.epoch = value.toInt();
            archive.read("batch_in_epoch", value);
            m_progress.batchInEpoch = value.toInt();
            archive.read("wall", value);
            m_reporter.resumeWall(value.toDouble());
            torch::Tensor state;
            archive.read("rng_cpu", state);
            {
                auto generator = at::globalContext().defaultGenerator(torch::kCPU);
                std::lock_guard<std::mutex> lock(generator.mutex());
                generator.set_state(state.cpu());
            }
            if (m_device.is_cuda() && archive.try_read("rng_device", state)) {
                auto generator = at::globalContext().defaultGenerator(m_device);
                std::lock_guard<std::mutex> lock(generator.mutex());
                generator.set_state(state.cpu());
            }
            m_step = m_progress.step;
            m_lastCheckpointStep = m_step;
            return true;
        } catch (const BadInput &) {
            throw;
        } catch (const std::exception &e) {
            std::string what = e.what();
            what = what.substr(0, what.find('\n'));
            m_reporter.log("warning", "skipping unreadable checkpoint " + path + ": " + what);
        }
    }
    return false;
}

void Trainer::initFrom(const std::string &path)
{
    struct stat st
    {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
        throw BadInput("train.init_from: " + path + ": no such checkpoint file");
    }
    torch::serialize::InputArchive archive;
    try {
        archive.load_from(path, m_device);
    } catch (const std::exception &e) {
        std::string what = e.what();
        throw BadInput("train.init_from: " + path + ": not a checkpoint (" + what.substr(0, what.find('\n')) + ")");
    }
    c10::IValue value;
    // The weights fit only the model they were trained as.
    if (!archive.try_read("model_spec", value) || value.toStringRef() != m_spec.modelKey()) {
        throw BadInput("train.init_from: " + path + ": written for another model spec"
                       + (value.isString() ? " (" + value.toStringRef() + ")" : std::string())
                       + "; it needs the same "
                         "model section");
    }
    torch::serialize::InputArchive model;
    archive.read("model", model);
    m_task.module().load(model);
    std::string step = "?";
    if (archive.try_read("step", value)) {
        step = std::to_string(value.toInt());
    }
    m_reporter.log("info", "model initialised from " + path + " (its step " + step + ")");
}

std::int64_t Trainer::currentEpoch() const
{
    return m_progress.batchInEpoch == 0 && m_progress.epoch > 0 ? m_progress.epoch : m_progress.epoch + 1;
}

void Trainer::reportMetric()
{
    if (m_lossCount == 0) {
        return;
    }
    const double loss = (m_lossSum / static_cast<double>(m_lossCount)).item<double>();
    const double wall = m_reporter.wall();
    if (!std::isfinite(loss)) {
        throw Diverged("loss is " + formatLoss(loss) + " at step " + std::to_string(m_step));
    }
    auto message = protocol::metric(m_step, currentEpoch(), loss, wall);
    message["total_steps"] = m_totalSteps;
    message["lr"] = m_spec.lr;
    const double elapsed = wall - m_lastReportWall;
    if (elapsed > 0) {
        message["samples_per_s"] = static_cast<double>(m_samplesSinceReport) / elapsed;
    }
    // /proc is read at most once a second: reporting every step stays cheap.
    if (m_memoryBytes < 0 || wall - m_memoryWall >= 1.0) {
        m_memoryBytes = residentBytes();
        m_memoryWall = wall;
    }
    if (m_memoryBytes >= 0) {
        message["mem_bytes"] = m_memoryBytes;
    }
    m_reporter.emit(message);
    m_lossSum.zero_();
    m_lossCount = 0;
    m_samplesSinceReport = 0;
    m_lastReportWall = wall;
    m_lastReportStep = m_step;
}

bool Trainer::evaluate(const char *why)
{
    (void)why;
    const auto fields =
        m_task.evaluate(m_spec.evalSplit, m_spec.evalBatchSize, [this]() { return !m_reporter.stopRequested(); });
    if (fields.is_null()) {
        return false;
    }
    auto message = protocol::evalResult(m_step, m_spec.evalSplit, m_reporter.wall());
    message["epoch"] = m_progress.epoch;
    message.update(fields);
    m_reporter.emit(message);
    m_lastEvalStep = m_step;
    return true;
}

bool Trainer::budgetSpent()
{
    if (!m_spec.maxSeconds || m_reporter.wall() < *m_spec.maxSeconds) {
        return false;
    }
    if (!m_budgetLogged) {
        m_reporter.log("info", "train.max_seconds: the budget of " + formatLoss(*m_spec.maxSeconds)
                                   + " s is spent at step " + std::to_string(m_step) + "; finishing");
        m_budgetLogged = true;
    }
    return true;
}

bool Trainer::handleControls()
{
    if (m_reporter.paused() && !m_reporter.stopRequested()) {
        m_reporter.log("info", "paused at step " + std::to_string(m_step));
        m_reporter.waitWhilePaused();
        if (!m_reporter.stopRequested()) {
            m_reporter.log("info", "resumed at step " + std::to_string(m_step));
        }
    }
    if (m_reporter.stopRequested()) {
        return false;
    }
    if (m_reporter.takeCheckpointRequest()) {
        saveCheckpoint();
    }
    return true;
}

int Trainer::run(bool resume)
{
    bool resumed = false;
    if (resume) {
        resumed = loadNewestCheckpoint();
        if (resumed) {
            m_reporter.log("info", "resumed from step " + std::to_string(m_step));
        } else {
            m_reporter.log("warning", "--resume: no valid checkpoint in " + m_checkpointDir + "; starting at step 0");
        }
    }
    // A resumed run's own checkpoint holds these weights, trained further.
    if (!resumed && !m_spec.initFrom.empty()) {
        initFrom(m_spec.initFrom);
    }
    m_reporter.setStep(m_step);
    m_lossSum = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat).device(m_device));
    m_lastReportWall = m_reporter.wall();
    m_task.module().train();

    const std::int64_t batch = m_spec.batchSize;
    const std::int64_t examples = m_task.examples();
    const auto stopped = [this]() {
        reportMetric();
        saveCheckpoint();
        return protocol::toInt(m_reporter.requeueRequested() ? protocol::ExitCode::Requeue
                                                             : protocol::ExitCode::Stopped);
    };

    while (m_progress.epoch < m_spec.epochs && m_step < m_totalSteps) {
        const auto order = permutation(m_progress.epoch);
        for (std::int64_t b = m_progress.batchInEpoch; b < m_stepsPerEpoch && m_step < m_totalSteps; ++b) {
            if (!handleControls()) {
                return stopped();
            }
            const auto indices = order.slice(0, b * batch, std::min(examples, (b + 1) * batch));
            m_task.beforeStep(m_step);
            if (m_optimizer) {
                m_optimizer->zero_grad();
                torch::Tensor loss;
                {
                    // train.amp: only the forward pass and the loss run under
                    // autocast; the loss leaves it as fp32 (a no-op without amp).
                    AutocastGuard autocast(m_device.type(), m_spec.amp == "bf16");
                    loss = m_task.loss(indices).to(torch::kFloat);
                }
                loss.backward();
                m_optimizer->step();
                m_lossSum += loss.detach();
            } else {
                m_lossSum += m_task.step(indices, m_step);
            }
            ++m_step;
            m_progress.step = m_step;
            m_progress.batchInEpoch = b + 1;
            ++m_lossCount;
            m_samplesSinceReport += indices.size(0);
            m_reporter.setStep(m_step);
            if (m_spec.reportEverySteps > 0 && m_step % m_spec.reportEverySteps == 0) {
                reportMetric();
            }
            if (m_spec.checkpointEverySteps > 0 && m_step % m_spec.checkpointEverySteps == 0) {
                saveCheckpoint();
            }
            if (budgetSpent()) {
                break;
            }
        }
        if (m_progress.batchInEpoch < m_stepsPerEpoch) {
            break; // max_steps or max_seconds ended training inside the epoch
        }
        ++m_progress.epoch;
        m_progress.batchInEpoch = 0;
        if (m_spec.reportEverySteps == 0 && m_lossCount > 0) {
            // Reporting is off: one read per epoch still catches divergence.
            const double loss = (m_lossSum / static_cast<double>(m_lossCount)).item<double>();
            if (!std::isfinite(loss)) {
                throw Diverged("loss is " + formatLoss(loss) + " in epoch " + std::to_string(m_progress.epoch)
                               + " (reporting is off; last step " + std::to_string(m_step) + ")");
            }
            m_lossSum.zero_();
            m_lossCount = 0;
        }
        if (m_spec.evalEveryEpochs > 0 && m_progress.epoch % m_spec.evalEveryEpochs == 0) {
            if (!evaluate("epoch")) {
                return stopped();
            }
        }
        if (budgetSpent()) {
            break;
        }
    }
    if (m_spec.reportEverySteps > 0) {
        reportMetric();
    }
    if (m_spec.evalEveryEpochs > 0 && m_lastEvalStep != m_step) {
        if (!evaluate("end")) {
            return stopped();
        }
    }
    saveCheckpoint();
    return protocol::toInt(protocol::ExitCode::Finished);
}

} // namespace trainyard
