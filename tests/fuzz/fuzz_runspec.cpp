// Fuzz target: the worker's run-spec parser (spec.json). Any bytes must give
// either a valid RunSpec or a BadInput naming the problem: no crash, no other
// exception, and what was accepted must be accepted again when re-read.

#include "worker/base/badinput.h"
#include "worker/base/runspec.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char *>(data), size);
    try {
        const trainyard::RunSpec spec = trainyard::RunSpec::parse(text, "fuzz.json");
        // The resolved spec (defaults filled in) is what a resumed worker and
        // the orchestrator see; it must parse to the very same thing.
        const trainyard::RunSpec again = trainyard::RunSpec::fromJson(spec.resolved, "resolved");
        if (again.resolved != spec.resolved) {
            std::abort();
        }
        if (spec.epochs < 1 || spec.batchSize < 1 || !(spec.lr > 0)) {
            std::abort();
        }
    } catch (const trainyard::BadInput &e) {
        if (std::string(e.what()).rfind("fuzz.json: ", 0) != 0) {
            std::abort(); // every message names the file
        }
    }
    return 0;
}
