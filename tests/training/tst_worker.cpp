// trainyard-worker as a process: command line, bad input of every kind,
// and a fake orchestrator on a unix socket (hello with token, live metrics,
// pause/resume, stop -> exit 4 -> --resume, reconnect after the peer closes).

#include "tests/helpers/minitest.h"
#include "tests/training/workerrun.h"

#include "protocol/linedecoder.h"
#include "worker/base/blascore.h"
#include "worker/base/workeroptions.h"

#include <cerrno>
#include <iostream>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <vector>

using testing::ofType;
using testing::readLines;
using testing::runWorker;
using testing::WorkerProcess;

namespace {

bool contains(const std::string &text, const std::string &part)
{
    if (text.find(part) == std::string::npos) {
        std::cerr << "  \"" << text << "\" lacks \"" << part << "\"\n";
        return false;
    }
    return true;
}

// Writes `spec` into a fresh folder; returns {spec path, run dir}.
std::pair<std::string, std::string> prepare(const std::string &tag, const std::string &spec)
{
    const std::string dir = testing::tempDir(tag);
    testing::writeFile(dir + "/spec.json", spec);
    return {dir + "/spec.json", dir + "/run"};
}

// Exit status and stderr of a run that must fail fast.
int badRun(const std::string &spec, std::string &err, const std::vector<std::string> &extra = {})
{
    const auto [specPath, runDir] = prepare("bad", spec);
    std::vector<std::string> args = {"--spec", specPath, "--run-dir", runDir};
    args.insert(args.end(), extra.begin(), extra.end());
    return runWorker(args, &err, nullptr, 60);
}

// A listening unix socket standing in for the orchestrator.
class FakeOrchestrator
{
public:
    FakeOrchestrator()
    {
        m_path = testing::tempDir("sock") + "/orchestrator.sock";
        m_listen = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", m_path.c_str());
        ::bind(m_listen, reinterpret_cast<sockaddr *>(&addr), sizeof addr);
        ::listen(m_listen, 4);
    }
    ~FakeOrchestrator()
    {
        closeClient();
        ::close(m_listen);
    }

    std::string address() const { return "unix:" + m_path; }

    bool accept(double seconds)
    {
        pollfd p{m_listen, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(seconds * 1000)) <= 0) {
            return false;
        }
        m_client = ::accept(m_listen, nullptr, nullptr);
        m_decoder = trainyard::protocol::LineDecoder();
        return m_client >= 0;
    }

    void closeClient()
    {
        if (m_client >= 0) {
            ::close(m_client);
        }
        m_client = -1;
    }

    void send(const std::string &type)
    {
        const std::string line = "{\"type\":\"" + type + "\"}\n";
        (void)!::write(m_client, line.data(), line.size());
    }

    // Next message within `seconds`, or null.
    nlohmann::json next(double seconds)
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
        trainyard::protocol::LineDecoder::Result result;
        while (true) {
            if (m_decoder.next(result)) {
                if (result.status == trainyard::protocol::LineDecoder::Status::Message) {
                    return result.message;
                }
                continue;
            }
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now())
                    .count();
            if (left <= 0) {
                return nullptr;
            }
            pollfd p{m_client, POLLIN, 0};
            if (::poll(&p, 1, static_cast<int>(left)) <= 0) {
                return nullptr;
            }
            char buffer[4096];
            const ssize_t n = ::read(m_client, buffer, sizeof buffer);
            if (n <= 0) {
                return nullptr;
            }
            m_decoder.feed(buffer, static_cast<std::size_t>(n));
        }
    }

    // Next message of `type` within `seconds`, or null.
    nlohmann::json nextOf(const std::string &type, double seconds)
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
        while (std::chrono::steady_clock::now() < deadline) {
            auto m = next(std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count());
            if (m.is_null()) {
                return m;
            }
            if (m.value("type", "") == type) {
                return m;
            }
        }
        return nullptr;
    }

private:
    std::string m_path;
    int m_listen = -1;
    int m_client = -1;
    trainyard::protocol::LineDecoder m_decoder;
};

// A run long enough to be steered: small synthetic TransE, a metric per step.
const char *kLongSpec = R"({"name": "steered", "model": {"type": "transe", "dim": 16},
  "data": {"kind": "synthetic-kg", "entities": 60, "relations": 4, "triples": 3000},
  "train": {"epochs": 100000, "batch_size": 32}, "eval": {"every_epochs": 0},
  "checkpoint": {"every_steps": 0}, "report": {"every_steps": 1}})";

// The run's first log line, "trainyard-worker VERSION ...: NAME, ..."
// (what the worker tuned before it started is noted there).
std::string startLine(const std::string &dir)
{
    for (const auto &l : readLines(dir + "/metrics.jsonl")) {
        if (l["type"] == "log" && l["text"].get<std::string>().rfind("trainyard-worker ", 0) == 0) {
            return l["text"].get<std::string>();
        }
    }
    return {};
}

} // namespace

TY_TEST(versionHelpAndListModels)
{
    std::string out, err;
    TY_CHECK_EQ(runWorker({"--version"}, &err, &out), 0);
    TY_CHECK(contains(out, "trainyard-worker 0.1.0"));
    TY_CHECK_EQ(runWorker({"--help"}, &err, &out), 0);
    TY_CHECK(contains(out, "--spec FILE"));
    TY_CHECK_EQ(runWorker({"--list-models"}, &err, &out), 0);
    const auto doc = nlohmann::json::parse(out);
    std::vector<std::string> types;
    for (const auto &m : doc["models"]) {
        types.push_back(m["type"]);
    }
    TY_CHECK(
        (types
         == std::vector<std::string>{"transe", "transh", "conv-transe", "sacn", "mnist-cnn", "mlp", "torchscript"}));
    // What its LibTorch was built with, as --list-models and --version say
    // it: Debian's CPU LibTorch in CI, a CUDA one on a GPU build.
    const auto &torch = doc["libtorch"];
    TY_CHECK(torch["version"].is_string() && !torch["version"].get<std::string>().empty());
    TY_CHECK(torch["cuda"].is_null() || torch["cuda"].is_string());
    std::string version;
    TY_CHECK_EQ(runWorker({"--version"}, &err, &version), 0);
    const std::string build = "LibTorch " + torch["version"].get<std::string>() + ", "
                              + (torch["cuda"].is_null() ? "CPU only" : "CUDA " + torch["cuda"].get<std::string>());
    TY_CHECK(contains(version, "trainyard-worker 0.1.0 (protocol "));
    TY_CHECK(contains(version, ", " + build + ")\n"));
    TY_CHECK_EQ(runWorker({"--bogus"}, &err, &out), 2);
    TY_CHECK(contains(err, "unknown argument \"--bogus\""));
    TY_CHECK_EQ(runWorker({"--spec", "x.json"}, &err, &out), 2);
    TY_CHECK(contains(err, "--run-dir DIR is required"));
}

TY_TEST(badSpecsExitTwoNamingTheKey)
{
    std::string err;
    TY_CHECK_EQ(badRun("{not json", err), 2);
    TY_CHECK(contains(err, "not valid JSON"));
    TY_CHECK_EQ(badRun(R"({"train": {"lr": "x"}})", err), 2);
    TY_CHECK(contains(err, "train.lr: expected a number > 0"));
    TY_CHECK(contains(err, "got \"x\""));
    TY_CHECK_EQ(badRun(R"({"train": {"epochz": 3}})", err), 2);
    TY_CHECK(contains(err, "train.epochz: unknown key"));
    TY_CHECK_EQ(badRun(R"({"model": {"type": "transe", "dim": 0}})", err), 2);
    TY_CHECK(contains(err, "model.dim: expected an integer in [1, 4096], got 0"));
    TY_CHECK_EQ(runWorker({"--spec", "/nonexistent/spec.json", "--run-dir", testing::tempDir("nospec")}, &err), 2);
    TY_CHECK(contains(err, "/nonexistent/spec.json: cannot open"));
    // The error also reaches metrics.jsonl, with a done line.
    const auto [specPath, runDir] = prepare("badfile", R"({"train": {"epochs": -1}})");
    TY_CHECK_EQ(runWorker({"--spec", specPath, "--run-dir", runDir}), 2);
    const auto lines = readLines(runDir + "/metrics.jsonl");
    TY_REQUIRE(!ofType(lines, "done").empty());
    TY_CHECK_EQ(ofType(lines, "done").back()["exit_code"].get<int>(), 2);
    TY_CHECK_EQ(ofType(lines, "done").back()["status"].get<std::string>(), std::string("failed"));
}

TY_TEST(badDataExitsTwoNamingFileAndLine)
{
    std::string err;
    TY_CHECK_EQ(badRun(R"({"data": {"kind": "kg", "path": "/nonexistent/kg"}})", err), 2);
    TY_CHECK(contains(err, "data.path: /nonexistent/kg: No such file or directory"));
    const std::string kg = testing::tempDir("kgbad");
    testing::writeFile(kg + "/train.txt", "a\tr\tb\nb\tr\tc\nc r a\n");
    testing::writeFile(kg + "/valid.txt", "a\tr\tb\n");
    testing::writeFile(kg + "/test.txt", "a\tr\tb\n");
    TY_CHECK_EQ(badRun(R"({"data": {"kind": "kg", "path": ")" + kg + R"("}})", err), 2);
    TY_CHECK(contains(err, kg + "/train.txt:3: expected 3 tab-separated fields"));
    ::unlink((kg + "/valid.txt").c_str());
    TY_CHECK_EQ(badRun(R"({"data": {"kind": "kg", "path": ")" + kg + R"("}})", err), 2);
    TY_CHECK(contains(err, kg + "/train.txt:3") || contains(err, "valid.txt"));
    const std::string idx = testing::tempDir("idxbad");
    TY_CHECK_EQ(badRun(R"({"model": {"type": "mlp"}, "data": {"kind": "idx", "path": ")" + idx + R"("}})", err), 2);
    TY_CHECK(contains(err, "train-images-idx3-ubyte[.gz]: no such file"));
}

TY_TEST(unwritableRunDirAndAbsentGpuExitTwo)
{
    const std::string dir = testing::tempDir("rundir");
    testing::writeFile(dir + "/spec.json", "{}");
    testing::writeFile(dir + "/file", "not a folder");
    std::string err;
    TY_CHECK_EQ(runWorker({"--spec", dir + "/spec.json", "--run-dir", dir + "/file/run"}, &err), 2);
    TY_CHECK(contains(err, "--run-dir " + dir + "/file/run"));
    TY_CHECK_EQ(runWorker({"--spec", dir + "/spec.json", "--run-dir", dir + "/run", "--device", "cuda:7"}, &err), 2);
    TY_CHECK(contains(err, "--device cuda:7: no such GPU"));
    TY_CHECK(contains(err, "cuda:") || contains(err, "no usable CUDA GPU"));
    TY_CHECK_EQ(runWorker({"--spec", dir + "/spec.json", "--run-dir", dir + "/run", "--device", "tpu"}, &err), 2);
    TY_CHECK(contains(err, "--device: expected cpu or cuda:N"));
    TY_CHECK_EQ(runWorker({"--spec", dir + "/spec.json", "--run-dir", dir + "/run", "--connect", "pipe:x"}, &err), 2);
    TY_CHECK(contains(err, "--connect: expected unix:PATH or tcp:HOST:PORT"));
}

TY_TEST(orchestratorSteersTheRunAndResumeContinues)
{
    FakeOrchestrator orchestrator;
    const auto [specPath, runDir] = prepare("steer", kLongSpec);
    const std::string token = "s3cret-token-4711";
    WorkerProcess worker(
        {"--spec", specPath, "--run-dir", runDir, "--connect", orchestrator.address(), "--token", token});
    TY_REQUIRE(orchestrator.accept(30));

    const auto hello = orchestrator.next(30);
    TY_REQUIRE(!hello.is_null());
    TY_CHECK_EQ(hello["type"].get<std::string>(), std::string("hello"));
    TY_CHECK_EQ(hello["token"].get<std::string>(), token);
    TY_CHECK_EQ(hello["run"].get<std::string>(), std::string("steered"));
    TY_CHECK_EQ(hello["version"].get<int>(), 1);
    TY_CHECK_EQ(hello["pid"].get<int>(), static_cast<int>(worker.pid()));
    TY_CHECK_EQ(hello["device"].get<std::string>(), std::string("cpu"));

    const auto metric = orchestrator.nextOf("metric", 30);
    TY_REQUIRE(!metric.is_null());
    TY_CHECK(metric.contains("loss") && metric.contains("epoch") && metric.contains("wall"));
    TY_CHECK(metric["total_steps"].get<std::int64_t>() > 1000000);

    // Pause: heartbeats go on, metrics stop.
    orchestrator.send("pause");
    TY_REQUIRE(!orchestrator.nextOf("log", 10).is_null()); // "paused at step N"
    const auto beat = orchestrator.nextOf("heartbeat", 5);
    TY_CHECK(!beat.is_null());
    TY_CHECK(orchestrator.nextOf("metric", 1.5).is_null());
    orchestrator.send("resume");
    TY_CHECK(!orchestrator.nextOf("metric", 10).is_null());

    orchestrator.send("checkpoint-now");
    const auto checkpoint = orchestrator.nextOf("checkpoint", 20);
    TY_CHECK(!checkpoint.is_null());

    orchestrator.send("stop");
    TY_CHECK_EQ(worker.wait(60), 4);
    const auto lines = readLines(runDir + "/metrics.jsonl");
    TY_REQUIRE(!ofType(lines, "done").empty());
    TY_CHECK_EQ(ofType(lines, "done").back()["status"].get<std::string>(), std::string("stopped"));
    TY_CHECK(testing::readFile(runDir + "/metrics.jsonl").find(token) == std::string::npos);
    TY_CHECK(worker.err().find(token) == std::string::npos);
    const std::int64_t stoppedAt = ofType(lines, "metric").back()["step"].get<std::int64_t>();
    TY_CHECK(ofType(lines, "checkpoint").back()["step"].get<std::int64_t>() == stoppedAt);

    // --resume continues the step numbering from the checkpoint.
    const std::string resumeSpec = std::string(kLongSpec).replace(std::string(kLongSpec).find("\"epochs\": 100000"), 16,
                                                                  "\"max_steps\": " + std::to_string(stoppedAt + 20));
    testing::writeFile(specPath, resumeSpec);
    std::string err;
    TY_CHECK_EQ(runWorker({"--spec", specPath, "--run-dir", runDir, "--resume"}, &err), 0);
    const auto after = readLines(runDir + "/metrics.jsonl");
    bool sawResume = false;
    std::int64_t firstAfter = -1, last = -1;
    for (std::size_t i = lines.size(); i < after.size(); ++i) {
        if (after[i]["type"] == "log" && after[i]["text"] == "resumed from step " + std::to_string(stoppedAt)) {
            sawResume = true;
        }
        if (after[i]["type"] == "metric") {
            if (firstAfter < 0) {
                firstAfter = after[i]["step"];
            }
            last = after[i]["step"];
            TY_CHECK(after[i]["wall"].get<double>() >= lines.back()["wall"].get<double>() - 1e-6);
        }
    }
    TY_CHECK(sawResume);
    TY_CHECK_EQ(firstAfter, stoppedAt + 1);
    TY_CHECK_EQ(last, stoppedAt + 20);
    TY_CHECK_EQ(ofType(after, "done").back()["status"].get<std::string>(), std::string("finished"));
}

TY_TEST(reconnectsAfterThePeerCloses)
{
    FakeOrchestrator orchestrator;
    const auto [specPath, runDir] = prepare("reconnect", kLongSpec);
    WorkerProcess worker(
        {"--spec", specPath, "--run-dir", runDir, "--connect", orchestrator.address(), "--token", "t1"});
    TY_REQUIRE(orchestrator.accept(30));
    TY_REQUIRE(!orchestrator.nextOf("metric", 30).is_null());
    orchestrator.closeClient();
    TY_REQUIRE(orchestrator.accept(15)); // backoff starts at 100 ms
    const auto hello = orchestrator.next(10);
    TY_REQUIRE(!hello.is_null());
    TY_CHECK_EQ(hello["type"].get<std::string>(), std::string("hello"));
    TY_CHECK_EQ(hello["token"].get<std::string>(), std::string("t1"));
    TY_CHECK(!orchestrator.nextOf("metric", 10).is_null());
    ::kill(worker.pid(), SIGTERM); // a signal means stop
    TY_CHECK_EQ(worker.wait(60), 4);
}

// An autograd run starts itself again with short spin-waits (same process,
// same arguments, the token from the environment kept); a fused one does not.
TY_TEST(autogradRunsStartAgainWithShortSpins)
{
    FakeOrchestrator orchestrator;
    const auto [specPath, runDir] = prepare("spins", R"({"name": "spins", "model": {"type": "conv-transe", "dim": 8,
      "kernels": 4}, "data": {"kind": "synthetic-kg", "entities": 30, "relations": 2, "triples": 300},
      "train": {"max_steps": 4, "batch_size": 16}, "eval": {"every_epochs": 0}, "report": {"every_steps": 1}})");
    ::setenv(trainyard::WorkerOptions::kTokenVariable, "env-token-42", 1);
    WorkerProcess worker({"--spec", specPath, "--run-dir", runDir, "--connect", orchestrator.address()});
    ::unsetenv(trainyard::WorkerOptions::kTokenVariable);
    TY_REQUIRE(orchestrator.accept(30));
    const auto hello = orchestrator.next(30);
    TY_REQUIRE(!hello.is_null());
    TY_CHECK_EQ(hello["token"].get<std::string>(), std::string("env-token-42"));
    TY_CHECK_EQ(hello["pid"].get<int>(), static_cast<int>(worker.pid()));
    TY_CHECK_EQ(worker.wait(60), 0);
    TY_CHECK(startLine(runDir).find("threads 1 (short spin-waits)") != std::string::npos);
    TY_CHECK_EQ(ofType(readLines(runDir + "/metrics.jsonl"), "metric").size(), 4u);

    const auto [fusedSpec, fusedDir] = prepare("nospins", R"({"model": {"type": "transe", "dim": 8},
      "data": {"kind": "synthetic-kg", "entities": 30, "relations": 2, "triples": 300}, "train": {"max_steps": 2}})");
    std::string err;
    TY_CHECK_EQ(runWorker({"--spec", fusedSpec, "--run-dir", fusedDir}, &err), 0);
    TY_CHECK(!startLine(fusedDir).empty());
    TY_CHECK(startLine(fusedDir).find("short spin-waits") == std::string::npos);
}

// On a CPU OpenBLAS does not know, the worker starts again with the kernels
// for the CPU's vector units and says so (blascore.h); OPENBLAS_VERBOSE=2
// makes OpenBLAS print the core it loads, in each of the two processes. A
// value the user set is kept.
TY_TEST(openBlasGetsKernelsForTheCpuItDoesNotKnow)
{
    const char *spec = R"({"model": {"type": "transe", "dim": 8},
      "data": {"kind": "synthetic-kg", "entities": 30, "relations": 2, "triples": 300}, "train": {"max_steps": 2}})";
    const auto coresLoaded = [](const std::string &err) {
        std::vector<std::string> cores;
        for (std::size_t at = err.find("Core: "); at != std::string::npos; at = err.find("Core: ", at + 1)) {
            cores.push_back(err.substr(at + 6, err.find('\n', at) - at - 6));
        }
        return cores;
    };
    ::setenv("OPENBLAS_VERBOSE", "2", 1);
    const auto [specPath, runDir] = prepare("blascore", spec);
    std::string err;
    TY_CHECK_EQ(runWorker({"--spec", specPath, "--run-dir", runDir}, &err), 0);
    const auto cores = coresLoaded(err);
    if (cores.empty()) {
        ::unsetenv("OPENBLAS_VERBOSE");
        TY_SKIP("the worker's BLAS is not OpenBLAS (it printed no \"Core:\" line)");
    }
    const std::string better = trainyard::betterBlasCore(cores.front(), trainyard::CpuVectorUnits::ofThisCpu());
    std::cout << "  OpenBLAS chose " << cores.front() << "; the worker ran with "
              << (better.empty() ? cores.front() : better) << "\n";
    if (better.empty()) {
        TY_CHECK_EQ(cores.size(), 1u);
        TY_CHECK(startLine(runDir).find("OpenBLAS kernels") == std::string::npos);
    } else {
        TY_REQUIRE(cores.size() == 2u);
        TY_CHECK_EQ(cores.back(), better);
        TY_CHECK(
            startLine(runDir).find("(OpenBLAS kernels " + better + " instead of its own choice " + cores.front() + ")")
            != std::string::npos);
    }

    ::setenv("OPENBLAS_CORETYPE", "Prescott", 1);
    const auto [keptSpec, keptDir] = prepare("blascorekept", spec);
    TY_CHECK_EQ(runWorker({"--spec", keptSpec, "--run-dir", keptDir}, &err), 0);
    ::unsetenv("OPENBLAS_CORETYPE");
    ::unsetenv("OPENBLAS_VERBOSE");
    TY_CHECK(coresLoaded(err) == std::vector<std::string>{"Prescott"});
    TY_CHECK(startLine(keptDir).find("OpenBLAS kernels") == std::string::npos);
}

TY_TEST(trainsWithoutAnOrchestrator)
{
    // The socket is absent the whole time: training is not held up.
    const auto [specPath, runDir] = prepare("nosocket", R"({"model": {"type": "transe", "dim": 8},
      "data": {"kind": "synthetic-kg", "entities": 30, "relations": 2, "triples": 300},
      "train": {"max_steps": 30}, "report": {"every_steps": 10}})");
    std::string err;
    TY_CHECK_EQ(runWorker({"--spec", specPath, "--run-dir", runDir, "--connect", "unix:/nonexistent/sock"}, &err), 0);
    const auto lines = readLines(runDir + "/metrics.jsonl");
    TY_CHECK_EQ(ofType(lines, "metric").size(), 3u);
    TY_CHECK_EQ(ofType(lines, "metric").back()["step"].get<int>(), 30);
    TY_CHECK_EQ(ofType(lines, "done").back()["exit_code"].get<int>(), 0);
}

TY_TEST_MAIN()
