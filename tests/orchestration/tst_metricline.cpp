// MetricLine, the fast path for metric lines: it accepts only what the full
// decoder would accept as a valid metric, with the same values, and fills the
// same MetricRecord as MetricRecord::fromJson.

#include "protocol/metricline.h"
#include "protocol/protocol.h"

#include <QTest>

using namespace trainyard;

// The table lives at the end of the file: moc's tokenizer trips over
// the raw string literals.
static void addRows();

class TestMetricLine : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void agreesWithTheFullDecoder_data() { addRows(); }

    void agreesWithTheFullDecoder()
    {
        QFETCH(QByteArray, line);
        QFETCH(bool, fast);
        MetricLine m;
        QCOMPARE(m.parse(line.constData(), std::size_t(line.size())), fast);
        if (!fast) {
            return;
        }
        const auto full = nlohmann::json::parse(line.constData(), line.constData() + line.size(), nullptr, false);
        QVERIFY(protocol::validate(full));
        QCOMPARE(m.record.step, full.at("step").get<std::int64_t>());
        QCOMPARE(m.record.wall, full.at("wall").get<double>());
        std::size_t numbers = 0;
        for (auto it = full.begin(); it != full.end(); ++it) {
            if (it->is_number() && it.key() != "step" && it.key() != "wall") {
                ++numbers;
            }
        }
        QCOMPARE(m.record.fieldCount, numbers);
        for (std::size_t i = 0; i < m.record.fieldCount; ++i) {
            QCOMPARE(m.record.fields[i].value, full.at(m.record.fields[i].name).get<double>());
        }
        // The one record type: the full path makes the same record of the line.
        MetricRecord decoded;
        QVERIFY(MetricRecord::fromJson(full, &decoded));
        QVERIFY(decoded == m.record);
        QCOMPARE(m.record.epoch, full.at("epoch").get<std::int64_t>());
    }
};

QTEST_GUILESS_MAIN(TestMetricLine)
#include "tst_metricline.moc"

static void addRows()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<bool>("fast");
    QTest::newRow("plain") << QByteArray(R"({"type":"metric","wall":1.5,"step":10,"epoch":0,"loss":0.7,"lr":0.001})")
                           << true;
    QTest::newRow("spaces") << QByteArray(
        R"( { "type" : "metric" , "wall":1e-3 ,"step": 3,"epoch":1,"loss":-2.5E+3 } )")
                            << true;
    QTest::newRow("strings and booleans")
        << QByteArray(R"({"type":"metric","wall":1,"step":1,"epoch":0,"loss":1,"note":"x","ok":true,"no":false})")
        << true;
    // null is a value that was not finite: the full path keeps it as NaN.
    QTest::newRow("null extra") << QByteArray(R"({"type":"metric","wall":1,"step":1,"epoch":0,"loss":1,"lr":null})")
                                << false;
    QTest::newRow("null loss") << QByteArray(R"({"type":"metric","wall":1,"step":1,"epoch":0,"loss":null})") << false;
    QTest::newRow("order") << QByteArray(R"({"loss":1,"epoch":0,"step":1,"wall":0,"type":"metric"})") << true;
    // JSON keeps a repeated key's last value; so must the fast path.
    QTest::newRow("key twice") << QByteArray(
        R"({"type":"metric","wall":1,"step":1,"epoch":0,"loss":1.5,"lr":0.1,"epoch":2,"loss":1.2})")
                               << true;
    QTest::newRow("eval") << QByteArray(R"({"type":"eval","wall":1,"step":1,"split":"valid","mrr":0.1})") << false;
    // A program's metric line may carry other numbers only (run.log(1, acc=0.9)).
    QTest::newRow("no loss") << QByteArray(R"({"type":"metric","wall":1,"step":1,"epoch":0,"acc":0.9})") << true;
    QTest::newRow("no epoch") << QByteArray(R"({"type":"metric","wall":1,"step":1,"loss":1})") << false;
    QTest::newRow("float step") << QByteArray(R"({"type":"metric","wall":1,"step":1.5,"epoch":0,"loss":1})") << false;
    QTest::newRow("string loss") << QByteArray(R"({"type":"metric","wall":1,"step":1,"epoch":0,"loss":"1"})") << false;
    QTest::newRow("nested") << QByteArray(R"({"type":"metric","wall":1,"step":1,"epoch":0,"loss":1,"x":{"a":1}})")
                            << false;
    QTest::newRow("escape") << QByteArray(R"({"type":"metric","wall":1,"step":1,"epoch":0,"loss":1,"t":"a\"b"})")
                            << false;
    QTest::newRow("non-ascii") << QByteArray(
        "{\"type\":\"metric\",\"wall\":1,\"step\":1,\"epoch\":0,\"loss\":1,\"t\":\"\xc3\xa9\"}")
                               << false;
    QTest::newRow("leading zero") << QByteArray(R"({"type":"metric","wall":01,"step":1,"epoch":0,"loss":1})") << false;
    QTest::newRow("bare dot") << QByteArray(R"({"type":"metric","wall":1.,"step":1,"epoch":0,"loss":1})") << false;
    QTest::newRow("nan") << QByteArray(R"({"type":"metric","wall":1,"step":1,"epoch":0,"loss":NaN})") << false;
    QTest::newRow("trailing") << QByteArray(R"({"type":"metric","wall":1,"step":1,"epoch":0,"loss":1}x)") << false;
    QTest::newRow("trailing comma") << QByteArray(R"({"type":"metric","wall":1,"step":1,"epoch":0,"loss":1,})")
                                    << false;
    QTest::newRow("huge step") << QByteArray(
        R"({"type":"metric","wall":1,"step":99999999999999999999,"epoch":0,"loss":1})")
                               << false;
    QTest::newRow("truncated") << QByteArray(R"({"type":"metric","wall":1,"step":1,"epoch":0,"loss":1)") << false;
}
