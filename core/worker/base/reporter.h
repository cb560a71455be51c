#pragma once

#include "worker/base/metricsfile.h"
#include "worker/base/socketclient.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace trainyard {

// Sends every message of a run to RUN_DIR/metrics.jsonl and, when connected,
// to the orchestrator; keeps the control state (stop, pause, checkpoint-now)
// the orchestrator or a signal asked for. A background thread drives the
// socket and sends a heartbeat every second, so heartbeats keep coming while
// the training thread loads data, evaluates or sits paused.
class Reporter
{
public:
    struct Options
    {
        std::string metricsPath;
        std::string runName;
        std::string device;
        std::string token;               // sent on the socket only
        std::optional<Endpoint> connect; // none: file only
        double heartbeatSeconds = 1.0;
    };

    // Throws BadInput when metrics.jsonl cannot be opened.
    explicit Reporter(Options options);
    ~Reporter(); // flushes the socket (bounded) and joins the thread

    // Seconds since the run started, resumed runs included.
    double wall() const;
    void setWallOffset(double seconds);
    // For --resume: continues the clock from the checkpoint's wall, or from
    // the last wall already in metrics.jsonl when that is later.
    void resumeWall(double checkpointWall);

    // Writes one message (it must carry "type"; "wall" is added if absent).
    void emit(nlohmann::json message);
    void log(const std::string &level, const std::string &text);

    // The step heartbeats report.
    void setStep(std::int64_t step) { m_step.store(step, std::memory_order_relaxed); }

    // Control state, polled by the trainer at every step (cheap atomics).
    bool stopRequested() const;
    // The stop came as SIGUSR2 (a batch job's time limit is near): exit with
    // ExitCode::Requeue after the checkpoint, not Stopped.
    bool requeueRequested() const;
    bool paused() const { return m_paused.load(std::memory_order_relaxed); }
    bool takeCheckpointRequest() { return m_checkpointNow.exchange(false); }
    void requestStop()
    {
        m_stop.store(true);
        m_wake.notify_all();
    }
    // Blocks while paused and no stop is asked for.
    void waitWhilePaused();

    // Waits up to `seconds` until the socket has sent everything queued.
    void flush(double seconds);

    bool connected() const { return m_connected.load(); }

    // SIGTERM and SIGINT ask every Reporter of the process to stop.
    static void installSignalHandlers();

private:
    using Clock = std::chrono::steady_clock;

    void ioLoop();
    void handleControl(const nlohmann::json &message);
    void write(const nlohmann::json &message);

    Options m_options;
    MetricsFile m_file;
    const Clock::time_point m_start = Clock::now();
    std::atomic<double> m_offset{0.0};
    std::atomic<std::int64_t> m_step{0};

    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_paused{false};
    std::atomic<bool> m_checkpointNow{false};
    std::atomic<bool> m_connected{false};

    std::mutex m_mutex; // guards the file, m_outbox and m_socketIdle
    std::condition_variable m_wake;
    std::vector<std::string> m_outbox; // lines for the socket thread
    bool m_socketIdle = true;
    bool m_quit = false;
    std::unique_ptr<SocketClient> m_client;
    std::thread m_thread;
};

} // namespace trainyard
