#!/usr/bin/env bash
# The README's screenshot of cluster lanes: the demo's KG runs (epochs x200,
# so they train long enough to be seen) on the test cluster, the app under
# Xvfb grabbing the board while two jobs train and others wait, then
# training all nine to the end through the GUI (exit 0 only if 9 of 9
# finished; a few minutes on 2 cores, SACN being the slowest).
#   tests/slurm/screenshot-cluster.sh BUILD OUTDIR     (as root)
set -euo pipefail
build=$(cd "${1:?usage: screenshot-cluster.sh BUILD OUTDIR}" && pwd)
out=$(mkdir -p "${2:?usage: screenshot-cluster.sh BUILD OUTDIR}" && cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'bash "$here/stop-cluster.sh" "$work/cluster" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
bash "$here/start-cluster.sh" "$work/cluster"
export SLURM_CONF=$work/cluster/slurm.conf
python3 "$here/demo-cluster-experiment.py" "$source_dir/resources/demo.json" "$work/demo-cluster.json" \
  "$work/runs" "$build/bin/trainyard-worker" 200
# A fresh profile: no recent files, no remembered plot settings.
export HOME=$work/home XDG_DATA_HOME=$work/home/data XDG_CONFIG_HOME=$work/home/config XDG_CACHE_HOME=$work/home/cache
export TRAINYARD_WORKER=$build/bin/trainyard-worker
xvfb-run -a -s "-screen 0 1600x1000x24" "$build/bin/trainyard-screenshots" --cluster "$work/demo-cluster.json" "$out"
