#include "worker/train/worker.h"

#include "protocol/protocol.h"
#include "worker/base/badinput.h"
#include "worker/base/blascore.h"
#include "worker/base/imagedataset.h"
#include "worker/base/kgdataset.h"
#include "worker/base/recipe.h"
#include "worker/base/reporter.h"
#include "worker/base/runspec.h"
#include "worker/base/workeroptions.h"
#include "worker/train/task.h"
#include "worker/train/trainer.h"

#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

#include <dlfcn.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace trainyard {

namespace {

// mkdir -p; throws BadInput naming the folder.
void makeFolders(const std::string &path)
{
    std::string partial;
    std::size_t pos = 0;
    while (pos != std::string::npos) {
        pos = path.find('/', pos + 1);
        partial = path.substr(0, pos);
        if (partial.empty()) {
            continue;
        }
        if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) {
            throw BadInput("--run-dir " + path + ": cannot create " + partial + " (" + std::strerror(errno) + ")");
        }
    }
    struct stat st
    {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        throw BadInput("--run-dir " + path + ": not a folder");
    }
    if (::access(path.c_str(), W_OK | X_OK) != 0) {
        throw BadInput("--run-dir " + path + ": not writable (" + std::strerror(errno) + ")");
    }
}

// `fallback`: a cuda:N this machine cannot use gives the CPU instead, and
// `note` says so (a batch job on a node without CUDA, a test cluster's fake
// GPUs).
torch::Device parseDevice(const std::string &text, bool fallback, std::string *note)
{
    if (text == "cpu") {
        return torch::Device(torch::kCPU);
    }
    std::string index = "0";
    if (text.rfind("cuda:", 0) == 0) {
        index = text.substr(5);
    } else if (text != "cuda") {
        throw BadInput("--device: expected cpu or cuda:N, got \"" + text + "\"");
    }
    if (index.empty() || index.size() > 3 || index.find_first_not_of("0123456789") != std::string::npos) {
        throw BadInput("--device: expected cpu or cuda:N, got \"" + text + "\"");
    }
    const int n = std::stoi(index);
    const auto count = torch::cuda::is_available() ? static_cast<int>(torch::cuda::device_count()) : 0;
    if (n >= count && fallback) {
        *note = "--device " + text + ": no such usable GPU here (" + std::to_string(count)
                + " found); --cpu-fallback: training on the CPU";
        return torch::Device(torch::kCPU);
    }
    if (n >= count) {
        std::string have;
        if (count == 0) {
            have = "this machine has no usable CUDA GPU (none found, no driver, or a LibTorch built without CUDA); "
                   "use --device cpu";
        } else {
            have = "this machine has " + std::to_string(count) + " CUDA GPU" + (count > 1 ? "s" : "") + ":";
            for (int i = 0; i < count; ++i) {
                have += " cuda:" + std::to_string(i);
            }
        }
        throw BadInput("--device " + text + ": no such GPU; " + have);
    }
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(n));
}

std::string firstLine(const std::string &text)
{
    return text.substr(0, text.find('\n'));
}

bool looksLikeOutOfMemory(const std::string &text)
{
    return text.find("out of memory") != std::string::npos || text.find("can't allocate memory") != std::string::npos
           || text.find("Cannot allocate memory") != std::string::npos;
}

std::string baseName(std::string path)
{
    while (path.size() > 1 && path.back() == '/') {
        path.pop_back();
    }
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

int finish(Reporter *reporter, int code, const std::string &message)
{
    using protocol::ExitCode;
    if (!message.empty()) {
        std::cerr << "trainyard-worker: " << message << std::endl;
    }
    if (reporter) {
        const bool ok =
            code == toInt(ExitCode::Finished) || code == toInt(ExitCode::Stopped) || code == toInt(ExitCode::Requeue);
        if (!message.empty()) {
            reporter->log(ok ? "info" : "error", message);
        }
        reporter->emit(protocol::done(protocol::exitStatusName(code), code, reporter->wall()));
    }
    return code;
}

int finish(Reporter *reporter, protocol::ExitCode code, const std::string &message)
{
    return finish(reporter, protocol::toInt(code), message);
}

// Every step allocates and frees the same tensors. With glibc's defaults the
// freed top of the heap is trimmed and re-grown each step, and the fresh
// pages fault in again: measured 4x slower TransE steps on UMLS (most time in
// the kernel). Keeping up to 256 MiB of freed heap costs little next to a
// model and its data.
void tuneAllocator()
{
#ifdef __GLIBC__
    ::mallopt(M_MMAP_THRESHOLD, 64 << 20);
    ::mallopt(M_TRIM_THRESHOLD, 256 << 20);
    ::mallopt(M_TOP_PAD, 16 << 20);
#endif
}

// LibTorch's thread setting does not reach an OpenBLAS picked up through
// Debian's libblas alternative, which would start one thread per core.
void setBlasThreads(int threads)
{
    using SetThreads = void (*)(int);
    if (auto *set = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
        set(threads);
    }
}

// Settings the libraries read only when they are loaded, so the worker
// sets them and starts itself again, once; a value the user set is kept.
// * Short spin-waits: LibTorch's OpenMP threads and OpenBLAS's own both spin
//   after their work (for up to ~0.1 s by default), so on two cores an
//   autograd step, GEMMs between element-wise passes, spent a third of its
//   time with one pool spinning while the other waited for a core:
//   Conv-TransE's step took 1.7 times as long (docs/results.md). Not for the
//   fused KG path, whose OpenMP regions follow each other closely and lose
//   by it.
// * OpenBLAS's kernels on a CPU it does not know (blascore.h), every run.
constexpr const char *kShortSpinsVariable = "TRAINYARD_WORKER_SHORT_SPINS";
constexpr const char *kOwnBlasCoreVariable = "TRAINYARD_WORKER_OPENBLAS_CHOSE"; // what OpenBLAS chose itself

void restartWithTunedLibraries(const WorkerOptions &options, const RunSpec &spec)
{
#ifdef __linux__
    const bool fused = (spec.modelType() == "transe" || spec.modelType() == "transh") && spec.engine != "autograd";
    const bool spins = !fused && !std::getenv(kShortSpinsVariable);
    const std::string own = std::getenv("OPENBLAS_CORETYPE") ? std::string() : loadedBlasCore();
    const std::string core = betterBlasCore(own, CpuVectorUnits::ofThisCpu());
    if ((!spins && core.empty()) || options.arguments.empty()) {
        return;
    }
    if (spins) {
        ::setenv("GOMP_SPINCOUNT", "10000", 0);
        ::setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
        ::setenv(kShortSpinsVariable, "1", 1);
    }
    if (!core.empty()) {
        ::setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
        ::setenv(kOwnBlasCoreVariable, own.c_str(), 1);
    }
    if (!options.token.empty()) { // parse() took it out of the environment
        ::setenv(WorkerOptions::kTokenVariable, options.token.c_str(), 1);
    }
    std::vector<char *> argv;
    for (const auto &a : options.arguments) {
        argv.push_back(const_cast<char *>(a.c_str()));
    }
    argv.push_back(nullptr);
    ::execv("/proc/self/exe", argv.data());
    // Not started again: train with the libraries' own settings, and say so.
    ::unsetenv(WorkerOptions::kTokenVariable);
    ::unsetenv(kShortSpinsVariable);
    ::unsetenv(kOwnBlasCoreVariable);
#else
    (void)options;
    (void)spec;
#endif
}

// What restartWithTunedLibraries changed, for the run's first log line.
std::string tunedLibrariesNote()
{
    std::string note;
    if (std::getenv(kShortSpinsVariable)) {
        note += " (short spin-waits)";
    }
    const char *own = std::getenv(kOwnBlasCoreVariable);
    const char *core = std::getenv("OPENBLAS_CORETYPE");
    if (own && core) {
        note += std::string(" (OpenBLAS kernels ") + core + " instead of its own choice " + own + ")";
    }
    return note;
}

} // namespace

std::string torchVersion()
{
    return TORCH_VERSION;
}

std::string torchCudaVersion()
{
    // The CUDA hooks are registered only when the LibTorch has its CUDA
    // library; the runtime version is the one compiled in, so this holds on
    // a machine without a GPU or driver too (unlike cuda::is_available).
    try {
        const long version = at::detail::getCUDAHooks().versionCUDART();
        return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
    } catch (const c10::Error &) {
        return {};
    }
}

std::string torchBuild()
{
    const std::string cuda = torchCudaVersion();
    return "LibTorch " + torchVersion() + (cuda.empty() ? ", CPU only" : ", CUDA " + cuda);
}

int runWorker(const WorkerOptions &options)
{
    tuneAllocator();
    try {
        makeFolders(options.runDir);
    } catch (const BadInput &e) {
        return finish(nullptr, protocol::ExitCode::BadInput, e.what());
    }

    // The spec is read before the reporter exists (the hello names the run),
    // but its errors still go to metrics.jsonl below.
    std::optional<RunSpec> spec;
    std::string inputError;
    std::optional<Endpoint> endpoint;
    try {
        if (!options.connect.empty()) {
            endpoint = Endpoint::parse(options.connect);
        }
        spec = RunSpec::load(options.spec);
    } catch (const BadInput &e) {
        inputError = e.what();
    }
    if (spec) {
        restartWithTunedLibraries(options, *spec);
    }

    std::unique_ptr<Reporter> reporter;
    try {
        Reporter::Options ro;
        ro.metricsPath = options.runDir + "/metrics.jsonl";
        ro.runName = spec ? spec->name : baseName(options.runDir);
        ro.device = options.device;
        ro.token = options.token;
        ro.connect = endpoint;
        reporter = std::make_unique<Reporter>(ro);
    } catch (const BadInput &e) {
        return finish(nullptr, protocol::ExitCode::BadInput, "--run-dir " + options.runDir + ": " + e.what());
    }
    if (!inputError.empty()) {
        return finish(reporter.get(), protocol::ExitCode::BadInput, inputError);
    }

    try {
        std::string fallbackNote;
        const torch::Device device = parseDevice(options.device, options.cpuFallback, &fallbackNote);
        if (!fallbackNote.empty()) {
            reporter->log("warning", fallbackNote);
        }
        torch::set_num_threads(options.threads > 0 ? options.threads : 1);
        setBlasThreads(options.threads > 0 ? options.threads : 1);
        torch::manual_seed(spec->seed);
        reporter->log("info", "trainyard-worker " TRAINYARD_VERSION " (LibTorch " TORCH_VERSION "): " + spec->name
                                  + ", model " + spec->modelType() + ", data " + spec->dataKind() + ", device "
                                  + device.str() + ", threads " + std::to_string(torch::get_num_threads())
                                  + tunedLibrariesNote());

        std::unique_ptr<Task> task;
        const std::string kind = spec->dataKind();
        if (kind == "kg" || kind == "synthetic-kg") {
            KgDataset data = loadKgData(*spec);
            if (spec->recipe == "auto") {
                const RecipeChoice choice = chooseRecipe(KgStats::of(data));
                spec = spec->withRecipe(choice.name);
                nlohmann::json line = protocol::log("info",
                                                    "recipe auto: \"" + choice.name + "\" for this graph ("
                                                        + choice.reason + "): " + describeRecipe(*spec),
                                                    reporter->wall());
                line["recipe"] = choice.name; // the app resolves the run's spec with it
                reporter->emit(std::move(line));
            }
            task = makeKgTask(*spec, std::move(data), device);
        } else if (kind == "idx") {
            task = makeImageTask(*spec,
                                 ImageDataset::loadIdxFolder(spec->data["path"].get<std::string>(),
                                                             spec->data["valid_size"].get<std::int64_t>()),
                                 device);
        } else {
            task = makeImageTask(*spec,
                                 ImageDataset::synthetic(spec->data["samples"].get<std::int64_t>(),
                                                         spec->data["classes"].get<std::int64_t>(),
                                                         spec->data["size"].get<std::int64_t>(), spec->seed),
                                 device);
        }
        reporter->log("info", "data: " + task->describe());
        if (spec->amp != "off") {
            reporter->log("info", "train.amp " + spec->amp + ": forward pass and loss autocast on " + device.str());
        }
        if (spec->modelParams.value("reciprocal", false) && spec->modelParams.value("loss", "") != "1vsall") {
            reporter->log("info", "model.reciprocal is ignored: it needs model.loss \"1vsall\", the run's is "
                                      + spec->modelParams["loss"].dump());
        }
        if (spec->channelsLast && !spec->usesChannelsLast()) {
            reporter->log("info",
                          "train.channels_last is ignored: model " + spec->modelType() + " has no 2-D convolution");
        }

        Trainer trainer(*spec, *task, *reporter, options.runDir + "/checkpoints", device);
        const int code = trainer.run(options.resume);
        if (code == protocol::toInt(protocol::ExitCode::Stopped)) {
            return finish(reporter.get(), code, "stopped on request at step " + std::to_string(trainer.step()));
        }
        if (code == protocol::toInt(protocol::ExitCode::Requeue)) {
            return finish(reporter.get(), code,
                          "SIGUSR2 (the job's time limit is near): checkpointed at step "
                              + std::to_string(trainer.step()) + " to be resubmitted with --resume");
        }
        return finish(reporter.get(), code, "");
    } catch (const BadInput &e) {
        return finish(reporter.get(), protocol::ExitCode::BadInput, e.what());
    } catch (const Diverged &e) {
        return finish(reporter.get(), protocol::ExitCode::Diverged, std::string("diverged: ") + e.what());
    } catch (const std::bad_alloc &) {
        return finish(reporter.get(), protocol::ExitCode::Failed, "out of memory (a host allocation failed)");
    } catch (const c10::Error &e) {
        const std::string what = e.what_without_backtrace();
        if (looksLikeOutOfMemory(what)) {
            return finish(reporter.get(), protocol::ExitCode::Failed, "out of memory: " + firstLine(what));
        }
        return finish(reporter.get(), protocol::ExitCode::Failed, "LibTorch error: " + firstLine(what));
    } catch (const std::exception &e) {
        return finish(reporter.get(), protocol::ExitCode::Failed,
                      std::string("runtime failure: ") + firstLine(e.what()));
    }
}

} // namespace trainyard
