#include "metrics/metricslogreader.h"

#include "metrics/metricslogging.h"
#include "metrics/runfile.h"
#include "protocol/protocol.h"
#include "protocol/recorddecoder.h"

#include <QFile>

#include <vector>

namespace trainyard {

struct MetricsLogReader::State
{
    protocol::RecordDecoder decoder;
    std::vector<char> chunk;
};

MetricsLogReader::MetricsLogReader()
    : d(std::make_unique<State>())
{
}

MetricsLogReader::~MetricsLogReader() = default;

const MetricRecord &MetricsLogReader::record() const
{
    return d->decoder.record();
}

const std::string &MetricsLogReader::error() const
{
    return d->decoder.error();
}

MetricsLogReader::LineStatus MetricsLogReader::decodeLine(const char *text, std::size_t size)
{
    switch (d->decoder.decodeLine(text, size)) {
    case protocol::RecordDecoder::Status::Record:
        return LineStatus::Record;
    case protocol::RecordDecoder::Status::Blank:
        return LineStatus::Blank;
    case protocol::RecordDecoder::Status::Invalid:
        return LineStatus::Invalid;
    default: // no message: too long, not UTF-8, not a JSON object
        return LineStatus::Skipped;
    }
}

MetricsLogReader::Result MetricsLogReader::read(const QString &path, qint64 offset, const RecordCallback &onRecord)
{
    Result result;
    result.offset = offset;
    QFile file;
    if (!openRegularFile(path, &file, &result.error)) {
        // Absent: normal before a worker has written its first line.
        if (result.error.isEmpty()) {
            qCDebug(lcMetrics).noquote() << path << "not read: absent";
        } else {
            qCDebug(lcMetrics).noquote() << result.error;
        }
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

    qint64 firstProblemAt = -1;
    std::string firstProblem;
    protocol::RecordDecoder &decoder = d->decoder;
    decoder.reset();
    d->chunk.resize(std::size_t(1) << 16);
    for (;;) {
        const qint64 n = file.read(d->chunk.data(), qint64(d->chunk.size()));
        if (n < 0) {
            qCWarning(lcMetrics).noquote()
                << path << "read failed at byte" << offset + qint64(decoder.consumed()) << ":" << file.errorString();
        }
        if (n <= 0) {
            break;
        }
        decoder.feed(d->chunk.data(), std::size_t(n));
        protocol::RecordDecoder::Status status;
        while (decoder.next(&status)) {
            if (status == protocol::RecordDecoder::Status::Record) {
                ++result.records;
                onRecord(decoder.record());
                continue;
            }
            ++(status == protocol::RecordDecoder::Status::Invalid ? result.invalid : result.skipped);
            if (firstProblemAt < 0) {
                firstProblemAt = offset + qint64(decoder.lineStart());
                firstProblem = decoder.error();
            }
        }
    }
    result.offset = offset + qint64(decoder.consumed());
    if (decoder.midLine()) {
        // A torn last line: not consumed, so the next read sees it whole; a
        // worker gone for good leaves it skipped (an oversized one was
        // counted when it was found).
        if (!decoder.discarding()) {
            ++result.skipped;
        }
        qCDebug(lcMetrics).noquote() << path << "ends in an incomplete line at byte" << result.offset;
    }
    if (firstProblemAt >= 0) {
        qCWarning(lcMetrics).nospace().noquote()
            << path << ": " << result.skipped << " line(s) skipped (no message), " << result.invalid
            << " rejected (invalid); the first at byte " << firstProblemAt << ": " << QUtf8StringView(firstProblem);
    }
    qCDebug(lcMetrics).noquote() << path << "read from byte" << offset << "to" << result.offset << ":" << result.records
                                 << "records";
    return result;
}

} // namespace trainyard
