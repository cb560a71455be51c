#!/usr/bin/env bash
# Worker benchmarks (run by `make bench`):
#  1. TransE on FB15k-237: worker vs a plain PyTorch loop, samples/s ratio (target >= 1.5)
#  2. mnist-cnn on Fashion-MNIST: worker vs plain PyTorch, samples/s ratio (target >= 1.0)
#  3. worker reporting every step vs reporting off: overhead % (target <= 2)
# Both sides use one CPU thread, the same hyperparameters and the same number
# of timed steps after the same warm-up. The Python side is Debian's
# /usr/bin/python3 with python3-torch (the LibTorch of libtorch-dev).
set -uo pipefail
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
worker="$build/bin/trainyard-worker"
python=${TRAINYARD_BENCH_PYTHON:-/usr/bin/python3}
# TRAINYARD_BENCH_DEVICE=cuda:0 compares both sides on a GPU (bench/gpu/run-gpu-checks.sh).
device=${TRAINYARD_BENCH_DEVICE:-cpu}
# Opt-in speed options of the CNN comparison, given to BOTH sides (the worker's
# train.amp / train.channels_last, torch.autocast / torch.channels_last in the
# Python loop): TRAINYARD_BENCH_AMP=off|bf16, TRAINYARD_BENCH_CHANNELS_LAST=0|1.
# TRAINYARD_BENCH_ONLY=transe|cnn runs one part; TRAINYARD_BENCH_CNN_STEPS
# shortens the CNN comparison (a quick sanity run; default 200 timed steps).
amp=${TRAINYARD_BENCH_AMP:-off}
channels_last=${TRAINYARD_BENCH_CHANNELS_LAST:-0}
only=${TRAINYARD_BENCH_ONLY:-all}
case $amp in off|bf16) ;; *) echo "bench-worker: TRAINYARD_BENCH_AMP must be off or bf16, got $amp"; exit 2 ;; esac
case $channels_last in 0|1) ;; *) echo "bench-worker: TRAINYARD_BENCH_CHANNELS_LAST must be 0 or 1"; exit 2 ;; esac
case $only in all|transe|cnn) ;; *) echo "bench-worker: TRAINYARD_BENCH_ONLY must be all, transe or cnn"; exit 2 ;; esac
export TRAINYARD_BENCH_AMP=$amp TRAINYARD_BENCH_CHANNELS_LAST=$channels_last
# torch.set_num_threads(1) does not reach OpenBLAS; the worker sets both.
export OPENBLAS_NUM_THREADS=1
shared=${TRAINYARD_SHARED_DATA:-$here/../../../shared/data}
fb="$shared/kg/FB15k-237"
fashion=${FASHION_DIR:-/usr/share/datasets/fashion-mnist}
work=$(mktemp -d /tmp/trainyard-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
status=0

[[ -x $worker ]] || { echo "bench-worker: $worker not built"; exit 1; }
# shellcheck source=/dev/null
source "$here/../blas-core.sh"
match_worker_blas "$worker"
have_python=1
$python -c "import torch" 2>/dev/null || { echo "bench-worker: SKIP Python references: $python has no torch (install python3-torch)"; have_python=0; }

# worker_rate SPEC WARMUP: samples/s between the metric at step WARMUP and the last one.
worker_rate() {
  rm -rf "$work/run"
  "$worker" --spec "$1" --run-dir "$work/run" --threads 1 --device "$device" >/dev/null 2>"$work/err" || { cat "$work/err"; return 1; }
  $python - "$work/run/metrics.jsonl" "$2" "$3" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
m = [l for l in lines if l["type"] == "metric"]
w = int(sys.argv[2]); batch = int(sys.argv[3])
a = next(l for l in m if l["step"] == w); b = m[-1]
print(f'{(b["step"] - a["step"]) * batch / (b["wall"] - a["wall"]):.1f}')
PY
}

ratio() { $python -c "print(f'{$1 / $2:.2f}')"; }

steps=300; warmup=50
if [[ $only == cnn ]]; then
  : # TRAINYARD_BENCH_ONLY=cnn
elif [[ -f $fb/train.txt ]]; then
  batch=512; dim=100; neg=8; margin=4.0; lr=0.005
  cat > "$work/transe.json" <<JSON
{"name": "bench-transe", "model": {"type": "transe", "dim": $dim, "norm": 1, "margin": $margin, "negatives": $neg,
 "sampling": "bern", "normalize_entities": true},
 "data": {"kind": "kg", "path": "$fb"},
 "train": {"max_steps": $((steps + warmup)), "epochs": 100, "batch_size": $batch, "optimizer": "adam", "lr": $lr},
 "eval": {"every_epochs": 0}, "checkpoint": {"every_steps": 0}, "report": {"every_steps": 50}}
JSON
  w=$(worker_rate "$work/transe.json" $warmup $batch) || status=1
  if ((have_python)); then
    p=$($python "$here/transe_ref.py" "$fb" $steps $warmup $batch $dim $neg $margin $lr)
    echo "transe FB15k-237: worker $w samples/s, python $p samples/s, ratio $(ratio "$w" "$p") (target >= 1.5)"
  else
    echo "transe FB15k-237: worker $w samples/s"
  fi

  # Reporting overhead: the same 400 steps with a metric line every step vs
  # none, timed from the data-loaded log line to the final checkpoint line
  # (both present either way); best of three each, interleaved.
  on=(); off=()
  for every in 1 0 1 0 1 0; do
    sed "s/\"report\": {\"every_steps\": 50}/\"report\": {\"every_steps\": $every}/; s/\"max_steps\": $((steps + warmup))/\"max_steps\": 400/" \
      "$work/transe.json" > "$work/report.json"
    rm -rf "$work/run"
    "$worker" --spec "$work/report.json" --run-dir "$work/run" --threads 1 >/dev/null 2>&1
    t=$($python - "$work/run/metrics.jsonl" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
start = next(l["wall"] for l in lines if l["type"] == "log" and l["text"].startswith("data:"))
end = [l["wall"] for l in lines if l["type"] == "checkpoint"][-1]
print(end - start)
PY
)
    if [[ $every == 1 ]]; then on+=("$t"); else off+=("$t"); fi
  done
  $python -c "
on = min(${on[0]}, ${on[1]}, ${on[2]}); off = min(${off[0]}, ${off[1]}, ${off[2]})
print(f'reporting every step vs off (400 TransE steps on FB15k-237): {on:.3f} s vs {off:.3f} s, overhead {100 * (on - off) / off:.1f}% (target <= 2)')"
else
  echo "bench-worker: SKIP TransE: $fb/train.txt is absent (set TRAINYARD_SHARED_DATA)"
fi

if [[ $only == transe ]]; then
  : # TRAINYARD_BENCH_ONLY=transe
elif [[ -f $fashion/train-images-idx3-ubyte.gz ]]; then
  batch=64; lr=0.001; steps=${TRAINYARD_BENCH_CNN_STEPS:-200}; warmup=20
  cl=false; ((channels_last)) && cl=true
  options="amp=$amp channels_last=$cl"
  cat > "$work/cnn.json" <<JSON
{"name": "bench-cnn", "model": {"type": "mnist-cnn"}, "data": {"kind": "idx", "path": "$fashion", "valid_size": 5000},
 "train": {"max_steps": $((steps + warmup)), "epochs": 10, "batch_size": $batch, "optimizer": "adam", "lr": $lr,
           "amp": "$amp", "channels_last": $cl},
 "eval": {"every_epochs": 0}, "checkpoint": {"every_steps": 0}, "report": {"every_steps": 20}}
JSON
  w=$(worker_rate "$work/cnn.json" $warmup $batch) || status=1
  if ((have_python)); then
    p=$($python "$here/cnn_ref.py" "$fashion" "$steps" "$warmup" "$batch" "$lr")
    echo "mnist-cnn Fashion-MNIST ($options): worker $w samples/s, python $p samples/s, ratio $(ratio "$w" "$p") (target >= 1.0)"
  else
    echo "mnist-cnn Fashion-MNIST ($options): worker $w samples/s"
  fi
else
  echo "bench-worker: SKIP mnist-cnn: $fashion is absent (install dataset-fashion-mnist)"
fi
exit $status
