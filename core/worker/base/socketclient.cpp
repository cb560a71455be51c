#include "worker/base/socketclient.h"

#include "protocol/protocol.h"
#include "worker/base/badinput.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace trainyard {

Endpoint Endpoint::parse(const std::string &text)
{
    Endpoint e;
    if (text.rfind("unix:", 0) == 0) {
        e.kind = Kind::Unix;
        e.path = text.substr(5);
        if (e.path.empty()) {
            throw BadInput("--connect: unix: needs a socket path, e.g. unix:/run/user/1000/trainyard/sock");
        }
        if (e.path.size() >= sizeof(sockaddr_un::sun_path)) {
            throw BadInput("--connect: socket path longer than " + std::to_string(sizeof(sockaddr_un::sun_path) - 1)
                           + " bytes: " + e.path);
        }
        return e;
    }
    if (text.rfind("tcp:", 0) == 0) {
        e.kind = Kind::Tcp;
        const std::string rest = text.substr(4);
        const auto colon = rest.rfind(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == rest.size()) {
            throw BadInput("--connect: expected tcp:HOST:PORT, got \"" + text + "\"");
        }
        e.host = rest.substr(0, colon);
        if (e.host.size() > 2 && e.host.front() == '[' && e.host.back() == ']') {
            e.host = e.host.substr(1, e.host.size() - 2);
        }
        const std::string port = rest.substr(colon + 1);
        if (port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5) {
            throw BadInput("--connect: port must be a number in [1, 65535], got \"" + port + "\"");
        }
        e.port = std::stoi(port);
        if (e.port < 1 || e.port > 65535) {
            throw BadInput("--connect: port must be a number in [1, 65535], got \"" + port + "\"");
        }
        return e;
    }
    throw BadInput("--connect: expected unix:PATH or tcp:HOST:PORT, got \"" + text + "\"");
}

std::string Endpoint::toString() const
{
    return kind == Kind::Unix ? "unix:" + path : "tcp:" + host + ":" + std::to_string(port);
}

SocketClient::SocketClient(Endpoint endpoint, std::function<std::string()> hello)
    : m_endpoint(std::move(endpoint))
    , m_hello(std::move(hello))
{
}

SocketClient::~SocketClient()
{
    if (m_fd >= 0) {
        ::close(m_fd);
    }
}

void SocketClient::send(std::string line)
{
    m_queue.push_back(std::move(line));
    if (m_state != State::Connected) {
        while (m_queue.size() > kMaxQueued) {
            m_queue.pop_front();
        }
    }
}

void SocketClient::startConnect()
{
    m_nextAttempt = Clock::now() + std::chrono::milliseconds(m_backoffMs);
    m_backoffMs = std::min(m_backoffMs * 2, kMaxBackoffMs);

    if (m_endpoint.kind == Endpoint::Kind::Unix) {
        m_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (m_fd < 0) {
            return;
        }
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::memcpy(addr.sun_path, m_endpoint.path.c_str(), m_endpoint.path.size() + 1);
        if (::connect(m_fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0) {
            onConnected();
            return;
        }
        if (errno == EINPROGRESS || errno == EAGAIN) {
            m_state = State::Connecting;
            return;
        }
        ::close(m_fd);
        m_fd = -1;
        return;
    }

    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *result = nullptr;
    if (::getaddrinfo(m_endpoint.host.c_str(), std::to_string(m_endpoint.port).c_str(), &hints, &result) != 0
        || !result) {
        return;
    }
    m_fd = ::socket(result->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (m_fd >= 0) {
        const int one = 1;
        ::setsockopt(m_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (::connect(m_fd, result->ai_addr, result->ai_addrlen) == 0) {
            onConnected();
        } else if (errno == EINPROGRESS) {
            m_state = State::Connecting;
        } else {
            ::close(m_fd);
            m_fd = -1;
        }
    }
    ::freeaddrinfo(result);
}

void SocketClient::onConnected()
{
    m_state = State::Connected;
    m_backoffMs = kMinBackoffMs;
    ++m_connections;
    m_decoder = protocol::LineDecoder();
    // The hello goes first so the orchestrator can authenticate before
    // anything else.
    m_partial = m_hello();
}

void SocketClient::disconnect()
{
    if (m_fd >= 0) {
        ::close(m_fd);
    }
    m_fd = -1;
    m_state = State::Disconnected;
    // A line half sent is lost (the file keeps it), and so is an unsent
    // hello: the next connection starts with a fresh one.
    m_partial.clear();
    while (m_queue.size() > kMaxQueued) {
        m_queue.pop_front();
    }
}

void SocketClient::writeSome()
{
    while (m_state == State::Connected) {
        if (m_partial.empty()) {
            if (m_queue.empty()) {
                return;
            }
            m_partial = std::move(m_queue.front());
            m_queue.pop_front();
        }
        const ssize_t n = ::send(m_fd, m_partial.data(), m_partial.size(), MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                return;
            }
            disconnect();
            return;
        }
        m_partial.erase(0, static_cast<std::size_t>(n));
    }
}

void SocketClient::readSome(std::vector<nlohmann::json> &controls)
{
    char buffer[4096];
    while (m_state == State::Connected) {
        const ssize_t n = ::recv(m_fd, buffer, sizeof buffer, 0);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                disconnect();
            }
            break;
        }
        if (n == 0) {
            disconnect();
            break;
        }
        m_decoder.feed(buffer, static_cast<std::size_t>(n));
    }
    protocol::LineDecoder::Result result;
    while (m_decoder.next(result)) {
        if (result.status != protocol::LineDecoder::Status::Message) {
            continue;
        }
        switch (protocol::typeOf(result.message)) {
        case protocol::MessageType::Stop:
        case protocol::MessageType::Pause:
        case protocol::MessageType::Resume:
        case protocol::MessageType::CheckpointNow:
            controls.push_back(std::move(result.message));
            break;
        default:
            break; // anything else is not for the worker
        }
    }
}

void SocketClient::poll(int timeoutMs, std::vector<nlohmann::json> &controls)
{
    if (m_state == State::Disconnected) {
        if (Clock::now() >= m_nextAttempt) {
            startConnect();
        }
        if (m_state == State::Disconnected) {
            const auto wait =
                std::chrono::duration_cast<std::chrono::milliseconds>(m_nextAttempt - Clock::now()).count();
            const int ms = static_cast<int>(std::clamp<long long>(wait, 0, timeoutMs));
            if (ms > 0) {
                ::poll(nullptr, 0, ms);
            }
            return;
        }
    }

    pollfd pfd{};
    pfd.fd = m_fd;
    pfd.events = POLLIN;
    if (m_state == State::Connecting || !m_partial.empty() || !m_queue.empty()) {
        pfd.events |= POLLOUT;
    }
    const int ready = ::poll(&pfd, 1, timeoutMs);
    if (ready <= 0) {
        return;
    }

    if (m_state == State::Connecting) {
        if (!(pfd.revents & (POLLOUT | POLLERR | POLLHUP))) {
            return;
        }
        int error = 0;
        socklen_t len = sizeof error;
        if (::getsockopt(m_fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0 || error != 0) {
            disconnect();
            return;
        }
        onConnected();
    }
    if (pfd.revents & (POLLIN | POLLHUP | POLLERR)) {
        readSome(controls);
    }
    writeSome();
}

} // namespace trainyard
