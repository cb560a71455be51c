#pragma once

#include "protocol/messagetype.h"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace trainyard {

// One worker message, as a line of metrics.jsonl or of the metrics socket
// carries it (docs/protocol.md), decoded into plain values. Every reader of
// worker messages gets these and never raw JSON: protocol::RecordDecoder
// makes them, plain metric lines through the fast parser (MetricLine), the
// rest through fromJson(); both fill the same record. Qt-free, like the rest
// of the protocol library.
//
// A record owns its data and is cheap to reuse: clear() keeps the strings'
// storage, so decoding line after line into one record does not allocate
// (short field names also fit std::string's inline buffer).
struct MetricRecord
{
    // More numbers than this in one line are dropped (no worker writes more
    // than eight).
    static constexpr std::size_t kMaxFields = 16;

    struct Field
    {
        std::string name;
        double value = 0;
    };

    // A worker -> orchestrator message type (Hello ... Done); control
    // messages are no records.
    protocol::MessageType kind = protocol::MessageType::Metric;
    double wall = 0;              // seconds since the run started (0 when absent)
    std::int64_t step = -1;       // metric, eval, checkpoint, heartbeat; -1 when absent
    std::int64_t epoch = -1;      // metric: the epoch of the step; eval: epochs completed; -1 when absent
    std::int64_t totalSteps = -1; // "total_steps" of metric and heartbeat lines; -1 when absent or not a count

    // Every number of the line but "step" and "wall", in line order: a metric
    // line's epoch, loss, lr, samples_per_s, mem_bytes, total_steps; an eval
    // line's epoch, mrr, hits@k or accuracy; a summary line's values. A
    // measurement given as null (a program's NaN or infinity: JSON has
    // neither) is NaN, a gap in its curve.
    std::array<Field, kMaxFields> fields{};
    std::size_t fieldCount = 0;

    std::string split;    // eval: "valid", "test", ...
    std::string status;   // done: finished, failed, diverged, stopped
    int exitCode = -1;    // done
    std::string level;    // log: info, warning, error
    std::string text;     // log
    std::string recipe;   // log: the recipe "auto" chose (worker/base/recipe.h); usually empty
    std::string path;     // checkpoint
    std::string run;      // hello: the run's name (the token is never kept)
    std::string device;   // hello
    std::int64_t pid = 0; // hello

    // Back to an empty metric record, keeping the strings' storage.
    void clear();
    // Appends a number, or replaces the value of a name already there; false
    // (and nothing added) when kMaxFields are taken.
    bool addField(std::string_view name, double value);
    // The number called `name`, nullptr when the line had none.
    const double *value(std::string_view name) const;
    // Whether field `i` is a point of the run's curves, and its name there
    // (MetricStore's names): a metric line's numbers keep theirs, except
    // total_steps (a plan, not a measurement); an eval line's become
    // "<split>/<name>" ("valid/mrr"). Other kinds have no points.
    bool pointName(std::size_t i, std::string *name) const;
    // The same without a copy where the line spells the name (a metric's
    // field); an eval's is built in scratch. nullptr: no point.
    const std::string *pointKey(std::size_t i, std::string *scratch) const;

    // A count from a number: -1 unless finite, >= 0 and below 9e18.
    static std::int64_t countFrom(double value);

    // Decodes one validated message (protocol::validate is applied here, so
    // a message with a mistyped field never becomes a record). False for an
    // invalid message and for orchestrator -> worker controls; `error` then
    // says why. The one place where a JSON message becomes a record.
    static bool fromJson(const nlohmann::json &message, MetricRecord *record, std::string *error = nullptr);

    // The record in one line, for test failures and debug output:
    // "metric wall=1.5 step=10 epoch=0 loss=0.7".
    std::string describe() const;

    // Same message: every member equal; fields compared as a set (a JSON
    // object has no order, and the JSON path sorts keys while the fast path
    // keeps the line's order).
    bool operator==(const MetricRecord &other) const;
    bool operator!=(const MetricRecord &other) const { return !(*this == other); }
};

} // namespace trainyard
