#pragma once

#include <string>

namespace trainyard {

// RUN_DIR/metrics.jsonl, opened for appending. Each line goes to the kernel
// with one write() so that a reader (pandas, the orchestrator filling a gap)
// never sees half a line and a crash loses nothing already reported.
class MetricsFile
{
public:
    // Throws BadInput when the file cannot be created or opened for writing.
    explicit MetricsFile(const std::string &path);
    ~MetricsFile();
    MetricsFile(const MetricsFile &) = delete;
    MetricsFile &operator=(const MetricsFile &) = delete;

    // `line` ends with '\n'. A failing write is reported once on stderr and
    // does not stop training.
    void write(const std::string &line);

    const std::string &path() const { return m_path; }

private:
    std::string m_path;
    int m_fd = -1;
    bool m_warned = false;
};

} // namespace trainyard
