#pragma once

// Entry points of trainyard-worker, kept free of LibTorch headers so that the
// thin main compiles in a second.

#include <string>

namespace trainyard {

struct WorkerOptions;

// Trains as `options` say; returns the exit status (see ExitCode).
int runWorker(const WorkerOptions &options);

// "1.13.1" etc.: the LibTorch the worker was built with.
std::string torchVersion();
// "12.8": the CUDA that LibTorch was built with; empty for a CPU-only one.
std::string torchCudaVersion();
// "LibTorch 2.11.0, CUDA 12.8" or "LibTorch 1.13.1, CPU only" (--version).
std::string torchBuild();

} // namespace trainyard
