#!/usr/bin/env bash
# The desktop app under load, offscreen (no display needed):
#  - 16 runs streaming 1,000 points a second each into the open window, all
#    plotted: replot time per frame (target <= 16 ms at the 30 Hz refresh),
#    input latency, memory;
#  - one run with 10 million points: time to draw it (target <= 50 ms).
# Exit status 0 when both targets are met.
set -euo pipefail
build=${1:-build}
cmake --build "$build" --target bench_ui >/dev/null
QT_QPA_PLATFORM=offscreen "$build/bin/bench_ui" "${RUNS:-16}" "${RATE:-1000}" "${STREAM_SECONDS:-10}" "${BIG_POINTS:-10000000}" \
  2> >(grep -v -e XDG_RUNTIME_DIR -e propagateSizeHints >&2)
