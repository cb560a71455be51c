#include "metrics/metricslogreader.h"

#include "metrics/metricline.h"
#include "metrics/metricslogging.h"
#include "metrics/runfile.h"
#include "protocol/linedecoder.h"
#include "protocol/protocol.h"

#include <QFile>

#include <cstring>
#include <vector>

namespace trainyard {

namespace {

bool isBlank(const char *text, std::size_t size)
{
    for (std::size_t i = 0; i < size; ++i) {
        const char c = text[i];
        if (c != ' ' && c != '\t' && c != '\r' && c != '\v' && c != '\f')
            return false;
    }
    return true;
}

std::string oversizedError()
{
    return "line longer than " + std::to_string(protocol::kMaxLineBytes) + " bytes";
}

} // namespace

struct MetricsLogReader::State
{
    protocol::LineDecoder decoder;
    protocol::LineDecoder::Result decoded;
    MetricLine line;
    std::string error;
    std::string pending; // the current line when it spans chunks, at most protocol::kMaxLineBytes
    std::vector<char> chunk;
};

MetricsLogReader::MetricsLogReader()
    : d(std::make_unique<State>())
{
}

MetricsLogReader::~MetricsLogReader() = default;

const MetricRecord &MetricsLogReader::record() const
{
    return d->line.record;
}

const std::string &MetricsLogReader::error() const
{
    return d->error;
}

MetricsLogReader::LineStatus MetricsLogReader::decodeLine(const char *text, std::size_t size)
{
    if (isBlank(text, size))
        return LineStatus::Blank;
    if (size > protocol::kMaxLineBytes) {
        d->error = oversizedError();
        return LineStatus::Skipped;
    }
    if (MetricLine::parse(text, size, &d->line.record))
        return LineStatus::Record;
    // Everything else gets every check of the protocol's decoder, as on the socket.
    d->decoder.feed(text, size);
    d->decoder.feed("\n", 1);
    LineStatus status = LineStatus::Blank;
    while (d->decoder.next(d->decoded)) {
        if (d->decoded.status != protocol::LineDecoder::Status::Message) {
            d->error = d->decoded.error;
            status = LineStatus::Skipped;
        } else if (MetricRecord::fromJson(d->decoded.message, &d->line.record, &d->error)) {
            status = LineStatus::Record;
        } else {
            status = LineStatus::Invalid;
        }
    }
    return status;
}

MetricsLogReader::Result MetricsLogReader::read(const QString &path, qint64 offset, const RecordCallback &onRecord)
{
    Result result;
    result.offset = offset;
    QFile file;
    if (!openRegularFile(path, &file, &result.error)) {
        // Absent: normal before a worker has written its first line.
        if (result.error.isEmpty())
            qCDebug(lcMetrics).noquote() << path << "not read: absent";
        else
            qCDebug(lcMetrics).noquote() << result.error;
        return result;
    }
    if (file.size() < offset) {
        qCDebug(lcMetrics).noquote() << path << "is shorter than the" << offset
                                     << "bytes read before (replaced): reading it again";
        offset = 0;
        result.offset = 0;
    }
    if (!file.seek(offset)) {
        qCWarning(lcMetrics).noquote() << path << "cannot seek to" << offset << ":" << file.errorString();
        return result;
    }

    qint64 position = offset; // bytes of the file consumed so far
    qint64 lineStart = offset;
    qint64 firstProblemAt = -1;
    std::string firstProblem;
    bool oversized = false; // inside a line over the limit: its bytes are dropped
    d->pending.clear();
    d->chunk.resize(std::size_t(1) << 16);

    auto finishLine = [&](const char *text, std::size_t size) {
        const LineStatus status = oversized ? LineStatus::Skipped : decodeLine(text, size);
        if (oversized)
            d->error = oversizedError();
        switch (status) {
        case LineStatus::Record:
            ++result.records;
            onRecord(d->line.record);
            break;
        case LineStatus::Blank:
            break;
        case LineStatus::Skipped:
        case LineStatus::Invalid:
            ++(status == LineStatus::Skipped ? result.skipped : result.invalid);
            if (firstProblemAt < 0) {
                firstProblemAt = lineStart;
                firstProblem = d->error;
            }
            break;
        }
        oversized = false;
        d->pending.clear();
        lineStart = position;
        result.offset = position;
    };

    for (;;) {
        const qint64 n = file.read(d->chunk.data(), qint64(d->chunk.size()));
        if (n < 0)
            qCWarning(lcMetrics).noquote() << path << "read failed at byte" << position << ":" << file.errorString();
        if (n <= 0)
            break;
        const char *p = d->chunk.data();
        const char *end = p + n;
        while (p < end) {
            const char *nl = static_cast<const char *>(std::memchr(p, '\n', std::size_t(end - p)));
            const char *stop = nl ? nl : end;
            const std::size_t length = std::size_t(stop - p);
            position += qint64(length) + (nl ? 1 : 0);
            if (nl && d->pending.empty() && !oversized) {
                finishLine(p, length); // the whole line is in the chunk: no copy
            } else {
                if (!oversized && d->pending.size() + length > protocol::kMaxLineBytes) {
                    oversized = true; // drop it without buffering the rest
                    d->pending.clear();
                    d->pending.shrink_to_fit();
                }
                if (!oversized)
                    d->pending.append(p, length);
                if (nl)
                    finishLine(d->pending.data(), d->pending.size());
            }
            p = nl ? nl + 1 : end;
        }
    }
    if (oversized || !d->pending.empty()) {
        // A torn last line: not consumed, so the next read sees it whole; a
        // worker gone for good leaves it skipped.
        ++result.skipped;
        qCDebug(lcMetrics).noquote() << path << "ends in an incomplete line at byte" << lineStart;
    }
    if (firstProblemAt >= 0)
        qCWarning(lcMetrics).nospace().noquote()
            << path << ": " << result.skipped << " line(s) skipped (no message), " << result.invalid
            << " rejected (invalid); the first at byte " << firstProblemAt << ": " << QUtf8StringView(firstProblem);
    qCDebug(lcMetrics).noquote() << path << "read from byte" << offset << "to" << result.offset << ":" << result.records
                                 << "records";
    return result;
}

} // namespace trainyard
