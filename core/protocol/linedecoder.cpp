#include "protocol/linedecoder.h"

#include "protocol/protocol.h"

#include <cstring>

namespace trainyard::protocol {

namespace {

// Depth of [ and { outside strings; a cheap guard so that a line of 30,000
// brackets cannot drive the parser's recursion.
int nestingDepth(const char *text, std::size_t size)
{
    int depth = 0;
    int deepest = 0;
    bool inString = false;
    for (std::size_t i = 0; i < size; ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                inString = false;
            }
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            if (++depth > deepest) {
                deepest = depth;
            }
        } else if (c == '}' || c == ']') {
            --depth;
        }
    }
    return deepest;
}

} // namespace

bool isValidUtf8(const char *text, std::size_t size)
{
    const auto *s = reinterpret_cast<const unsigned char *>(text);
    std::size_t i = 0;
    while (i < size) {
        const unsigned char c = s[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t extra;
        std::uint32_t cp;
        if (c >= 0xC2 && c <= 0xDF) {
            extra = 1;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            extra = 2;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            extra = 3;
            cp = c & 0x07;
        } else {
            return false;
        }
        for (std::size_t k = 1; k <= extra; ++k) {
            if (i + k >= size || (s[i + k] & 0xC0) != 0x80) {
                return false;
            }
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if ((extra == 2 && cp < 0x800) || (extra == 3 && (cp < 0x10000 || cp > 0x10FFFF))
            || (cp >= 0xD800 && cp <= 0xDFFF)) {
            return false;
        }
        i += extra + 1;
    }
    return true;
}

LineDecoder::Status parseJsonLine(const char *text, std::size_t size, nlohmann::json *message, std::string *error)
{
    if (!isValidUtf8(text, size)) {
        *error = "line is not valid UTF-8";
        return LineDecoder::Status::InvalidUtf8;
    }
    if (nestingDepth(text, size) > kMaxDepth) {
        *error = "JSON nested deeper than " + std::to_string(kMaxDepth);
        return LineDecoder::Status::NotJson;
    }
    *message = nlohmann::json::parse(text, text + size, nullptr, /*allow_exceptions=*/false);
    if (message->is_discarded()) {
        *error = "line is not JSON";
        return LineDecoder::Status::NotJson;
    }
    if (!message->is_object()) {
        *error = "line is JSON but not an object";
        return LineDecoder::Status::NotObject;
    }
    return LineDecoder::Status::Message;
}

LineDecoder::LineDecoder(std::size_t maxLineBytes)
    : m_maxLine(maxLineBytes ? maxLineBytes : kMaxLineBytes)
{
}

void LineDecoder::feed(const char *data, std::size_t size)
{
    // Reclaim consumed space before growing, so the buffer stays about one
    // line long however long the stream runs.
    if (m_start > 0 && (m_start >= m_buffer.size() / 2 || m_start > 65536)) {
        m_buffer.erase(0, m_start);
        m_start = 0;
    }
    m_buffer.append(data, size);
}

bool LineDecoder::next(Result &result)
{
    for (;;) {
        const char *begin = m_buffer.data() + m_start;
        const std::size_t available = m_buffer.size() - m_start;
        const void *nl = std::memchr(begin + m_scanned, '\n', available - m_scanned);

        if (!nl) {
            m_scanned = available;
            if (!m_discarding && available > m_maxLine) {
                // Too long already: drop what we hold and skip to the newline.
                m_discarding = true;
                ++m_rejected;
                m_start = m_buffer.size();
                m_scanned = 0;
                result = Result{Status::Oversized, {}, "line longer than " + std::to_string(m_maxLine) + " bytes"};
                return true;
            }
            if (m_discarding) {
                m_start = m_buffer.size();
                m_scanned = 0;
            }
            return false;
        }

        const std::size_t length = static_cast<const char *>(nl) - begin;
        m_start += length + 1;
        m_scanned = 0;

        if (m_discarding) {
            // The tail of an oversized line, already counted.
            m_discarding = false;
            continue;
        }

        std::size_t trimmed = length;
        if (trimmed > 0 && begin[trimmed - 1] == '\r') {
            --trimmed;
        }
        if (trimmed == 0) {
            continue; // blank lines are keep-alives, not errors
        }

        if (length > m_maxLine) {
            ++m_rejected;
            result = Result{Status::Oversized, {}, "line longer than " + std::to_string(m_maxLine) + " bytes"};
            return true;
        }
        result.error.clear();
        result.status = parseJsonLine(begin, trimmed, &result.message, &result.error);
        if (result.status == Status::Message) {
            ++m_accepted;
        } else {
            ++m_rejected;
            result.message = nullptr; // set only with a message
        }
        return true;
    }
}

} // namespace trainyard::protocol
