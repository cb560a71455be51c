#!/usr/bin/env bash
# Where queued runs start on 8 simulated 80 GiB GPUs: a seeded simulation of
# a 200-run trace (the demo's small KG and CNN runs and a long-tailed mix,
# 10 % on 2 GPUs) placed by Trainyard's pool lane "cuda:*" (the real
# GpuPlacer, slots 2, 3, 4), by round-robin fixed lanes and by task-spooler's
# free-GPU FIFO; 5 seeds, mean and worst (bench/scheduling/README.md).
# Targets: makespan <= 1.15x the lower bound; >= 1.3x shorter than
# round-robin fixed lanes. Under a second; no GPU needed.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
cmake --build "$build" --target bench_scheduling >/dev/null
"$build/bin/bench_scheduling" "${RUNS:-200}" "${SEEDS:-5}" "${FIRST_SEED:-1}"
