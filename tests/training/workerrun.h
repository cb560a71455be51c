#pragma once

// Test helper: runs trainyard-worker (env TRAINYARD_WORKER) as a child
// process, with a timeout, and reads what it wrote.

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <signal.h>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace testing {

inline std::string workerPath()
{
    const char *path = std::getenv("TRAINYARD_WORKER");
    return path ? path : "trainyard-worker";
}

// A fresh, empty temporary folder.
inline std::string tempDir(const std::string &tag)
{
    std::string pattern = "/tmp/ty-" + tag + "-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    const char *dir = ::mkdtemp(buffer.data());
    return dir ? dir : "/tmp";
}

inline void writeFile(const std::string &path, const std::string &text)
{
    std::ofstream out(path, std::ios::binary);
    out << text;
}

inline std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Every line of a metrics.jsonl.
inline std::vector<nlohmann::json> readLines(const std::string &path)
{
    std::vector<nlohmann::json> lines;
    std::istringstream in(readFile(path));
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty()) {
            lines.push_back(nlohmann::json::parse(line));
        }
    }
    return lines;
}

inline std::vector<nlohmann::json> ofType(const std::vector<nlohmann::json> &lines, const std::string &type)
{
    std::vector<nlohmann::json> out;
    for (const auto &l : lines) {
        if (l.value("type", "") == type) {
            out.push_back(l);
        }
    }
    return out;
}

// A started worker process; stdout and stderr go to files.
class WorkerProcess
{
public:
    explicit WorkerProcess(const std::vector<std::string> &args, const std::string &outputDir = "")
    {
        const std::string dir = outputDir.empty() ? tempDir("out") : outputDir;
        m_stdout = dir + "/stdout.txt";
        m_stderr = dir + "/stderr.txt";
        m_pid = ::fork();
        if (m_pid == 0) {
            const int out = ::open(m_stdout.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            const int err = ::open(m_stderr.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            ::dup2(out, 1);
            ::dup2(err, 2);
            std::vector<std::string> all = {workerPath()};
            all.insert(all.end(), args.begin(), args.end());
            std::vector<char *> argv;
            for (auto &a : all) {
                argv.push_back(a.data());
            }
            argv.push_back(nullptr);
            ::execv(argv[0], argv.data());
            ::_exit(127);
        }
    }

    ~WorkerProcess()
    {
        if (m_pid > 0 && m_status < 0) {
            ::kill(m_pid, SIGKILL);
            ::waitpid(m_pid, nullptr, 0);
        }
    }

    pid_t pid() const { return m_pid; }

    // Exit status, or -1 on timeout (the process is then killed), or
    // 128 + signal when killed by a signal.
    int wait(double seconds = 120.0)
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
        while (m_status < 0) {
            int status = 0;
            const pid_t r = ::waitpid(m_pid, &status, WNOHANG);
            if (r == m_pid) {
                m_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                break;
            }
            if (std::chrono::steady_clock::now() > deadline) {
                ::kill(m_pid, SIGKILL);
                ::waitpid(m_pid, nullptr, 0);
                m_status = 1000;
                return -1;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return m_status;
    }

    std::string out() const { return readFile(m_stdout); }
    std::string err() const { return readFile(m_stderr); }

private:
    pid_t m_pid = -1;
    int m_status = -1;
    std::string m_stdout;
    std::string m_stderr;
};

// Runs the worker to completion.
inline int runWorker(const std::vector<std::string> &args, std::string *err = nullptr, std::string *out = nullptr,
                     double seconds = 120.0)
{
    WorkerProcess p(args);
    const int code = p.wait(seconds);
    if (err) {
        *err = p.err();
    }
    if (out) {
        *out = p.out();
    }
    return code;
}

} // namespace testing
