#include "protocol/metricrecord.h"

#include "protocol/protocol.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>

namespace trainyard {

namespace {

// A JSON integer that fits std::int64_t; false for floats and for unsigned
// values past INT64_MAX (casting those would wrap to a negative number).
bool integerFrom(const nlohmann::json &value, std::int64_t *out)
{
    if (!value.is_number_integer()) {
        return false;
    }
    if (value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t(INT64_MAX)) {
        return false;
    }
    *out = value.get<std::int64_t>();
    return true;
}

// A count (total_steps) from a JSON number: -1 unless it is one.
std::int64_t countFromJson(const nlohmann::json &value)
{
    std::int64_t integer = 0;
    if (integerFrom(value, &integer)) {
        return integer >= 0 ? integer : -1;
    }
    return value.is_number() ? MetricRecord::countFrom(value.get<double>()) : -1;
}

std::string stringOr(const nlohmann::json &message, const char *key, const char *fallback)
{
    const auto it = message.find(key);
    return it != message.end() && it->is_string() ? it->get<std::string>() : std::string(fallback);
}

bool fail(std::string *error, const char *text)
{
    if (error) {
        *error = text;
    }
    return false;
}

} // namespace

std::int64_t MetricRecord::countFrom(double value)
{
    // 9e18 < INT64_MAX: larger (and NaN) would be undefined behaviour to cast.
    return std::isfinite(value) && value >= 0 && value < 9.0e18 ? static_cast<std::int64_t>(value) : -1;
}

void MetricRecord::clear()
{
    kind = protocol::MessageType::Metric;
    wall = 0;
    step = -1;
    epoch = -1;
    totalSteps = -1;
    fieldCount = 0; // the names keep their storage for the next record
    split.clear();
    status.clear();
    exitCode = -1;
    level.clear();
    text.clear();
    recipe.clear();
    path.clear();
    run.clear();
    device.clear();
    pid = 0;
}

bool MetricRecord::addField(std::string_view name, double value)
{
    // A key given twice keeps its last value, as the JSON parser of the full
    // path does: both paths then make the same record, with unique names.
    for (std::size_t i = 0; i < fieldCount; ++i) {
        if (fields[i].name == name) {
            fields[i].value = value;
            return true;
        }
    }
    if (fieldCount == kMaxFields) {
        return false;
    }
    Field &field = fields[fieldCount++];
    field.name.assign(name.data(), name.size());
    field.value = value;
    return true;
}

const double *MetricRecord::value(std::string_view name) const
{
    for (std::size_t i = 0; i < fieldCount; ++i) {
        if (fields[i].name == name) {
            return &fields[i].value;
        }
    }
    return nullptr;
}

const std::string *MetricRecord::pointKey(std::size_t i, std::string *scratch) const
{
    if (i >= fieldCount) {
        return nullptr;
    }
    const std::string &field = fields[i].name;
    if (kind == protocol::MessageType::Metric) {
        // A view compares by length first, inline: this runs for every point.
        if (std::string_view(field) == "total_steps") {
            return nullptr; // the plan, not a measurement
        }
        return &field;
    }
    if (kind == protocol::MessageType::Eval) {
        scratch->assign(split);
        scratch->push_back('/');
        scratch->append(field);
        return scratch;
    }
    return nullptr;
}

bool MetricRecord::pointName(std::size_t i, std::string *name) const
{
    const std::string *key = pointKey(i, name);
    if (key && key != name) {
        name->assign(*key);
    }
    return key != nullptr;
}

bool MetricRecord::fromJson(const nlohmann::json &message, MetricRecord *record, std::string *error)
{
    if (!protocol::validate(message, error)) {
        return false;
    }
    const protocol::MessageType kind = protocol::typeOf(message);
    switch (kind) {
    case protocol::MessageType::Hello:
    case protocol::MessageType::Metric:
    case protocol::MessageType::Eval:
    case protocol::MessageType::Log:
    case protocol::MessageType::Checkpoint:
    case protocol::MessageType::Heartbeat:
    case protocol::MessageType::Done:
    case protocol::MessageType::Summary:
        break;
    default:
        return fail(error, "an orchestrator's control message, not a worker's");
    }

    record->clear();
    record->kind = kind;
    for (auto it = message.begin(); it != message.end(); ++it) {
        const std::string &key = it.key();
        const nlohmann::json &value = *it;
        if (key == "step") {
            if (value.is_number_integer() && !integerFrom(value, &record->step)) {
                return fail(error, "\"step\" is out of range");
            }
            continue;
        }
        if (key == "wall") {
            if (value.is_number()) {
                record->wall = value.get<double>();
            }
            continue;
        }
        if (key == "epoch") {
            integerFrom(value, &record->epoch);
        } else if (key == "total_steps" && value.is_number()) {
            record->totalSteps = countFromJson(value);
        }
        if (value.is_number()) {
            record->addField(key, value.get<double>()); // past kMaxFields: dropped
        } else if (value.is_null()
                   && (kind == protocol::MessageType::Metric || kind == protocol::MessageType::Eval
                       || kind == protocol::MessageType::Summary)
                   && key != "total_steps" && key != "epoch") {
            record->addField(key, std::numeric_limits<double>::quiet_NaN()); // not finite: a gap, not nothing
        }
    }

    switch (kind) {
    case protocol::MessageType::Hello:
        record->run = stringOr(message, "run", "");
        record->device = stringOr(message, "device", "");
        integerFrom(message.at("pid"), &record->pid);
        break;
    case protocol::MessageType::Eval:
        record->split = stringOr(message, "split", "eval");
        break;
    case protocol::MessageType::Log:
        record->level = stringOr(message, "level", "info");
        record->text = stringOr(message, "text", "");
        record->recipe = stringOr(message, "recipe", "");
        break;
    case protocol::MessageType::Checkpoint:
        record->path = stringOr(message, "path", "");
        break;
    case protocol::MessageType::Done: {
        record->status = stringOr(message, "status", "");
        std::int64_t code = -1;
        integerFrom(message.at("exit_code"), &code);
        record->exitCode = code >= INT32_MIN && code <= INT32_MAX ? static_cast<int>(code) : -1;
        break;
    }
    default: // metric, heartbeat: numbers only
        break;
    }
    return true;
}

bool MetricRecord::operator==(const MetricRecord &other) const
{
    if (kind != other.kind || wall != other.wall || step != other.step || epoch != other.epoch
        || totalSteps != other.totalSteps || fieldCount != other.fieldCount || split != other.split
        || status != other.status || exitCode != other.exitCode || level != other.level || text != other.text
        || recipe != other.recipe || path != other.path || run != other.run || device != other.device
        || pid != other.pid) {
        return false;
    }
    for (std::size_t i = 0; i < fieldCount; ++i) {
        const double *theirs = other.value(fields[i].name);
        const bool bothNaN = theirs && std::isnan(*theirs) && std::isnan(fields[i].value);
        if (!theirs || (*theirs != fields[i].value && !bothNaN)) {
            return false;
        }
    }
    return true;
}

std::string MetricRecord::describe() const
{
    std::ostringstream out;
    out.precision(17);
    out << protocol::typeName(kind) << " wall=" << wall << " step=" << step << " epoch=" << epoch;
    if (totalSteps >= 0) {
        out << " total_steps=" << totalSteps;
    }
    for (std::size_t i = 0; i < fieldCount; ++i) {
        out << ' ' << fields[i].name << '=' << fields[i].value;
    }
    const auto text = [&](const char *name, const std::string &value) {
        if (!value.empty()) {
            out << ' ' << name << '=' << value;
        }
    };
    text("split", split);
    text("status", status);
    if (kind == protocol::MessageType::Done) {
        out << " exit_code=" << exitCode;
    }
    text("level", level);
    text("text", this->text);
    text("path", path);
    text("run", run);
    text("device", device);
    if (pid != 0) {
        out << " pid=" << pid;
    }
    return out.str();
}

} // namespace trainyard
