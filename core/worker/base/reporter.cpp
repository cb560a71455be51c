#include "worker/base/reporter.h"

#include "protocol/protocol.h"

#include <algorithm>
#include <csignal>
#include <unistd.h>

namespace trainyard {

namespace {

volatile std::sig_atomic_t g_signalled = 0;
volatile std::sig_atomic_t g_requeue = 0;

extern "C" void onStopSignal(int)
{
    g_signalled = 1;
}

// Slurm's warning before a job's time limit (sbatch --signal=B:USR2@N):
// stop as for TERM, but say so, so that the orchestrator resubmits.
extern "C" void onRequeueSignal(int)
{
    g_requeue = 1;
    g_signalled = 1;
}

} // namespace

void Reporter::installSignalHandlers()
{
    struct sigaction action
    {};
    action.sa_handler = onStopSignal;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGTERM, &action, nullptr);
    ::sigaction(SIGINT, &action, nullptr);
    action.sa_handler = onRequeueSignal;
    ::sigaction(SIGUSR2, &action, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
}

Reporter::Reporter(Options options)
    : m_options(std::move(options))
    , m_file(m_options.metricsPath)
{
    if (m_options.connect) {
        m_client = std::make_unique<SocketClient>(*m_options.connect, [this]() {
            return protocol::encode(
                protocol::hello(m_options.runName, m_options.token, ::getpid(), m_options.device, wall()));
        });
    }
    m_thread = std::thread([this]() { ioLoop(); });
}

Reporter::~Reporter()
{
    flush(2.0);
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_quit = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable()) {
        m_thread.join();
    }
}

double Reporter::wall() const
{
    return m_offset.load() + std::chrono::duration<double>(Clock::now() - m_start).count();
}

void Reporter::setWallOffset(double seconds)
{
    // m_start stays fixed so the I/O thread can read it without a lock.
    m_offset.store(seconds - std::chrono::duration<double>(Clock::now() - m_start).count());
}

void Reporter::resumeWall(double checkpointWall)
{
    setWallOffset(std::max(checkpointWall, MetricsFile::lastWall(m_file.path())));
}

bool Reporter::requeueRequested() const
{
    return g_requeue != 0;
}

bool Reporter::stopRequested() const
{
    return m_stop.load(std::memory_order_relaxed) || g_signalled;
}

void Reporter::emit(nlohmann::json message)
{
    if (!message.contains("wall")) {
        message["wall"] = wall();
    }
    write(message);
}

void Reporter::log(const std::string &level, const std::string &text)
{
    emit(protocol::log(level, text, wall()));
}

void Reporter::write(const nlohmann::json &message)
{
    const std::string line = protocol::encode(message);
    std::lock_guard<std::mutex> lock(m_mutex);
    m_file.write(line);
    if (m_client) {
        m_outbox.push_back(line);
        m_socketIdle = false;
    }
}

void Reporter::waitWhilePaused()
{
    std::unique_lock<std::mutex> lock(m_mutex);
    while (m_paused.load() && !stopRequested()) {
        m_wake.wait_for(lock, std::chrono::milliseconds(100));
    }
}

void Reporter::flush(double seconds)
{
    if (!m_client) {
        return;
    }
    const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
    std::unique_lock<std::mutex> lock(m_mutex);
    while (!(m_socketIdle && m_outbox.empty()) && m_connected.load() && Clock::now() < deadline) {
        m_wake.wait_for(lock, std::chrono::milliseconds(10));
    }
}

void Reporter::handleControl(const nlohmann::json &message)
{
    switch (protocol::typeOf(message)) {
    case protocol::MessageType::Stop:
        m_stop.store(true);
        break;
    case protocol::MessageType::Pause:
        m_paused.store(true);
        break;
    case protocol::MessageType::Resume:
        m_paused.store(false);
        break;
    case protocol::MessageType::CheckpointNow:
        m_checkpointNow.store(true);
        break;
    default:
        break;
    }
    m_wake.notify_all();
}

void Reporter::ioLoop()
{
    auto nextHeartbeat = Clock::now() + std::chrono::duration<double>(m_options.heartbeatSeconds);
    std::vector<std::string> lines;
    std::vector<nlohmann::json> controls;
    while (true) {
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            if (m_quit) {
                return;
            }
            if (!m_client) {
                m_wake.wait_until(lock, nextHeartbeat, [this]() { return m_quit; });
            }
            if (m_quit) {
                return;
            }
            lines.swap(m_outbox);
        }
        if (m_client) {
            for (auto &line : lines) {
                m_client->send(std::move(line));
            }
            lines.clear();
            m_client->poll(20, controls);
            m_connected.store(m_client->connected());
            for (const auto &c : controls) {
                handleControl(c);
            }
            controls.clear();
            const bool idle = m_client->idle();
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                m_socketIdle = idle && m_outbox.empty();
            }
            m_wake.notify_all();
        }
        if (g_signalled) {
            m_wake.notify_all();
        }
        if (Clock::now() >= nextHeartbeat) {
            write(protocol::heartbeat(m_step.load(), wall()));
            nextHeartbeat = Clock::now() + std::chrono::duration<double>(m_options.heartbeatSeconds);
        }
    }
}

} // namespace trainyard
