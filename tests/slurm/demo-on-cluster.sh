#!/usr/bin/env bash
# The built-in demo's knowledge-graph runs (TransE ×2, TransH ×3, SACN ×4)
# on the test cluster's partition, from `trainyard run`: the demo file with
# its three knowledge-graph lanes turned into lanes of "slurm:test/debug"
# (two fake GPUs for three lanes, so one lane's job waits for Resources) and
# its Fashion-MNIST lane left out. Exit 0 only when 9 of 9 finished with their curves; 77
# (skip) where the cluster cannot run.
#   tests/slurm/demo-on-cluster.sh TRAINYARD WORKER
set -euo pipefail
trainyard=${1:?usage: demo-on-cluster.sh TRAINYARD WORKER}
worker=${2:?usage: demo-on-cluster.sh TRAINYARD WORKER}
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'bash "$here/stop-cluster.sh" "$work/cluster" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

status=0
bash "$here/start-cluster.sh" "$work/cluster" || status=$?
((status == 0)) || exit $status
export SLURM_CONF=$work/cluster/slurm.conf

python3 "$here/demo-cluster-experiment.py" "$source_dir/resources/demo.json" "$work/demo-cluster.json" "$work/runs" "$worker"

# --trust: the file names its cluster's worker, a command (docs/python.md#trust).
"$trainyard" run "$work/demo-cluster.json" --cpu-fallback --trust | tee "$work/out.txt"
grep -q '^9 of 9 finished$' "$work/out.txt"
# Each run's curve came from its metrics.jsonl on the "shared" filesystem,
# and Slurm ran it: its worker.log is the job's output.
for dir in "$work"/runs/*/; do
  grep -q '"type":"metric"' "$dir/metrics.jsonl"
  grep -q 'cpu-fallback: training on the CPU' "$dir/metrics.jsonl" || { echo "no fallback note in $dir/metrics.jsonl"; exit 1; }
done
if squeue --noheader --states=PENDING,RUNNING,COMPLETING | grep -q .; then
  echo "jobs left in the queue:"; squeue; exit 1
fi
echo "demo-on-cluster: 9 of 9 finished on slurm:test/debug"
