// Fuzz target: the orchestrator's view of a worker socket. Any byte stream,
// in any chunking, must decode without crashing, hanging or holding more than
// one line's worth of memory.

#include "protocol/linedecoder.h"
#include "protocol/protocol.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size == 0) {
        return 0;
    }
    // The first byte picks the chunk size, so the fuzzer explores split lines.
    const std::size_t chunk = 1 + data[0] % 64;
    trainyard::protocol::LineDecoder decoder(256);
    trainyard::protocol::LineDecoder::Result result;
    for (std::size_t offset = 1; offset < size; offset += chunk) {
        const std::size_t n = std::min(chunk, size - offset);
        decoder.feed(reinterpret_cast<const char *>(data + offset), n);
        while (decoder.next(result)) {
            if (result.status == trainyard::protocol::LineDecoder::Status::Message) {
                std::string error;
                trainyard::protocol::validate(result.message, &error);
                // Re-encoding what was accepted must give one valid line.
                const std::string line = trainyard::protocol::encode(result.message);
                if (line.empty() || line.back() != '\n') {
                    std::abort();
                }
            }
        }
        if (decoder.pendingBytes() > 256 + chunk) {
            std::abort();
        }
    }
    return 0;
}
