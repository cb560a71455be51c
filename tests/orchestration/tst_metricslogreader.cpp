// MetricsLogReader, the one reader of metrics.jsonl, and MetricRecord, the
// one record type: every message kind, torn and invalid and oversized lines,
// reads from an offset, and the same records from the socket as from the file.

#include "metrics/metricslogreader.h"
#include "orchestration/ingest/metricsserver.h"
#include "protocol/metricline.h"
#include "protocol/metricrecord.h"
#include "protocol/protocol.h"

#include <QFile>
#include <QLocalSocket>
#include <QTemporaryDir>
#include <QTest>

using namespace trainyard;

namespace trainyard {
// QCOMPARE's message for two records that differ.
char *toString(const MetricRecord &record)
{
    return qstrdup(record.describe().c_str());
}
} // namespace trainyard

namespace {

QByteArray line(const nlohmann::json &message)
{
    return QByteArray::fromStdString(protocol::encode(message));
}

// One message of every kind a worker writes, as the worker builds them.
QList<nlohmann::json> everyKind()
{
    auto metric = protocol::metric(10, 1, 0.75, 1.5);
    metric["lr"] = 0.001;
    metric["samples_per_s"] = 2560.5;
    metric["total_steps"] = 200;
    auto eval = protocol::evalResult(10, "valid", 1.75);
    eval["epoch"] = 1;
    eval["mrr"] = 0.25;
    eval["hits@10"] = 0.5;
    auto heartbeat = protocol::heartbeat(11, 2.0);
    heartbeat["total_steps"] = 200;
    return {protocol::hello("r", "secret", 4321, "cpu", 0.01),
            protocol::log("info", "start: transe, \"quoted\" and é", 0.02),
            metric,
            eval,
            protocol::checkpoint(10, "checkpoints/step-10.pt", 1.8),
            heartbeat,
            protocol::done("finished", 0, 2.5)};
}

struct Read
{
    MetricsLogReader::Result result;
    QList<MetricRecord> records;
};

Read readFile(const QString &path, qint64 offset = 0)
{
    Read read;
    MetricsLogReader reader;
    read.result = reader.read(path, offset, [&](const MetricRecord &record) { read.records << record; });
    return read;
}

bool writeFile(const QString &path, const QByteArray &bytes, QIODevice::OpenMode mode = QIODevice::WriteOnly)
{
    QFile f(path);
    return f.open(mode) && f.write(bytes) == bytes.size();
}

} // namespace

class TestMetricsLogReader : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_counter = 0;

    QString freshPath() { return m_dir.filePath(QStringLiteral("m%1.jsonl").arg(++m_counter)); }

private Q_SLOTS:
    void everyMessageKind()
    {
        const QString path = freshPath();
        QByteArray bytes;
        for (const nlohmann::json &m : everyKind()) {
            bytes += line(m);
        }
        QVERIFY(writeFile(path, bytes));
        const Read read = readFile(path);
        QCOMPARE(read.result.records, 7);
        QCOMPARE(read.result.skipped, 0);
        QCOMPARE(read.result.invalid, 0);
        QCOMPARE(read.result.offset, qint64(bytes.size()));
        QCOMPARE(read.records.size(), 7);

        const MetricRecord &hello = read.records.at(0);
        QCOMPARE(hello.kind, protocol::MessageType::Hello);
        QCOMPARE(hello.run, std::string("r"));
        QCOMPARE(hello.device, std::string("cpu"));
        QCOMPARE(hello.pid, std::int64_t(4321));
        QVERIFY(hello.describe().find("secret") == std::string::npos); // the token is not kept

        const MetricRecord &log = read.records.at(1);
        QCOMPARE(log.kind, protocol::MessageType::Log);
        QCOMPARE(log.level, std::string("info"));
        QCOMPARE(QString::fromStdString(log.text), QStringLiteral("start: transe, \"quoted\" and é"));
        QCOMPARE(log.wall, 0.02);

        const MetricRecord &metric = read.records.at(2);
        QCOMPARE(metric.kind, protocol::MessageType::Metric);
        QCOMPARE(metric.step, std::int64_t(10));
        QCOMPARE(metric.epoch, std::int64_t(1));
        QCOMPARE(metric.wall, 1.5);
        QCOMPARE(metric.totalSteps, std::int64_t(200));
        QCOMPARE(metric.fieldCount, std::size_t(5)); // epoch, loss, lr, samples_per_s, total_steps
        QVERIFY(metric.value("loss") && *metric.value("loss") == 0.75);
        QVERIFY(metric.value("lr") && *metric.value("lr") == 0.001);
        QVERIFY(metric.value("samples_per_s") && *metric.value("samples_per_s") == 2560.5);
        QVERIFY(!metric.value("step") && !metric.value("wall"));

        const MetricRecord &eval = read.records.at(3);
        QCOMPARE(eval.kind, protocol::MessageType::Eval);
        QCOMPARE(eval.split, std::string("valid"));
        QCOMPARE(eval.step, std::int64_t(10));
        QCOMPARE(eval.epoch, std::int64_t(1));
        QVERIFY(eval.value("mrr") && *eval.value("mrr") == 0.25);
        QVERIFY(eval.value("hits@10") && *eval.value("hits@10") == 0.5);

        const MetricRecord &checkpoint = read.records.at(4);
        QCOMPARE(checkpoint.kind, protocol::MessageType::Checkpoint);
        QCOMPARE(checkpoint.step, std::int64_t(10));
        QCOMPARE(checkpoint.path, std::string("checkpoints/step-10.pt"));

        const MetricRecord &heartbeat = read.records.at(5);
        QCOMPARE(heartbeat.kind, protocol::MessageType::Heartbeat);
        QCOMPARE(heartbeat.step, std::int64_t(11));
        QCOMPARE(heartbeat.totalSteps, std::int64_t(200));

        const MetricRecord &done = read.records.at(6);
        QCOMPARE(done.kind, protocol::MessageType::Done);
        QCOMPARE(done.status, std::string("finished"));
        QCOMPARE(done.exitCode, 0);
        QCOMPARE(done.wall, 2.5);
    }

    // The points of records under MetricStore's names.
    void pointNames()
    {
        const Read read = [&] {
            const QString path = freshPath();
            QByteArray bytes;
            for (const nlohmann::json &m : everyKind()) {
                bytes += line(m);
            }
            writeFile(path, bytes);
            return readFile(path);
        }();
        QStringList metricPoints, evalPoints, logPoints;
        std::string name;
        const MetricRecord &metric = read.records.at(2);
        for (std::size_t i = 0; i < metric.fieldCount; ++i) {
            if (metric.pointName(i, &name)) {
                metricPoints << QString::fromStdString(name);
            }
        }
        const MetricRecord &eval = read.records.at(3);
        for (std::size_t i = 0; i < eval.fieldCount; ++i) {
            if (eval.pointName(i, &name)) {
                evalPoints << QString::fromStdString(name);
            }
        }
        metricPoints.sort();
        evalPoints.sort();
        QCOMPARE(metricPoints, (QStringList{QStringLiteral("epoch"), QStringLiteral("loss"), QStringLiteral("lr"),
                                            QStringLiteral("samples_per_s")}));
        QCOMPARE(evalPoints, (QStringList{QStringLiteral("valid/epoch"), QStringLiteral("valid/hits@10"),
                                          QStringLiteral("valid/mrr")}));
        QVERIFY(!read.records.at(5).pointName(0, &name)); // a heartbeat's total_steps is no point
    }

    // The socket hands the same records as the file (one decoder,
    // protocol::RecordDecoder, for both), and the same as fromJson makes.
    void sameRecordsFromTheSocketAndTheFile()
    {
        QList<nlohmann::json> messages = everyKind();
        QByteArray fileBytes;
        for (qsizetype i = 1; i < messages.size(); ++i) { // the hello is never written to the file
            fileBytes += line(messages.at(i));
        }
        // A metric line the fast path leaves to the full decoder (an escape).
        const QByteArray escaped =
            "{\"type\":\"metric\",\"wall\":3,\"step\":12,\"epoch\":1,\"loss\":0.5,\"note\":\"a\\\"b\"}";
        fileBytes += escaped + '\n';
        const QString path = freshPath();
        QVERIFY(writeFile(path, fileBytes));
        const Read fromFile = readFile(path);
        QCOMPARE(fromFile.records.size(), 7);

        MetricsServer server;
        QList<MetricRecord> fromSocket;
        server.setHandler([&](RunId, const MetricRecord &record) {
            if (record.kind != protocol::MessageType::Hello) {
                fromSocket << record;
            }
        });
        QString error;
        QVERIFY2(server.listen(m_dir.filePath(QStringLiteral("sock/m.sock")), &error), qPrintable(error));
        const QString token = server.registerRun(1, QStringLiteral("r"));
        QLocalSocket client;
        client.connectToServer(server.socketPath());
        QVERIFY(client.waitForConnected(2000));
        client.write(line(protocol::hello("r", token.toStdString(), 4321, "cpu", 0.01)));
        client.write(fileBytes);
        QTRY_COMPARE(fromSocket.size(), 7);
        for (qsizetype i = 0; i < fromFile.records.size(); ++i) {
            QCOMPARE(fromSocket.at(i), fromFile.records.at(i));
        }

        // And each equals what the one JSON decoder makes of the message.
        for (qsizetype i = 1; i < messages.size(); ++i) {
            MetricRecord decoded;
            QVERIFY(MetricRecord::fromJson(messages.at(i), &decoded));
            QCOMPARE(decoded, fromFile.records.at(i - 1));
        }
    }

    void tornLastLineIsLeftForTheNextRead()
    {
        const QString path = freshPath();
        const QByteArray first = line(protocol::metric(1, 1, 0.9, 0.1));
        const QByteArray second = line(protocol::metric(2, 1, 0.8, 0.2));
        const qsizetype cut = second.size() / 2;
        QVERIFY(writeFile(path, first + second.left(cut)));
        const Read a = readFile(path);
        QCOMPARE(a.result.records, 1);
        QCOMPARE(a.result.skipped, 1); // the torn line, not consumed
        QCOMPARE(a.result.offset, qint64(first.size()));
        QVERIFY(writeFile(path, second.mid(cut), QIODevice::Append));
        const Read b = readFile(path, a.result.offset);
        QCOMPARE(b.result.records, 1);
        QCOMPARE(b.result.skipped, 0);
        QCOMPARE(b.records.at(0).step, std::int64_t(2));
        QCOMPARE(b.result.offset, qint64(first.size() + second.size()));
        // Nothing new: nothing read, the offset stays.
        const Read c = readFile(path, b.result.offset);
        QCOMPARE(c.result.records, 0);
        QCOMPARE(c.result.offset, b.result.offset);
    }

    // Cut anywhere, two reads hand over exactly the records of one.
    void piecewiseReadsEqualOneRead()
    {
        QByteArray bytes;
        for (const nlohmann::json &m : everyKind()) {
            bytes += line(m);
        }
        bytes += "not json\n\n   \n";
        bytes += line(protocol::metric(20, 2, 0.5, 3.0));
        const QString whole = freshPath();
        QVERIFY(writeFile(whole, bytes));
        const Read once = readFile(whole);
        QCOMPARE(once.result.records, 8);
        for (qsizetype cut = 0; cut <= bytes.size(); cut += 7) {
            const QString path = freshPath();
            QVERIFY(writeFile(path, bytes.left(cut)));
            Read first = readFile(path);
            QVERIFY(writeFile(path, bytes));
            const Read second = readFile(path, first.result.offset);
            first.records += second.records;
            QCOMPARE(first.records.size(), once.records.size());
            QVERIFY2(first.records == once.records, qPrintable(QStringLiteral("cut at %1").arg(cut)));
            QCOMPARE(second.result.offset, once.result.offset);
            QFile::remove(path);
        }
    }

    void invalidLinesAreSkippedAndCounted()
    {
        const QString path = freshPath();
        QByteArray bytes;
        bytes += line(protocol::metric(1, 1, 0.9, 0.1));
        bytes += "this is not json\n";                                                     // skipped
        bytes += QByteArray(40, '\0') + '\n';                                              // skipped
        bytes += "[1,2,3]\n";                                                              // skipped: not an object
        bytes += "{\"type\":\"log\",\"text\":\"\xff\xfe\"}\n";                             // skipped: not UTF-8
        bytes += QByteArray(20, '[') + QByteArray(20, ']') + '\n';                         // skipped: nested too deep
        bytes += "{\"type\":\"done\",\"status\":7,\"exit_code\":\"x\"}\n";                 // invalid: mistyped
        bytes += "{\"type\":\"metric\",\"wall\":1,\"step\":1.5,\"epoch\":0,\"loss\":1}\n"; // invalid: float step
        bytes += "{\"type\":\"stop\"}\n";                // invalid: no worker's message
        bytes += "{\"type\":\"nonsense\",\"wall\":1}\n"; // invalid: unknown type
        bytes += "\n  \r\n";                             // blank: neither
        bytes += "{\"type\":\"metric\",\"wall\":2,\"step\":2,\"epoch\":1,\"loss\":0.5}\r\n"; // CRLF is fine
        QVERIFY(writeFile(path, bytes));
        const Read read = readFile(path);
        QCOMPARE(read.result.records, 2);
        QCOMPARE(read.result.skipped, 5);
        QCOMPARE(read.result.invalid, 4);
        QCOMPARE(read.result.offset, qint64(bytes.size()));
        QCOMPARE(read.records.at(1).step, std::int64_t(2));
        QVERIFY(read.records.at(1).value("loss") && *read.records.at(1).value("loss") == 0.5);
    }

    void oversizedLinesAreSkippedWithoutStoppingTheRead()
    {
        const QString path = freshPath();
        // Exactly at the limit: still a line; one byte more: skipped (across
        // several read chunks, never buffered whole).
        const std::string prefix = "{\"type\":\"log\",\"level\":\"info\",\"wall\":1,\"text\":\"";
        const std::size_t fill = protocol::kMaxLineBytes - prefix.size() - 2;
        const QByteArray atLimit = QByteArray::fromStdString(prefix + std::string(fill, 'x') + "\"}");
        QCOMPARE(std::size_t(atLimit.size()), protocol::kMaxLineBytes);
        const QByteArray tooLong = QByteArray::fromStdString(prefix + std::string(fill + 1, 'x') + "\"}");
        const QByteArray huge = QByteArray::fromStdString(prefix + std::string(300000, 'y') + "\"}");
        const QByteArray after = line(protocol::metric(3, 1, 0.5, 2.0));
        QVERIFY(writeFile(path, atLimit + '\n' + tooLong + '\n' + huge + '\n' + after + huge));
        const Read read = readFile(path);
        QCOMPARE(read.result.records, 2); // the line at the limit, the metric after
        QCOMPARE(read.result.skipped, 3); // two oversized lines and the torn oversized tail
        QCOMPARE(read.records.at(0).kind, protocol::MessageType::Log);
        QCOMPARE(read.records.at(0).text.size(), fill);
        QCOMPARE(read.records.at(1).step, std::int64_t(3));
        // The torn tail is not consumed.
        QCOMPARE(read.result.offset, qint64(atLimit.size() + tooLong.size() + huge.size() + after.size() + 3));
    }

    void absentAndReplacedFiles()
    {
        const QString path = freshPath();
        const Read none = readFile(path, 123);
        QCOMPARE(none.result.records, 0);
        QCOMPARE(none.result.offset, qint64(123));
        const QByteArray two = line(protocol::metric(1, 1, 0.9, 0.1)) + line(protocol::metric(2, 1, 0.8, 0.2));
        QVERIFY(writeFile(path, two));
        const Read a = readFile(path);
        QCOMPARE(a.result.records, 2);
        // A retry replaced the file with a shorter one: read from its start.
        const QByteArray one = line(protocol::metric(1, 1, 0.7, 0.1));
        QVERIFY(writeFile(path, one));
        const Read b = readFile(path, a.result.offset);
        QCOMPARE(b.result.records, 1);
        QCOMPARE(b.records.at(0).value("loss") ? *b.records.at(0).value("loss") : 0.0, 0.7);
        QCOMPARE(b.result.offset, qint64(one.size()));
    }

    void decodeLineTellsWhy()
    {
        MetricsLogReader reader;
        const QByteArray good = "{\"type\":\"eval\",\"wall\":1,\"step\":1,\"split\":\"valid\",\"mrr\":0.1}";
        QCOMPARE(reader.decodeLine(good.constData(), std::size_t(good.size())), MetricsLogReader::LineStatus::Record);
        QCOMPARE(reader.record().split, std::string("valid"));
        const QByteArray mistyped = "{\"type\":\"eval\",\"wall\":1,\"step\":1,\"split\":3}";
        QCOMPARE(reader.decodeLine(mistyped.constData(), std::size_t(mistyped.size())),
                 MetricsLogReader::LineStatus::Invalid);
        QCOMPARE(reader.error(), std::string("\"split\" must be a string"));
        const QByteArray garbage = "{nope";
        QCOMPARE(reader.decodeLine(garbage.constData(), std::size_t(garbage.size())),
                 MetricsLogReader::LineStatus::Skipped);
        QCOMPARE(reader.error(), std::string("line is not JSON"));
        QCOMPARE(reader.decodeLine(" \t", 2), MetricsLogReader::LineStatus::Blank);
    }

    // More numbers than a record holds: the first kMaxFields are kept (the
    // fast path hands such a line to the full decoder).
    void recordHoldsAtMostMaxFields()
    {
        nlohmann::json m = protocol::metric(1, 1, 0.5, 0.1);
        for (int i = 0; i < 20; ++i) {
            m["x" + std::to_string(i)] = i;
        }
        const std::string text = m.dump();
        MetricLine fast;
        QVERIFY(!fast.parse(text.data(), text.size()));
        MetricRecord record;
        QVERIFY(MetricRecord::fromJson(m, &record));
        QCOMPARE(record.fieldCount, MetricRecord::kMaxFields);
    }
};

QTEST_GUILESS_MAIN(TestMetricsLogReader)
#include "tst_metricslogreader.moc"
