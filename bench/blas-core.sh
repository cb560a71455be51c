# shellcheck shell=bash
# Sourced by the benches that time a Python reference. On a CPU OpenBLAS
# does not know, the worker runs with kernels of its own choosing
# (core/worker/base/blascore.h); match_worker_blas exports them so that the
# reference, and every worker after, runs with the same ones.
match_worker_blas() { # WORKER
  [[ -n ${OPENBLAS_CORETYPE:-} ]] && return 0
  local dir core
  dir=$(mktemp -d /tmp/trainyard-blas.XXXXXX)
  printf '%s\n' '{"model": {"type": "transe", "dim": 8}, "train": {"max_steps": 1}, "eval": {"every_epochs": 0},
    "data": {"kind": "synthetic-kg", "entities": 30, "relations": 2, "triples": 300}}' > "$dir/spec.json"
  "$1" --spec "$dir/spec.json" --run-dir "$dir/run" >/dev/null 2>&1
  core=$(grep -o 'OpenBLAS kernels [A-Za-z0-9]* instead' "$dir/run/metrics.jsonl" 2>/dev/null | head -1 | cut -d' ' -f3)
  rm -rf "$dir"
  if [[ -n $core ]]; then
    export OPENBLAS_CORETYPE=$core
    echo "bench: OpenBLAS does not know this CPU: the worker and the Python references run with its $core kernels"
  fi
}
