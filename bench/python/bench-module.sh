#!/usr/bin/env bash
# One trainyard log() against a script's own json.dumps + os.write of the same
# line, file only and connected to a fake orchestrator, in one run
# (bench/python/bench_module.py; target <= 1.5x). Needs only python3.
# CALLS and ROUNDS override the defaults (20000 calls x 7 rounds).
set -euo pipefail
command -v python3 >/dev/null || { echo "bench-module: python3 is not installed; skipped"; exit 0; }
exec python3 "$(dirname "$0")/bench_module.py" --calls "${CALLS:-20000}" --rounds "${ROUNDS:-7}"
