#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

namespace trainyard {

// The fast path for the one message that arrives by the hundred thousand:
// a flat metric line such as
//   {"type":"metric","wall":1.5,"step":10,"epoch":0,"loss":0.7,"lr":0.001}
// parsed without building a JSON tree. Anything unusual (nesting, escapes,
// non-ASCII, more than kMaxFields numbers, a missing or mistyped required
// field) makes parse() return false and the line takes the full decoder,
// which applies every check and counts rejects; so this only ever accepts
// lines the full path would accept as a valid metric.
struct MetricLine
{
    static constexpr std::size_t kMaxFields = 16;

    std::int64_t step = 0;
    double wall = 0;
    // Numeric fields besides type, step and wall (epoch, loss, lr, ...).
    std::array<std::pair<std::string_view, double>, kMaxFields> fields{};
    std::size_t fieldCount = 0;

    // `text` is one line without its '\n'; views point into it.
    bool parse(const char *text, std::size_t size);
};

} // namespace trainyard
