#!/usr/bin/env bash
# A sweep of 1,000 short trials on trainyard-fake-worker in the open desktop
# window, offscreen ("Scale"): every trial placed, launched and
# ended exactly once (exit 1 if not), the dispatcher's decision per trial,
# wall time and trials/s, and the window's replot per frame during the sweep
# with the Sweep view visible and the trials training now selected (target
# p99 <= 16 ms; SELECT=all plots every trial placed). Then the same sweep
# headless (a Session without the window), for comparison. A few minutes.
set -euo pipefail
build=${1:-build}
cmake --build "$build" --target bench_sweep_scale trainyard-fake-worker >/dev/null
status=0
for ui in window headless; do
  QT_QPA_PLATFORM=offscreen "$build/bin/bench_sweep_scale" "$build/bin/trainyard-fake-worker" "${TRIALS:-1000}" \
    "${LANES:-4}" "${SLOTS:-2}" "${STEPS:-4}" "${STEP_MS:-5}" "${SELECT:-active}" "${TIMEOUT_S:-600}" "$ui" \
    2> >(grep -v -e XDG_RUNTIME_DIR -e propagateSizeHints >&2) || status=1
done
exit $status
