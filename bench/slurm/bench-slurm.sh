#!/usr/bin/env bash
# 500 runs queued on a Slurm lane (held, so they stay pending) and then one
# poll loop for a minute, on the private test cluster (tests/slurm): the
# event-loop latency p50/p99 while submitting and while tracking, and the
# Slurm commands per minute against a per-job squeue loop.
# Target: p99 <= 20 ms while tracking; one squeue per poll for all jobs.
# Needs root and Debian's Slurm packages (as the tests); skips otherwise.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
cmake --build "$build" --target bench_slurm >/dev/null
work=$(mktemp -d)
trap 'bash "$source_dir/tests/slurm/stop-cluster.sh" "$work/cluster" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
status=0
bash "$source_dir/tests/slurm/start-cluster.sh" "$work/cluster" >/dev/null 2>"$work/start.err" || status=$?
if ((status == 77)); then
  echo "bench-slurm: SKIP: $(cat "$work/start.err")"
  exit 0
elif ((status != 0)); then
  cat "$work/start.err" >&2
  exit 1
fi
export SLURM_CONF=$work/cluster/slurm.conf
# The test cluster's MaxJobCount (10000 by default) holds 500 with room.
"$build/bin/bench_slurm" "${JOBS:-500}" "${POLL_SECONDS:-10}" "${TRACK_SECONDS:-60}" "$work/runs"
