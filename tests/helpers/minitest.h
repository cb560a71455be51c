#pragma once

// A minimal test harness for the Qt-free parts (protocol, worker), which must
// build and test on a GPU node that has LibTorch but neither Qt nor GoogleTest.
// Usage: TY_TEST(name) { TY_CHECK(cond); TY_CHECK_EQ(a, b); } and
// TY_TEST_MAIN() once per executable. Prints "N passed, N failed".

#include <cstdlib>
#include <exception>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace minitest {

struct Case
{
    const char *name;
    std::function<void()> body;
};

inline std::vector<Case> &registry()
{
    static std::vector<Case> cases;
    return cases;
}

struct Failure
{
    std::string message;
};

// Thrown by TY_SKIP: the case cannot run here (no GPU, no data), said plainly.
struct Skip
{
    std::string reason;
};

// Exit status of an executable whose every case skipped; CTest's
// SKIP_RETURN_CODE maps it to "Skipped".
inline constexpr int kSkipExitCode = 77;

inline int &checkFailures()
{
    static int failures = 0;
    return failures;
}

struct Registrar
{
    Registrar(const char *name, std::function<void()> body) { registry().push_back({name, std::move(body)}); }
};

inline void report(const char *file, int line, const std::string &what)
{
    std::cerr << file << ':' << line << ": check failed: " << what << '\n';
    ++checkFailures();
}

// Runs every case (or those whose name contains argv[1]).
inline int runAll(int argc, char **argv)
{
    const std::string filter = argc > 1 ? argv[1] : "";
    int passed = 0;
    int failed = 0;
    int skipped = 0;
    for (const auto &c : registry()) {
        if (!filter.empty() && std::string(c.name).find(filter) == std::string::npos) {
            continue;
        }
        const int before = checkFailures();
        std::cout << "RUN  " << c.name << std::endl;
        bool ok = true;
        try {
            c.body();
        } catch (const Skip &s) {
            std::cout << "SKIP " << c.name << ": " << s.reason << std::endl;
            ++skipped;
            continue;
        } catch (const Failure &f) {
            std::cerr << "  aborted: " << f.message << '\n';
            ok = false;
        } catch (const std::exception &e) {
            std::cerr << "  unexpected exception: " << e.what() << '\n';
            ok = false;
        }
        if (checkFailures() != before) {
            ok = false;
        }
        std::cout << (ok ? "PASS " : "FAIL ") << c.name << std::endl;
        ok ? ++passed : ++failed;
    }
    std::cout << passed << " passed, " << failed << " failed";
    if (skipped) {
        std::cout << ", " << skipped << " skipped";
    }
    std::cout << std::endl;
    if (failed == 0 && passed == 0 && skipped > 0) {
        return kSkipExitCode;
    }
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

} // namespace minitest

#define TY_CAT2(a, b) a##b
#define TY_CAT(a, b) TY_CAT2(a, b)

#define TY_TEST(name)                                                                                                  \
    static void TY_CAT(ty_test_, name)();                                                                              \
    static ::minitest::Registrar TY_CAT(ty_reg_, name)(#name, &TY_CAT(ty_test_, name));                                \
    static void TY_CAT(ty_test_, name)()

#define TY_CHECK(cond)                                                                                                 \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            ::minitest::report(__FILE__, __LINE__, #cond);                                                             \
    } while (0)

#define TY_CHECK_EQ(a, b)                                                                                              \
    do {                                                                                                               \
        const auto &ty_a = (a);                                                                                        \
        const auto &ty_b = (b);                                                                                        \
        if (!(ty_a == ty_b)) {                                                                                         \
            std::ostringstream ty_os;                                                                                  \
            ty_os << #a " == " #b " (" << ty_a << " vs " << ty_b << ")";                                               \
            ::minitest::report(__FILE__, __LINE__, ty_os.str());                                                       \
        }                                                                                                              \
    } while (0)

// Stops the current case at once; for preconditions later checks rely on.
#define TY_REQUIRE(cond)                                                                                               \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            throw ::minitest::Failure{std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": required " #cond};   \
    } while (0)

// Ends the current case as skipped, with the reason printed.
#define TY_SKIP(reason)                                                                                                \
    throw ::minitest::Skip                                                                                             \
    {                                                                                                                  \
        reason                                                                                                         \
    }

#define TY_TEST_MAIN()                                                                                                 \
    int main(int argc, char **argv)                                                                                    \
    {                                                                                                                  \
        return ::minitest::runAll(argc, argv);                                                                         \
    }
