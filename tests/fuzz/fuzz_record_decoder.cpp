// Fuzz target: RecordDecoder, the one decoder of worker lines (the metrics
// socket and metrics.jsonl). Any byte stream must decode without crashing or
// holding more than a line, to the same outcomes whatever its chunking, and
// every line the fast path takes must give the record the full path gives.

#include "protocol/linedecoder.h"
#include "protocol/recorddecoder.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using trainyard::MetricRecord;
using trainyard::protocol::RecordDecoder;

namespace {

constexpr std::size_t kLimit = 256;

struct Outcome
{
    RecordDecoder::Status status;
    std::uint64_t start;
    MetricRecord record;
};

std::vector<Outcome> decode(const char *data, std::size_t size, std::size_t chunk, const std::string *whole)
{
    RecordDecoder decoder(kLimit);
    std::vector<Outcome> out;
    for (std::size_t at = 0; at < size; at += chunk) {
        const std::string piece(data + at, std::min(chunk, size - at));
        decoder.feed(piece.data(), piece.size());
        RecordDecoder::Status status;
        while (decoder.next(&status)) {
            out.push_back({status, decoder.lineStart(), {}});
            if (status != RecordDecoder::Status::Record) {
                continue;
            }
            out.back().record = decoder.record();
            if (whole && decoder.message().is_null()) {
                // The fast path took it: the full path must agree.
                std::size_t end = std::size_t(decoder.consumed()) - 1; // before the '\n'
                const std::size_t begin = std::size_t(decoder.lineStart());
                if (end > begin && (*whole)[end - 1] == '\r') {
                    --end;
                }
                nlohmann::json message;
                std::string error;
                MetricRecord full;
                if (trainyard::protocol::parseJsonLine(whole->data() + begin, end - begin, &message, &error)
                        != trainyard::protocol::LineDecoder::Status::Message
                    || !MetricRecord::fromJson(message, &full) || !(full == decoder.record())) {
                    std::abort();
                }
            }
        }
        if (decoder.midLine() && !decoder.discarding() && decoder.consumed() + kLimit < at + piece.size()) {
            std::abort(); // held more than a line
        }
    }
    if (decoder.consumed() > size) {
        std::abort();
    }
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size == 0) {
        return 0;
    }
    // The first byte picks the chunk size, so the fuzzer explores split lines.
    const std::size_t chunk = 1 + data[0] % 64;
    const char *text = reinterpret_cast<const char *>(data + 1);
    const std::string whole(text, size - 1);
    const std::vector<Outcome> inOne = decode(text, size - 1, size, &whole);
    const std::vector<Outcome> inChunks = decode(text, size - 1, chunk, nullptr);
    if (inOne.size() != inChunks.size()) {
        std::abort();
    }
    for (std::size_t i = 0; i < inOne.size(); ++i) {
        if (inOne[i].status != inChunks[i].status || inOne[i].start != inChunks[i].start
            || !(inOne[i].record == inChunks[i].record)) {
            std::abort();
        }
    }
    return 0;
}
