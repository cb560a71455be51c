// RecordDecoder, the one decoder of worker lines (the socket's and
// metrics.jsonl's): framing in any chunking, the fast path and the full path
// giving the same records, one check of each line, and every refusal.

#include "protocol/metricline.h"
#include "protocol/protocol.h"
#include "protocol/recorddecoder.h"

#include "tests/helpers/minitest.h"

#include <cmath>
#include <string>
#include <vector>

using namespace trainyard;
using namespace trainyard::protocol;

namespace {

struct Decoded
{
    RecordDecoder::Status status;
    MetricRecord record;
    bool json = false; // took the full path
    std::uint64_t start = 0;
};

// Feeds `stream` in pieces of `chunk` bytes and collects what next() says.
std::vector<Decoded> decodeAll(RecordDecoder &decoder, const std::string &stream, std::size_t chunk)
{
    std::vector<Decoded> out;
    for (std::size_t at = 0; at < stream.size(); at += chunk) {
        const std::string piece = stream.substr(at, chunk); // a fresh buffer each time, as a socket's
        decoder.feed(piece.data(), piece.size());
        RecordDecoder::Status status;
        while (decoder.next(&status)) {
            out.push_back({status, decoder.record(), !decoder.message().is_null(), decoder.lineStart()});
        }
    }
    return out;
}

std::vector<nlohmann::json> everyKind()
{
    auto metric = protocol::metric(10, 1, 0.75, 1.5);
    metric["lr"] = 0.001;
    metric["total_steps"] = 200;
    auto eval = evalResult(10, "valid", 1.75);
    eval["mrr"] = 0.25;
    return {hello("r", "secret", 4321, "cpu", 0.01),
            log("info", "start \"quoted\" é", 0.02),
            metric,
            eval,
            checkpoint(10, "checkpoints/step-10.pt", 1.8),
            heartbeat(11, 2.0),
            summary(2.4),
            done("finished", 0, 2.5)};
}

} // namespace

TY_TEST(everyKindInAnyChunkingGivesTheRecordsOfFromJson)
{
    std::string stream;
    for (const auto &m : everyKind()) {
        stream += encode(m);
    }
    for (std::size_t chunk : {std::size_t(1), std::size_t(7), std::size_t(64), stream.size()}) {
        RecordDecoder decoder;
        const std::vector<Decoded> got = decodeAll(decoder, stream, chunk);
        TY_CHECK_EQ(got.size(), everyKind().size());
        for (std::size_t i = 0; i < got.size() && i < everyKind().size(); ++i) {
            MetricRecord expected;
            TY_CHECK(MetricRecord::fromJson(everyKind()[i], &expected));
            TY_CHECK(got[i].status == RecordDecoder::Status::Record);
            TY_CHECK(got[i].record == expected);
            // Only the plain metric line takes the fast path.
            TY_CHECK_EQ(got[i].json, got[i].record.kind != MessageType::Metric);
        }
        TY_CHECK_EQ(decoder.consumed(), stream.size());
        TY_CHECK(!decoder.midLine());
    }
}

TY_TEST(helloKeepsItsTokenInTheJsonOnly)
{
    RecordDecoder decoder;
    const std::string line = encode(hello("r", "secret", 1, "cpu", 0.0));
    decoder.feed(line.data(), line.size());
    RecordDecoder::Status status;
    TY_CHECK(decoder.next(&status));
    TY_CHECK(status == RecordDecoder::Status::Record);
    TY_CHECK(decoder.record().kind == MessageType::Hello);
    TY_CHECK_EQ(decoder.message().at("token").get<std::string>(), std::string("secret"));
    TY_CHECK(decoder.record().describe().find("secret") == std::string::npos);
}

TY_TEST(fastPathAndFullPathMakeTheSameRecord)
{
    // The same metric, plain (fast path) and with an escaped string (full path).
    const std::string plain = R"({"type":"metric","wall":1.5,"step":10,"epoch":0,"loss":0.7,"lr":0.001})";
    const std::string escaped =
        R"({"type":"metric","wall":1.5,"step":10,"epoch":0,"loss":0.7,"lr":0.001,"note":"a\"b"})";
    RecordDecoder decoder;
    TY_CHECK(decoder.decodeLine(plain.data(), plain.size()) == RecordDecoder::Status::Record);
    TY_CHECK(decoder.message().is_null());
    const MetricRecord fast = decoder.record();
    TY_CHECK(decoder.decodeLine(escaped.data(), escaped.size()) == RecordDecoder::Status::Record);
    TY_CHECK(decoder.message().is_object());
    TY_CHECK(decoder.record() == fast);
}

// JSON keeps the last of a key given twice; a number given again as a
// string or a bool is then no number, so the fast path must leave such a
// line to the full one (found by the record_decoder fuzz target).
TY_TEST(aNumberGivenAgainAsAnotherTypeLeavesTheFastPath)
{
    for (const std::string line : {R"({"type":"metric","wall":1,"step":1,"epoch":0,"loss":0.5,"e":10,"e":"x"})",
                                   R"({"type":"metric","wall":1,"step":1,"epoch":0,"loss":0.5,"e":10,"e":true})"}) {
        MetricRecord fast;
        TY_CHECK(!MetricLine::parse(line.data(), line.size(), &fast));
        RecordDecoder decoder;
        TY_CHECK(decoder.decodeLine(line.data(), line.size()) == RecordDecoder::Status::Record);
        TY_CHECK(decoder.message().is_object());
        TY_CHECK(decoder.record().value("e") == nullptr);
    }
    // Given as a string first and a number last, it is a number either way.
    const std::string last = R"({"type":"metric","wall":1,"step":1,"epoch":0,"loss":0.5,"e":"x","e":10})";
    MetricRecord fast;
    TY_CHECK(MetricLine::parse(last.data(), last.size(), &fast));
    TY_CHECK(fast.value("e") && *fast.value("e") == 10);
}

// A program's metric line without a loss (run.log(11, acc=0.9)) is a
// record on both paths, its acc a field; a summary line's values are
// fields, a null one NaN.
TY_TEST(aMetricLineWithoutLossAndASummaryLineAreRecords)
{
    const std::string plain = R"({"type":"metric","step":11,"epoch":1,"acc":0.9,"wall":0.25})";
    const std::string escaped = R"({"type":"metric","step":11,"epoch":1,"acc":0.9,"wall":0.25,"n":"\u0041"})";
    MetricRecord fast;
    TY_CHECK(MetricLine::parse(plain.data(), plain.size(), &fast));
    RecordDecoder decoder;
    TY_CHECK(decoder.decodeLine(escaped.data(), escaped.size()) == RecordDecoder::Status::Record);
    TY_CHECK(decoder.record() == fast);
    TY_CHECK(fast.value("loss") == nullptr);
    TY_CHECK(fast.value("acc") && *fast.value("acc") == 0.9);
    TY_CHECK_EQ(fast.step, std::int64_t(11));

    const std::string line = R"({"type":"summary","best_acc":0.93,"final_loss":null,"wall":3.5})";
    TY_CHECK(decoder.decodeLine(line.data(), line.size()) == RecordDecoder::Status::Record);
    const MetricRecord &summary = decoder.record();
    TY_CHECK(summary.kind == MessageType::Summary);
    TY_CHECK_EQ(summary.fieldCount, std::size_t(2));
    TY_CHECK(summary.value("best_acc") && *summary.value("best_acc") == 0.93);
    TY_CHECK(summary.value("final_loss") && std::isnan(*summary.value("final_loss")));
    TY_CHECK(summary.wall == 3.5);
    std::string name;
    TY_CHECK(!summary.pointName(0, &name)); // no curve: one value per name
}

// the worker's log line of the recipe "auto" chose names it.
TY_TEST(aRecipeLogLineNamesTheRecipe)
{
    const std::string line =
        R"({"type":"log","level":"info","text":"recipe auto: \"small\" for this graph","recipe":"small","wall":0.1})";
    RecordDecoder decoder;
    TY_CHECK(decoder.decodeLine(line.data(), line.size()) == RecordDecoder::Status::Record);
    TY_CHECK(decoder.record().kind == MessageType::Log);
    TY_CHECK_EQ(decoder.record().recipe, std::string("small"));
    const std::string plain = R"({"type":"log","level":"info","text":"data: 5216 triples","wall":0.2})";
    TY_CHECK(decoder.decodeLine(plain.data(), plain.size()) == RecordDecoder::Status::Record);
    TY_CHECK(decoder.record().recipe.empty());
}

TY_TEST(refusalsSayWhy)
{
    RecordDecoder decoder;
    const auto decode = [&](const std::string &line) { return decoder.decodeLine(line.data(), line.size()); };
    TY_CHECK(decode("{nope") == RecordDecoder::Status::NotJson);
    TY_CHECK_EQ(decoder.error(), std::string("line is not JSON"));
    TY_CHECK(decode("[1,2]") == RecordDecoder::Status::NotObject);
    TY_CHECK(decode("{\"type\":\"log\",\"text\":\"\xC3\x28\"}") == RecordDecoder::Status::InvalidUtf8);
    TY_CHECK(decode(std::string(40, '[') + std::string(40, ']')) == RecordDecoder::Status::NotJson);
    // Valid JSON objects that are no worker message: validated once, refused.
    TY_CHECK(decode(R"({"type":"eval","wall":1,"step":1,"split":3})") == RecordDecoder::Status::Invalid);
    TY_CHECK_EQ(decoder.error(), std::string("\"split\" must be a string"));
    TY_CHECK(decode(encode(control(MessageType::Stop))) == RecordDecoder::Status::Invalid);
    // A metric line with a mistyped field leaves the fast path and is refused by the full one.
    TY_CHECK(decode(R"({"type":"metric","wall":1,"step":"1","epoch":0,"loss":0.5})") == RecordDecoder::Status::Invalid);
    TY_CHECK(decode(" \t\r") == RecordDecoder::Status::Blank);
    TY_CHECK(decode("") == RecordDecoder::Status::Blank);
}

TY_TEST(blankLinesAndCarriageReturnsAreNoRecords)
{
    const std::string metric = encode(protocol::metric(1, 0, 0.5, 0.1));
    std::string crlf = encode(log("info", "x", 0.2));
    crlf.insert(crlf.size() - 1, "\r");
    const std::string stream = "\n  \n\r\n" + metric + crlf + "\n";
    RecordDecoder decoder;
    const std::vector<Decoded> got = decodeAll(decoder, stream, 3);
    TY_CHECK_EQ(got.size(), std::size_t(2));
    if (got.size() == 2) {
        TY_CHECK(got[0].record.kind == MessageType::Metric);
        TY_CHECK_EQ(got[0].start, std::uint64_t(6)); // after the three blank lines
        TY_CHECK(got[1].record.kind == MessageType::Log);
        TY_CHECK_EQ(got[1].start, std::uint64_t(6 + metric.size()));
    }
    TY_CHECK_EQ(decoder.consumed(), stream.size());
}

TY_TEST(oversizedLineIsReportedOnceAndNotBuffered)
{
    const std::string good = encode(protocol::metric(2, 0, 0.5, 0.1));
    const std::string huge = "{\"type\":\"log\",\"text\":\"" + std::string(3000, 'x') + "\"}\n";
    for (std::size_t chunk : {std::size_t(100), std::size_t(5000)}) {
        RecordDecoder decoder(1024);
        const std::vector<Decoded> got = decodeAll(decoder, huge + good + huge, chunk);
        TY_CHECK_EQ(got.size(), std::size_t(3));
        if (got.size() == 3) {
            TY_CHECK(got[0].status == RecordDecoder::Status::Oversized);
            TY_CHECK_EQ(got[0].start, std::uint64_t(0));
            TY_CHECK(got[1].status == RecordDecoder::Status::Record);
            TY_CHECK_EQ(got[1].record.step, std::int64_t(2));
            TY_CHECK(got[2].status == RecordDecoder::Status::Oversized);
            TY_CHECK_EQ(got[2].start, std::uint64_t(huge.size() + good.size()));
        }
        TY_CHECK_EQ(decoder.consumed(), 2 * huge.size() + good.size());
    }
    // Exactly at the limit is still a line.
    RecordDecoder decoder(good.size() - 1);
    TY_CHECK(decoder.decodeLine(good.data(), good.size() - 1) == RecordDecoder::Status::Record);
}

TY_TEST(anIncompleteLineWaitsForItsEnd)
{
    const std::string line = encode(protocol::metric(3, 0, 0.5, 0.1));
    RecordDecoder decoder;
    RecordDecoder::Status status;
    decoder.feed(line.data(), line.size() - 5);
    TY_CHECK(!decoder.next(&status));
    TY_CHECK(decoder.midLine());
    TY_CHECK_EQ(decoder.consumed(), std::uint64_t(0));
    decoder.feed(line.data() + line.size() - 5, 5);
    TY_CHECK(decoder.next(&status));
    TY_CHECK(status == RecordDecoder::Status::Record);
    TY_CHECK_EQ(decoder.record().step, std::int64_t(3));
    TY_CHECK(!decoder.midLine());
    decoder.reset();
    TY_CHECK_EQ(decoder.consumed(), std::uint64_t(0));
}

TY_TEST_MAIN()
