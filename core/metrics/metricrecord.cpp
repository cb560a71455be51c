#include "metrics/metricrecord.h"

#include "protocol/protocol.h"

#include <QDebug>

#include <cmath>
#include <cstdint>
#include <limits>

namespace trainyard {

namespace {

// A JSON integer that fits std::int64_t; false for floats and for unsigned
// values past INT64_MAX (casting those would wrap to a negative number).
bool integerFrom(const nlohmann::json &value, std::int64_t *out)
{
    if (!value.is_number_integer())
        return false;
    if (value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t(INT64_MAX))
        return false;
    *out = value.get<std::int64_t>();
    return true;
}

// A count (total_steps) from a JSON number: -1 unless it is one.
std::int64_t countFromJson(const nlohmann::json &value)
{
    std::int64_t integer = 0;
    if (integerFrom(value, &integer))
        return integer >= 0 ? integer : -1;
    return value.is_number() ? MetricRecord::countFrom(value.get<double>()) : -1;
}

std::string stringOr(const nlohmann::json &message, const char *key, const char *fallback)
{
    const auto it = message.find(key);
    return it != message.end() && it->is_string() ? it->get<std::string>() : std::string(fallback);
}

bool fail(std::string *error, const char *text)
{
    if (error)
        *error = text;
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
    kind = Kind::Metric;
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
    if (fieldCount == kMaxFields)
        return false;
    Field &field = fields[fieldCount++];
    field.name.assign(name.data(), name.size());
    field.value = value;
    return true;
}

const double *MetricRecord::value(std::string_view name) const
{
    for (std::size_t i = 0; i < fieldCount; ++i) {
        if (fields[i].name == name)
            return &fields[i].value;
    }
    return nullptr;
}

bool MetricRecord::pointName(std::size_t i, std::string *name) const
{
    if (i >= fieldCount)
        return false;
    const std::string &field = fields[i].name;
    if (kind == Kind::Metric) {
        if (field == "total_steps")
            return false; // the plan, not a measurement
        name->assign(field);
        return true;
    }
    if (kind == Kind::Eval) {
        name->assign(split);
        name->push_back('/');
        name->append(field);
        return true;
    }
    return false;
}

bool MetricRecord::fromJson(const nlohmann::json &message, MetricRecord *record, std::string *error)
{
    if (!protocol::validate(message, error))
        return false;
    Kind kind;
    switch (protocol::typeOf(message)) {
    case protocol::MessageType::Hello:
        kind = Kind::Hello;
        break;
    case protocol::MessageType::Metric:
        kind = Kind::Metric;
        break;
    case protocol::MessageType::Eval:
        kind = Kind::Eval;
        break;
    case protocol::MessageType::Log:
        kind = Kind::Log;
        break;
    case protocol::MessageType::Checkpoint:
        kind = Kind::Checkpoint;
        break;
    case protocol::MessageType::Heartbeat:
        kind = Kind::Heartbeat;
        break;
    case protocol::MessageType::Done:
        kind = Kind::Done;
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
            if (value.is_number_integer() && !integerFrom(value, &record->step))
                return fail(error, "\"step\" is out of range");
            continue;
        }
        if (key == "wall") {
            if (value.is_number())
                record->wall = value.get<double>();
            continue;
        }
        if (key == "epoch")
            integerFrom(value, &record->epoch);
        else if (key == "total_steps" && value.is_number())
            record->totalSteps = countFromJson(value);
        if (value.is_number())
            record->addField(key, value.get<double>()); // past kMaxFields: dropped
        else if (value.is_null() && (kind == Kind::Metric || kind == Kind::Eval) && key != "total_steps"
                 && key != "epoch")
            record->addField(key, std::numeric_limits<double>::quiet_NaN()); // not finite: a gap, not nothing
    }

    switch (kind) {
    case Kind::Hello:
        record->run = stringOr(message, "run", "");
        record->device = stringOr(message, "device", "");
        integerFrom(message.at("pid"), &record->pid);
        break;
    case Kind::Eval:
        record->split = stringOr(message, "split", "eval");
        break;
    case Kind::Log:
        record->level = stringOr(message, "level", "info");
        record->text = stringOr(message, "text", "");
        break;
    case Kind::Checkpoint:
        record->path = stringOr(message, "path", "");
        break;
    case Kind::Done: {
        record->status = stringOr(message, "status", "");
        std::int64_t code = -1;
        integerFrom(message.at("exit_code"), &code);
        record->exitCode = code >= INT32_MIN && code <= INT32_MAX ? static_cast<int>(code) : -1;
        break;
    }
    case Kind::Metric:
    case Kind::Heartbeat:
        break;
    }
    return true;
}

std::string_view MetricRecord::kindName(Kind kind)
{
    switch (kind) {
    case Kind::Hello:
        return protocol::typeName(protocol::MessageType::Hello);
    case Kind::Metric:
        return protocol::typeName(protocol::MessageType::Metric);
    case Kind::Eval:
        return protocol::typeName(protocol::MessageType::Eval);
    case Kind::Log:
        return protocol::typeName(protocol::MessageType::Log);
    case Kind::Checkpoint:
        return protocol::typeName(protocol::MessageType::Checkpoint);
    case Kind::Heartbeat:
        return protocol::typeName(protocol::MessageType::Heartbeat);
    case Kind::Done:
        return protocol::typeName(protocol::MessageType::Done);
    }
    return "unknown";
}

bool MetricRecord::operator==(const MetricRecord &other) const
{
    if (kind != other.kind || wall != other.wall || step != other.step || epoch != other.epoch
        || totalSteps != other.totalSteps || fieldCount != other.fieldCount || split != other.split
        || status != other.status || exitCode != other.exitCode || level != other.level || text != other.text
        || path != other.path || run != other.run || device != other.device || pid != other.pid)
        return false;
    for (std::size_t i = 0; i < fieldCount; ++i) {
        const double *theirs = other.value(fields[i].name);
        const bool bothNaN = theirs && std::isnan(*theirs) && std::isnan(fields[i].value);
        if (!theirs || (*theirs != fields[i].value && !bothNaN))
            return false;
    }
    return true;
}

QDebug operator<<(QDebug debug, const MetricRecord &record)
{
    const QDebugStateSaver saver(debug);
    const std::string_view kind = MetricRecord::kindName(record.kind);
    debug.nospace() << "MetricRecord(" << QLatin1String(kind.data(), qsizetype(kind.size())) << " wall=" << record.wall
                    << " step=" << record.step << " epoch=" << record.epoch;
    if (record.totalSteps >= 0)
        debug << " total_steps=" << record.totalSteps;
    for (std::size_t i = 0; i < record.fieldCount; ++i)
        debug << ' ' << QUtf8StringView(record.fields[i].name) << '=' << record.fields[i].value;
    const auto text = [&](const char *name, const std::string &value) {
        if (!value.empty())
            debug << ' ' << name << '=' << QUtf8StringView(value);
    };
    text("split", record.split);
    text("status", record.status);
    if (record.kind == MetricRecord::Kind::Done)
        debug << " exit_code=" << record.exitCode;
    text("level", record.level);
    text("text", record.text);
    text("path", record.path);
    text("run", record.run);
    text("device", record.device);
    if (record.pid != 0)
        debug << " pid=" << record.pid;
    debug << ')';
    return debug;
}

} // namespace trainyard
