#pragma once

#include <QByteArray>
#include <QJsonValue>
#include <QList>
#include <QPair>
#include <QString>

#include <cstdint>

class QIODevice;

namespace trainyard {

// Writes a TensorBoard events file (event.proto's Event messages, each
// framed as a TFRecord, recordframing.h) to an open device: the first
// record says the file's version ("brain.Event:2"), then one record per
// scalar as TF1 writers do (Summary.Value.simple_value, a float32: what
// TensorBoard, tensorboardX and PyTorch's SummaryWriter all read), and a
// sweep trial's parameters as the hparams plugin's session start info.
class TensorBoardEventWriter
{
public:
    // Writes the version record, stamped `wallTime` (seconds since 1970).
    TensorBoardEventWriter(QIODevice *device, double wallTime);

    void writeScalar(const QString &tag, std::int64_t step, double wallTime, double value);
    // The hparams plugin's `_hparams_/session_start_info`: each value a
    // number, a string or a bool (google.protobuf.Value); others are left out.
    void writeHParams(const QList<QPair<QString, QJsonValue>> &hparams, double wallTime);

    // False once a write to the device failed.
    bool ok() const { return m_ok; }

    // One Event's bytes (before framing), for tests and the writer itself.
    static QByteArray versionEvent(double wallTime);
    static QByteArray scalarEvent(const QString &tag, std::int64_t step, double wallTime, float value);
    static QByteArray hparamsEvent(const QList<QPair<QString, QJsonValue>> &hparams, double wallTime);

private:
    void writeRecord(const QByteArray &event);
    QIODevice *m_device;
    bool m_ok = true;
};

} // namespace trainyard
