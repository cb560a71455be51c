#pragma once

#include "protocol/metricrecord.h"

#include <cstddef>

namespace trainyard {

// The fast path for the one message that arrives by the hundred thousand:
// a flat metric line such as
//   {"type":"metric","wall":1.5,"step":10,"epoch":0,"loss":0.7,"lr":0.001}
// parsed without building a JSON tree, into the same MetricRecord that
// MetricRecord::fromJson makes of the line (no allocation: the record's
// strings keep their storage). Anything unusual (nesting, escapes,
// non-ASCII, more than MetricRecord::kMaxFields numbers, a missing or
// mistyped required field) makes parse() return false and the line takes
// the full decoder, which applies every check and counts rejects; so this
// only ever accepts lines the full path would accept as a valid metric.
struct MetricLine
{
    MetricRecord record; // the line parse() accepted last

    // `text` is one line without its '\n'.
    bool parse(const char *text, std::size_t size) { return parse(text, size, &record); }
    // Fills `*record`; on false its contents are unspecified.
    static bool parse(const char *text, std::size_t size, MetricRecord *record);
};

} // namespace trainyard
