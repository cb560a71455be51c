#pragma once

#include "protocol/linedecoder.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

namespace trainyard {

// Where the orchestrator listens: `unix:PATH` or `tcp:HOST:PORT`.
struct Endpoint
{
    enum class Kind {
        Unix,
        Tcp
    };
    Kind kind = Kind::Unix;
    std::string path; // unix
    std::string host; // tcp
    int port = 0;     // tcp

    // Throws BadInput naming `--connect` when `text` is malformed.
    static Endpoint parse(const std::string &text);
    std::string toString() const;
};

// The worker's side of the orchestrator connection: non-blocking, never
// blocks or throws into training. It connects (and reconnects with
// exponential backoff after the peer goes away), sends the hello line first
// on every connection, then the queued lines, and decodes control lines with
// the protocol LineDecoder. Not thread-safe: one thread drives it by poll().
class SocketClient
{
public:
    // `hello` builds the first line of each connection (it carries the token).
    SocketClient(Endpoint endpoint, std::function<std::string()> hello);
    ~SocketClient();
    SocketClient(const SocketClient &) = delete;
    SocketClient &operator=(const SocketClient &) = delete;

    // Queues one encoded line ('\n' included). While disconnected at most
    // kMaxQueued lines are held (the oldest are dropped: the orchestrator
    // re-reads metrics.jsonl to fill gaps).
    void send(std::string line);

    // Connects when due, writes what the socket takes, reads control
    // messages into `controls`. Waits at most `timeoutMs` for I/O.
    void poll(int timeoutMs, std::vector<nlohmann::json> &controls);

    bool connected() const { return m_state == State::Connected; }
    bool idle() const { return m_queue.empty() && m_partial.empty(); }
    std::uint64_t connections() const { return m_connections; }
    std::uint64_t rejectedLines() const { return m_decoder.rejectedCount(); }

    static constexpr std::size_t kMaxQueued = 10000;
    static constexpr int kMinBackoffMs = 100;
    static constexpr int kMaxBackoffMs = 5000;

private:
    enum class State {
        Disconnected,
        Connecting,
        Connected
    };
    using Clock = std::chrono::steady_clock;

    void startConnect();
    void onConnected();
    void disconnect();
    void writeSome();
    void readSome(std::vector<nlohmann::json> &controls);

    Endpoint m_endpoint;
    std::function<std::string()> m_hello;
    State m_state = State::Disconnected;
    int m_fd = -1;
    Clock::time_point m_nextAttempt = Clock::now();
    int m_backoffMs = kMinBackoffMs;
    std::deque<std::string> m_queue;
    std::string m_partial; // the unsent rest of the line being written
    protocol::LineDecoder m_decoder;
    std::uint64_t m_connections = 0;
};

} // namespace trainyard
