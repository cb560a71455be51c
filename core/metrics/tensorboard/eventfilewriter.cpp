#include "metrics/tensorboard/eventfilewriter.h"

#include "metrics/tensorboard/protowire.h"
#include "metrics/tensorboard/recordframing.h"

#include <QIODevice>

namespace trainyard {

namespace {

// Field numbers, as published in TensorBoard's protos.
namespace event { // event.proto: Event
constexpr int wallTime = 1, step = 2, fileVersion = 3, summary = 5;
}
namespace summary { // summary.proto: Summary, Summary.Value, SummaryMetadata
constexpr int value = 1;
constexpr int valueTag = 1, valueSimpleValue = 2, valueTensor = 8, valueMetadata = 9;
constexpr int metadataPluginData = 1;
constexpr int pluginName = 1, pluginContent = 2;
} // namespace summary
namespace tensor { // tensor.proto: TensorProto; types.proto: DT_FLOAT
constexpr int dtype = 1, floatVal = 5;
constexpr int dtFloat = 1;
} // namespace tensor
namespace hparams { // plugins/hparams/plugin_data.proto; google/protobuf/struct.proto's Value
constexpr int version = 1, sessionStartInfo = 3;
constexpr int startInfoHParams = 1;
constexpr int mapKey = 1, mapValue = 2;
constexpr int numberValue = 2, stringValue = 3, boolValue = 4;
} // namespace hparams

void eventHeader(double wallTime, std::int64_t step, protowire::Writer *w)
{
    w->fixed64(event::wallTime, wallTime);
    if (step != 0) {
        w->varint(event::step, std::uint64_t(step)); // int64: two's complement, as protobuf does
    }
}

} // namespace

TensorBoardEventWriter::TensorBoardEventWriter(QIODevice *device, double wallTime)
    : m_device(device)
{
    writeRecord(versionEvent(wallTime));
}

QByteArray TensorBoardEventWriter::versionEvent(double wallTime)
{
    protowire::Writer w;
    eventHeader(wallTime, 0, &w);
    w.string(event::fileVersion, QStringLiteral("brain.Event:2"));
    return w.data();
}

QByteArray TensorBoardEventWriter::scalarEvent(const QString &tag, std::int64_t step, double wallTime, float value)
{
    protowire::Writer v;
    v.string(summary::valueTag, tag);
    v.fixed32(summary::valueSimpleValue, value);
    protowire::Writer s;
    s.bytes(summary::value, v.data());
    protowire::Writer w;
    eventHeader(wallTime, step, &w);
    w.bytes(event::summary, s.data());
    return w.data();
}

QByteArray TensorBoardEventWriter::hparamsEvent(const QList<QPair<QString, QJsonValue>> &params, double wallTime)
{
    protowire::Writer start;
    for (const auto &[key, value] : params) {
        protowire::Writer v;
        if (value.isDouble()) {
            v.fixed64(hparams::numberValue, value.toDouble());
        } else if (value.isString()) {
            v.string(hparams::stringValue, value.toString());
        } else if (value.isBool()) {
            v.varint(hparams::boolValue, value.toBool() ? 1 : 0);
        } else {
            continue; // only scalars: the plugin's own rule
        }
        protowire::Writer entry;
        entry.string(hparams::mapKey, key);
        entry.bytes(hparams::mapValue, v.data());
        start.bytes(hparams::startInfoHParams, entry.data());
    }
    protowire::Writer content;
    content.varint(hparams::version, 0);
    content.bytes(hparams::sessionStartInfo, start.data());
    protowire::Writer plugin;
    plugin.string(summary::pluginName, QStringLiteral("hparams"));
    plugin.bytes(summary::pluginContent, content.data());
    protowire::Writer metadata;
    metadata.bytes(summary::metadataPluginData, plugin.data());
    protowire::Writer nullTensor; // the plugin's NULL_TENSOR: a float 0 that carries nothing
    nullTensor.varint(tensor::dtype, tensor::dtFloat);
    nullTensor.bytes(tensor::floatVal, QByteArray(4, '\0')); // packed: one float 0.0
    protowire::Writer v;
    v.string(summary::valueTag, QStringLiteral("_hparams_/session_start_info"));
    v.bytes(summary::valueTensor, nullTensor.data());
    v.bytes(summary::valueMetadata, metadata.data());
    protowire::Writer s;
    s.bytes(summary::value, v.data());
    protowire::Writer w;
    eventHeader(wallTime, 0, &w);
    w.bytes(event::summary, s.data());
    return w.data();
}

void TensorBoardEventWriter::writeScalar(const QString &tag, std::int64_t step, double wallTime, double value)
{
    writeRecord(scalarEvent(tag, step, wallTime, float(value)));
}

void TensorBoardEventWriter::writeHParams(const QList<QPair<QString, QJsonValue>> &params, double wallTime)
{
    writeRecord(hparamsEvent(params, wallTime));
}

void TensorBoardEventWriter::writeRecord(const QByteArray &event)
{
    const QByteArray record = recordframing::frame(event);
    if (m_device->write(record) != record.size()) {
        m_ok = false;
    }
}

} // namespace trainyard
