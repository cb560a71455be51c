#pragma once

#include <QByteArray>
#include <QString>

#include <cstdint>

namespace trainyard {

// The few protobuf wire rules TensorBoard's event files need, by hand: the
// messages are small and fixed (event.proto, summary.proto, tensor.proto,
// the hparams plugin's plugin_data.proto, by their published field numbers),
// so no protobuf library is linked for them.
namespace protowire {

enum WireType : int {
    Varint = 0,
    Fixed64 = 1,
    LengthDelimited = 2,
    Fixed32 = 5,
};

// Appends fields to a message's bytes.
class Writer
{
public:
    void varint(int field, std::uint64_t value);
    void fixed64(int field, double value);
    void fixed32(int field, float value);
    void bytes(int field, const QByteArray &value);
    void string(int field, const QString &value) { bytes(field, value.toUtf8()); }
    const QByteArray &data() const { return m_data; }

private:
    void tag(int field, WireType type);
    void rawVarint(std::uint64_t value);
    QByteArray m_data;
};

// Reads one message's fields in turn. A malformed message (a varint past
// the end, a length beyond the bytes, an unknown wire type) stops it:
// next() returns false and ok() says so.
class Reader
{
public:
    explicit Reader(const QByteArray &data)
        : m_data(data)
    {
    }
    // The next field's number and wire type; false at the end or on an error.
    bool next(int *field, WireType *type);
    // The value of the field next() just gave, read as its wire type says.
    std::uint64_t varint();
    double fixed64Double();
    float fixed32Float();
    QByteArray bytes();
    // Passes over the value of the field next() just gave.
    void skip(WireType type);
    bool ok() const { return m_ok; }

private:
    bool rawVarint(std::uint64_t *value);
    QByteArray m_data;
    qsizetype m_pos = 0;
    bool m_ok = true;
};

} // namespace protowire
} // namespace trainyard
