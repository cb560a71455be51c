#include "metrics/tensorboard/eventfilereader.h"

#include "metrics/runfile.h"
#include "metrics/tensorboard/protowire.h"
#include "metrics/tensorboard/recordframing.h"
#include "metrics/tensorboard/tensorboardlogging.h"

#include <QHash>

#include <cstring>

namespace trainyard {

namespace {

using protowire::Reader;
using protowire::WireType;

constexpr qint64 kMaxFileBytes = qint64(1) << 30; // an events file of scalars is far smaller

// TensorProto's one value when it is a float or double scalar.
bool tensorScalar(const QByteArray &bytes, double *value)
{
    Reader r(bytes);
    int field = 0;
    WireType type{};
    std::uint64_t dtype = 0;
    QByteArray content, floats, doubles;
    int floatCount = 0, doubleCount = 0;
    float oneFloat = 0;
    double oneDouble = 0;
    while (r.next(&field, &type)) {
        if (field == 1 && type == protowire::Varint) {
            dtype = r.varint();
        } else if (field == 4 && type == protowire::LengthDelimited) {
            content = r.bytes();
        } else if (field == 5 && type == protowire::LengthDelimited) {
            floats += r.bytes();
        } else if (field == 5 && type == protowire::Fixed32) { // unpacked, as old writers may
            oneFloat = r.fixed32Float();
            ++floatCount;
        } else if (field == 6 && type == protowire::LengthDelimited) {
            doubles += r.bytes();
        } else if (field == 6 && type == protowire::Fixed64) {
            oneDouble = r.fixed64Double();
            ++doubleCount;
        } else {
            r.skip(type);
        }
    }
    if (!r.ok()) {
        return false;
    }
    auto fromLe = [](const char *p, int size) {
        std::uint64_t bits = 0;
        for (int i = 0; i < size; ++i) {
            bits |= std::uint64_t(std::uint8_t(p[i])) << (8 * i);
        }
        return bits;
    };
    if (dtype == 1) { // DT_FLOAT
        const QByteArray &raw = !content.isEmpty() ? content : floats;
        if (raw.size() == 4 && floatCount == 0) {
            const auto bits = std::uint32_t(fromLe(raw.constData(), 4));
            std::memcpy(&oneFloat, &bits, 4);
        } else if (!(raw.isEmpty() && floatCount == 1)) {
            return false;
        }
        *value = double(oneFloat);
        return true;
    }
    if (dtype == 2) { // DT_DOUBLE
        const QByteArray &raw = !content.isEmpty() ? content : doubles;
        if (raw.size() == 8 && doubleCount == 0) {
            const std::uint64_t bits = fromLe(raw.constData(), 8);
            std::memcpy(&oneDouble, &bits, 8);
        } else if (!(raw.isEmpty() && doubleCount == 1)) {
            return false;
        }
        *value = oneDouble;
        return true;
    }
    return false;
}

// SummaryMetadata's plugin name.
QString pluginName(const QByteArray &metadata, QByteArray *content)
{
    Reader r(metadata);
    int field = 0;
    WireType type{};
    QString name;
    while (r.next(&field, &type)) {
        if (field == 1 && type == protowire::LengthDelimited) {
            Reader plugin(r.bytes());
            int f = 0;
            WireType t{};
            while (plugin.next(&f, &t)) {
                if (f == 1 && t == protowire::LengthDelimited) {
                    name = QString::fromUtf8(plugin.bytes());
                } else if (f == 2 && t == protowire::LengthDelimited) {
                    *content = plugin.bytes();
                } else {
                    plugin.skip(t);
                }
            }
        } else {
            r.skip(type);
        }
    }
    return name;
}

// google.protobuf.Value: a number, a string or a bool.
QJsonValue protobufValue(const QByteArray &bytes)
{
    Reader r(bytes);
    int field = 0;
    WireType type{};
    QJsonValue value;
    while (r.next(&field, &type)) {
        if (field == 2 && type == protowire::Fixed64) {
            value = r.fixed64Double();
        } else if (field == 3 && type == protowire::LengthDelimited) {
            value = QString::fromUtf8(r.bytes());
        } else if (field == 4 && type == protowire::Varint) {
            value = r.varint() != 0;
        } else {
            r.skip(type);
        }
    }
    return value;
}

// HParamsPluginData's session_start_info.hparams.
void readHParams(const QByteArray &content, QList<QPair<QString, QJsonValue>> *out)
{
    Reader r(content);
    int field = 0;
    WireType type{};
    while (r.next(&field, &type)) {
        if (field != 3 || type != protowire::LengthDelimited) {
            r.skip(type);
            continue;
        }
        Reader start(r.bytes());
        int f = 0;
        WireType t{};
        while (start.next(&f, &t)) {
            if (f != 1 || t != protowire::LengthDelimited) {
                start.skip(t);
                continue;
            }
            Reader entry(start.bytes());
            QString key;
            QJsonValue value;
            int ef = 0;
            WireType et{};
            while (entry.next(&ef, &et)) {
                if (ef == 1 && et == protowire::LengthDelimited) {
                    key = QString::fromUtf8(entry.bytes());
                } else if (ef == 2 && et == protowire::LengthDelimited) {
                    value = protobufValue(entry.bytes());
                } else {
                    entry.skip(et);
                }
            }
            if (!key.isEmpty() && !value.isUndefined()) {
                out->append({key, value});
            }
        }
    }
}

class Parser
{
public:
    explicit Parser(TensorBoardEvents *out)
        : m_out(out)
    {
    }

    // One Event; false when its bytes are no valid message.
    bool event(const QByteArray &bytes)
    {
        Reader r(bytes);
        int field = 0;
        WireType type{};
        double wall = 0;
        std::int64_t step = 0;
        QByteArray summary;
        while (r.next(&field, &type)) {
            if (field == 1 && type == protowire::Fixed64) {
                wall = r.fixed64Double();
            } else if (field == 2 && type == protowire::Varint) {
                step = std::int64_t(r.varint());
            } else if (field == 3 && type == protowire::LengthDelimited) {
                m_out->fileVersion = QString::fromUtf8(r.bytes());
            } else if (field == 5 && type == protowire::LengthDelimited) {
                summary = r.bytes();
            } else {
                r.skip(type);
            }
        }
        if (!r.ok()) {
            return false;
        }
        if (!m_started) {
            m_out->firstWallTime = wall;
            m_started = true;
        }
        Reader s(summary);
        while (s.next(&field, &type)) {
            if (field == 1 && type == protowire::LengthDelimited) {
                if (!value(s.bytes(), step, wall)) {
                    return false;
                }
            } else {
                s.skip(type);
            }
        }
        return s.ok();
    }

private:
    bool value(const QByteArray &bytes, std::int64_t step, double wall)
    {
        Reader r(bytes);
        int field = 0;
        WireType type{};
        QString tag;
        bool simple = false;
        float simpleValue = 0;
        QByteArray tensor, metadata;
        while (r.next(&field, &type)) {
            if (field == 1 && type == protowire::LengthDelimited) {
                tag = QString::fromUtf8(r.bytes());
            } else if (field == 2 && type == protowire::Fixed32) {
                simpleValue = r.fixed32Float();
                simple = true;
            } else if (field == 8 && type == protowire::LengthDelimited) {
                tensor = r.bytes();
            } else if (field == 9 && type == protowire::LengthDelimited) {
                metadata = r.bytes();
            } else {
                r.skip(type);
            }
        }
        if (!r.ok()) {
            return false;
        }
        if (!metadata.isEmpty()) {
            // A writer sends a tag's metadata with its first value only: remembered for the rest.
            QByteArray content;
            const QString plugin = pluginName(metadata, &content);
            m_plugins.insert(tag, plugin);
            if (plugin == QStringLiteral("hparams")) {
                readHParams(content, &m_out->hparams);
            }
        }
        double v = 0;
        if (simple) {
            m_out->scalars.append({tag, step, wall, double(simpleValue)});
        } else if (!tensor.isEmpty()) {
            const QString plugin = m_plugins.value(tag);
            if ((plugin.isEmpty() || plugin == QStringLiteral("scalars")) && tensorScalar(tensor, &v)) {
                m_out->scalars.append({tag, step, wall, v});
            }
        }
        return true;
    }

    TensorBoardEvents *m_out;
    bool m_started = false;
    QHash<QString, QString> m_plugins; // tag -> the plugin its metadata named
};

} // namespace

bool TensorBoardEventReader::isEventFileName(const QString &fileName)
{
    return fileName.startsWith(QStringLiteral("events.out.tfevents."));
}

TensorBoardEvents TensorBoardEventReader::parse(const QByteArray &bytes, const QString &name)
{
    TensorBoardEvents out;
    Parser parser(&out);
    recordframing::Splitter splitter(bytes);
    QByteArray data;
    const char *why = nullptr;
    for (;;) {
        const recordframing::Splitter::Result result = splitter.next(&data, &why);
        if (result == recordframing::Splitter::Result::End) {
            break;
        }
        if (result == recordframing::Splitter::Result::Record && !parser.event(data)) {
            why = "not a valid Event message";
        } else if (result == recordframing::Splitter::Result::Record) {
            ++out.records;
            continue;
        }
        out.error = QStringLiteral("%1: record %2 at byte %3: %4 (the %5 record(s) before it are kept)")
                        .arg(name)
                        .arg(out.records + 1)
                        .arg(splitter.offset())
                        .arg(QString::fromLatin1(why))
                        .arg(out.records);
        qCWarning(lcTensorBoard).noquote() << out.error;
        break;
    }
    return out;
}

TensorBoardEvents TensorBoardEventReader::readFile(const QString &path)
{
    QByteArray bytes;
    QString error;
    if (!readRegularFile(path, &bytes, &error, kMaxFileBytes)) {
        TensorBoardEvents out;
        out.error = error;
        return out;
    }
    return parse(bytes, path);
}

} // namespace trainyard
