#!/usr/bin/env bash
# Metrics ingestion: 16 fake workers each sending 2,000 metric lines a second
# (paced), then as fast as they can (flood). Prints lines/s absorbed,
# event-loop latency p50/p99 and bytes per stored point.
# Targets: >= 200,000 lines/s, p99 <= 20 ms, <= 32 bytes per point.
set -euo pipefail
build=${1:-build}
cmake --build "$build" --target bench_ingest trainyard-fake-worker >/dev/null
"$build/bin/bench_ingest" "$build/bin/trainyard-fake-worker" "${WORKERS:-16}" "${RATE:-2000}" "${SECONDS_PACED:-5}" "${FLOOD_LINES:-100000}"
