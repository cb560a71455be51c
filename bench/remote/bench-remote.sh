#!/usr/bin/env bash
# Four runs streaming 1,000 metric lines a second each through
# ssh to a host (a private sshd in a mount namespace of its own, as the
# tests start it), then the same runs on local lanes, in one process:
# every line arrives, the latency from the worker's write to the store
# p50/p99, the CPU this machine spends per 1,000 lines, and the ssh
# commands a minute at rest (the host's runs paused).
# Needs root, sshd and unshare (as tst_remotehost); skips otherwise.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
cmake --build "$build" --target bench_remote trainyard-fake-worker >/dev/null
work=$(mktemp -d)
chmod 0700 "$work"
export XDG_RUNTIME_DIR=$work/runtime
mkdir -m 0700 "$XDG_RUNTIME_DIR"
cleanup() {
  ssh -F "$work/sshd/ssh_config" -o "ControlPath=$XDG_RUNTIME_DIR/trainyard-ssh-%C" -O exit 127.0.0.1 2>/dev/null || true
  bash "$source_dir/tests/slurm/stop-sshd.sh" "$work/sshd" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
status=0
bash "$source_dir/tests/slurm/start-sshd.sh" "$work/sshd" - --private-root "$work/host-runs" 256m \
  >/dev/null 2>"$work/start.err" || status=$?
if ((status == 77)); then
  echo "bench-remote: SKIP: $(cat "$work/start.err")"
  exit 0
elif ((status != 0)); then
  cat "$work/start.err" >&2
  exit 1
fi
"$build/bin/bench_remote" "$build/bin/trainyard-fake-worker" "$work/sshd/ssh_config" "$work/host-runs" "$work/runs" \
  "${RUNS:-4}" "${RATE:-1000}" "${SECONDS_EACH:-30}" "${REST_SECONDS:-60}"
