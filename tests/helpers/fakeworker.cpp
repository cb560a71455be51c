// trainyard-fake-worker: speaks the worker protocol without LibTorch, so the
// orchestrator's tests and benchmarks can exercise every way a worker
// behaves or misbehaves, quickly and deterministically.
//
// Same command line as trainyard-worker:
//   trainyard-fake-worker --spec RUN.json --run-dir DIR [--connect unix:PATH|tcp:HOST:PORT]
//                         [--token T] [--device D] [--threads N] [--resume] [--cpu-fallback]
// The spec's "model" object says what to do:
//   {"type": "fake", "steps": 50, "step_ms": 10, "behaviour": "train", "at_step": 10}
// behaviour: train | crash (abort at at_step) | hang (silent from at_step,
// ignores stop and SIGTERM) | garbage (bad lines first, then trains) |
// flood (no delay between steps) | reconnect (drops the socket at at_step,
// trains on, reconnects) | fail (exit 1 at at_step) | fail-once (exit 1 at
// at_step unless resumed: a Retry from its checkpoint finishes) | diverge (exit 3 at
// at_step) | wrong-token (hello with a bad token) | no-hello (connects,
// sends nothing) | silent (exits 0 at once without a line: not a worker).
// "work": N makes every step a CPU busy loop of N iterations and adds
// "samples_per_s" (train.batch_size samples a step, default 100) to metric
// lines, so copies side by side really compete for the cores (slot probes).
// train.max_steps, when set, caps "steps" as it caps the real worker.
// A sweep's fake model: "quality": q makes valid/mrr q * (1 - 1 / (1 + 0.1 *
// step)) and gives eval lines their epoch (completed epochs of
// "steps_per_epoch" steps, default 10); train.epochs, when set, makes
// "steps" epochs * steps_per_epoch, so a trial trains to its sweep's max;
// "fails_above": f makes a quality above f fail at at_step (a sweep's
// failing trial that would have been its best).
//
// "rate": R paces the steps at R a second (catching up after a pause)
// instead of step_ms; "stamp": true adds "sent_at" (seconds since the epoch,
// the system clock) to each metric line as it is written: a benchmark on
// the same machine reads each line's latency from the store.
//
// With TRAINYARD_FAKE_NVML set (the fake NVML's state file, fakenvml.cpp),
// a worker whose CUDA_VISIBLE_DEVICES names GPUs ("1,3") holds
// TRAINYARD_FAKE_GPU_BYTES (default 1 GiB) on each of them while it runs.
//
// Benchmark mode: --bench LINES --rate PER_SECOND --run NAME (with
// --connect/--token): hello, then LINES metric lines at the given rate
// (0: as fast as the socket takes them), then done.

#include "fakenvmlregister.h"
#include "protocol/protocol.h"

#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace {

using Clock = std::chrono::steady_clock;
std::atomic<bool> g_stopSignal{false};

void onSignal(int)
{
    g_stopSignal = true;
}

struct Options
{
    std::string spec, runDir, connect, token, device = "cpu";
    bool resume = false;
    bool check = false; // --check: as the real worker, say whether the spec could run
    long benchLines = -1;
    double benchRate = 0;
    std::string benchRun = "bench";
};

class Connection
{
public:
    Connection(std::string address, std::string token, std::string run)
        : m_address(std::move(address))
        , m_token(std::move(token))
        , m_run(std::move(run))
    {
    }
    ~Connection() { close(); }

    bool enabled() const { return !m_address.empty(); }
    bool connected() const { return m_fd >= 0; }

    bool open(double wall, const std::string &tokenOverride = {}, bool sendHello = true)
    {
        if (!enabled()) {
            return false;
        }
        int fd = -1;
        if (m_address.rfind("unix:", 0) == 0) {
            fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
            sockaddr_un addr{};
            addr.sun_family = AF_UNIX;
            std::strncpy(addr.sun_path, m_address.c_str() + 5, sizeof addr.sun_path - 1);
            if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
                ::close(fd);
                return false;
            }
        } else if (m_address.rfind("tcp:", 0) == 0) {
            const std::string rest = m_address.substr(4);
            const auto colon = rest.rfind(':');
            addrinfo hints{}, *res = nullptr;
            hints.ai_socktype = SOCK_STREAM;
            if (::getaddrinfo(rest.substr(0, colon).c_str(), rest.substr(colon + 1).c_str(), &hints, &res) != 0) {
                return false;
            }
            fd = ::socket(res->ai_family, SOCK_STREAM, 0);
            const int rc = ::connect(fd, res->ai_addr, res->ai_addrlen);
            ::freeaddrinfo(res);
            if (rc != 0) {
                ::close(fd);
                return false;
            }
        } else {
            return false;
        }
        m_fd = fd;
        if (sendHello) {
            send(trainyard::protocol::encode(trainyard::protocol::hello(
                m_run, tokenOverride.empty() ? m_token : tokenOverride, ::getpid(), "cpu", wall)));
        }
        return connected();
    }

    void close()
    {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
        m_fd = -1;
    }

    void send(const std::string &line)
    {
        if (m_fd < 0) {
            return;
        }
        std::size_t done = 0;
        while (done < line.size()) {
            const ssize_t n = ::send(m_fd, line.data() + done, line.size() - done, MSG_NOSIGNAL);
            if (n <= 0) {
                close();
                return;
            }
            done += static_cast<std::size_t>(n);
        }
    }

    // Control messages received so far ("stop", "pause", ...).
    std::string poll()
    {
        if (m_fd < 0) {
            return {};
        }
        char buffer[4096];
        const ssize_t n = ::recv(m_fd, buffer, sizeof buffer, MSG_DONTWAIT);
        if (n == 0) {
            close();
            return {};
        }
        if (n > 0) {
            m_pending.append(buffer, static_cast<std::size_t>(n));
        }
        const auto nl = m_pending.find('\n');
        if (nl == std::string::npos) {
            return {};
        }
        const std::string line = m_pending.substr(0, nl);
        m_pending.erase(0, nl + 1);
        const auto message = nlohmann::json::parse(line, nullptr, false);
        return message.is_object() ? message.value("type", std::string()) : std::string();
    }

private:
    std::string m_address, m_token, m_run, m_pending;
    int m_fd = -1;
};

int runBench(const Options &o)
{
    Connection connection(o.connect, o.token, o.benchRun);
    if (!connection.open(0)) {
        std::fprintf(stderr, "fake-worker: cannot connect to %s\n", o.connect.c_str());
        return 1;
    }
    const auto start = Clock::now();
    char line[256];
    std::string batch;
    long sent = 0;
    while (sent < o.benchLines && connection.connected()) {
        long target = o.benchLines;
        const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        if (o.benchRate > 0) {
            target = std::min(o.benchLines, static_cast<long>(elapsed * o.benchRate) + 1);
        }
        batch.clear();
        for (; sent < target && batch.size() < 60000; ++sent) {
            const int n = std::snprintf(line, sizeof line,
                                        "{\"type\":\"metric\",\"wall\":%.4f,\"step\":%ld,\"epoch\":%ld,\"loss\":%.6f,"
                                        "\"lr\":0.001,\"samples_per_s\":%.1f}\n",
                                        elapsed, sent + 1, sent / 1000, 1.0 / (1.0 + 0.001 * sent), 1000.0 + sent % 7);
            batch.append(line, static_cast<std::size_t>(n));
        }
        connection.send(batch);
        if (o.benchRate > 0 && sent < o.benchLines) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }
    connection.send(trainyard::protocol::encode(trainyard::protocol::done("finished", 0, 0)));
    return 0;
}

std::string readFile(const std::string &path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

int main(int argc, char **argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : std::string(); };
        if (a == "--spec") {
            o.spec = value();
        } else if (a == "--run-dir") {
            o.runDir = value();
        } else if (a == "--connect") {
            o.connect = value();
        } else if (a == "--token") {
            o.token = value();
        } else if (a == "--device") {
            o.device = value();
        } else if (a == "--threads") {
            value();
        } else if (a == "--cpu-fallback")
            ; // a batch job's: the fake trains on no GPU anyway
        else if (a == "--resume") {
            o.resume = true;
        } else if (a == "--check") {
            o.check = true;
        } else if (a == "--bench") {
            o.benchLines = std::atol(value().c_str());
        } else if (a == "--rate") {
            o.benchRate = std::atof(value().c_str());
        } else if (a == "--run") {
            o.benchRun = value();
        } else if (a == "--version") {
            std::printf("trainyard-fake-worker 0.1.0\n");
            return 0;
        } else {
            std::fprintf(stderr, "fake-worker: unknown argument %s\n", a.c_str());
            return 2;
        }
    }
    // Like the real worker: the orchestrator passes the token in the environment.
    if (const char *t = std::getenv("TRAINYARD_TOKEN"); o.token.empty() && t) {
        o.token = t;
    }
    if (o.benchLines >= 0) {
        return runBench(o);
    }
    if (o.check) {
        // The fake model reads no data: a spec file that opens passes, as the real worker's check would.
        std::ifstream spec(o.spec);
        if (!spec) {
            std::fprintf(stderr, "trainyard-worker: %s: cannot open\n", o.spec.c_str());
            return 2;
        }
        return 0;
    }
    if (o.spec.empty() || o.runDir.empty()) {
        std::fprintf(stderr, "fake-worker: --spec and --run-dir are required\n");
        return 2;
    }
    const auto spec = nlohmann::json::parse(readFile(o.spec), nullptr, false);
    if (!spec.is_object()) {
        std::fprintf(stderr, "fake-worker: %s: not a JSON object\n", o.spec.c_str());
        return 2;
    }
    const auto model = spec.value("model", nlohmann::json::object());
    std::string behaviour = model.value("behaviour", std::string("train"));
    const auto train = spec.value("train", nlohmann::json::object());
    long steps = model.value("steps", 50L);
    const long stepsPerEpoch = std::max(1L, model.value("steps_per_epoch", 10L));
    const bool sweepModel = model.contains("quality");
    const double quality = model.value("quality", 1.0);
    if (model.contains("fails_above") && quality > model.value("fails_above", 0.0)) {
        behaviour = "fail";
    }
    if (behaviour == "fail-once") {
        behaviour = o.resume ? "train" : "fail";
    }
    if (train.contains("epochs") && train["epochs"].is_number_integer()) {
        steps = train["epochs"].get<long>() * stepsPerEpoch;
    }
    if (train.contains("max_steps") && train["max_steps"].is_number_integer()) {
        steps = std::min(steps, train["max_steps"].get<long>());
    }
    const long work = model.value("work", 0L);
    const double batch = train.value("batch_size", 100.0);
    const long stepMs = behaviour == "flood" ? 0 : model.value("step_ms", 10L);
    const double rate = model.value("rate", 0.0);
    const bool stamp = model.value("stamp", false);
    const long atStep = model.value("at_step", steps / 2);
    const long checkpointEvery = spec.value("checkpoint", nlohmann::json::object()).value("every_steps", 10L);
    const std::string name = spec.value("name", std::string("fake"));

    std::signal(SIGTERM, behaviour == "hang" ? SIG_IGN : onSignal);
    std::signal(SIGINT, behaviour == "hang" ? SIG_IGN : onSignal);
    std::signal(SIGPIPE, SIG_IGN);

    if (behaviour == "silent") {
        std::printf("fake-worker: %s exits 0 without reporting\n", name.c_str());
        return 0;
    }
    // After "silent": a process that is not a worker allocates nothing.
    if (const char *state = std::getenv("TRAINYARD_FAKE_NVML"); state && *state) {
        const std::vector<int> gpus = trainyard::fakenvml::visibleGpus(std::getenv("CUDA_VISIBLE_DEVICES"));
        std::string error;
        if (!gpus.empty()
            && !trainyard::fakenvml::registerProcess(state, gpus, trainyard::fakenvml::bytesPerGpu(), &error)) {
            std::fprintf(stderr, "fake-worker: cannot hold GPU memory: %s\n", error.c_str());
        }
    }
    ::mkdir((o.runDir + "/checkpoints").c_str(), 0755);
    const std::string checkpointPath = o.runDir + "/checkpoints/fake.ckpt";
    std::FILE *metrics = std::fopen((o.runDir + "/metrics.jsonl").c_str(), "a");
    if (!metrics) {
        std::fprintf(stderr, "fake-worker: cannot open metrics.jsonl in %s\n", o.runDir.c_str());
        return 1;
    }

    const auto start = Clock::now();
    double wallOffset = 0;
    long step = 0;
    if (o.resume) {
        std::ifstream in(checkpointPath);
        in >> step >> wallOffset;
    }
    auto wall = [&] { return wallOffset + std::chrono::duration<double>(Clock::now() - start).count(); };

    Connection connection(o.connect, o.token, name);
    auto emit = [&](const nlohmann::json &message) {
        const std::string line = trainyard::protocol::encode(message);
        std::fputs(line.c_str(), metrics);
        std::fflush(metrics);
        connection.send(line);
    };
    auto finish = [&](const char *status, int code) {
        emit(trainyard::protocol::done(status, code, wall()));
        std::fclose(metrics);
        std::printf("fake-worker: %s (exit %d) at step %ld\n", status, code, step);
        std::fflush(stdout);
        return code;
    };
    auto saveCheckpoint = [&] {
        std::ofstream out(checkpointPath, std::ios::trunc);
        out << step << ' ' << wall() << '\n';
    };

    if (behaviour == "wrong-token") {
        connection.open(wall(), std::string(64, '0'));
    } else if (behaviour == "no-hello") {
        // Connect without hello: the server must drop us.
        Connection silent(o.connect, o.token, name);
        silent.open(wall(), {}, false);
        std::this_thread::sleep_for(std::chrono::seconds(30));
        return 0;
    } else {
        connection.open(wall());
    }
    if (o.resume) {
        emit(trainyard::protocol::log("info", "resumed from step " + std::to_string(step), wall()));
    }
    if (behaviour == "garbage") {
        connection.send("this is not json\n");
        connection.send(std::string(100 * 1024, 'x') + "\n");
        connection.send("{\"type\":\"metric\",\"text\":\"\xff\xfe\"}\n");
        connection.send("[1,2,3]\n");
    }
    std::printf("fake-worker: %s starting at step %ld (%s)\n", name.c_str(), step, behaviour.c_str());
    std::fflush(stdout);

    auto lastReport = Clock::now();
    long stepsSinceReport = 0;
    volatile double sink = 0; // keeps the busy loop from being optimised away
    auto lastHeartbeat = Clock::now();
    auto lastConnectTry = Clock::now();
    bool paused = false;
    bool hung = false;
    auto paceOrigin = Clock::now(); // "rate": when step paceStep was due
    long paceStep = -1;
    while (step < steps || paused) {
        // Control from the socket, signals, reconnection.
        for (std::string control = connection.poll(); !control.empty(); control = connection.poll()) {
            if (control == "stop" && !hung) {
                g_stopSignal = true;
            } else if (control == "pause") {
                paused = true;
            } else if (control == "resume") {
                paused = false;
            } else if (control == "checkpoint-now") {
                saveCheckpoint();
            }
        }
        if (g_stopSignal) {
            saveCheckpoint();
            return finish("stopped", 4);
        }
        if (connection.enabled() && !connection.connected() && !hung
            && Clock::now() - lastConnectTry > std::chrono::milliseconds(200)) {
            lastConnectTry = Clock::now();
            connection.open(wall());
        }
        if (!hung && Clock::now() - lastHeartbeat > std::chrono::milliseconds(500)) {
            lastHeartbeat = Clock::now();
            emit(trainyard::protocol::heartbeat(step, wall()));
        }
        if (paused || hung) {
            paceStep = -1;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            continue;
        }

        ++step;
        if (step == atStep) {
            if (behaviour == "crash") {
                std::fprintf(stderr, "fake-worker: crashing on purpose at step %ld\n", step);
                std::abort();
            }
            if (behaviour == "fail") {
                std::fprintf(stderr, "fake-worker: failing on purpose at step %ld\n", step);
                return finish("failed", 1);
            }
            if (behaviour == "diverge") {
                std::fprintf(stderr, "fake-worker: loss is NaN at step %ld\n", step);
                return finish("diverged", 3);
            }
            if (behaviour == "hang") {
                hung = true;
                connection.close();
                continue;
            }
            if (behaviour == "reconnect") {
                connection.close();
                lastConnectTry = Clock::now() + std::chrono::milliseconds(300);
            }
        }
        nlohmann::json m =
            trainyard::protocol::metric(step, (step - 1) / stepsPerEpoch, 1.0 / (1.0 + 0.05 * step), wall());
        m["lr"] = 0.01;
        m["total_steps"] = steps;
        if (stamp) {
            m["sent_at"] = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
        }
        if (work > 0) {
            double x = 1.0;
            for (long i = 0; i < work; ++i) {
                x = x * 1.0000001 + 1e-9;
            }
            sink = sink + x;
            ++stepsSinceReport;
            const double elapsed = std::chrono::duration<double>(Clock::now() - lastReport).count();
            if (elapsed > 0) {
                m["samples_per_s"] = batch * static_cast<double>(stepsSinceReport) / elapsed;
            }
            lastReport = Clock::now();
            stepsSinceReport = 0;
        }
        emit(m);
        if (step % stepsPerEpoch == 0) {
            nlohmann::json e = trainyard::protocol::evalResult(step, "valid", wall());
            e["mrr"] = quality * (1.0 - 1.0 / (1.0 + 0.1 * step));
            if (sweepModel) {
                e["epoch"] = step / stepsPerEpoch;
            }
            e["hits@10"] = std::min(1.0, 0.01 * step);
            emit(e);
        }
        if (checkpointEvery > 0 && step % checkpointEvery == 0) {
            saveCheckpoint();
        }
        if (rate > 0) {
            // Paced from the first step after a start or a pause: no burst.
            if (paceStep < 0) {
                paceOrigin = Clock::now();
                paceStep = step;
            }
            std::this_thread::sleep_until(
                paceOrigin
                + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>((step - paceStep) / rate)));
        } else if (stepMs > 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(stepMs));
        }
    }
    return finish("finished", 0);
}
