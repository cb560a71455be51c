#include "protocol/recorddecoder.h"

#include "protocol/linedecoder.h"
#include "protocol/metricline.h"
#include "protocol/protocol.h"

#include <cstring>

namespace trainyard::protocol {

namespace {

bool isBlank(const char *text, std::size_t size)
{
    for (std::size_t i = 0; i < size; ++i) {
        const char c = text[i];
        if (c != ' ' && c != '\t' && c != '\r' && c != '\v' && c != '\f') {
            return false;
        }
    }
    return true;
}

RecordDecoder::Status statusOf(LineDecoder::Status status)
{
    switch (status) {
    case LineDecoder::Status::Message:
        return RecordDecoder::Status::Record;
    case LineDecoder::Status::Oversized:
        return RecordDecoder::Status::Oversized;
    case LineDecoder::Status::InvalidUtf8:
        return RecordDecoder::Status::InvalidUtf8;
    case LineDecoder::Status::NotJson:
        return RecordDecoder::Status::NotJson;
    case LineDecoder::Status::NotObject:
        return RecordDecoder::Status::NotObject;
    }
    return RecordDecoder::Status::NotJson;
}

} // namespace

RecordDecoder::RecordDecoder(std::size_t maxLineBytes)
    : m_maxLine(maxLineBytes ? maxLineBytes : kMaxLineBytes)
{
}

RecordDecoder::Status RecordDecoder::oversized()
{
    m_error = "line longer than " + std::to_string(m_maxLine) + " bytes";
    return Status::Oversized;
}

void RecordDecoder::reset()
{
    m_pending.clear();
    m_data = m_pos = m_end = nullptr;
    m_chunkStart = m_consumed = m_lineStart = 0;
    m_discarding = false;
}

void RecordDecoder::feed(const char *data, std::size_t size)
{
    m_chunkStart += static_cast<std::uint64_t>(m_end - m_data);
    m_data = m_pos = data;
    m_end = data + size;
}

bool RecordDecoder::next(Status *status)
{
    while (m_pos < m_end) {
        const auto *nl = static_cast<const char *>(std::memchr(m_pos, '\n', static_cast<std::size_t>(m_end - m_pos)));
        if (!nl) {
            // An incomplete line: kept for the next chunk, unless too long already.
            const auto size = static_cast<std::size_t>(m_end - m_pos);
            const char *from = m_pos;
            m_pos = m_end;
            if (m_discarding) {
                return false;
            }
            if (m_pending.size() + size > m_maxLine) {
                m_discarding = true;
                m_pending.clear();
                m_lineStart = m_consumed;
                *status = oversized();
                return true;
            }
            m_pending.append(from, size);
            return false;
        }
        const char *line = m_pos;
        std::size_t size = static_cast<std::size_t>(nl - m_pos);
        const std::uint64_t start = m_consumed;
        m_pos = nl + 1;
        m_consumed = m_chunkStart + static_cast<std::uint64_t>(m_pos - m_data);
        if (m_discarding) {
            m_discarding = false; // the tail of an oversized line, already reported
            continue;
        }
        Status decoded;
        if (m_pending.empty()) {
            decoded = decodeLine(line, size); // whole in the chunk: no copy
        } else if (m_pending.size() + size > m_maxLine) {
            decoded = oversized();
        } else {
            m_pending.append(line, size);
            decoded = decodeLine(m_pending.data(), m_pending.size());
        }
        m_pending.clear();
        if (decoded == Status::Blank) {
            continue;
        }
        m_lineStart = start;
        *status = decoded;
        return true;
    }
    return false;
}

RecordDecoder::Status RecordDecoder::decodeLine(const char *text, std::size_t size)
{
    if (size > m_maxLine) { // even of blanks: the limit is on bytes
        return oversized();
    }
    if (isBlank(text, size)) {
        return Status::Blank;
    }
    if (MetricLine::parse(text, size, &m_record)) {
        if (!m_message.is_null()) {
            m_message = nullptr;
        }
        return Status::Record;
    }
    // Everything else gets every check of the protocol, once.
    if (size > 0 && text[size - 1] == '\r') {
        --size;
    }
    const Status parsed = statusOf(parseJsonLine(text, size, &m_message, &m_error));
    if (parsed != Status::Record) {
        m_message = nullptr;
        return parsed;
    }
    return MetricRecord::fromJson(m_message, &m_record, &m_error) ? Status::Record : Status::Invalid;
}

} // namespace trainyard::protocol
