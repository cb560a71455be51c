#!/usr/bin/env bash
# compare-workers.sh OLD NEW: milliseconds per training step of two
# trainyard-worker builds on FB15k-237 and WN18RR, each with the model's
# defaults (recipe auto), --threads 2, the two alternated for
# TRAINYARD_BENCH_ROUNDS rounds (default 3) so that a slow spell of the
# machine hits both, and which goes first swapped every round (the second
# of two back-to-back runs was measured up to 8% slower with two identical
# binaries, so a fixed order would favour one). For a change to the fused step: build the worker before
# and after it, copy the first binary away, and pass both. Not part of
# `make bench` (it needs two builds). TRAINYARD_BENCH_MODEL (default transe)
# and TRAINYARD_BENCH_STEPS (default 300; the first 30 are not timed).
set -uo pipefail
[[ $# -eq 2 && -x $1 && -x $2 ]] || { echo "usage: $0 OLD-WORKER NEW-WORKER"; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
python=${TRAINYARD_BENCH_PYTHON:-/usr/bin/python3}
shared=${TRAINYARD_SHARED_DATA:-$here/../../../shared/data}
model=${TRAINYARD_BENCH_MODEL:-transe}
steps=${TRAINYARD_BENCH_STEPS:-300}
rounds=${TRAINYARD_BENCH_ROUNDS:-3}
work=$(mktemp -d /tmp/trainyard-compare.XXXXXX)
trap 'rm -rf "$work"' EXIT

for data in FB15k-237 WN18RR; do
  [[ -f $shared/kg/$data/train.txt ]] || { echo "compare-workers: SKIP $data: absent (set TRAINYARD_SHARED_DATA)"; continue; }
  cat > "$work/$data.json" <<JSON
{"model": {"type": "$model"}, "data": {"kind": "kg", "path": "$shared/kg/$data"},
 "train": {"max_steps": $steps, "epochs": 1000}, "eval": {"every_epochs": 0},
 "checkpoint": {"every_steps": 0}, "report": {"every_steps": 10}}
JSON
done

printf '%-10s %-5s %12s %12s %7s\n' data round "old ms/step" "new ms/step" new/old
for round in $(seq "$rounds"); do
  for data in FB15k-237 WN18RR; do
    [[ -f $work/$data.json ]] || continue
    # times[0] is always OLD's and times[1] NEW's, whichever ran first.
    times=()
    order=(0 1)
    ((round % 2 == 0)) && order=(1 0)
    workers=("$1" "$2")
    for slot in "${order[@]}"; do
      worker=${workers[slot]}
      rm -rf "$work/run"
      if ! "$worker" --spec "$work/$data.json" --run-dir "$work/run" --threads 2 >/dev/null 2>"$work/err"; then
        echo "compare-workers: $worker failed on $data: $(tail -1 "$work/err")"
        exit 1
      fi
      times[slot]="$($python - "$work/run/metrics.jsonl" <<'PY'
import json, sys
m = [l for l in map(json.loads, open(sys.argv[1])) if l["type"] == "metric"]
a = next(l for l in m if l["step"] >= 30); b = m[-1]
print(f'{1000 * (b["wall"] - a["wall"]) / (b["step"] - a["step"]):.2f}')
PY
)"
    done
    printf '%-10s %-5s %12s %12s %7.3f\n' "$data" "$round" "${times[0]}" "${times[1]}" \
      "$($python -c "print(${times[1]} / ${times[0]})")"
  done
done
