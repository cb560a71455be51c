// Prints the C++ side of what the trainyard Python module hard-codes, as JSON,
// for tests/python/check_protocol_tables.py to compare: read from the tables
// and builders themselves, so that a change on either side fails that test.
//
//   trainyard-protocol-tables                  the tables
//   trainyard-protocol-tables --validate       each line of stdin, decoded and validated
//   trainyard-protocol-tables --environment D  a program run's environment, run folder D

#include "protocol/exitcode.h"
#include "protocol/linedecoder.h"
#include "protocol/metricrecord.h"
#include "protocol/protocol.h"

#ifdef TRAINYARD_TABLES_RUN_ENVIRONMENT
#include "orchestration/launch/launcher.h"
#endif

#include <nlohmann/json.hpp>

#include <iostream>
#include <iterator>
#include <string>

namespace protocol = trainyard::protocol;
using nlohmann::json;

namespace {

json keysOf(const json &message)
{
    json keys = json::array();
    for (const auto &item : message.items()) {
        keys.push_back(item.key());
    }
    return keys;
}

// The keys of a builder's message that validate() cannot do without.
json requiredOf(const json &message)
{
    json keys = json::array();
    for (const auto &item : message.items()) {
        json without = message;
        without.erase(item.key());
        if (!protocol::validate(without)) {
            keys.push_back(item.key());
        }
    }
    return keys;
}

json tables()
{
    using protocol::MessageType;
    json out;
    out["version"] = protocol::kVersion;
    out["max_line_bytes"] = protocol::kMaxLineBytes;
    // The enum's order: worker messages Hello..Done, then the controls.
    json worker = json::array(), controls = json::array();
    for (int t = static_cast<int>(MessageType::Hello); t <= static_cast<int>(MessageType::CheckpointNow); ++t) {
        const auto type = static_cast<MessageType>(t);
        (type < MessageType::Stop ? worker : controls).push_back(protocol::typeName(type));
    }
    out["worker_messages"] = worker;
    out["controls"] = controls;
    // Every field each builder writes, and those of them a message needs.
    const json builders = {
        {"hello", protocol::hello("r", "t", 1, "cpu", 0.0)}, {"metric", protocol::metric(0, 1, 0.0, 0.0)},
        {"eval", protocol::evalResult(0, "valid", 0.0)},     {"log", protocol::log("info", "x", 0.0)},
        {"checkpoint", protocol::checkpoint(0, "/x", 0.0)},  {"heartbeat", protocol::heartbeat(0, 0.0)},
        {"done", protocol::done("finished", 0, 0.0)},        {"summary", protocol::summary(0.0)},
    };
    for (const auto &item : builders.items()) {
        out["fields"][item.key()] = keysOf(item.value());
        out["required"][item.key()] = requiredOf(item.value());
    }
    out["max_fields"] = trainyard::MetricRecord::kMaxFields;
    json exits = json::object();
    for (int code = 0; code < 256; ++code) {
        if (protocol::isKnownExit(code)) {
            exits[std::to_string(code)] = protocol::exitStatusName(code);
        }
    }
    out["exit_statuses"] = exits;
#ifdef TRAINYARD_TABLES_RUN_ENVIRONMENT
    json names = json::array();
    for (const QString &name : trainyard::LaunchSpec::runVariableNames()) {
        names.push_back(name.toStdString());
    }
    out["run_variables"] = names;
#endif
    return out;
}

// Each line as the orchestrator takes it: decoded, then validated.
json validateStdin()
{
    const std::string input{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    protocol::LineDecoder decoder;
    decoder.feed(input);
    json out = json::array();
    protocol::LineDecoder::Result result;
    while (decoder.next(result)) {
        std::string error = result.error;
        const bool ok =
            result.status == protocol::LineDecoder::Status::Message && protocol::validate(result.message, &error);
        out.push_back({{"ok", ok}, {"error", ok ? std::string() : error}});
    }
    return out;
}

#ifdef TRAINYARD_TABLES_RUN_ENVIRONMENT
// What a launcher gives a resumed program run with a seed on a GPU lane.
json environment(const std::string &runDir)
{
    trainyard::LaunchSpec spec;
    spec.programArgv = {QStringLiteral("python3"), QStringLiteral("train.py")};
    spec.program = spec.programArgv.first();
    spec.runDir = QString::fromStdString(runDir);
    spec.name = QStringLiteral("tables-run");
    spec.token = QStringLiteral("tables-token-5e1f");
    spec.device = trainyard::Device::parse(QStringLiteral("cuda:3"));
    spec.resume = true;
    spec.seed = 7;
    json out = json::object();
    for (const auto &[key, value] : spec.environment()) {
        out[key.toStdString()] = value.toStdString();
    }
    return out;
}
#endif

} // namespace

int main(int argc, char **argv)
{
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode.empty()) {
        std::cout << tables().dump(2) << '\n';
    } else if (mode == "--validate") {
        std::cout << validateStdin().dump() << '\n';
#ifdef TRAINYARD_TABLES_RUN_ENVIRONMENT
    } else if (mode == "--environment" && argc > 2) {
        std::cout << environment(argv[2]).dump(2) << '\n';
#endif
    } else {
        std::cerr << "usage: trainyard-protocol-tables [--validate | --environment RUN_DIR]\n";
        return 2;
    }
    return 0;
}
