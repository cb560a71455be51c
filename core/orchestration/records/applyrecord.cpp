#include "orchestration/records/applyrecord.h"

#include "orchestration/records/runinfo.h"
#include "protocol/metricrecord.h"

#include <string_view>

namespace trainyard {

bool applyRecord(RunInfo &info, const MetricRecord &record)
{
    if (record.wall > 0) { // 0: the line has none (or the run's very start)
        info.wall = record.wall;
    }
    switch (record.kind) {
    case protocol::MessageType::Metric:
        if (record.step >= 0) {
            info.step = record.step;
        }
        // One pass over the fields: this runs for every line a worker sends.
        for (std::size_t i = 0; i < record.fieldCount; ++i) {
            // A view compares by length first, inline (a string against a
            // literal calls compare() and strlen for every field).
            const std::string_view key = record.fields[i].name;
            if (key == "loss") {
                info.loss = record.fields[i].value;
            } else if (key == "epoch") {
                info.epoch = record.epoch;
            } else if (key == "mem_bytes") {
                info.memBytes = record.fields[i].value;
            }
        }
        if (record.totalSteps >= 0) { // not a count: says nothing
            info.totalSteps = record.totalSteps;
        }
        return true;
    case protocol::MessageType::Heartbeat:
        if (record.totalSteps >= 0) {
            info.totalSteps = record.totalSteps;
        }
        break;
    case protocol::MessageType::Summary:
        for (std::size_t i = 0; i < record.fieldCount; ++i) {
            info.summary.insert(QString::fromStdString(record.fields[i].name), record.fields[i].value);
        }
        break;
    case protocol::MessageType::Log:
        if (!record.recipe.empty()) {
            info.recipe = QString::fromStdString(record.recipe);
        }
        break;
    case protocol::MessageType::Checkpoint:
        // What a run after it starts from (RunInputs).
        info.checkpoint = QString::fromStdString(record.path);
        break;
    default: // eval (points only), done, hello: nothing of the run's state
        break;
    }
    return false;
}

} // namespace trainyard
