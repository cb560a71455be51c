#!/usr/bin/env bash
# The GPU checks, as one script for a short lease on a CUDA machine
# (no Qt there): builds trainyard-worker alone against the machine's CUDA
# LibTorch (a pip torch's cmake prefix), runs the GPU test set, the speed
# comparison against the plain PyTorch loop on the same GPU, and time-boxed
# quality runs on the full benchmarks. Everything lands in $OUT (default
# /tmp/gpu-out): summary.txt, the build and test logs, and quality-runs.tar.gz
# (spec, metrics.jsonl and worker log of every quality run).
#
#   DATA=.gpu/data OUT=/tmp/out bash bench/gpu/run-gpu-checks.sh
#
# DATA holds kg.tar.gz (FB15k-237, WN18RR, ...) and the Fashion-MNIST .gz
# files; .gpu/ may also hold nlohmann_json (include/, share/cmake/) and zlib
# headers for machines without them. QUALITY_SECONDS bounds each quality run.
# Preparing .gpu/ here (it is ignored through .git/info/exclude, ~36 MB):
#   echo /.gpu/ >> .git/info/exclude; mkdir -p .gpu/include .gpu/share/cmake .gpu/data
#   cp -r /usr/include/nlohmann /usr/include/zlib.h /usr/include/zconf.h .gpu/include/
#   cp -r /usr/share/cmake/nlohmann_json .gpu/share/cmake/
#   (cd ../shared/data/kg && tar czf - FB15k-237 WN18RR UMLS Kinship) > .gpu/data/kg.tar.gz
#   cp /usr/share/datasets/fashion-mnist/*.gz .gpu/data/
# then, with the device tool: run `DATA=.gpu/data OUT=$OUT bash bench/gpu/run-gpu-checks.sh`
# carrying [".gpu"], timeout 600 s.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
out=${OUT:-/tmp/gpu-out}
data=${DATA:-$top/.gpu/data}
quality_seconds=${QUALITY_SECONDS:-200}
mkdir -p "$out"
summary=$out/summary.txt
say() { echo "$*" | tee -a "$summary"; }
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 ))s; }

say "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$summary"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' | tee -a "$summary"

say "== data ($(elapsed))"
work=/tmp/trainyard-gpu
mkdir -p "$work/kg" "$work/fashion"
tar xzf "$data/kg.tar.gz" -C "$work/kg"
cp "$data"/*-ubyte.gz "$work/fashion/"
find "$work/kg" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort | tee -a "$summary"

say "== build ($(elapsed))"
prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
extra=()
if [[ ! -f /usr/include/zlib.h && -f $top/.gpu/include/zlib.h ]]; then
  libz=$(find /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu -maxdepth 1 -name 'libz.so*' 2>/dev/null | sort | head -1)
  extra+=(-DZLIB_INCLUDE_DIR="$top/.gpu/include" -DZLIB_LIBRARY="$libz")
fi
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRAINYARD_WORKER_ONLY=ON \
  -DCMAKE_PREFIX_PATH="$prefix;$top/.gpu" -DTORCH_CUDA_ARCH_LIST=9.0 "${extra[@]}" >"$out/configure.log" 2>&1 \
  || { say "configure failed"; tail -40 "$out/configure.log"; exit 1; }
cmake --build build-gpu -j "$(nproc)" --target trainyard-worker tst_gpu tst_protocol tst_fusedkg >"$out/build.log" 2>&1 \
  || { say "build failed"; grep -m 20 -B2 -A8 'error' "$out/build.log"; exit 1; }
worker=$top/build-gpu/bin/trainyard-worker
"$worker" --version | tee -a "$summary"

say "== GPU test set ($(elapsed))"
TRAINYARD_WORKER=$worker build-gpu/bin/tst_gpu >"$out/tst_gpu.log" 2>&1
tail -1 "$out/tst_gpu.log" | tee -a "$summary"
grep -E "FAIL|check failed" "$out/tst_gpu.log" | head -20 | tee -a "$summary"

say "== fused CPU path and sparse row optimizers against this LibTorch ($(elapsed))"
# tst_fusedkg compares the fused kernel with the autograd path (CPU) under the
# machine's LibTorch 2.x; then one FB15k-237 TransE run of each engine on the
# GPU side: the autograd path with its sparse row updates on cuda:0.
build-gpu/bin/tst_fusedkg >"$out/tst_fusedkg.log" 2>&1
tail -1 "$out/tst_fusedkg.log" | tee -a "$summary"
for loss in softmax self_adversarial; do
  cat >"$work/sparse-$loss.json" <<JSON
{"name": "sparse-$loss", "model": {"type": "transe", "dim": 200, "norm": 2, "loss": "$loss", "negatives": 256,
 "normalize_entities": false}, "data": {"kind": "kg", "path": "$work/kg/FB15k-237"},
 "train": {"epochs": 1000, "max_seconds": 60, "batch_size": 1024, "lr": 0.001},
 "eval": {"every_epochs": 1000, "split": "test"}, "checkpoint": {"every_steps": 0}, "report": {"every_steps": 100}}
JSON
  "$worker" --spec "$work/sparse-$loss.json" --run-dir "$work/sparse-$loss" --device cuda:0 >"$out/sparse-$loss.log" 2>&1
  python3 - "$work/sparse-$loss/metrics.jsonl" "$loss" <<'PY' | tee -a "$summary"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
m = [l for l in lines if l["type"] == "metric"]; e = [l for l in lines if l["type"] == "eval"]
rate = sum(l.get("samples_per_s", 0) for l in m[1:]) / max(1, len(m) - 1)
print(f"cuda:0 TransE {sys.argv[2]} 60 s: {m[-1]['step']} steps, {rate:.0f} samples/s, test MRR {e[-1]['mrr']:.3f}" if e else "no eval")
PY
done

say "== speed on the GPU: worker vs the plain PyTorch loop ($(elapsed))"
TRAINYARD_BENCH_DEVICE=cuda:0 TRAINYARD_BENCH_PYTHON=python3 TRAINYARD_SHARED_DATA=$work \
  FASHION_DIR=$work/fashion bash bench/worker/bench-worker.sh build-gpu 2>&1 | tee -a "$summary"
say "== CNN speed again with bf16 autocast + channels-last on both sides ($(elapsed))"
# The bench has no SACN comparison yet, so only the CNN is measured this way.
TRAINYARD_BENCH_ONLY=cnn TRAINYARD_BENCH_AMP=bf16 TRAINYARD_BENCH_CHANNELS_LAST=1 \
  TRAINYARD_BENCH_DEVICE=cuda:0 TRAINYARD_BENCH_PYTHON=python3 TRAINYARD_SHARED_DATA=$work \
  FASHION_DIR=$work/fashion bash bench/worker/bench-worker.sh build-gpu 2>&1 | tee -a "$summary"

say "== quality runs, ${quality_seconds}s each, side by side ($(elapsed))"
# Each run trains until the time box, is stopped (checkpoint, exit 4), and is
# resumed with max_steps at its last step, which ends training at once and
# runs the final evaluation on the test split.
quality() { # NAME SPEC_JSON
  local name=$1 dir=$work/q-$1
  mkdir -p "$dir"
  echo "$2" >"$dir/spec.json"
  ( "$worker" --spec "$dir/spec.json" --run-dir "$dir/run" --device cuda:0 >"$dir/worker.log" 2>&1 &
    pid=$!
    for ((s = 0; s < quality_seconds; ++s)); do kill -0 $pid 2>/dev/null || break; sleep 1; done
    if kill -0 $pid 2>/dev/null; then
      kill -TERM $pid; wait $pid
      step=$(grep '"type":"metric"' "$dir/run/metrics.jsonl" | tail -1 | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["step"])')
      python3 - "$dir/spec.json" "$step" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1])); spec["train"]["max_steps"] = int(sys.argv[2]) + 1
json.dump(spec, open(sys.argv[1].replace("spec.json", "spec-final.json"), "w"))
PY
      "$worker" --spec "$dir/spec-final.json" --run-dir "$dir/run" --device cuda:0 --resume >>"$dir/worker.log" 2>&1
    else
      wait $pid
    fi ) &
}
kg=$work/kg
eval_test='"eval": {"every_epochs": 0, "split": "test"}, "checkpoint": {"every_steps": 2000}, "report": {"every_steps": 100}'
quality transe-fb15k237 "{\"name\": \"transe-fb15k237\", \"model\": {\"type\": \"transe\", \"dim\": 200, \"norm\": 1, \"margin\": 4.0, \"negatives\": 32}, \"data\": {\"kind\": \"kg\", \"path\": \"$kg/FB15k-237\"}, \"train\": {\"epochs\": 100000, \"batch_size\": 2048, \"optimizer\": \"adam\", \"lr\": 0.001}, $eval_test}"
quality transh-fb15k237 "{\"name\": \"transh-fb15k237\", \"model\": {\"type\": \"transh\", \"dim\": 200, \"margin\": 4.0, \"negatives\": 32}, \"data\": {\"kind\": \"kg\", \"path\": \"$kg/FB15k-237\"}, \"train\": {\"epochs\": 100000, \"batch_size\": 2048, \"optimizer\": \"adam\", \"lr\": 0.001}, $eval_test}"
quality transe-wn18rr "{\"name\": \"transe-wn18rr\", \"model\": {\"type\": \"transe\", \"dim\": 200, \"norm\": 1, \"margin\": 4.0, \"negatives\": 32}, \"data\": {\"kind\": \"kg\", \"path\": \"$kg/WN18RR\"}, \"train\": {\"epochs\": 100000, \"batch_size\": 2048, \"optimizer\": \"adam\", \"lr\": 0.001}, $eval_test}"
quality sacn-fb15k237 "{\"name\": \"sacn-fb15k237\", \"model\": {\"type\": \"sacn\"}, \"data\": {\"kind\": \"kg\", \"path\": \"$kg/FB15k-237\"}, \"train\": {\"epochs\": 100000, \"batch_size\": 128, \"optimizer\": \"adam\", \"lr\": 0.003}, $eval_test}"
quality convtranse-fb15k237 "{\"name\": \"convtranse-fb15k237\", \"model\": {\"type\": \"conv-transe\"}, \"data\": {\"kind\": \"kg\", \"path\": \"$kg/FB15k-237\"}, \"train\": {\"epochs\": 100000, \"batch_size\": 128, \"optimizer\": \"adam\", \"lr\": 0.003}, $eval_test}"
quality cnn-fashion "{\"name\": \"cnn-fashion\", \"model\": {\"type\": \"mnist-cnn\"}, \"data\": {\"kind\": \"idx\", \"path\": \"$work/fashion\"}, \"train\": {\"epochs\": 15, \"batch_size\": 64, \"optimizer\": \"adam\", \"lr\": 0.001}, \"eval\": {\"every_epochs\": 0, \"split\": \"test\"}, \"checkpoint\": {\"every_steps\": 5000}, \"report\": {\"every_steps\": 100}}"
wait

say "== quality results ($(elapsed))"
for dir in "$work"/q-*; do
  name=$(basename "$dir" | sed 's/^q-//')
  python3 - "$name" "$dir/run/metrics.jsonl" <<'PY' | tee -a "$summary"
import json, sys
name, path = sys.argv[1], sys.argv[2]
try:
    lines = [json.loads(l) for l in open(path) if l.strip()]
except OSError:
    print(f"{name}: no metrics.jsonl"); sys.exit()
evals = [l for l in lines if l["type"] == "eval"]
metrics = [l for l in lines if l["type"] == "metric"]
done = [l for l in lines if l["type"] == "done"]
last = metrics[-1] if metrics else {}
e = evals[-1] if evals else {}
keys = ("mrr", "hits@1", "hits@3", "hits@10", "accuracy")
shown = " ".join(f"{k}={e[k]:.4f}" for k in keys if k in e)
print(f"{name}: split={e.get('split')} {shown} steps={last.get('step')} epoch={last.get('epoch')} "
      f"train_wall={last.get('wall', 0):.0f}s done={[d['status'] for d in done]}")
PY
done
# Few files come back from a lease: pack the records of every run in one.
mapfile -t quality_runs < <(cd "$work" && find . -mindepth 1 -maxdepth 1 -name 'q-*' -printf '%f\n' | sort)
tar czf "$out/quality-runs.tar.gz" -C "$work" --exclude=checkpoints "${quality_runs[@]}"
say "== total $(elapsed)"
