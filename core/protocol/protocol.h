#pragma once

// The wire format between trainyard-worker and the orchestrator: one JSON
// object per line, UTF-8, over a stream socket. Qt-free so that the worker can
// be built on a headless GPU node without Qt. See docs/protocol.md.

#include "protocol/messagetype.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace trainyard::protocol {

// Bumped when a message changes meaning; a peer with another major version is
// rejected at hello.
inline constexpr int kVersion = 1;

// No legitimate message comes close to this; a longer line is garbage or an
// attack and is dropped without being buffered in full.
inline constexpr std::size_t kMaxLineBytes = 64 * 1024;

// JSON nesting deeper than this is rejected before parsing finishes.
inline constexpr int kMaxDepth = 16;

MessageType typeOf(const nlohmann::json &message);

// Serialises one message as a single line, '\n' included. Invalid UTF-8 in
// strings is replaced rather than thrown on, so a log line can never kill the
// sender.
std::string encode(const nlohmann::json &message);

// Message builders. Every message carries "type"; worker messages also carry
// "wall", seconds since the run started, as metrics.jsonl requires.
nlohmann::json hello(std::string_view runId, std::string_view token, std::int64_t pid, std::string_view device,
                     double wall);
nlohmann::json metric(std::int64_t step, std::int64_t epoch, double loss, double wall);
nlohmann::json evalResult(std::int64_t step, std::string_view split, double wall);
nlohmann::json log(std::string_view level, std::string_view text, double wall);
nlohmann::json checkpoint(std::int64_t step, std::string_view path, double wall);
nlohmann::json heartbeat(std::int64_t step, double wall);
nlohmann::json done(std::string_view status, int exitCode, double wall);
// A program's summary values (run.summary): the caller adds them, numbers or null.
nlohmann::json summary(double wall);
nlohmann::json control(MessageType type);

// Validation shared by both sides: true if `message` is a JSON object whose
// "type" is known and whose required fields have the right JSON types (a
// metric line's "loss" is optional: a program may report other metrics only).
// `error` names the first offending field.
bool validate(const nlohmann::json &message, std::string *error = nullptr);

} // namespace trainyard::protocol
