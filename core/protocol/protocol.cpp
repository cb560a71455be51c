#include "protocol/protocol.h"

#include <array>
#include <utility>

namespace trainyard::protocol {

namespace {

using Entry = std::pair<MessageType, std::string_view>;
constexpr std::array<Entry, 12> kNames = {{
    {MessageType::Hello, "hello"},
    {MessageType::Metric, "metric"},
    {MessageType::Eval, "eval"},
    {MessageType::Log, "log"},
    {MessageType::Checkpoint, "checkpoint"},
    {MessageType::Heartbeat, "heartbeat"},
    {MessageType::Done, "done"},
    {MessageType::Summary, "summary"},
    {MessageType::Stop, "stop"},
    {MessageType::Pause, "pause"},
    {MessageType::Resume, "resume"},
    {MessageType::CheckpointNow, "checkpoint-now"},
}};

nlohmann::json base(MessageType type, double wall)
{
    return nlohmann::json{{"type", typeName(type)}, {"wall", wall}};
}

bool fail(std::string *error, std::string text)
{
    if (error) {
        *error = std::move(text);
    }
    return false;
}

} // namespace

std::string_view typeName(MessageType type)
{
    for (const auto &[t, name] : kNames) {
        if (t == type) {
            return name;
        }
    }
    return "unknown";
}

MessageType typeFromName(std::string_view name)
{
    for (const auto &[t, n] : kNames) {
        if (n == name) {
            return t;
        }
    }
    return MessageType::Unknown;
}

MessageType typeOf(const nlohmann::json &message)
{
    if (!message.is_object()) {
        return MessageType::Unknown;
    }
    const auto it = message.find("type");
    if (it == message.end() || !it->is_string()) {
        return MessageType::Unknown;
    }
    return typeFromName(it->get_ref<const std::string &>());
}

std::string encode(const nlohmann::json &message)
{
    std::string line = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    line.push_back('\n');
    return line;
}

nlohmann::json hello(std::string_view runId, std::string_view token, std::int64_t pid, std::string_view device,
                     double wall)
{
    auto m = base(MessageType::Hello, wall);
    m["run"] = runId;
    m["token"] = token;
    m["pid"] = pid;
    m["device"] = device;
    m["version"] = kVersion;
    return m;
}

nlohmann::json metric(std::int64_t step, std::int64_t epoch, double loss, double wall)
{
    auto m = base(MessageType::Metric, wall);
    m["step"] = step;
    m["epoch"] = epoch;
    m["loss"] = loss;
    return m;
}

nlohmann::json evalResult(std::int64_t step, std::string_view split, double wall)
{
    auto m = base(MessageType::Eval, wall);
    m["step"] = step;
    m["split"] = split;
    return m;
}

nlohmann::json log(std::string_view level, std::string_view text, double wall)
{
    auto m = base(MessageType::Log, wall);
    m["level"] = level;
    m["text"] = text;
    return m;
}

nlohmann::json checkpoint(std::int64_t step, std::string_view path, double wall)
{
    auto m = base(MessageType::Checkpoint, wall);
    m["step"] = step;
    m["path"] = path;
    return m;
}

nlohmann::json heartbeat(std::int64_t step, double wall)
{
    auto m = base(MessageType::Heartbeat, wall);
    m["step"] = step;
    return m;
}

nlohmann::json done(std::string_view status, int exitCode, double wall)
{
    auto m = base(MessageType::Done, wall);
    m["status"] = status;
    m["exit_code"] = exitCode;
    return m;
}

nlohmann::json summary(double wall)
{
    return base(MessageType::Summary, wall);
}

nlohmann::json control(MessageType type)
{
    return nlohmann::json{{"type", typeName(type)}};
}

bool validate(const nlohmann::json &message, std::string *error)
{
    if (!message.is_object()) {
        return fail(error, "message is not a JSON object");
    }
    const MessageType type = typeOf(message);
    if (type == MessageType::Unknown) {
        return fail(error, "\"type\" is missing or unknown");
    }

    auto need = [&](const char *key, auto check, const char *what) {
        const auto it = message.find(key);
        if (it == message.end()) {
            return fail(error, std::string("\"") + key + "\" is missing");
        }
        if (!check(*it)) {
            return fail(error, std::string("\"") + key + "\" must be " + what);
        }
        return true;
    };
    auto optional = [&](const char *key, auto check, const char *what) {
        const auto it = message.find(key);
        if (it != message.end() && !check(*it)) {
            return fail(error, std::string("\"") + key + "\" must be " + what);
        }
        return true;
    };
    const auto isInt = [](const nlohmann::json &v) { return v.is_number_integer(); };
    const auto isNum = [](const nlohmann::json &v) { return v.is_number(); };
    const auto isStr = [](const nlohmann::json &v) { return v.is_string(); };
    // JSON has no NaN: a program's non-finite loss comes as null (a gap in the curve).
    const auto isNumOrNull = [](const nlohmann::json &v) { return v.is_number() || v.is_null(); };

    switch (type) {
    case MessageType::Hello:
        return need("token", isStr, "a string") && need("version", isInt, "an integer")
               && need("pid", isInt, "an integer");
    case MessageType::Metric:
        return need("step", isInt, "an integer") && need("epoch", isInt, "an integer")
               && optional("loss", isNumOrNull, "a number (or null: not finite)") && need("wall", isNum, "a number");
    case MessageType::Eval:
        return need("step", isInt, "an integer") && need("split", isStr, "a string") && need("wall", isNum, "a number");
    case MessageType::Log:
        return need("text", isStr, "a string");
    case MessageType::Checkpoint:
        return need("step", isInt, "an integer");
    case MessageType::Heartbeat:
        return need("wall", isNum, "a number");
    case MessageType::Done:
        return need("status", isStr, "a string") && need("exit_code", isInt, "an integer");
    case MessageType::Summary:
        return need("wall", isNum, "a number");
    case MessageType::Stop:
    case MessageType::Pause:
    case MessageType::Resume:
    case MessageType::CheckpointNow:
        return true;
    case MessageType::Unknown:
        break;
    }
    return fail(error, "\"type\" is unknown");
}

} // namespace trainyard::protocol
