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

    // The largest "wall" among the complete lines in the last 64 KiB of the
    // file at `path`; 0 when there is none (no file, torn or foreign lines
    // are skipped). A resumed run starts its clock there, so that the time
    // spent after its checkpoint (the final save, the done line) never makes
    // the clock run backwards in the file.
    static double lastWall(const std::string &path);

private:
    std::string m_path;
    int m_fd = -1;
    bool m_warned = false;
};

} // namespace trainyard
