#include "worker/base/metricsfile.h"

#include "worker/base/badinput.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace trainyard {

MetricsFile::MetricsFile(const std::string &path)
    : m_path(path)
{
    m_fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (m_fd < 0) {
        throw BadInput(path + ": cannot open for writing (" + std::strerror(errno) + ")");
    }
}

MetricsFile::~MetricsFile()
{
    if (m_fd >= 0) {
        ::close(m_fd);
    }
}

void MetricsFile::write(const std::string &line)
{
    const char *data = line.data();
    std::size_t left = line.size();
    while (left > 0) {
        const ssize_t n = ::write(m_fd, data, left);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            if (!m_warned) {
                std::cerr << "trainyard-worker: " << m_path << ": write failed (" << std::strerror(errno)
                          << "); metrics lines are being lost\n";
            }
            m_warned = true;
            return;
        }
        data += n;
        left -= static_cast<std::size_t>(n);
    }
}

double MetricsFile::lastWall(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return 0.0;
    }
    constexpr std::streamoff kTail = 64 * 1024;
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    const bool cut = size > kTail;
    in.seekg(cut ? size - kTail : 0);
    std::string line;
    if (cut) {
        std::getline(in, line); // most likely a piece of a line
    }
    double wall = 0.0;
    while (std::getline(in, line)) {
        if (in.eof()) {
            break; // no newline: a torn last line
        }
        const auto json = nlohmann::json::parse(line, nullptr, false);
        if (json.is_object() && json.contains("wall") && json["wall"].is_number()) {
            wall = std::max(wall, json["wall"].get<double>());
        }
    }
    return wall;
}

} // namespace trainyard
