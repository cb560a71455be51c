// RUN_DIR/metrics.jsonl as the worker writes it, and the clock a resumed run
// continues from.

#include "tests/helpers/minitest.h"
#include "tests/training/workerrun.h"

#include "worker/base/metricsfile.h"

#include <string>

using namespace trainyard;
using testing::readFile;
using testing::tempDir;
using testing::writeFile;

TY_TEST(appendsWholeLines)
{
    const std::string path = tempDir("metricsfile") + "/metrics.jsonl";
    writeFile(path, "{\"type\":\"log\",\"wall\":1}\n");
    {
        MetricsFile file(path);
        file.write("{\"type\":\"metric\",\"wall\":2}\n");
        file.write("{\"type\":\"done\",\"wall\":3}\n");
    }
    TY_CHECK_EQ(readFile(path), std::string("{\"type\":\"log\",\"wall\":1}\n{\"type\":\"metric\",\"wall\":2}\n"
                                            "{\"type\":\"done\",\"wall\":3}\n"));
}

TY_TEST(unwritablePathNamesTheFile)
{
    bool threw = false;
    try {
        MetricsFile file("/proc/nonexistent/metrics.jsonl");
    } catch (const std::exception &e) {
        threw = std::string(e.what()).find("/proc/nonexistent/metrics.jsonl: cannot open") != std::string::npos;
    }
    TY_CHECK(threw);
}

TY_TEST(lastWallIsTheLargestCompleteLine)
{
    const std::string dir = tempDir("lastwall");
    TY_CHECK_EQ(MetricsFile::lastWall(dir + "/absent.jsonl"), 0.0);
    writeFile(dir + "/empty.jsonl", "");
    TY_CHECK_EQ(MetricsFile::lastWall(dir + "/empty.jsonl"), 0.0);
    // The done line after the last checkpoint is the latest; garbage, lines
    // without a numeric wall and a torn last line are skipped.
    writeFile(dir + "/m.jsonl", "{\"type\":\"metric\",\"step\":9,\"wall\":4.5}\n"
                                "{\"type\":\"checkpoint\",\"step\":9,\"wall\":4.75}\n"
                                "not json\n"
                                "{\"type\":\"log\",\"wall\":\"late\"}\n"
                                "{\"type\":\"done\",\"status\":\"stopped\",\"wall\":6.25}\n"
                                "{\"type\":\"metric\",\"step\":10,\"wall\":99");
    TY_CHECK_EQ(MetricsFile::lastWall(dir + "/m.jsonl"), 6.25);
}

TY_TEST(lastWallReadsOnlyTheTailOfALongFile)
{
    const std::string path = tempDir("lastwall-long") + "/m.jsonl";
    std::string text;
    for (int step = 1; step <= 20000; ++step) {
        text += "{\"type\":\"metric\",\"step\":" + std::to_string(step) + ",\"wall\":" + std::to_string(step) + ".5}\n";
    }
    writeFile(path, text);
    TY_CHECK(text.size() > 64 * 1024);
    TY_CHECK_EQ(MetricsFile::lastWall(path), 20000.5);
}

TY_TEST_MAIN()
