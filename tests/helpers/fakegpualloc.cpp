// trainyard-fake-gpu-alloc GPU[,GPU...] BYTES: holds BYTES on each GPU of
// the fake NVML (fakenvml.cpp; the state file TRAINYARD_FAKE_NVML) until it
// is killed: "another process uses this GPU" without a GPU. Prints
// "registered PID" once its lines are written.

#include "fakenvmlregister.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv)
{
    const char *state = std::getenv("TRAINYARD_FAKE_NVML");
    const std::vector<int> gpus = argc == 3 ? trainyard::fakenvml::visibleGpus(argv[1]) : std::vector<int>();
    if (!state || !*state || gpus.empty() || argv[2][0] < '0' || argv[2][0] > '9') {
        std::fprintf(stderr, "usage: TRAINYARD_FAKE_NVML=STATE trainyard-fake-gpu-alloc GPU[,GPU...] BYTES\n");
        return 2;
    }
    std::string error;
    if (!trainyard::fakenvml::registerProcess(state, gpus, std::strtoull(argv[2], nullptr, 10), &error)) {
        std::fprintf(stderr, "trainyard-fake-gpu-alloc: %s\n", error.c_str());
        return 1;
    }
    std::printf("registered %ld\n", static_cast<long>(::getpid()));
    std::fflush(stdout);
    for (;;) {
        ::pause();
    }
}
