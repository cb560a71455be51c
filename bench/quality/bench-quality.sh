#!/usr/bin/env bash
# Model quality with the model defaults only (run by `make bench`): every
# KG model x FB15k-237, WN18RR, UMLS, Kinship, each a spec of just
# {"model": {"type": M}, "data": the folder, "eval": {"split": "test"}},
# the two large sets with train.max_seconds 600, the small ones to their
# epochs, --threads 2. Prints one table: the last test evaluation (the one
# at the end of training; never the best of the periodic ones, which would
# pick on the test split), wall, epochs, the recipe "auto" chose, and the
# published reference (../shared/data/kg/SOURCES.md).
# TRAINYARD_BENCH_QUALITY_MODELS (default "transe transh conv-transe sacn"),
# TRAINYARD_BENCH_QUALITY_DATA (default "FB15k-237 WN18RR UMLS Kinship") and
# TRAINYARD_BENCH_QUALITY_BUDGET (default 600 s) narrow or change it. The
# whole table takes hours on two cores: run it with nothing else running.
set -uo pipefail
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
worker="$build/bin/trainyard-worker"
python=${TRAINYARD_BENCH_PYTHON:-/usr/bin/python3}
models=${TRAINYARD_BENCH_QUALITY_MODELS:-transe transh conv-transe sacn}
datasets=${TRAINYARD_BENCH_QUALITY_DATA:-FB15k-237 WN18RR UMLS Kinship}
budget=${TRAINYARD_BENCH_QUALITY_BUDGET:-600}
shared=${TRAINYARD_SHARED_DATA:-$here/../../../shared/data}
out=${TRAINYARD_BENCH_OUT:-$build/bench-quality}
mkdir -p "$out"
status=0
[[ -x $worker ]] || { echo "bench-quality: $worker not built"; exit 1; }

# The published filtered test MRR of MODEL on DATA, and where it is from.
reference() {
  case "$1 $2" in
    "transe FB15k-237") echo "0.313 LibKGE" ;;
    "transe WN18RR") echo "0.228 LibKGE" ;;
    "transe UMLS") echo "0.859 ZhuChaoY" ;;
    "transe Kinship") echo "0.452 ZhuChaoY" ;;
    "transh FB15k-237") echo "0.326 ZhuChaoY" ;;
    "transh WN18RR") echo "0.195 ZhuChaoY" ;;
    "transh UMLS") echo "0.862 ZhuChaoY" ;;
    "transh Kinship") echo "0.530 ZhuChaoY" ;;
    "conv-transe FB15k-237") echo "0.33 SACN-paper" ;;
    "conv-transe WN18RR") echo "0.46 SACN-paper" ;;
    "sacn FB15k-237") echo "0.35 SACN-paper" ;;
    "sacn WN18RR") echo "0.47 SACN-paper" ;;
    *) echo "- -" ;;
  esac
}

rows="$out/table.txt"
: > "$rows"
for data in $datasets; do
  dir="$shared/kg/$data"
  if [[ ! -f $dir/train.txt ]]; then
    echo "bench-quality: SKIP $data: $dir/train.txt is absent (set TRAINYARD_SHARED_DATA)"
    continue
  fi
  train='{}'
  case $data in FB15k-237|WN18RR) train="{\"max_seconds\": $budget}" ;; esac
  for model in $models; do
    name="$model-$data"
    cat > "$out/$name.json" <<JSON
{"name": "$name", "model": {"type": "$model"}, "data": {"kind": "kg", "path": "$dir"},
 "train": $train, "eval": {"split": "test"}}
JSON
    rm -rf "${out:?}/$name"
    echo "bench-quality: $name ($(date -u +%H:%M:%S))"
    if ! "$worker" --spec "$out/$name.json" --run-dir "$out/$name" --threads 2 >/dev/null 2>"$out/$name.err"; then
      echo "bench-quality: $name failed: $(tail -1 "$out/$name.err")"
      status=1
    fi
    read -r ref source <<< "$(reference "$model" "$data")"
    $python - "$out/$name/metrics.jsonl" "$model" "$data" "$ref" "$source" >> "$rows" <<'PY'
import json, sys
path, model, data, ref, source = sys.argv[1:]
try:
    lines = [json.loads(l) for l in open(path)]
except OSError:
    lines = []
evals = [l for l in lines if l.get("type") == "eval" and l.get("split") == "test"]
recipe = next((l["recipe"] for l in lines if l.get("type") == "log" and "recipe" in l), "-")
done = next((l for l in lines if l.get("type") == "done"), {})
last = evals[-1] if evals else {}
def f(key):
    return f'{last[key]:.3f}' if key in last else "-"
wall = done.get("wall", lines[-1]["wall"] if lines else 0)
print(f'{model:12} {data:10} {recipe:13} {f("mrr"):>6} {f("hits@1"):>6} {f("hits@10"):>7} '
      f'{last.get("epoch", "-"):>6} {wall:7.0f} {ref:>6} {source}')
PY
  done
done
echo "quality with model defaults only (--threads 2; large sets max_seconds $budget, small ones to their epochs; last test evaluation)"
printf '%-12s %-10s %-13s %6s %6s %7s %6s %7s %6s %s\n' model data recipe MRR H@1 H@10 epochs wall_s ref source
cat "$rows"
exit $status
