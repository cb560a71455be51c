#!/usr/bin/env bash
# A sweep of 1,000 short trials on trainyard-fake-worker in the open desktop
# window, offscreen (issue 22, "Scale"): every trial placed, launched and
# ended exactly once (exit 1 if not), the dispatcher's decision per trial,
# wall time and trials/s, and the window's replot per frame during the sweep
# with the Sweep view visible (target p99 <= 16 ms). About a minute.
set -euo pipefail
build=${1:-build}
cmake --build "$build" --target bench_sweep_scale trainyard-fake-worker >/dev/null
QT_QPA_PLATFORM=offscreen "$build/bin/bench_sweep_scale" "$build/bin/trainyard-fake-worker" "${TRIALS:-1000}" \
  "${LANES:-4}" "${SLOTS:-2}" "${STEPS:-4}" "${STEP_MS:-5}" "${SELECT:-all}" "${TIMEOUT_S:-600}" \
  2> >(grep -v -e XDG_RUNTIME_DIR -e propagateSizeHints >&2)
