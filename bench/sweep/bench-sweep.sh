#!/usr/bin/env bash
# The sweep benchmark: TransE on UMLS, 27 configurations of 100
# epochs on two CPU lanes, as a full grid and under ASHA with `trainyard
# run`, and the same search with Optuna's SuccessiveHalvingPruner
# (bench_sweep.py says what is measured). About 10 minutes on two cores.
# Needs ../shared/data/kg/UMLS (or TRAINYARD_KG_DATA) and python3-optuna.
set -euo pipefail
build=${1:-build}
cmake --build "$build" --target trainyard trainyard-worker >/dev/null
exec /usr/bin/python3 "$(dirname "$0")/bench_sweep.py" "$build" "${@:2}"
