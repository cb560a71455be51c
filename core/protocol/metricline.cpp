#include "protocol/metricline.h"

#include <charconv>
#include <cmath>

namespace trainyard {

namespace {

struct Cursor
{
    const char *p;
    const char *end;

    void skipSpace()
    {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) {
            ++p;
        }
    }
    bool eat(char c)
    {
        skipSpace();
        if (p < end && *p == c) {
            ++p;
            return true;
        }
        return false;
    }
    // A string without escapes, control characters or non-ASCII bytes.
    bool string(std::string_view *out)
    {
        if (!eat('"')) {
            return false;
        }
        const char *start = p;
        while (p < end && *p != '"') {
            const auto c = static_cast<unsigned char>(*p);
            if (c == '\\' || c < 0x20 || c >= 0x80) {
                return false;
            }
            ++p;
        }
        if (p == end) {
            return false;
        }
        *out = std::string_view(start, static_cast<std::size_t>(p - start));
        ++p;
        return true;
    }
    // A JSON number; `isInteger` when it has no fraction or exponent.
    bool number(double *value, std::int64_t *integer, bool *isInteger)
    {
        skipSpace();
        const char *start = p;
        if (p < end && *p == '-') {
            ++p;
        }
        if (p == end || *p < '0' || *p > '9') {
            return false;
        }
        if (*p == '0' && p + 1 < end && p[1] >= '0' && p[1] <= '9') {
            return false; // leading zero: not JSON
        }
        bool integral = true;
        auto digits = [&] {
            const char *from = p;
            while (p < end && *p >= '0' && *p <= '9') {
                ++p;
            }
            return p > from;
        };
        digits();
        if (p < end && *p == '.') {
            integral = false;
            ++p;
            if (!digits()) {
                return false;
            }
        }
        if (p < end && (*p == 'e' || *p == 'E')) {
            integral = false;
            ++p;
            if (p < end && (*p == '+' || *p == '-')) {
                ++p;
            }
            if (!digits()) {
                return false;
            }
        }
        if (integral) {
            const auto r = std::from_chars(start, p, *integer);
            if (r.ec != std::errc() || r.ptr != p) {
                return false;
            }
            *value = static_cast<double>(*integer);
        } else {
            const auto r = std::from_chars(start, p, *value);
            if (r.ec != std::errc() || r.ptr != p || !std::isfinite(*value)) {
                return false;
            }
        }
        *isInteger = integral;
        return true;
    }
};

} // namespace

bool MetricLine::parse(const char *text, std::size_t size, MetricRecord *record)
{
    Cursor c{text, text + size};
    if (!c.eat('{')) {
        return false;
    }
    record->clear();
    bool typeOk = false, haveStep = false, haveWall = false, haveEpoch = false;
    for (bool first = true;; first = false) {
        if (!first && !c.eat(',')) {
            break;
        }
        std::string_view key;
        if (!c.string(&key) || !c.eat(':')) {
            return false;
        }
        c.skipSpace();
        if (c.p == c.end) {
            return false;
        }
        if (*c.p == '"') {
            std::string_view value;
            if (!c.string(&value)) {
                return false;
            }
            if (key == "type") {
                if (value != "metric") {
                    return false;
                }
                typeOk = true;
            } else if (key == "step" || key == "wall" || key == "epoch" || key == "loss") {
                return false; // mistyped: let the full path reject it
            } else if (record->value(key)) {
                return false; // a number given again as a string: JSON keeps the last, no number
            }
            continue;
        }
        if (*c.p == 't' || *c.p == 'f') {
            // true/false for an optional field; required ones must be numbers. A
            // null (a value that was not finite) takes the full path, which keeps it as NaN.
            const std::string_view rest(c.p, static_cast<std::size_t>(c.end - c.p));
            std::size_t length = 0;
            if (rest.substr(0, 4) == "true") {
                length = 4;
            } else if (rest.substr(0, 5) == "false") {
                length = 5;
            }
            if (length == 0 || key == "type" || key == "step" || key == "wall" || key == "epoch" || key == "loss"
                || record->value(key)) { // a number given again as a bool: JSON keeps the last
                return false;
            }
            c.p += length;
            continue;
        }
        double value = 0;
        std::int64_t integer = 0;
        bool isInteger = false;
        if (!c.number(&value, &integer, &isInteger)) {
            return false;
        }
        if (key == "step") {
            if (!isInteger) {
                return false;
            }
            record->step = integer;
            haveStep = true;
        } else if (key == "wall") {
            record->wall = value;
            haveWall = true;
        } else if (key == "type") {
            return false;
        } else {
            if (key == "epoch") {
                if (!isInteger) {
                    return false;
                }
                record->epoch = integer;
                haveEpoch = true;
            } else if (key == "total_steps") {
                record->totalSteps = isInteger ? (integer >= 0 ? integer : -1) : MetricRecord::countFrom(value);
            }
            if (!record->addField(key, value)) {
                return false; // more numbers than a record holds: the full path decides
            }
        }
    }
    if (!c.eat('}')) {
        return false;
    }
    c.skipSpace();
    return c.p == c.end && typeOk && haveStep && haveWall && haveEpoch;
}

} // namespace trainyard
