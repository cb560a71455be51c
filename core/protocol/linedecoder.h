#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace trainyard::protocol {

// Splits a byte stream into JSON messages, one per '\n'-terminated line.
// Bytes may arrive in any chunking. Lines longer than the limit are skipped up
// to their newline without being buffered, so a flood cannot exhaust memory.
// Every rejected line is counted by reason and never throws.
class LineDecoder
{
public:
    enum class Status {
        Message,
        Oversized,
        InvalidUtf8,
        NotJson,
        NotObject
    };

    struct Result
    {
        Status status = Status::Message;
        nlohmann::json message; // set when status == Message
        std::string error;      // human-readable reason otherwise
    };

    explicit LineDecoder(std::size_t maxLineBytes = 0 /* 0: protocol default */);

    // Appends bytes. Call next() until it returns false to drain results.
    void feed(const char *data, std::size_t size);
    void feed(const std::string &data) { feed(data.data(), data.size()); }

    // Produces the next complete line's result; false when none is complete.
    bool next(Result &result);

    std::uint64_t acceptedCount() const { return m_accepted; }
    std::uint64_t rejectedCount() const { return m_rejected; }
    // Bytes held for an incomplete line.
    std::size_t pendingBytes() const { return m_buffer.size() - m_start; }

private:
    std::size_t m_maxLine;
    std::string m_buffer;
    std::size_t m_start = 0;   // first unconsumed byte in m_buffer
    std::size_t m_scanned = 0; // bytes after m_start already searched for '\n'
    bool m_discarding = false; // inside an oversized line
    std::uint64_t m_accepted = 0;
    std::uint64_t m_rejected = 0;
};

// The checks LineDecoder applies to one line's `text` (without '\n' or a
// trailing '\r'; neither blank nor over the size limit): UTF-8, nesting
// depth, JSON, an object. Status::Message with the object in `*message`
// when every check passes, else the reason with `*error` saying why.
LineDecoder::Status parseJsonLine(const char *text, std::size_t size, nlohmann::json *message, std::string *error);

// True if `text` is well-formed UTF-8 (no overlongs, no surrogates).
bool isValidUtf8(const char *text, std::size_t size);

} // namespace trainyard::protocol
