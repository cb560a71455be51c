#include "metrics/tensorboard/protowire.h"

#include <cstring>

namespace trainyard::protowire {

void Writer::rawVarint(std::uint64_t value)
{
    while (value >= 0x80) {
        m_data.append(char((value & 0x7f) | 0x80));
        value >>= 7;
    }
    m_data.append(char(value));
}

void Writer::tag(int field, WireType type)
{
    rawVarint((std::uint64_t(field) << 3) | std::uint64_t(type));
}

void Writer::varint(int field, std::uint64_t value)
{
    tag(field, Varint);
    rawVarint(value);
}

void Writer::fixed64(int field, double value)
{
    tag(field, Fixed64);
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    for (int i = 0; i < 8; ++i) {
        m_data.append(char((bits >> (8 * i)) & 0xff)); // little-endian, whatever the host
    }
}

void Writer::fixed32(int field, float value)
{
    tag(field, Fixed32);
    std::uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    for (int i = 0; i < 4; ++i) {
        m_data.append(char((bits >> (8 * i)) & 0xff));
    }
}

void Writer::bytes(int field, const QByteArray &value)
{
    tag(field, LengthDelimited);
    rawVarint(std::uint64_t(value.size()));
    m_data.append(value);
}

bool Reader::rawVarint(std::uint64_t *value)
{
    std::uint64_t result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (m_pos >= m_data.size()) {
            return m_ok = false;
        }
        const auto byte = std::uint8_t(m_data[m_pos++]);
        result |= std::uint64_t(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *value = result;
            return true;
        }
    }
    return m_ok = false; // more than ten bytes
}

bool Reader::next(int *field, WireType *type)
{
    if (!m_ok || m_pos >= m_data.size()) {
        return false;
    }
    std::uint64_t key = 0;
    if (!rawVarint(&key)) {
        return false;
    }
    const int wire = int(key & 7);
    if (wire != Varint && wire != Fixed64 && wire != LengthDelimited && wire != Fixed32) {
        return m_ok = false; // groups (3, 4) are in none of these messages
    }
    if ((key >> 3) == 0 || (key >> 3) > 0x1fffffff) {
        return m_ok = false;
    }
    *field = int(key >> 3);
    *type = WireType(wire);
    return true;
}

std::uint64_t Reader::varint()
{
    std::uint64_t value = 0;
    return rawVarint(&value) ? value : 0;
}

double Reader::fixed64Double()
{
    if (m_data.size() - m_pos < 8) {
        m_ok = false;
        return 0;
    }
    std::uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) {
        bits |= std::uint64_t(std::uint8_t(m_data[m_pos + i])) << (8 * i);
    }
    m_pos += 8;
    double value = 0;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

float Reader::fixed32Float()
{
    if (m_data.size() - m_pos < 4) {
        m_ok = false;
        return 0;
    }
    std::uint32_t bits = 0;
    for (int i = 0; i < 4; ++i) {
        bits |= std::uint32_t(std::uint8_t(m_data[m_pos + i])) << (8 * i);
    }
    m_pos += 4;
    float value = 0;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

QByteArray Reader::bytes()
{
    std::uint64_t length = 0;
    if (!rawVarint(&length) || length > std::uint64_t(m_data.size() - m_pos)) {
        m_ok = false;
        return {};
    }
    const QByteArray value = m_data.mid(m_pos, qsizetype(length));
    m_pos += qsizetype(length);
    return value;
}

void Reader::skip(WireType type)
{
    switch (type) {
    case Varint:
        varint();
        break;
    case Fixed64:
        fixed64Double();
        break;
    case Fixed32:
        fixed32Float();
        break;
    case LengthDelimited:
        bytes();
        break;
    }
}

} // namespace trainyard::protowire
