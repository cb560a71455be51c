#pragma once

// The worker's exit statuses: the one table both sides read. The worker
// returns them and writes their status name in its "done" line; the
// orchestrator turns them back into a run state and a message. Qt-free and
// torch-free, like the rest of core/protocol. See docs/protocol.md.

#include <string_view>

namespace trainyard::protocol {

enum class ExitCode : int {
    Finished = 0, // trained to the end
    Failed = 1,   // a runtime failure (LibTorch error, out of memory, ...)
    BadInput = 2, // spec, data or arguments rejected before training
    Diverged = 3, // the loss became NaN or infinite
    Stopped = 4,  // stopped on request after writing a checkpoint
    Requeue = 5,  // checkpointed on SIGUSR2 (a batch job's time limit is near): resubmit with --resume
};

// The worker's exit status as a process exit code.
constexpr int toInt(ExitCode code)
{
    return static_cast<int>(code);
}

// True when `code` is one of the statuses above.
bool isKnownExit(int code);

// "finished", "failed", "diverged", "stopped", "requeue": the word of the "done" line
// and of status.json ("failed" for BadInput too). "failed" for unknown codes.
std::string_view exitStatusName(int code);

// For the user: "bad input (spec, data or arguments)", ...; "unexpected exit
// status" for codes the worker never returns.
std::string_view exitMeaning(int code);

} // namespace trainyard::protocol
