#pragma once

// The message types of the wire format, apart from protocol.h so that a
// decoded record (MetricRecord) can name its kind without the JSON library.

#include <string_view>

namespace trainyard::protocol {

enum class MessageType {
    Unknown,
    // worker -> orchestrator
    Hello,
    Metric,
    Eval,
    Log,
    Checkpoint,
    Heartbeat,
    Done,
    Summary, // a program's run.summary values (the Python module)
    // orchestrator -> worker
    Stop,
    Pause,
    Resume,
    CheckpointNow,
};

std::string_view typeName(MessageType type);
MessageType typeFromName(std::string_view name);

} // namespace trainyard::protocol
