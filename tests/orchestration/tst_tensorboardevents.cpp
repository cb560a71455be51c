// TensorBoard event files as Trainyard writes and reads them: the record
// framing and its CRCs, scalars and hparams back as written, TF2 tensor
// scalars (float and double, tensor_content and *_val), and a damaged,
// linked or non-regular file refused with what came before kept.

#include "metrics/tensorboard/eventfilereader.h"
#include "metrics/tensorboard/eventfilewriter.h"
#include "metrics/tensorboard/protowire.h"
#include "metrics/tensorboard/recordframing.h"

#include <QBuffer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>

#include <sys/stat.h>
#include <unistd.h>

using namespace trainyard;

namespace {

// A TF2 scalar event as tf.summary.scalar writes it: a tensor with the
// scalars plugin's metadata. `how` picks the tensor's representation.
enum class Tf2 {
    FloatContent,
    FloatVal,
    DoubleContent,
    DoubleVal
};

QByteArray tf2Event(const QString &tag, std::int64_t step, double wall, double value, Tf2 how, bool metadata)
{
    protowire::Writer tensor;
    const bool isDouble = how == Tf2::DoubleContent || how == Tf2::DoubleVal;
    tensor.varint(1, isDouble ? 2 : 1);
    tensor.bytes(2, QByteArray()); // rank 0
    QByteArray raw;
    if (isDouble) {
        raw.resize(8);
        std::memcpy(raw.data(), &value, 8); // the test machines are little-endian, as the format
    } else {
        const float f = float(value);
        raw.resize(4);
        std::memcpy(raw.data(), &f, 4);
    }
    tensor.bytes(how == Tf2::FloatContent || how == Tf2::DoubleContent ? 4 : isDouble ? 6 : 5, raw);
    protowire::Writer v;
    v.string(1, tag);
    if (metadata) {
        protowire::Writer plugin;
        plugin.string(1, QStringLiteral("scalars"));
        protowire::Writer meta;
        meta.bytes(1, plugin.data());
        meta.varint(4, 1); // DATA_CLASS_SCALAR
        v.bytes(9, meta.data());
    }
    v.bytes(8, tensor.data());
    protowire::Writer summary;
    summary.bytes(1, v.data());
    protowire::Writer event;
    event.fixed64(1, wall);
    event.varint(2, std::uint64_t(step));
    event.bytes(5, summary.data());
    return event.data();
}

QByteArray writtenFile()
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    TensorBoardEventWriter writer(&buffer, 1.7e9);
    writer.writeScalar(QStringLiteral("loss"), 5, 1.7e9 + 0.25, 0.75);
    writer.writeScalar(QStringLiteral("valid/mrr"), 10, 1.7e9 + 0.5, 0.125);
    writer.writeHParams({{QStringLiteral("train.lr"), 0.01},
                         {QStringLiteral("model.loss"), QStringLiteral("margin")},
                         {QStringLiteral("model.filter"), true}},
                        1.7e9);
    writer.writeScalar(QStringLiteral("loss"), 10, 1.7e9 + 0.75, 0.5);
    return buffer.data();
}

} // namespace

class TestTensorBoardEvents : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void crc32cKnownValue()
    {
        // The standard check value of CRC-32C.
        QCOMPARE(recordframing::crc32c("123456789", 9), 0xe3069283u);
        QCOMPARE(recordframing::masked(0u), 0xa282ead8u);
    }

    void writtenScalarsAndHParamsReadBack()
    {
        const TensorBoardEvents events = TensorBoardEventReader::parse(writtenFile(), QStringLiteral("f"));
        QVERIFY2(events.error.isEmpty(), qPrintable(events.error));
        QCOMPARE(events.fileVersion, QStringLiteral("brain.Event:2"));
        QCOMPARE(events.records, 5);
        QCOMPARE(events.scalars.size(), 3); // the hparams' null tensor is no scalar
        QCOMPARE(events.scalars[0].tag, QStringLiteral("loss"));
        QCOMPARE(events.scalars[0].step, 5);
        QCOMPARE(events.scalars[0].wallTime, 1.7e9 + 0.25);
        QCOMPARE(events.scalars[0].value, 0.75);
        QCOMPARE(events.scalars[1].tag, QStringLiteral("valid/mrr"));
        QCOMPARE(events.scalars[2].step, 10);
        QCOMPARE(events.hparams.size(), 3);
        QCOMPARE(events.hparams[0].first, QStringLiteral("train.lr"));
        QCOMPARE(events.hparams[0].second.toDouble(), 0.01);
        QCOMPARE(events.hparams[1].second.toString(), QStringLiteral("margin"));
        QCOMPARE(events.hparams[2].second.toBool(), true);
    }

    void tf2TensorScalarsRead()
    {
        QByteArray file = recordframing::frame(TensorBoardEventWriter::versionEvent(1.0));
        file += recordframing::frame(tf2Event(QStringLiteral("a"), 1, 2.0, 0.5, Tf2::FloatContent, true));
        file += recordframing::frame(tf2Event(QStringLiteral("a"), 2, 3.0, 0.25, Tf2::FloatVal, false));
        file += recordframing::frame(tf2Event(QStringLiteral("b"), 3, 4.0, 0.1, Tf2::DoubleContent, true));
        file += recordframing::frame(tf2Event(QStringLiteral("c"), 4, 5.0, 0.2, Tf2::DoubleVal, false));
        const TensorBoardEvents events = TensorBoardEventReader::parse(file, QStringLiteral("f"));
        QVERIFY2(events.error.isEmpty(), qPrintable(events.error));
        QCOMPARE(events.scalars.size(), 4);
        QCOMPARE(events.scalars[0].value, 0.5);
        QCOMPARE(events.scalars[1].value, 0.25);
        QCOMPARE(events.scalars[1].step, 2);
        QCOMPARE(events.scalars[2].value, 0.1); // a double stays a double
        QCOMPARE(events.scalars[3].value, 0.2);
        QCOMPARE(events.scalars[3].wallTime, 5.0);
    }

    void damagedRecordStopsKeepingWhatCameBefore_data()
    {
        QTest::addColumn<int>("cut");  // bytes cut off the end
        QTest::addColumn<int>("flip"); // a byte flipped, counted from the end (0: none)
        QTest::addColumn<QString>("why");
        QTest::newRow("truncated data") << 6 << 0 << QStringLiteral("truncated record");
        QTest::newRow("truncated header") << 0 << 0 << QStringLiteral("truncated record header");
        QTest::newRow("data crc") << 0 << 6 << QStringLiteral("data CRC mismatch");
    }

    void damagedRecordStopsKeepingWhatCameBefore()
    {
        QFETCH(int, cut);
        QFETCH(int, flip);
        QFETCH(QString, why);
        QByteArray file = writtenFile();
        const qsizetype good =
            file.size()
            - recordframing::frame(TensorBoardEventWriter::scalarEvent(QStringLiteral("loss"), 10, 1.7e9 + 0.75, 0.5))
                  .size();
        if (why == QStringLiteral("truncated record header")) {
            file.truncate(good + 7);
        }
        file.chop(cut);
        if (flip > 0) {
            file[file.size() - flip] = char(file[file.size() - flip] ^ 0x40);
        }
        const TensorBoardEvents events = TensorBoardEventReader::parse(file, QStringLiteral("run/events"));
        QCOMPARE(events.records, 4);
        QCOMPARE(events.scalars.size(), 2);
        QCOMPARE(events.error,
                 QStringLiteral("run/events: record 5 at byte %1: %2 (the 4 record(s) before it are kept)")
                     .arg(good)
                     .arg(why));
    }

    void lengthCrcChecked()
    {
        QByteArray file = writtenFile();
        file[0] = char(file[0] ^ 1); // the first record's length
        const TensorBoardEvents events = TensorBoardEventReader::parse(file, QStringLiteral("f"));
        QCOMPARE(events.records, 0);
        QVERIFY2(events.error.contains(QStringLiteral("record 1 at byte 0: length CRC mismatch")),
                 qPrintable(events.error));
    }

    void fifoAndLinkRefused()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath(QStringLiteral("events.out.tfevents.1.h.1.fifo"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        // A FIFO with no writer: a blocking open would hang the test here.
        TensorBoardEvents events = TensorBoardEventReader::readFile(fifo);
        QVERIFY2(events.error.contains(QStringLiteral("not a regular file")), qPrintable(events.error));
        const QString real = dir.filePath(QStringLiteral("real"));
        QFile file(real);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(writtenFile());
        file.close();
        QCOMPARE(TensorBoardEventReader::readFile(real).scalars.size(), 3);
        const QString link = dir.filePath(QStringLiteral("events.out.tfevents.1.h.1.link"));
        QVERIFY(QFile::link(real, link));
        events = TensorBoardEventReader::readFile(link);
        QVERIFY(!events.error.isEmpty());
        QVERIFY(events.scalars.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestTensorBoardEvents)
#include "tst_tensorboardevents.moc"
