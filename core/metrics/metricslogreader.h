#pragma once

#include "protocol/metricrecord.h"

#include <QString>
#include <QtGlobal>

#include <functional>
#include <memory>
#include <string>

namespace trainyard {

// The one reader of a run's metrics.jsonl (docs/protocol.md):
// reads the file from a byte offset to its end and hands on one
// MetricRecord per line, so a caller that keeps the returned offset reads
// each line once however often it looks (gap filling after a reconnect,
// reattachment, the history of past runs, `trainyard export`).
//
// Each line is decoded as a socket line is, by protocol::RecordDecoder (the
// fast path for plain metric lines, else LineDecoder's checks and
// MetricRecord::fromJson with protocol::validate). A line that fails is
// skipped and counted, never fatal; an oversized one is skipped without
// being buffered. A torn last line (the worker is mid-write, or died
// mid-line) is not consumed: the offset stays at its start for the next read.
class MetricsLogReader
{
public:
    struct Result
    {
        qint64 offset = 0; // where the next read starts: after the last complete line
        int records = 0;   // lines handed on as records
        int skipped = 0;   // lines that are no message (too long, not UTF-8, not a JSON object) and a torn last line
        int invalid = 0;   // JSON objects that fail protocol::validate, or are no worker's message
        // Non-empty: the file was refused, nothing read (openRegularFile: a
        // link, a FIFO, a device, a folder in its place).
        QString error;
    };
    using RecordCallback = std::function<void(const MetricRecord &record)>;

    enum class LineStatus {
        Record,
        Blank,
        Skipped,
        Invalid
    };

    MetricsLogReader();
    ~MetricsLogReader();

    // Reads `path` from byte `offset` to its end, calling `onRecord` for
    // every record (it is valid during the call only). An absent file reads
    // as empty; one shorter than `offset` was replaced (a retry) and is read
    // from its start. Opened as every run-folder file is (openRegularFile):
    // a link is not followed, a FIFO never blocks; either is refused
    // (Result::error).
    Result read(const QString &path, qint64 offset, const RecordCallback &onRecord);

    // Decodes one line (without its '\n') into record(). Blank lines are
    // keep-alives, neither records nor errors.
    LineStatus decodeLine(const char *text, std::size_t size);
    const MetricRecord &record() const;
    // Why the last line was skipped or invalid.
    const std::string &error() const;

private:
    struct State; // the decoders and buffers (keeps nlohmann/json.hpp out of this header)
    std::unique_ptr<State> d;
};

} // namespace trainyard
