#include "metrics/tensorboard/recordframing.h"

#include <array>

namespace trainyard::recordframing {

namespace {

std::array<std::uint32_t, 256> makeTable()
{
    std::array<std::uint32_t, 256> table{};
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t crc = i;
        for (int k = 0; k < 8; ++k) {
            crc = (crc & 1) ? (crc >> 1) ^ 0x82f63b78u : crc >> 1; // Castagnoli, reflected
        }
        table[i] = crc;
    }
    return table;
}

std::uint32_t loadLe32(const char *p)
{
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
        v |= std::uint32_t(std::uint8_t(p[i])) << (8 * i);
    }
    return v;
}

void appendLe(QByteArray *out, std::uint64_t value, int bytes)
{
    for (int i = 0; i < bytes; ++i) {
        out->append(char((value >> (8 * i)) & 0xff));
    }
}

} // namespace

std::uint32_t crc32c(const char *data, std::size_t size)
{
    static const std::array<std::uint32_t, 256> table = makeTable();
    std::uint32_t crc = 0xffffffffu;
    for (std::size_t i = 0; i < size; ++i) {
        crc = table[(crc ^ std::uint8_t(data[i])) & 0xff] ^ (crc >> 8);
    }
    return crc ^ 0xffffffffu;
}

std::uint32_t masked(std::uint32_t crc)
{
    return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

QByteArray frame(const QByteArray &data)
{
    QByteArray out;
    out.reserve(data.size() + 16);
    appendLe(&out, std::uint64_t(data.size()), 8);
    appendLe(&out, masked(crc32c(out.constData(), 8)), 4);
    out.append(data);
    appendLe(&out, masked(crc32c(data.constData(), std::size_t(data.size()))), 4);
    return out;
}

Splitter::Result Splitter::next(QByteArray *data, const char **why)
{
    m_start = m_pos;
    const qint64 left = m_bytes.size() - m_pos;
    if (left == 0) {
        return Result::End;
    }
    if (left < 12) {
        *why = "truncated record header";
        return Result::Damaged;
    }
    const char *header = m_bytes.constData() + m_pos;
    if (loadLe32(header + 8) != masked(crc32c(header, 8))) {
        *why = "length CRC mismatch";
        return Result::Damaged;
    }
    std::uint64_t length = 0;
    for (int i = 0; i < 8; ++i) {
        length |= std::uint64_t(std::uint8_t(header[i])) << (8 * i);
    }
    if (length > std::uint64_t(left - 12) || std::uint64_t(left - 12) - length < 4) {
        *why = "truncated record";
        return Result::Damaged;
    }
    const char *body = header + 12;
    if (loadLe32(body + length) != masked(crc32c(body, std::size_t(length)))) {
        *why = "data CRC mismatch";
        return Result::Damaged;
    }
    *data = QByteArray(body, qsizetype(length));
    m_pos += 12 + qint64(length) + 4;
    return Result::Record;
}

} // namespace trainyard::recordframing
