#include "protocol/exitcode.h"

#include <array>

namespace trainyard::protocol {

namespace {

struct ExitEntry
{
    ExitCode code;
    std::string_view status;
    std::string_view meaning;
};

constexpr std::array<ExitEntry, 6> kExitCodes = {{
    {ExitCode::Finished, "finished", "finished"},
    {ExitCode::Failed, "failed", "runtime failure"},
    {ExitCode::BadInput, "failed", "bad input (spec, data or arguments)"},
    {ExitCode::Diverged, "diverged", "diverged (loss NaN/inf)"},
    {ExitCode::Stopped, "stopped", "stopped on request"},
    {ExitCode::Requeue, "requeue", "checkpointed before the batch job's time limit, to be resubmitted"},
}};

const ExitEntry *entryFor(int code)
{
    for (const ExitEntry &e : kExitCodes) {
        if (toInt(e.code) == code) {
            return &e;
        }
    }
    return nullptr;
}

} // namespace

bool isKnownExit(int code)
{
    return entryFor(code) != nullptr;
}

std::string_view exitStatusName(int code)
{
    const ExitEntry *e = entryFor(code);
    return e ? e->status : std::string_view("failed");
}

std::string_view exitMeaning(int code)
{
    const ExitEntry *e = entryFor(code);
    return e ? e->meaning : std::string_view("unexpected exit status");
}

} // namespace trainyard::protocol
