#!/usr/bin/env bash
# The trainyard Python module's cost per log() call against a script's own
# JSON log (bench/python/bench_module.py). Needs only python3.
set -euo pipefail
command -v python3 >/dev/null || { echo "bench-module: python3 is not installed; skipped"; exit 0; }
exec python3 "$(dirname "$0")/bench_module.py" "${N:-20000}"
