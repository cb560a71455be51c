#!/usr/bin/env bash
# Knowledge-graph training benchmarks (run by `make bench`), 2 threads:
#  1. samples a second of trainyard-worker's TransE (engine auto: the fused
#     CPU path) against the plain PyTorch loop over the grid dim 100/200 x
#     batch 256/1024 x negatives 1/8/64 x adam/sgd x renormalisation on/off,
#     the Python side at PyTorch's defaults; every ratio and the smallest
#     (target >= 3 everywhere);
#  2. time to quality: wall seconds until filtered test MRR 0.25 and 0.30 on
#     FB15k-237 and 0.20 on WN18RR with the palette presets, against the
#     same spec on the autograd engine within the same budget; the MRR-over-
#     time curves as a PNG drawn by the app's own plot code (trainyard-plot);
#  3. TransH against TransE on the fused path: samples (positives with their
#     negatives) per second of the same spec, over dim 100/200 x negatives
#     8/128 x margin/self-adversarial x L1/L2, the ratio of TransE's rate to
#     TransH's and the largest (target <= 1.5 everywhere).
# TRAINYARD_BENCH_KG_ONLY=grid|quality|transh runs one part; TRAINYARD_BENCH_KG_SECONDS
# (default 3) is the timed length of each grid point; TRAINYARD_BENCH_KG_BUDGET
# (default 330 s) caps each quality run; TRAINYARD_BENCH_PYTHON_THREADS=N gives
# the Python loop N threads instead of PyTorch's default; TRAINYARD_BENCH_KG_FULL=1 adds the
# autograd reference on WN18RR.
set -uo pipefail
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
worker="$build/bin/trainyard-worker"
python=${TRAINYARD_BENCH_PYTHON:-/usr/bin/python3}
only=${TRAINYARD_BENCH_KG_ONLY:-all}
seconds=${TRAINYARD_BENCH_KG_SECONDS:-3}
budget=${TRAINYARD_BENCH_KG_BUDGET:-330}
shared=${TRAINYARD_SHARED_DATA:-$here/../../../shared/data}
fb="$shared/kg/FB15k-237"
wn="$shared/kg/WN18RR"
out=${TRAINYARD_BENCH_OUT:-$build/bench-kg}
mkdir -p "$out"
work=$(mktemp -d /tmp/trainyard-bench-kg.XXXXXX)
trap 'rm -rf "$work"' EXIT
status=0
[[ -x $worker ]] || { echo "bench-kg: $worker not built"; exit 1; }
# shellcheck source=/dev/null
source "$here/../blas-core.sh"
match_worker_blas "$worker"
case $only in all|grid|quality|transh) ;; *) echo "bench-kg: TRAINYARD_BENCH_KG_ONLY must be all, grid, quality or transh"; exit 2 ;; esac
if [[ ! -f $fb/train.txt ]]; then
  echo "bench-kg: SKIP: $fb/train.txt is absent (set TRAINYARD_SHARED_DATA)"
  exit 0
fi

# spec_rate MODEL TRAIN BATCH: samples/s of the metric lines after step 10 of
# a run of that model and train section on FB15k-237.
spec_rate() {
  cat > "$work/grid.json" <<JSON
{"name": "grid", "model": $1, "data": {"kind": "kg", "path": "$fb"}, "train": $2,
 "eval": {"every_epochs": 0}, "checkpoint": {"every_steps": 0}, "report": {"every_steps": 10}}
JSON
  rm -rf "$work/run"
  "$worker" --spec "$work/grid.json" --run-dir "$work/run" --threads 2 >/dev/null 2>"$work/err" || { cat "$work/err" >&2; echo 0; return 1; }
  $python - "$work/run/metrics.jsonl" "$3" <<'PY'
import json, sys
m = [l for l in map(json.loads, open(sys.argv[1])) if l["type"] == "metric"]
batch = int(sys.argv[2])
a = next(l for l in m if l["step"] >= 10); b = m[-1]
print(f'{(b["step"] - a["step"]) * batch / (b["wall"] - a["wall"]):.1f}')
PY
}

# worker_rate DIM BATCH NEG OPT RENORM: TransE's samples/s at one grid point.
worker_rate() {
  local lr=0.001; [[ $4 == sgd ]] && lr=0.01
  local renorm=false; [[ $5 == 1 ]] && renorm=true
  spec_rate "{\"type\": \"transe\", \"dim\": $1, \"norm\": 1, \"margin\": 4.0, \"negatives\": $3, \"sampling\": \"bern\",
 \"loss\": \"margin\", \"normalize_entities\": $renorm}" \
    "{\"epochs\": 100000, \"max_seconds\": $(( seconds + 2 )), \"batch_size\": $2, \"optimizer\": \"$4\", \"lr\": $lr}" "$2"
}

# pair_rate TYPE DIM NEG LOSS NORM: samples/s of transe or transh with the
# same keys (TransH without its soft constraints, as its large recipes).
pair_rate() {
  local extra=""; [[ $1 == transh ]] && extra=', "constraint_weight": 0.0'
  [[ $1 == transe ]] && extra=', "normalize_entities": false'
  spec_rate "{\"type\": \"$1\", \"dim\": $2, \"norm\": $5, \"margin\": 6.0, \"negatives\": $3, \"loss\": \"$4\"$extra}" \
    "{\"epochs\": 100000, \"max_seconds\": $(( seconds + 2 )), \"batch_size\": 512, \"optimizer\": \"adam\", \"lr\": 0.001}" 512
}

if [[ $only == all || $only == grid ]]; then
  if ! $python -c "import torch" 2>/dev/null; then
    echo "bench-kg: SKIP grid: $python has no torch (install python3-torch)"
  else
    echo "grid: TransE FB15k-237, L1 margin loss, Bernoulli negatives; worker --threads 2 (fused) vs plain PyTorch at its defaults ($($python -c 'import torch; print(torch.get_num_threads())') threads)"
    $python "$here/transe_grid_ref.py" "$fb" "$seconds" > "$work/python.txt" || status=1
    printf '%5s %6s %4s %5s %7s %12s %12s %7s\n' dim batch neg opt renorm worker python ratio
    smallest=""
    while read -r dim batch neg opt renorm p; do
      w=$(worker_rate "$dim" "$batch" "$neg" "$opt" "$renorm") || status=1
      r=$($python -c "print(f'{$w / $p:.2f}')")
      printf '%5s %6s %4s %5s %7s %12s %12s %7s\n' "$dim" "$batch" "$neg" "$opt" "$renorm" "$w" "$p" "$r"
      if [[ -z $smallest ]] || $python -c "import sys; sys.exit(0 if $r < $smallest else 1)"; then
        smallest=$r; where="dim $dim batch $batch neg $neg $opt renorm $renorm"
      fi
    done < "$work/python.txt"
    echo "grid: smallest ratio $smallest at $where (target >= 3 at every point)"
  fi
fi

# quality NAME DATA MODEL TRAIN EVERY: runs until the budget, evaluating the test split every EVERY epochs.
quality_run() {
  cat > "$work/$1.json" <<JSON
{"name": "$1", "model": $3, "data": {"kind": "kg", "path": "$2"},
 "train": $4, "eval": {"every_epochs": $5, "split": "test", "batch_size": 512},
 "checkpoint": {"every_steps": 0}, "report": {"every_steps": 100}}
JSON
  rm -rf "${out:?}/$1"
  "$worker" --spec "$work/$1.json" --run-dir "$out/$1" --threads 2 >/dev/null 2>"$work/err" || { cat "$work/err" >&2; return 1; }
}

# reached RUN THRESHOLD: training seconds (evaluation time left out) and wall at the first eval >= THRESHOLD.
reached() {
  $python - "$out/$1/metrics.jsonl" "$2" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
threshold = float(sys.argv[2]); eval_time = 0.0; last = 0.0
for l in lines:
    if l["type"] == "eval":
        eval_time += l["wall"] - last
        if l["mrr"] >= threshold:
            print(f'{l["wall"] - eval_time:.0f} {l["wall"]:.0f}'); break
    if l["type"] in ("metric", "eval"):
        last = l["wall"]
else:
    best = max((l["mrr"] for l in lines if l["type"] == "eval"), default=0)
    print(f'- - {best:.3f}')
PY
}

if [[ $only == all || $only == transh ]]; then
  echo "transh: TransH against TransE on the fused path, FB15k-237, batch 512, adam; samples/s with --threads 2"
  printf '%5s %4s %17s %5s %10s %10s %7s\n' dim neg loss norm transe transh ratio
  largest=""
  for dim in 100 200; do
    for neg in 8 128; do
      for loss in margin self_adversarial; do
        for norm in 1 2; do
          e=$(pair_rate transe $dim $neg $loss $norm) || status=1
          h=$(pair_rate transh $dim $neg $loss $norm) || status=1
          r=$($python -c "print(f'{$e / max($h, 1e-9):.2f}')")
          printf '%5s %4s %17s %5s %10s %10s %7s\n' $dim $neg $loss $norm "$e" "$h" "$r"
          if [[ -z $largest ]] || $python -c "import sys; sys.exit(0 if $r > $largest else 1)"; then
            largest=$r; where="dim $dim neg $neg $loss L$norm"
          fi
        done
      done
    done
  done
  echo "transh: largest TransE/TransH time ratio per sample $largest at $where (target <= 1.5 at every point)"
fi

if [[ $only == all || $only == quality ]]; then
  # The "TransE · FB15k-237" and "TransE · WN18RR" presets (docs/models.md).
  fb_model='{"type": "transe", "dim": 200, "norm": 2, "loss": "softmax", "negatives": 256, "normalize_entities": false}'
  fb_train="{\"epochs\": 100000, \"max_seconds\": $budget, \"batch_size\": 256, \"optimizer\": \"adam\", \"lr\": 0.001"
  wn_model='{"type": "transe", "dim": 200, "norm": 1, "loss": "self_adversarial", "margin": 6, "temperature": 1, "negatives": 128, "normalize_entities": false}'
  wn_train="{\"epochs\": 100000, \"max_seconds\": $budget, \"batch_size\": 512, \"optimizer\": \"adam\", \"lr\": 0.001"
  # The autograd reference on WN18RR only with TRAINYARD_BENCH_KG_FULL=1
  # (it adds a whole budget to `make bench`).
  for engine in fused autograd; do
    quality_run "fb15k237-transe-$engine" "$fb" "$fb_model" "$fb_train, \"engine\": \"$engine\"}" 2 || status=1
    if [[ -f $wn/train.txt && ($engine == fused || ${TRAINYARD_BENCH_KG_FULL:-0} == 1) ]]; then
      quality_run "wn18rr-transe-$engine" "$wn" "$wn_model" "$wn_train, \"engine\": \"$engine\"}" 5 || status=1
    fi
  done
  for pair in "fb15k237-transe 0.25" "fb15k237-transe 0.30" "wn18rr-transe 0.20"; do
    # shellcheck disable=SC2086 # a pair is two words on purpose
    set -- $pair
    [[ -d $out/$1-fused ]] || continue
    read -r ft fw fbest <<< "$(reached "$1-fused" "$2")"
    at=""; aw=""; abest=""
    [[ -d $out/$1-autograd ]] && read -r at aw abest <<< "$(reached "$1-autograd" "$2")"
    if [[ $ft == - ]]; then
      echo "time to MRR $2 on $1: fused not reached in $budget s (best ${fbest})${at:+; autograd best ${abest:-$at}}"
    elif [[ -z $at ]]; then
      echo "time to MRR $2 on $1: fused ${ft} s training (${fw} s wall with evaluations)"
    elif [[ $at == - ]]; then
      echo "time to MRR $2 on $1: fused ${ft} s training (${fw} s wall with evaluations); autograd not reached in $budget s (best $abest): ratio > $($python -c "print(f'{$budget / $ft:.1f}')")"
    else
      echo "time to MRR $2 on $1: fused ${ft} s training (${fw} s wall), autograd ${at} s (${aw} s): ratio $($python -c "print(f'{$at / $ft:.2f}')")"
    fi
  done
  if [[ -x $build/bin/trainyard-plot ]]; then
    QT_QPA_PLATFORM=offscreen "$build/bin/trainyard-plot" --metric mrr --output "$out/time-to-quality.png" "$out"/*-fused "$out"/*-autograd \
      && echo "MRR over time: $out/time-to-quality.png"
  fi
fi
exit $status
