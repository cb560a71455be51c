#pragma once

#include <QString>
#include <QtGlobal>

// A program of this build that a test starts (the `trainyard` command, a
// fake), named by CTest's environment (tests/CMakeLists.txt) rather than
// compiled in: a test's object is then the same in every build folder, and
// the later builds of CI take it from the compiler cache.
inline QString buildProgram(const char *variable)
{
    const QString path = qEnvironmentVariable(variable);
    if (path.isEmpty()) {
        qFatal("%s is not set: run the test through ctest", variable);
    }
    return path;
}
