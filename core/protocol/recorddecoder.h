#pragma once

#include "protocol/metricrecord.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace trainyard::protocol {

// The one decoder of worker lines, for the metrics socket (MetricsServer)
// and metrics.jsonl (MetricsLogReader) alike. It frames a byte stream,
// arriving in any chunking, into '\n'-terminated lines and decodes each line
// once into a MetricRecord:
//  - the fast path: a plain metric line is parsed in place (MetricLine: no
//    JSON tree, no allocation), the message that arrives by the hundred
//    thousand;
//  - the full path for everything else: the checks of protocol::LineDecoder
//    (UTF-8, nesting, JSON, an object; parseJsonLine), then
//    MetricRecord::fromJson, which applies protocol::validate once.
// A line over the size limit (protocol::kMaxLineBytes) is reported when it
// is found and skipped up to its newline without being buffered; an
// incomplete line is kept for the next chunk. Blank lines (whitespace only)
// are keep-alives: neither records nor errors. Nothing throws.
class RecordDecoder
{
public:
    enum class Status {
        Record,      // record() holds the line's message
        Blank,       // a keep-alive (decodeLine only: next() skips them)
        Oversized,   // longer than the limit
        InvalidUtf8, // not UTF-8
        NotJson,     // not JSON, or nested too deep
        NotObject,   // JSON, but no object
        Invalid      // a JSON object that fails protocol::validate, or a control message
    };

    explicit RecordDecoder(std::size_t maxLineBytes = 0 /* 0: protocol default */);

    // Hands over the next bytes; then call next() until it returns false
    // before feeding more. `data` must stay valid until then: a line that
    // lies whole in it is decoded where it is, only a line that spans
    // chunks is copied (at most the size limit).
    void feed(const char *data, std::size_t size);
    // Decodes the next complete line of what was fed; false when there is
    // none (the rest is kept). Blank lines are skipped.
    bool next(Status *status);
    // Forgets any incomplete line and the stream position: a new stream.
    void reset();

    // Decodes one line, without its '\n' (as next() does each line).
    Status decodeLine(const char *text, std::size_t size);

    // The message of the line that gave Status::Record, until the next line.
    const MetricRecord &record() const { return m_record; }
    // That line as JSON when it took the full path (the hello's token lives
    // only here: a record never keeps it); null after the fast path.
    const nlohmann::json &message() const { return m_message; }
    // Why the last line that was no record was refused.
    const std::string &error() const { return m_error; }

    // Bytes of the stream up to the end of its last complete line (blank,
    // refused and oversized lines included): where a reader that stops now
    // resumes.
    std::uint64_t consumed() const { return m_consumed; }
    // Where, in the stream, the line next() last reported starts.
    std::uint64_t lineStart() const { return m_lineStart; }
    // An incomplete line is held (or, inside an oversized one, dropped).
    bool midLine() const { return m_discarding || !m_pending.empty(); }
    bool discarding() const { return m_discarding; }

private:
    Status oversized();

    std::size_t m_maxLine;
    MetricRecord m_record;
    nlohmann::json m_message;
    std::string m_error;
    std::string m_pending;        // the incomplete line that spans chunks
    const char *m_data = nullptr; // the chunk being framed
    const char *m_pos = nullptr;
    const char *m_end = nullptr;
    std::uint64_t m_chunkStart = 0; // stream offset of m_data
    std::uint64_t m_consumed = 0;
    std::uint64_t m_lineStart = 0;
    bool m_discarding = false; // inside an oversized line
};

} // namespace trainyard::protocol
