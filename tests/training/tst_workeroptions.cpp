// The worker's command line: its fixed options and the token's way in.

#include "tests/helpers/minitest.h"

#include "worker/base/badinput.h"
#include "worker/base/blascore.h"
#include "worker/base/workeroptions.h"

#include <cstdlib>
#include <string>
#include <vector>

using namespace trainyard;

namespace {

WorkerOptions parse(std::vector<const char *> args)
{
    args.insert(args.begin(), "trainyard-worker");
    return WorkerOptions::parse(int(args.size()), args.data());
}

std::string errorOf(std::vector<const char *> args)
{
    try {
        parse(std::move(args));
    } catch (const BadInput &e) {
        return e.what();
    }
    return "";
}

} // namespace

TY_TEST(designCommandLineParses)
{
    ::unsetenv(WorkerOptions::kTokenVariable);
    const WorkerOptions o = parse({"--spec", "s.json", "--run-dir", "r", "--connect", "unix:/tmp/x.sock", "--token",
                                   "T", "--device", "cuda:0", "--threads", "4", "--resume"});
    TY_CHECK(o.action == WorkerOptions::Action::Train);
    TY_CHECK_EQ(o.spec, std::string("s.json"));
    TY_CHECK_EQ(o.runDir, std::string("r"));
    TY_CHECK_EQ(o.connect, std::string("unix:/tmp/x.sock"));
    TY_CHECK_EQ(o.token, std::string("T"));
    TY_CHECK_EQ(o.device, std::string("cuda:0"));
    TY_CHECK_EQ(o.threads, 4);
    TY_CHECK(o.resume);
}

TY_TEST(tokenComesFromTheEnvironmentAndLeavesIt)
{
    ::setenv(WorkerOptions::kTokenVariable, "from-env", 1);
    const WorkerOptions o = parse({"--spec", "s.json", "--run-dir", "r"});
    TY_CHECK_EQ(o.token, std::string("from-env"));
    // Gone, so nothing the worker starts inherits it.
    TY_CHECK(std::getenv(WorkerOptions::kTokenVariable) == nullptr);
}

TY_TEST(commandLineTokenWinsAndTheVariableIsStillRemoved)
{
    ::setenv(WorkerOptions::kTokenVariable, "from-env", 1);
    const WorkerOptions o = parse({"--spec", "s.json", "--run-dir", "r", "--token=from-argv"});
    TY_CHECK_EQ(o.token, std::string("from-argv"));
    TY_CHECK(std::getenv(WorkerOptions::kTokenVariable) == nullptr);
}

TY_TEST(noTokenAnywhereMeansEmpty)
{
    ::unsetenv(WorkerOptions::kTokenVariable);
    TY_CHECK(parse({"--spec", "s.json", "--run-dir", "r"}).token.empty());
}

TY_TEST(badCommandLinesNameTheArgument)
{
    TY_CHECK(errorOf({"--run-dir", "r"}).find("--spec FILE is required") != std::string::npos);
    TY_CHECK(errorOf({"--spec", "s.json"}).find("--run-dir DIR is required") != std::string::npos);
    TY_CHECK(errorOf({"--spec", "s", "--run-dir", "r", "--threads", "0"}).find("--threads") != std::string::npos);
    TY_CHECK(errorOf({"--spec", "s", "--run-dir", "r", "--threads", "99999"}).find("--threads") != std::string::npos);
    TY_CHECK(errorOf({"--spec", "s", "--run-dir", "r", "--bogus"}).find("unknown argument \"--bogus\"")
             != std::string::npos);
    TY_CHECK(errorOf({"--spec"}).find("--spec: missing value") != std::string::npos);
    TY_CHECK(parse({"--list-models"}).action == WorkerOptions::Action::ListModels);
}

// blascore.h: a generic core OpenBLAS fell back to gives way to kernels for
// the CPU's vector units; a core it recognised stands.
TY_TEST(aGenericOpenBlasCoreGivesWayToTheCpusVectorUnits)
{
    TY_CHECK_EQ(betterBlasCore("Prescott", {true, true}), std::string("SkylakeX"));
    TY_CHECK_EQ(betterBlasCore("Nehalem", {false, true}), std::string("Haswell"));
    TY_CHECK_EQ(betterBlasCore("Prescott", {false, false}), std::string());
    TY_CHECK_EQ(betterBlasCore("SkylakeX", {true, true}), std::string());
    TY_CHECK_EQ(betterBlasCore("Haswell", {true, true}), std::string());
    TY_CHECK_EQ(betterBlasCore("Zen", {false, true}), std::string());
    TY_CHECK_EQ(betterBlasCore("", {true, true}), std::string()); // not OpenBLAS
}

TY_TEST_MAIN()
