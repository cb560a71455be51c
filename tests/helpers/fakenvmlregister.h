#pragma once

// How a process of the tests "allocates" on the fake NVML's GPUs
// (fakenvml.cpp): a "proc PID GPU BYTES" line per GPU appended to the state
// file TRAINYARD_FAKE_NVML. One write() a line on an O_APPEND descriptor, so
// processes registering at once never tear each other's lines. The memory is
// freed when the process is gone (the library skips dead pids). Used by
// trainyard-fake-worker and trainyard-fake-gpu-alloc.

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace trainyard::fakenvml {

// The GPU indices of a CUDA_VISIBLE_DEVICES list ("2,5"), read as CUDA
// reads it: up to the first entry that is not an index.
inline std::vector<int> visibleGpus(const char *list)
{
    std::vector<int> out;
    const std::string s = list ? list : "";
    std::size_t start = 0;
    while (start < s.size()) {
        const std::size_t comma = std::min(s.find(',', start), s.size());
        const std::string entry = s.substr(start, comma - start);
        if (entry.empty() || entry.size() > 4 || entry.find_first_not_of("0123456789") != std::string::npos) {
            break;
        }
        out.push_back(std::atoi(entry.c_str()));
        start = comma + 1;
    }
    return out;
}

// TRAINYARD_FAKE_GPU_BYTES, else 1 GiB.
inline unsigned long long bytesPerGpu()
{
    const char *v = std::getenv("TRAINYARD_FAKE_GPU_BYTES");
    if (v && *v >= '0' && *v <= '9') {
        return std::strtoull(v, nullptr, 10);
    }
    return 1ull << 30;
}

// Appends this process's lines; false with `error` set when the file
// cannot be written (it is never created here: it is the test's).
inline bool registerProcess(const char *stateFile, const std::vector<int> &gpus, unsigned long long bytes,
                            std::string *error)
{
    const int fd = ::open(stateFile, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) {
        *error = std::string(stateFile) + ": " + std::strerror(errno);
        return false;
    }
    bool ok = true;
    for (int gpu : gpus) {
        char line[96];
        const int n = std::snprintf(line, sizeof line, "proc %ld %d %llu\n", static_cast<long>(::getpid()), gpu, bytes);
        if (::write(fd, line, static_cast<std::size_t>(n)) != n) {
            *error = std::string(stateFile) + ": " + std::strerror(errno);
            ok = false;
            break;
        }
    }
    ::close(fd);
    return ok;
}

} // namespace trainyard::fakenvml
