#pragma once

#include <QByteArray>

#include <cstdint>

namespace trainyard {

// TensorBoard's record framing (TFRecord), which every events file is a
// sequence of: the data's length as a uint64 little-endian, a masked
// CRC-32C of those 8 bytes, the data, a masked CRC-32C of the data.
namespace recordframing {

// CRC-32C (Castagnoli), as TFRecord checks with.
std::uint32_t crc32c(const char *data, std::size_t size);
// The mask TFRecord applies to a stored CRC: ((crc >> 15) | (crc << 17)) + 0xa282ead8.
std::uint32_t masked(std::uint32_t crc);
// `data` framed as one record.
QByteArray frame(const QByteArray &data);

// Reads the records of `bytes` in turn.
class Splitter
{
public:
    enum class Result {
        Record,  // `data` holds the next record's data
        End,     // every byte read, the last record complete
        Damaged, // a truncated or corrupt record at offset(): `why` says which
    };
    explicit Splitter(const QByteArray &bytes)
        : m_bytes(bytes)
    {
    }
    Result next(QByteArray *data, const char **why);
    // Where the record next() last looked at starts.
    qint64 offset() const { return m_start; }

private:
    const QByteArray &m_bytes;
    qint64 m_pos = 0;
    qint64 m_start = 0;
};

} // namespace recordframing
} // namespace trainyard
