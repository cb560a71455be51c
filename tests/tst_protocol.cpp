// Protocol round trips and decoder abuse: split lines, floods, bad bytes.

#include "protocol/linedecoder.h"
#include "protocol/protocol.h"

#include "tests/helpers/minitest.h"

#include <random>

using namespace trainyard::protocol;

namespace {

std::vector<LineDecoder::Result> drain(LineDecoder &decoder)
{
    std::vector<LineDecoder::Result> out;
    LineDecoder::Result r;
    while (decoder.next(r)) {
        out.push_back(r);
    }
    return out;
}

} // namespace

TY_TEST(roundTripEveryType)
{
    const std::vector<nlohmann::json> messages = {
        hello("run-1", "tok", 42, "cpu", 0.0),
        metric(10, 1, 0.5, 1.25),
        evalResult(10, "valid", 2.0),
        log("info", "héllo wörld", 3.0),
        checkpoint(500, "/tmp/ckpt", 4.0),
        heartbeat(7, 5.0),
        done("finished", 0, 6.0),
        summary(6.5),
        control(MessageType::Stop),
        control(MessageType::Pause),
        control(MessageType::Resume),
        control(MessageType::CheckpointNow),
    };
    std::string stream;
    for (const auto &m : messages) {
        TY_CHECK(validate(m));
        stream += encode(m);
    }
    LineDecoder decoder;
    decoder.feed(stream);
    const auto results = drain(decoder);
    TY_REQUIRE(results.size() == messages.size());
    for (std::size_t i = 0; i < messages.size(); ++i) {
        TY_CHECK(results[i].status == LineDecoder::Status::Message);
        TY_CHECK(results[i].message == messages[i]);
    }
    TY_CHECK(typeOf(results[1].message) == MessageType::Metric);
    TY_CHECK_EQ(decoder.acceptedCount(), messages.size());
    TY_CHECK_EQ(decoder.rejectedCount(), 0u);
}

TY_TEST(typeNamesAreStable)
{
    TY_CHECK(typeName(MessageType::CheckpointNow) == "checkpoint-now");
    TY_CHECK(typeName(MessageType::Summary) == "summary");
    TY_CHECK(typeFromName("summary") == MessageType::Summary);
    TY_CHECK(typeFromName("metric") == MessageType::Metric);
    TY_CHECK(typeFromName("bogus") == MessageType::Unknown);
}

TY_TEST(lineSplitAtEveryByte)
{
    const std::string line = encode(metric(123, 4, 0.25, 9.5)) + encode(done("finished", 0, 10));
    for (std::size_t cut = 0; cut <= line.size(); ++cut) {
        LineDecoder decoder;
        decoder.feed(line.substr(0, cut));
        auto first = drain(decoder);
        decoder.feed(line.substr(cut));
        auto rest = drain(decoder);
        first.insert(first.end(), rest.begin(), rest.end());
        TY_REQUIRE(first.size() == 2);
        TY_CHECK(first[0].message["step"] == 123);
        TY_CHECK(first[1].message["status"] == "finished");
    }
}

TY_TEST(byteAtATime)
{
    const std::string line = encode(metric(1, 0, 1.0, 0.0));
    LineDecoder decoder;
    int got = 0;
    for (int repeat = 0; repeat < 100; ++repeat) {
        for (char c : line) {
            decoder.feed(&c, 1);
            got += static_cast<int>(drain(decoder).size());
        }
    }
    TY_CHECK_EQ(got, 100);
    TY_CHECK_EQ(decoder.pendingBytes(), 0u);
}

TY_TEST(oversizedLineIsSkippedWithoutBuffering)
{
    LineDecoder decoder(1024);
    std::string big(100000, 'x');
    // Fed in chunks: the decoder must never hold the whole line.
    for (std::size_t i = 0; i < big.size(); i += 4096) {
        decoder.feed(big.data() + i, std::min<std::size_t>(4096, big.size() - i));
        drain(decoder);
        TY_CHECK(decoder.pendingBytes() <= 1024 + 4096);
    }
    decoder.feed(std::string("\n") + encode(heartbeat(1, 1.0)));
    const auto results = drain(decoder);
    TY_REQUIRE(results.size() == 1);
    TY_CHECK(results[0].status == LineDecoder::Status::Message);
    TY_CHECK_EQ(decoder.rejectedCount(), 1u);
}

TY_TEST(oversizedCompleteLine)
{
    LineDecoder decoder(64);
    decoder.feed("{\"type\":\"log\",\"text\":\"" + std::string(200, 'a') + "\"}\n" + encode(heartbeat(1, 1)));
    const auto results = drain(decoder);
    TY_REQUIRE(results.size() == 2);
    TY_CHECK(results[0].status == LineDecoder::Status::Oversized);
    TY_CHECK(results[1].status == LineDecoder::Status::Message);
}

TY_TEST(invalidUtf8)
{
    LineDecoder decoder;
    decoder.feed(std::string("{\"type\":\"log\",\"text\":\"\xC3\x28\"}\n"));
    decoder.feed(std::string("{\"type\":\"log\",\"text\":\"\xED\xA0\x80\"}\n"));     // surrogate
    decoder.feed(std::string("{\"type\":\"log\",\"text\":\"\xC0\xAF\"}\n"));         // overlong
    decoder.feed(std::string("{\"type\":\"log\",\"text\":\"\xF0\x9F\x98\x80\"}\n")); // valid emoji
    const auto results = drain(decoder);
    TY_REQUIRE(results.size() == 4);
    TY_CHECK(results[0].status == LineDecoder::Status::InvalidUtf8);
    TY_CHECK(results[1].status == LineDecoder::Status::InvalidUtf8);
    TY_CHECK(results[2].status == LineDecoder::Status::InvalidUtf8);
    TY_CHECK(results[3].status == LineDecoder::Status::Message);
}

TY_TEST(notJsonAndNotObject)
{
    LineDecoder decoder;
    decoder.feed("hello there\n[1,2,3]\n42\n{\"type\":\n\r\n\n" + encode(heartbeat(2, 2)));
    const auto results = drain(decoder);
    TY_REQUIRE(results.size() == 5);
    TY_CHECK(results[0].status == LineDecoder::Status::NotJson);
    TY_CHECK(results[1].status == LineDecoder::Status::NotObject);
    TY_CHECK(results[2].status == LineDecoder::Status::NotObject);
    TY_CHECK(results[3].status == LineDecoder::Status::NotJson);
    TY_CHECK(results[4].status == LineDecoder::Status::Message);
}

TY_TEST(deepNestingRejected)
{
    LineDecoder decoder;
    decoder.feed(std::string(5000, '[') + std::string(5000, ']') + "\n");
    const auto results = drain(decoder);
    TY_REQUIRE(results.size() == 1);
    TY_CHECK(results[0].status == LineDecoder::Status::NotJson);
}

TY_TEST(validateNamesTheField)
{
    std::string error;
    auto m = metric(1, 0, 0.1, 0.0);
    m["step"] = "one";
    TY_CHECK(!validate(m, &error));
    TY_CHECK(error.find("step") != std::string::npos);
    TY_CHECK(!validate(nlohmann::json{{"type", "nope"}}, &error));
    TY_CHECK(!validate(nlohmann::json::array(), &error));
}

// A program may report metrics without a loss (run.log(11, acc=0.9)); a loss
// that is there is still a number or null. A summary line needs its wall.
TY_TEST(lossIsOptionalButTypedAndSummaryNeedsItsWall)
{
    std::string error;
    auto m = metric(11, 1, 0.1, 0.5);
    m.erase("loss");
    m["acc"] = 0.9;
    TY_CHECK(validate(m, &error));
    m["loss"] = nullptr;
    TY_CHECK(validate(m, &error));
    m["loss"] = "low";
    TY_CHECK(!validate(m, &error));
    TY_CHECK(error.find("loss") != std::string::npos);
    m.erase("loss");
    m.erase("epoch");
    TY_CHECK(!validate(m, &error));
    TY_CHECK(error.find("epoch") != std::string::npos);

    auto s = summary(2.0);
    s["best_acc"] = 0.93;
    s["final_loss"] = nullptr;
    TY_CHECK(validate(s, &error));
    s.erase("wall");
    TY_CHECK(!validate(s, &error));
    TY_CHECK(error.find("wall") != std::string::npos);
}

TY_TEST(randomBytesNeverThrow)
{
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> byte(0, 255);
    LineDecoder decoder(512);
    for (int round = 0; round < 2000; ++round) {
        std::string chunk(static_cast<std::size_t>(byte(rng)), '\0');
        for (auto &c : chunk) {
            c = static_cast<char>(byte(rng) < 20 ? '\n' : byte(rng));
        }
        decoder.feed(chunk);
        drain(decoder);
    }
    decoder.feed("\n" + encode(heartbeat(3, 3)));
    const auto results = drain(decoder);
    TY_REQUIRE(!results.empty());
    TY_CHECK(results.back().status == LineDecoder::Status::Message);
}

TY_TEST_MAIN()
