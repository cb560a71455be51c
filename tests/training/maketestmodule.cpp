// trainyard-make-test-module PATH CLASSES SIZE: writes the test suite's linear
// TorchScript module (linearmodule.h) for tests that cannot link LibTorch,
// such as the GUI's.

#include "linearmodule.h"

#include <cstdio>
#include <cstdlib>
#include <exception>

int main(int argc, char **argv)
{
    if (argc != 4 || std::atoi(argv[2]) < 1 || std::atoi(argv[3]) < 1) {
        std::fprintf(stderr, "usage: trainyard-make-test-module PATH CLASSES SIZE\n");
        return 2;
    }
    try {
        testing::saveLinearModule(argv[1], std::atoi(argv[2]), std::atoi(argv[3]));
    } catch (const std::exception &e) {
        std::fprintf(stderr, "trainyard-make-test-module: %s: %s\n", argv[1], e.what());
        return 1;
    }
    return 0;
}
