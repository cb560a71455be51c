#!/usr/bin/env bash
# The one-to-all models (run by `make bench`): SACN and Conv-TransE with their
# defaults (batch 128, Adam 0.003) on FB15k-237 and WN18RR, the worker's time
# per batch against a plain PyTorch implementation of the same model
# (bench/worker/sacn_ref.py) on the same two threads, as seconds per epoch and
# their ratio (target >= 3 for SACN). SACN's reference is timed twice, with
# its GCN as the SACN authors wrote it (torch.sparse.mm) and as message
# passing (index_select + index_add), and the ratio is against the faster.
# The worker runs its autograd steps with short spin-waits of its two thread
# pools (core/worker/train/worker.cpp); the faster reference is timed again
# with the same settings, and that ratio is printed too.
# TRAINYARD_BENCH_ONETOALL_STEPS sets the timed batches (default 8, after 3).
set -uo pipefail
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
worker="$build/bin/trainyard-worker"
python=${TRAINYARD_BENCH_PYTHON:-/usr/bin/python3}
shared=${TRAINYARD_SHARED_DATA:-$here/../../../shared/data}
steps=${TRAINYARD_BENCH_ONETOALL_STEPS:-8}
warmup=3
threads=2
batch=128
lr=0.003
export OPENBLAS_NUM_THREADS=$threads
work=$(mktemp -d /tmp/trainyard-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
status=0

[[ -x $worker ]] || { echo "bench-onetoall: $worker not built"; exit 1; }
# shellcheck source=/dev/null
source "$here/../blas-core.sh"
match_worker_blas "$worker"
$python -c "import torch" 2>/dev/null || { echo "bench-onetoall: SKIP: $python has no torch (install python3-torch)"; exit 0; }

# worker_time MODEL DATA: seconds per batch after the warm-up.
worker_time() {
  cat > "$work/spec.json" <<JSON
{"name": "bench-$1", "model": {"type": "$1"}, "data": {"kind": "kg", "path": "$2"},
 "train": {"max_steps": $((steps + warmup)), "epochs": 100, "batch_size": $batch, "optimizer": "adam", "lr": $lr},
 "eval": {"every_epochs": 0}, "checkpoint": {"every_steps": 0}, "report": {"every_steps": 1}}
JSON
  rm -rf "$work/run"
  "$worker" --spec "$work/spec.json" --run-dir "$work/run" --threads $threads >/dev/null 2>"$work/err" \
    || { cat "$work/err" >&2; return 1; }
  $python - "$work/run/metrics.jsonl" "$warmup" <<'PY'
import json, sys
m = [l for l in map(json.loads, open(sys.argv[1])) if l["type"] == "metric"]
a = next(l for l in m if l["step"] == int(sys.argv[2])); b = m[-1]
print(f'{(b["wall"] - a["wall"]) / (b["step"] - a["step"]):.4f}')
PY
}

for data in FB15k-237 WN18RR; do
  folder="$shared/kg/$data"
  if [[ ! -f $folder/train.txt ]]; then
    echo "bench-onetoall: SKIP $data: $folder/train.txt is absent (set TRAINYARD_SHARED_DATA)"
    continue
  fi
  for model in sacn conv-transe; do
    w=$(worker_time $model "$folder") || { status=1; continue; }
    styles=gather
    [[ $model == sacn ]] && styles="sparse gather"
    best=; fastest=; keys=; refs=
    for style in $styles; do
      read -r t keys < <($python "$here/sacn_ref.py" "$folder" $model "$style" "$steps" $warmup $batch $lr $threads)
      refs+="${refs:+, }$style $t"
      if [[ -z $best ]] || $python -c "import sys; sys.exit(not $t < $best)"; then best=$t; fastest=$style; fi
    done
    read -r same _ < <(GOMP_SPINCOUNT=10000 OPENBLAS_THREAD_TIMEOUT=4 \
      $python "$here/sacn_ref.py" "$folder" $model "$fastest" "$steps" $warmup $batch $lr $threads)
    $python - "$model" "$data" "$w" "$best" "$keys" "$refs" $batch "$same" <<'PY'
import math, sys
model, data, w, ref, keys, refs = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
batch, same = int(sys.argv[7]), float(sys.argv[8])
batches = math.ceil(keys / batch)
target = " (target >= 3)" if model == "sacn" else ""
print(f"{model} {data} batch {batch}: worker {w:.3f} s/batch = {w * batches:.0f} s/epoch; "
      f"python ({refs} s/batch) {ref * batches:.0f} s/epoch; ratio {ref / w:.2f}{target}; "
      f"against the reference with short spin-waits {same:.3f} s/batch: {same / w:.2f}")
PY
  done
done
exit $status
