#pragma once

#include <stdexcept>
#include <string>

namespace trainyard {

// Thrown for every problem with what the user gave the worker: the spec, the
// command line, the data files, the run folder. The worker turns it into one
// line on stderr and exit status 2; the message names the key, file or line.
class BadInput : public std::runtime_error
{
public:
    explicit BadInput(const std::string &message)
        : std::runtime_error(message)
    {
    }
};

} // namespace trainyard
