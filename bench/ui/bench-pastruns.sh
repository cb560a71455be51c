#!/usr/bin/env bash
# The desktop app with 10,000 past run folders in a runs root, offscreen
# (bench_pastruns.cpp): the app opening and showing them (target <= 2 s),
# the runs table sorting and filtering (target <= 50 ms), memory per run.
# RUNS and LINES (metric lines per run) change the size. The folders are
# generated in a temporary folder and removed afterwards.
# Exit status 0 when the targets are met.
set -euo pipefail
build=${1:-build}
cmake --build "$build" --target bench_pastruns >/dev/null
# The rows are resolved with the worker's catalogue, as in the app.
if [[ -z ${TRAINYARD_WORKER:-} && -x $build/bin/trainyard-worker ]]; then
  export TRAINYARD_WORKER=$build/bin/trainyard-worker
fi
QT_QPA_PLATFORM=offscreen "$build/bin/bench_pastruns" \
  2> >(grep -v -e XDG_RUNTIME_DIR -e propagateSizeHints >&2)
